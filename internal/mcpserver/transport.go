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
// the desktop and its apps. Here every line is checked before the SDK sees
// it: a line that is not JSON (invalid UTF-8 included), or longer than
// maxLine, is answered with a JSON-RPC parse error (-32700, id null); JSON
// that is not a JSON-RPC message object (a batch among them: MCP removed
// batches in 2025-06-18) with an invalid-request error (-32600). Either
// way the next line is served. Only well-formed messages reach the SDK,
// one per line, through a pipe.
type lineTransport struct {
	in      io.Reader
	out     io.Writer
	maxLine int
}

func (t *lineTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	pr, pw := io.Pipe()
	out := &lineWriter{w: t.out}
	go t.filter(pw, out)
	// The SDK's frame limit is ours already, enforced before the pipe.
	return (&mcp.IOTransport{Reader: pr, Writer: out, MaxLineLength: -1}).Connect(ctx)
}

// lineWriter serializes writes: the SDK writes each message with one Write
// call, and so does the filter, so lines never interleave.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close leaves the underlying writer (stdout) open, as the SDK's stdio
// transport does.
func (l *lineWriter) Close() error { return nil }

// filter copies well-formed lines to pw and answers the others on out. It
// ends at the end of the input, or when the SDK closes its side of the pipe.
func (t *lineTransport) filter(pw *io.PipeWriter, out io.Writer) {
	br := bufio.NewReaderSize(t.in, 64<<10)
	for {
		line, tooLong, err := readLine(br, t.maxLine)
		var reply []byte
		switch {
		case tooLong:
			reply = rpcError(nil, jsonrpc.CodeParseError, fmt.Sprintf("Parse error: a line longer than %d bytes was dropped", t.maxLine))
		case len(line) > 0:
			var fwd []byte
			fwd, reply = checkLine(line)
			if fwd != nil {
				if _, werr := pw.Write(fwd); werr != nil {
					return // the SDK closed the connection
				}
			}
		}
		if reply != nil {
			if _, werr := out.Write(reply); werr != nil {
				pw.CloseWithError(werr)
				return
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				pw.Close()
			} else {
				pw.CloseWithError(err)
			}
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

// checkLine decides what becomes of one non-empty line: the bytes to hand
// to the SDK (the message and a newline), or the error reply to send.
func checkLine(line []byte) (fwd, reply []byte) {
	if !utf8.Valid(line) {
		return nil, rpcError(nil, jsonrpc.CodeParseError, "Parse error: the line is not valid UTF-8")
	}
	if !json.Valid(line) {
		return nil, rpcError(nil, jsonrpc.CodeParseError, "Parse error: the line is not one JSON value")
	}
	if line[0] != '{' {
		return nil, rpcError(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: a message must be one JSON object (batches are not supported)")
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
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
	return append(line, '\n'), nil
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
