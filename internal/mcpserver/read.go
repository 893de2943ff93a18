package mcpserver

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// read is a reading tool's handler: the arguments make the core's request
// (ask, which may refuse them), the core reads it in the session the
// arguments name (call, which checks the request, the session's identity
// and what it may read, as an action's core call does), and answer shapes
// the tool's result from the arguments and what was read.
func read[In interface{ session() string }, Req, R, Out any](ask func(In) (Req, error),
	call func(context.Context, string, Req) (R, error), answer func(In, R) Out) handlerFunc[In, Out] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, in In) (Out, error) {
		var none Out
		req, err := ask(in)
		if err != nil {
			return none, err
		}
		r, err := call(ctx, in.session(), req)
		if err != nil {
			return none, err
		}
		return answer(in, r), nil
	}
}

// readSession is read for a tool whose one argument is the session.
func readSession[In interface{ session() string }, R, Out any](call func(context.Context, string) (R, error),
	answer func(In, R) Out) handlerFunc[In, Out] {
	return read(func(In) (struct{}, error) { return struct{}{}, nil },
		func(ctx context.Context, session string, _ struct{}) (R, error) { return call(ctx, session) }, answer)
}

const truncatedNote = "the tree read was cut short (%s): elements may be missing, and a negative answer proves nothing; retry with a larger timeoutMs"

// joinNotes joins the notes that are not empty.
func joinNotes(notes ...string) string {
	var out []string
	for _, n := range notes {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, "; ")
}

// requestCheck is a read's precheck (run_steps): its arguments made into
// the core's request (ask) and the request checked as the core will check
// it, nothing read.
func requestCheck[R interface{ Validate() error }](req R, err error) error {
	if err != nil {
		return err
	}
	return req.Validate()
}
