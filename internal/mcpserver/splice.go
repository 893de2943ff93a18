package mcpserver

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"sync"

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
// byte for byte what the SDK would write (splice_test.go holds it to that,
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

// appendWire appends w as the SDK's encoder writes it (encoding/json, HTML
// not escaped; wireResult's fields in their order, empty ones omitted),
// given that its structured content is compact JSON, as every result
// encoder here writes it.
func appendWire(b []byte, w *wireResult) ([]byte, error) {
	b = append(b, '{')
	if len(w.Meta) > 0 {
		m, err := w.Meta.MarshalJSON()
		if err != nil {
			return nil, err
		}
		b = append(b, `"_meta":`...)
		b = append(b, m...)
		b = append(b, ',')
	}
	b = append(b, `"content":`...)
	if w.Content == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, c := range w.Content {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"type":`...)
			b = core.AppendJSONString(b, c.Type, false)
			b = append(b, `,"text":`...)
			b = core.AppendJSONString(b, c.Text, false)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(w.StructuredContent) > 0 {
		b = append(b, `,"structuredContent":`...)
		b = append(b, w.StructuredContent...)
	}
	if w.IsError {
		b = append(b, `,"isError":true`...)
	}
	if w.RequestState != "" {
		b = append(b, `,"requestState":`...)
		b = core.AppendJSONString(b, w.RequestState, false)
	}
	if w.ResultType != "" {
		b = append(b, `,"resultType":`...)
		b = core.AppendJSONString(b, w.ResultType, false)
	}
	return append(b, '}'), nil
}

// wireSize is about the bytes appendWire writes: the text escaped is
// longer by a backslash for every quote and backslash (the JSON it holds
// has no other byte to escape outside its strings' own escapes).
func wireSize(w *wireResult) int {
	n := 128 + len(w.StructuredContent)
	for _, c := range w.Content {
		n += len(c.Text) + strings.Count(c.Text, `"`) + strings.Count(c.Text, `\`)
	}
	return n
}
