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
// structuredContent carry the same bytes. Left to itself the SDK encodes a
// *mcp.CallToolResult through its MarshalJSON, and encoding/json re-scans
// ("compacts") the output of every MarshalJSON, nested ones included: the
// text escaped once and scanned twice more, structuredContent scanned
// twice, a tree read of a few thousand nodes paying for about five passes
// over half a megabyte.
//
// wireResult is the same result as a plain struct, without a MarshalJSON
// of its own: encoding/json writes its fields as the SDK's MarshalJSON
// would, in the same order, but the text as a string (escaped once, never
// re-scanned) and structuredContent, raw already, scanned once. It embeds
// mcp.ResultBase, the SDK's way to make a result type of one's own, and
// takes the metadata the SDK sets after the handler (the server's _meta in
// the 2026-07-28 protocol) through its own GetMeta and SetMeta. The rest
// of a CallToolResult (isError, the protocol's resultType, set by the time
// the handler returns) is copied from the SDK's own encoding of it, and a
// result whose encoding is not what wireResult would write, or of another
// shape (an image block, input requests), is left to the SDK.

// wireResult is a tool result of one text block and raw structured
// content, laid out as the SDK writes a CallToolResult.
type wireResult struct {
	mcp.ResultBase `json:"-"` // what makes it an mcp.Result; its _meta is Meta below

	Meta              htmlMeta        `json:"_meta,omitempty"`
	Content           []wireText      `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	RequestState      string          `json:"requestState,omitempty"`
	ResultType        string          `json:"resultType,omitempty"`
}

// wireText is a text block as the SDK's TextContent writes it.
type wireText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// htmlMeta is _meta written as the SDK writes it: json.Marshal, which
// escapes <, > and & (the SDK's transport encoder does not).
type htmlMeta map[string]any

func (m htmlMeta) MarshalJSON() ([]byte, error) { return json.Marshal(map[string]any(m)) }

func (w *wireResult) GetMeta() map[string]any  { return w.Meta }
func (w *wireResult) SetMeta(m map[string]any) { w.Meta = m }

// encodeResults is the receiving middleware that encodes tool results once.
// It must be outermost, so that no middleware after it sees a wireResult.
func encodeResults(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.CallToolResult); ok && err == nil {
			if w := encodeOnce(r); w != nil {
				if s := splicesFrom(ctx); s != nil {
					if p := s.hold(w); p != nil {
						return p, nil
					}
				}
				return w, nil
			}
		}
		return res, err
	}
}

// encodeOnce returns r as a wireResult, or nil when r is not of the one
// shape it handles: a single plain text block beside raw structured
// content, and nothing else the SDK would write but what wireResult has.
func encodeOnce(r *mcp.CallToolResult) *wireResult {
	raw, ok := r.StructuredContent.(json.RawMessage)
	if !ok || len(r.Content) != 1 || r.InputRequests != nil {
		return nil
	}
	t, ok := r.Content[0].(*mcp.TextContent)
	if !ok || t.Meta != nil || t.Annotations != nil {
		return nil
	}
	// The rest as the SDK writes it, and as wireResult would: the same, or
	// the SDK has something wireResult lacks.
	rest := *r
	rest.Meta, rest.Content, rest.StructuredContent = nil, nil, nil
	sdk, err := rest.MarshalJSON()
	if err != nil {
		return nil
	}
	w := &wireResult{}
	if err := json.Unmarshal(sdk, w); err != nil {
		return nil
	}
	if mine, err := json.Marshal(w); err != nil || !bytes.Equal(mine, sdk) {
		return nil
	}
	w.Meta = htmlMeta(r.Meta)
	w.Content = []wireText{{Type: "text", Text: t.Text}}
	w.StructuredContent = raw
	return w
}
