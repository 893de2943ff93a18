package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
)

// TestEncodedOnceEqualsSDK checks that a result encoded once is byte for
// byte what the SDK writes for it, with and without the metadata the SDK
// adds after the handler, for successes and failures; and that results of
// other shapes are left to the SDK.
func TestEncodedOnceEqualsSDK(t *testing.T) {
	t.Parallel()
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

// TestSplicedEqualsSDK checks that a result spliced into its line is byte
// for byte the line the SDK's encoder makes of it, with and without the
// metadata the SDK sets, and that a placeholder never reaches the client.
func TestSplicedEqualsSDK(t *testing.T) {
	// Not parallel: it sets spliceChunk, which every stdio connection reads.
	root, _ := benchTree(40)
	tr := core.NewTree(root, core.KindA11y)
	el, _, _ := tr.Render(core.ViewOptions{Depth: -1})
	el.Name = "<b> & \u2028 \x01 \xff"
	for name, r := range map[string]*mcp.CallToolResult{
		"success": successResult(map[string]any{"session": "s", "outline": "a <b> & \"c\"\n\u2028\t\\", "n": 3}),
		"failure": failResult(core.Errorf(core.CodeInvalidArgument, "bad <thing> %q", "x")),
		"empty":   successResult(struct{}{}),
		"tree":    successResult(treeResult{Session: "s", Format: "json", View: "raw", Root: el, NodeCount: tr.Len()}),
	} {
		for _, meta := range []bool{false, true} {
			w := encodeOnce(r)
			if meta {
				w.SetMeta(map[string]any{mcp.MetaKeyServerInfo: &mcp.Implementation{Name: "uiscope", Version: "1 <2>"}})
			}
			want := sdkLine(t, mustID(t, float64(7)), w)
			s := &splices{}
			p := s.hold(w)
			placeholder, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, chunk := range []int{spliceChunk, 7} {
				got, err := splicedLine(s, chunk, &jsonrpc.Response{ID: mustID(t, float64(7)), Result: placeholder})
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s (meta %v, pieces of %d): spliced (%v)\n%s\nthe SDK\n%s", name, meta, chunk, err, got, want)
				}
				// Held again, for the next size.
				placeholder, _ = json.Marshal(s.hold(w))
			}
			// Taken once: a second response with the same placeholder is
			// an error, never the placeholder.
			first, _ := json.Marshal(p)
			again, _ := splicedLine(s, spliceChunk, &jsonrpc.Response{ID: mustID(t, float64(7)), Result: first})
			if bytes.Contains(again, []byte(splicePrefix)) || !bytes.Contains(again, []byte(`"code":-32603`)) {
				t.Errorf("%s: a placeholder taken twice gave %s", name, again)
			}
		}
	}
}

// FuzzSpliced fuzzes the text and the structured content's strings.
func FuzzSpliced(f *testing.F) {
	f.Add("plain", "x", false)
	f.Add("a <b> & \"c\"\n\u2028\u2029\t\\ \x00\x1f\x7f", "\xff\xfe", true)
	f.Add("abcd漢字é\u2028xyz\xe2\x80", "", false) // runes across the pieces of 5 bytes
	f.Fuzz(func(t *testing.T, text, member string, isError bool) {
		raw, err := json.Marshal(map[string]string{"member": member})
		if err != nil {
			t.Skip()
		}
		w := &wireResult{Content: []wireText{{Type: "text", Text: text}}, StructuredContent: raw, IsError: isError}
		want := sdkLine(t, mustID(t, "id"), w)
		s := &splices{}
		placeholder, _ := json.Marshal(s.hold(w))
		got, err := splicedLine(s, 5, &jsonrpc.Response{ID: mustID(t, "id"), Result: placeholder})
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("spliced (%v)\n%q\nthe SDK\n%q", err, got, want)
		}
	})
}

// splicedLine is what a line connection holding s writes for a response,
// in pieces of chunk bytes.
func splicedLine(s *splices, chunk int, r *jsonrpc.Response) ([]byte, error) {
	defer func(old int) { spliceChunk = old }(spliceChunk)
	spliceChunk = chunk
	var b bytes.Buffer
	err := (&lineConn{splices: s, out: &lineWriter{w: &b}}).Write(context.Background(), r)
	return b.Bytes(), err
}

// sdkLine is the line the SDK's encoder and encodeLine make of a result.
func sdkLine(t *testing.T, id jsonrpc.ID, w *wireResult) []byte {
	t.Helper()
	res := bytes.TrimSuffix(encodeWith(t, w, false), []byte("\n"))
	line, err := encodeLine(&jsonrpc.Response{ID: id, Result: res})
	if err != nil {
		t.Fatal(err)
	}
	return line
}

func mustID(t *testing.T, v any) jsonrpc.ID {
	t.Helper()
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
