package mcpserver

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
)

// TestEncodedOnceEqualsSDK checks that a result encoded once is byte for
// byte what the SDK writes for it, with and without the metadata the SDK
// adds after the handler, for successes and failures; and that results of
// other shapes are left to the SDK.
func TestEncodedOnceEqualsSDK(t *testing.T) {
	results := map[string]func() *mcp.CallToolResult{
		"success": func() *mcp.CallToolResult {
			return successResult(map[string]any{"session": "s", "outline": "a <b> & \"c\"\n\u2028", "n": 3})
		},
		"failure": func() *mcp.CallToolResult {
			return failResult(core.Errorf(core.CodeInvalidArgument, "bad <thing> %q", "x"))
		},
		"empty": func() *mcp.CallToolResult { return successResult(struct{}{}) },
		"tree": func() *mcp.CallToolResult {
			root, _ := benchTree(40)
			tr := core.NewTree(root, core.KindA11y)
			el, _, _ := tr.Render(core.ViewOptions{Depth: -1})
			el.Name = "<b> & \u2028"
			return successResult(treeResult{Session: "s", Format: "json", View: "raw", Root: el, NodeCount: tr.Len()})
		},
	}
	for name, mk := range results {
		for _, meta := range []bool{false, true} {
			want, got := mk(), mk()
			e := encodeOnce(got)
			if e == nil {
				t.Fatalf("%s: not encoded once", name)
			}
			if meta { // as annotateServerInfo does, on what the SDK holds
				m := map[string]any{mcp.MetaKeyServerInfo: &mcp.Implementation{Name: "uiscope", Version: "1 <2>"}}
				want.SetMeta(m)
				e.SetMeta(m)
			}
			// As json.Marshal writes them, and as the SDK's transport
			// does (an Encoder that does not escape HTML).
			for _, html := range []bool{true, false} {
				wb, gb := encodeWith(t, want, html), encodeWith(t, e, html)
				if !bytes.Equal(wb, gb) {
					t.Errorf("%s (meta %v, html %v): encoded once\n%s\nthe SDK\n%s", name, meta, html, gb, wb)
				}
			}
		}
	}
	image := &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: []byte{1}, MIMEType: "image/png"}, &mcp.TextContent{Text: "{}"}},
		StructuredContent: json.RawMessage(`{}`)}
	if encodeOnce(image) != nil {
		t.Error("a result with an image block was taken over; it is the SDK's to encode")
	}
	annotated := successResult(struct{}{})
	annotated.Content[0].(*mcp.TextContent).Annotations = &mcp.Annotations{Priority: 1}
	if encodeOnce(annotated) != nil {
		t.Error("a text block with annotations was taken over")
	}
}

func encodeWith(t *testing.T, v any, escapeHTML bool) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
