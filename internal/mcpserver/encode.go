package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Encoding a tool result once.
//
// A tool result is JSON twice (docs/api.md): the text block and
// structuredContent carry the same bytes. Left to itself the SDK encodes
// that result through nested MarshalJSON methods, and encoding/json
// re-scans ("compacts") the output of every one of them: the text is
// escaped once and scanned twice more, structuredContent scanned twice, a
// tree read of a few thousand nodes paying for about five passes over
// half a megabyte. encodedResult hands the SDK the two large fields
// already encoded, so it scans them once.
//
// What the SDK adds to a result after the handler (the 2026-07-28
// protocol's resultType and the server's _meta) it still writes itself:
// everything but the two fields is encoded by the SDK's own MarshalJSON,
// and the two are spliced in where it would have put them. If its output
// ever differs from the shape this expects, the result is encoded the
// ordinary way instead.

// encodedResult is a tool result whose content and structuredContent are
// encoded already. Embedding the SDK's result keeps it an mcp.Result: the
// SDK sets its metadata and result type on the embedded value.
type encodedResult struct {
	*mcp.CallToolResult
	orig       *mcp.CallToolResult // with its content, for the ordinary way
	content    []byte              // the content array
	structured json.RawMessage
}

// encodeResults is the receiving middleware that encodes tool results once.
// It must be outermost, so that no middleware after it sees an
// encodedResult.
func encodeResults(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.CallToolResult); ok && err == nil {
			if e := encodeOnce(r); e != nil {
				return e, nil
			}
		}
		return res, err
	}
}

// encodeOnce prepares r for encoding once, or returns nil when r is not a
// result of the one shape it handles: a single plain text block beside raw
// structured content (an image result is left to the SDK).
func encodeOnce(r *mcp.CallToolResult) *encodedResult {
	raw, ok := r.StructuredContent.(json.RawMessage)
	if !ok || len(r.Content) != 1 {
		return nil
	}
	t, ok := r.Content[0].(*mcp.TextContent)
	if !ok || t.Meta != nil || t.Annotations != nil {
		return nil
	}
	// The SDK's TextContent.MarshalJSON is json.Marshal of this shape
	// (HTML-escaped, as json.Marshal does).
	text, err := json.Marshal(struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}{"text", t.Text})
	if err != nil {
		return nil
	}
	content := make([]byte, 0, len(text)+2)
	content = append(append(append(content, '['), text...), ']')
	rest := *r
	rest.Content, rest.StructuredContent = nil, nil
	return &encodedResult{CallToolResult: &rest, orig: r, content: content, structured: raw}
}

// MarshalJSON writes what the SDK would have written for the original
// result: the SDK's encoding of the rest, with the two fields spliced in
// at the place of its "content":null.
func (e *encodedResult) MarshalJSON() ([]byte, error) {
	head, err := e.CallToolResult.MarshalJSON()
	if err != nil {
		return nil, err
	}
	prefix := []byte(`{`)
	if len(e.Meta) > 0 {
		meta, err := json.Marshal(e.Meta)
		if err != nil {
			return nil, err
		}
		prefix = append(append(append(prefix, `"_meta":`...), meta...), ',')
	}
	prefix = append(prefix, `"content":null`...)
	if !bytes.HasPrefix(head, prefix) {
		return e.ordinary()
	}
	tail := head[len(prefix):]
	out := make([]byte, 0, len(head)+len(e.content)+len(e.structured)+32)
	out = append(out, prefix[:len(prefix)-len("null")]...)
	out = append(out, e.content...)
	if len(e.structured) > 0 {
		out = append(out, `,"structuredContent":`...)
		out = append(out, e.structured...)
	}
	return append(out, tail...), nil
}

// ordinary encodes the original result with what the SDK set on the copy.
func (e *encodedResult) ordinary() ([]byte, error) {
	r := *e.CallToolResult
	r.Content, r.StructuredContent = e.orig.Content, e.orig.StructuredContent
	return r.MarshalJSON()
}
