package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLineBytes bounds one inbound JSON-RPC line. A longer line is read to
// its end, dropped and answered with a parse error.
const MaxLineBytes = mcp.DefaultMaxLineLength

// lineTransport serves newline-delimited JSON-RPC over a reader and a
// writer (stdin and stdout), framing the lines itself.
//
// The SDK's own stdio connection ends the session on the first line it
// cannot decode — one stray line would end the server, and with --sandbox
// the desktop and its apps. Here every line is checked on its own: a line
// that is not JSON (invalid UTF-8 included), or longer than maxLine, is
// answered with a JSON-RPC parse error (-32700, id null); JSON that is not
// a JSON-RPC message object (a batch among them: MCP removed batches in
// 2025-06-18) with an invalid-request error (-32600). Either way the next
// line is served.
//
// Writing, a tool result held for the line (splice.go) is written into it
// in place of the placeholder the SDK encoded; any other successful
// response is framed around the result the SDK has already encoded,
// rather than encoded once more as a whole: a tree read's result is
// megabytes, and every encoding pass over it costs.
type lineTransport struct {
	in      io.Reader
	out     io.Writer
	maxLine int
	// splices holds the tool results of the requests served under
	// serveContext until they are written (splice.go).
	splices *splices
}

// serveContext returns ctx for serving the connection t makes: the tool
// results of the requests served under it leave spliced into their lines
// (splice.go).
func (t *lineTransport) serveContext(ctx context.Context) context.Context {
	if t.splices == nil {
		t.splices = &splices{}
	}
	return context.WithValue(ctx, splicesKey{}, t.splices)
}

func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{
		out:      &lineWriter{w: t.out},
		splices:  t.splices,
		incoming: make(chan jsonrpc.Message),
		eof:      make(chan struct{}),
		closed:   make(chan struct{}),
	}
	go c.readLoop(t.in, t.maxLine)
	return c, nil
}

// lineConn is the connection lineTransport makes.
type lineConn struct {
	out      *lineWriter
	splices  *splices // nil: results are the SDK's to encode
	incoming chan jsonrpc.Message
	eof      chan struct{} // closed when the input ends; readErr says how
	readErr  error
	closed   chan struct{}
	once     sync.Once
}

func (c *lineConn) SessionID() string { return "" }

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case m := <-c.incoming:
		return m, nil
	case <-c.eof:
		return nil, c.readErr
	case <-c.closed:
		return nil, io.EOF
	}
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	// A held result is taken first, so that it is not kept after a write
	// that does not happen.
	r, w, placeholder := c.held(msg)
	if err := ctx.Err(); err != nil {
		return err
	}
	switch {
	case placeholder && w != nil:
		return c.out.locked(func(out io.Writer) error { return writeLine(out, r.ID, w) })
	case placeholder:
		// Never sent as it is: the client would read a placeholder as the
		// result.
		_, err := c.out.Write(rpcError(r.ID.Raw(), jsonrpc.CodeInternalError, "Internal error: the result was lost before it was written"))
		return err
	}
	b, err := encodeLine(msg)
	if err != nil {
		return err
	}
	_, err = c.out.Write(b)
	return err
}

// held reports whether msg is a response whose result is a placeholder for
// a held one (splice.go), and takes that result (nil when it was lost).
func (c *lineConn) held(msg jsonrpc.Message) (*jsonrpc.Response, *wireResult, bool) {
	r, ok := msg.(*jsonrpc.Response)
	if !ok || c.splices == nil || r.Error != nil || !bytes.HasPrefix(r.Result, []byte(splicePrefix)) {
		return nil, nil, false
	}
	w, _ := c.splices.take(r.Result)
	return r, w, true
}

// Close stops reading. The input (stdin) cannot be unblocked portably: the
// reading goroutine ends with the input or the process, as the SDK's does.
func (c *lineConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

// appendResultHead appends a success response's line up to its result:
// `{"jsonrpc":"2.0","id":<id>,"result":`.
func appendResultHead(b []byte, id jsonrpc.ID) ([]byte, error) {
	idJSON, err := json.Marshal(id.Raw())
	if err != nil {
		return nil, err
	}
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, idJSON...)
	return append(b, `,"result":`...), nil
}

// encodeLine renders one message and its newline.
func encodeLine(msg jsonrpc.Message) ([]byte, error) {
	if r, ok := msg.(*jsonrpc.Response); ok && r.Error == nil && r.ID.IsValid() && len(r.Result) > 0 &&
		bytes.IndexByte(r.Result, '\n') < 0 {
		// The SDK encoded the result with encoding/json: compact, valid.
		b, err := appendResultHead(make([]byte, 0, len(r.Result)+64), r.ID)
		if err != nil {
			return nil, err
		}
		b = append(b, r.Result...)
		return append(b, "}\n"...), nil
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return nil, fmt.Errorf("encoding a JSON-RPC message: %w", err)
	}
	return append(b, '\n'), nil
}

// lineWriter serializes writes, so lines never interleave.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// locked runs write with the writer to itself: a line written in pieces.
func (l *lineWriter) locked(write func(io.Writer) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return write(l.w)
}

// readLoop hands well-formed messages to Read and answers the other lines.
// It ends at the end of the input, or when the connection is closed.
func (c *lineConn) readLoop(in io.Reader, maxLine int) {
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(br, maxLine)
		var reply []byte
		switch {
		case tooLong:
			reply = rpcError(nil, jsonrpc.CodeParseError, fmt.Sprintf("Parse error: a line longer than %d bytes was dropped", maxLine))
		case len(line) > 0:
			var msg jsonrpc.Message
			msg, reply = checkLine(line)
			if msg != nil {
				select {
				case c.incoming <- msg:
				case <-c.closed:
					return
				}
			}
		}
		if reply != nil {
			if _, werr := c.out.Write(reply); werr != nil {
				err = werr
			}
		}
		if err != nil {
			c.readErr = err
			close(c.eof)
			return
		}
	}
}

// readLine reads up to and without the next newline. A line longer than max
// is consumed to its end but not kept: tooLong reports it. err is the read
// error that ended the line (io.EOF at the end of the input), if any.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+1 { // +1: the newline
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSpace(line), tooLong, err
	}
}

// checkLine decides what becomes of one non-empty line: the message to
// hand to the SDK, or the error reply to send.
func checkLine(line []byte) (msg jsonrpc.Message, reply []byte) {
	if !utf8.Valid(line) {
		return nil, rpcError(nil, jsonrpc.CodeParseError, "Parse error: the line is not valid UTF-8")
	}
	if !json.Valid(line) {
		return nil, rpcError(nil, jsonrpc.CodeParseError, "Parse error: the line is not one JSON value")
	}
	if line[0] != '{' {
		return nil, rpcError(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: a message must be one JSON object (batches are not supported)")
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		// Answer under the request's id when it has a usable one, so a
		// client waiting on it is not left hanging.
		var probe struct {
			ID any `json:"id"`
		}
		_ = json.Unmarshal(line, &probe)
		id, idErr := jsonrpc.MakeID(probe.ID)
		if idErr != nil || !id.IsValid() {
			return nil, rpcError(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: not a JSON-RPC 2.0 request, notification or response")
		}
		return nil, rpcError(probe.ID, jsonrpc.CodeInvalidRequest, "Invalid Request: not a JSON-RPC 2.0 request, notification or response")
	}
	return msg, nil
}

// rpcError renders one JSON-RPC error response line. id nil is JSON null.
func rpcError(id any, code int, msg string) []byte {
	b, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	if err != nil { // an id from json.Unmarshal always marshals
		panic(err)
	}
	return append(b, '\n')
}
