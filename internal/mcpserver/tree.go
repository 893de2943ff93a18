package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
)

func (h *handlers) treeTools() []toolDef {
	return []toolDef{
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "get_a11y_tree",
			Annotations: readOnly(),
			Description: "The accessibility tree with refs, as an outline: view visible for a first look, json for detail.",
		}, read(treeArgs.request, h.sessions.ReadTree, treeAnswer)),
	}
}

type treeArgs struct {
	sessionField
	Element   string `json:"element,omitempty"`
	Depth     *int   `json:"depth,omitempty"`
	View      string `json:"view,omitempty" jsonschema:"raw (default), control, content or visible (on screen)"`
	Format    string `json:"format,omitempty" jsonschema:"outline (default) or json"`
	MaxNodes  *int   `json:"maxNodes,omitempty"`
	MaxBytes  *int   `json:"maxBytes,omitempty"`
	TimeoutMs *int   `json:"timeoutMs,omitempty"`
	fieldsArg
}

// fetchInfo says how a tree was read.
type fetchInfo struct {
	Strategy string `json:"strategy"`
	Ms       int64  `json:"ms"`
	Calls    int    `json:"calls"`
}

type treeResult struct {
	Session         string        `json:"session"`
	Format          string        `json:"format"`
	View            string        `json:"view"`
	Outline         string        `json:"outline,omitempty"` // format outline
	Root            *core.Element `json:"root,omitempty"`    // format json
	NodeCount       int           `json:"nodeCount"`
	Shown           int           `json:"shown"`
	Omitted         int           `json:"omitted"`
	Truncated       bool          `json:"truncated"`
	TruncatedReason string        `json:"truncatedReason,omitempty"`
	// CutBy names the budget that left elements out: maxBytes or maxNodes.
	CutBy string    `json:"cutBy,omitempty"`
	Note  string    `json:"note,omitempty"`
	Fetch fetchInfo `json:"fetch"`

	rootBytes int // about Root's JSON, for the buffer
}

// appendMembers writes the answer as successResult makes of json.Marshal's,
// its elements through core.Element.AppendJSON: the rest is marshalled
// without the root, which goes in its place, before nodeCount (no string
// before it can hold that key unescaped: session, format, view, and no
// outline beside a root).
func (r treeResult) appendMembers(b []byte) ([]byte, error) {
	root := r.Root
	r.Root = nil
	rest, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	b = append(b, `{"ok":true,`...)
	if root == nil {
		return append(b, rest[1:]...), nil
	}
	at := bytes.Index(rest, []byte(`,"nodeCount":`))
	if at < 0 {
		return nil, fmt.Errorf("tree answer without nodeCount: %.100s", rest)
	}
	b = append(b, rest[1:at]...)
	b = append(b, `,"root":`...)
	b = root.AppendJSON(b)
	return append(b, rest[at:]...), nil
}

// sizeHint: rootBytes is exact when the budget measured the elements, a
// bound up to six times too high when it did not; elements are rarely
// longer than elementBytesHint.
func (r treeResult) sizeHint() int {
	return len(r.Outline) + min(r.rootBytes, r.Shown*elementBytesHint) + 1024
}

// elementBytesHint is about the longest an element's JSON usually is.
const elementBytesHint = 400

func (in treeArgs) request() (core.TreeRequest, error) {
	return core.TreeRequest{Element: in.Element, Depth: in.Depth, View: in.View, Format: in.Format, MaxNodes: in.MaxNodes,
		MaxBytes: in.MaxBytes, TimeoutMs: in.TimeoutMs, Fields: in.Fields}, nil
}

func treeAnswer(in treeArgs, r *core.TreeRead) treeResult {
	st, rs := r.Stats, r.Render
	out := treeResult{Session: in.Session, Format: r.Format, View: r.View, Outline: r.Outline, Root: r.Root, rootBytes: rs.Bytes,
		NodeCount: r.Tree.Len(), Shown: rs.Nodes, Omitted: rs.Omitted, Truncated: st.Truncated, CutBy: r.CutBy(),
		Fetch: fetchInfo{Strategy: st.Strategy, Ms: st.Elapsed.Milliseconds(), Calls: st.Calls}}
	var notes []string
	if st.Truncated {
		out.TruncatedReason = st.Reason
		notes = append(notes, fmt.Sprintf(truncatedNote, st.Reason))
	}
	if n := r.ReadOnNote(false); n != "" {
		notes = append(notes, n)
	}
	if rs.DepthCapped {
		notes = append(notes, fmt.Sprintf("elements more than %d levels below the start were left out (the server's depth cap); read further down by passing element, the ref of a deep element shown", core.MaxDepth))
	}
	out.Note = strings.Join(notes, " ")
	return out
}
