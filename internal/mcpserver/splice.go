package mcpserver

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/uiscope/uiscope/internal/core"
)

// Splicing tool results into their lines.
//
// encodeResults makes a tool result a wireResult, which encoding/json still
// has to walk: the text block escaped, structuredContent re-scanned, the
// whole copied into the SDK's buffer, and again into the line. On a
// connection served by a lineTransport, the SDK is given a placeholder
// instead (splicedResult, a few bytes), and the transport writes the held
// wireResult in its place when the response leaves (lineConn.Write): one
// pass over the result's bytes, into the line itself. What is written is
// byte for byte what the SDK would write (encode_test.go holds it to that,
// and fuzzes the text). The HTTP transport is the SDK's: its connections
// never see a placeholder, because only a lineTransport's requests carry
// splices in their context (lineTransport.serveContext).

// splices holds the results of one line connection until they are written.
type splices struct {
	mu   sync.Mutex
	next uint64
	held map[uint64]*wireResult
}

// maxHeld bounds the results held at once. A result whose response is never
// written (its request cancelled) stays held until the connection ends;
// past the bound, results are left to the SDK.
const maxHeld = 64

type splicesKey struct{}

func splicesFrom(ctx context.Context) *splices {
	s, _ := ctx.Value(splicesKey{}).(*splices)
	return s
}

// hold keeps w for the transport and returns what the SDK encodes in its
// place, or nil when too many are held.
func (s *splices) hold(w *wireResult) *splicedResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.held) >= maxHeld {
		return nil
	}
	if s.held == nil {
		s.held = map[uint64]*wireResult{}
	}
	s.next++
	s.held[s.next] = w
	return &splicedResult{wireResult: w, id: s.next}
}

// take returns the result a placeholder stands for, once.
func (s *splices) take(placeholder []byte) (*wireResult, bool) {
	rest, ok := bytes.CutPrefix(placeholder, []byte(splicePrefix))
	if !ok {
		return nil, false
	}
	digits, ok := bytes.CutSuffix(rest, []byte("}"))
	if !ok {
		return nil, false
	}
	id, err := strconv.ParseUint(string(digits), 10, 64)
	if err != nil {
		return nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.held[id]
	delete(s.held, id)
	return w, ok
}

const splicePrefix = `{"uiscope.spliced":`

// splicedResult is what the SDK encodes for a held result: the wireResult
// itself to the SDK's code (it sets _meta on it after the handler), a
// placeholder to its encoder.
type splicedResult struct {
	*wireResult
	id uint64
}

func (r *splicedResult) MarshalJSON() ([]byte, error) {
	return append(strconv.AppendUint([]byte(splicePrefix), r.id, 10), '}'), nil
}

// writeLine writes the response line of a held result: the line the SDK's
// encoder and encodeLine would make of it (encoding/json, HTML not escaped;
// wireResult's fields in their order, empty ones omitted), given that its
// structured content is compact JSON, as every result encoder here writes
// it. It goes out in pieces of about spliceChunk bytes: the text escaped a
// piece at a time, the structured content as it is.
func writeLine(out io.Writer, id jsonrpc.ID, w *wireResult) error {
	var meta []byte
	if len(w.Meta) > 0 {
		var err error
		if meta, err = w.Meta.MarshalJSON(); err != nil {
			return err
		}
	}
	head, err := appendResultHead(make([]byte, 0, spliceChunk+spliceChunk/4), id)
	if err != nil {
		return err
	}
	c := chunks{w: out, b: append(head, '{')}
	if meta != nil {
		c.b = append(c.b, `"_meta":`...)
		c.b = append(c.b, meta...)
		c.b = append(c.b, ',')
	}
	c.b = append(c.b, `"content":`...)
	if w.Content == nil {
		c.b = append(c.b, "null"...)
	} else {
		c.b = append(c.b, '[')
		for i, t := range w.Content {
			if i > 0 {
				c.b = append(c.b, ',')
			}
			c.b = append(c.b, `{"type":`...)
			c.str(t.Type)
			c.b = append(c.b, `,"text":`...)
			c.str(t.Text)
			c.b = append(c.b, '}')
		}
		c.b = append(c.b, ']')
	}
	if len(w.StructuredContent) > 0 {
		c.b = append(c.b, `,"structuredContent":`...)
		c.raw(w.StructuredContent)
	}
	if w.IsError {
		c.b = append(c.b, `,"isError":true`...)
	}
	if w.RequestState != "" {
		c.b = append(c.b, `,"requestState":`...)
		c.str(w.RequestState)
	}
	if w.ResultType != "" {
		c.b = append(c.b, `,"resultType":`...)
		c.str(w.ResultType)
	}
	c.b = append(c.b, "}}\n"...)
	c.flush()
	return c.err
}

// spliceChunk is about the bytes a spliced line is written in at a time.
var spliceChunk = 32 << 10

// chunks writes a line in pieces through one buffer of about spliceChunk
// bytes, so that a line of megabytes never needs a buffer of its size.
type chunks struct {
	w   io.Writer
	b   []byte
	err error
}

func (c *chunks) flush() {
	if c.err == nil && len(c.b) > 0 {
		_, c.err = c.w.Write(c.b)
	}
	c.b = c.b[:0]
}

// raw writes p as it is: from its own memory when it is long.
func (c *chunks) raw(p []byte) {
	if len(p) < spliceChunk {
		c.b = append(c.b, p...)
		return
	}
	c.flush()
	if c.err == nil {
		_, c.err = c.w.Write(p)
	}
}

// str writes s as a JSON string (HTML not escaped), escaped a piece at a
// time: each piece ends where a rune starts, so that it is escaped as the
// whole would be.
func (c *chunks) str(s string) {
	c.b = append(c.b, '"')
	for len(s) > 0 {
		n := min(len(s), spliceChunk)
		for n < len(s) && n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		if n == 0 { // no rune starts in the piece: a run of stray bytes
			n = min(len(s), spliceChunk)
		}
		c.b = core.AppendJSONStringContent(c.b, s[:n], false)
		s = s[n:]
		if len(c.b) >= spliceChunk {
			c.flush()
		}
	}
	c.b = append(c.b, '"')
}
