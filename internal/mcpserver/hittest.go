package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
)

func (h *handlers) hitTestTools() []toolDef {
	return []toolDef{
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "hit_test",
			Annotations: readOnly("Element at a point"),
			Description: "Find the smallest visible element of the connected app covering a screen point (x, y in " +
				"screen pixels, as in bounds), with its ancestors, nearest first. element is null when no element " +
				"of this app covers the point.",
		}, h.hitTest),
	}
}

type hitArgs struct {
	Session   string `json:"session" jsonschema:"session id from connect"`
	X         int    `json:"x" jsonschema:"screen x in pixels"`
	Y         int    `json:"y" jsonschema:"screen y in pixels"`
	TimeoutMs *int   `json:"timeoutMs,omitempty" jsonschema:"deadline for reading the tree in ms (default 10000)"`
}

type hitResult struct {
	Session   string          `json:"session"`
	Element   *core.Element   `json:"element"` // null when nothing of the app is there
	Ancestors []*core.Element `json:"ancestors"`
	Truncated bool            `json:"truncated"`
	Note      string          `json:"note,omitempty"`
}

func (h *handlers) hitTest(ctx context.Context, _ *mcp.CallToolRequest, in hitArgs) (hitResult, error) {
	s, limit, err := h.session(ctx, in.Session, in.TimeoutMs)
	if err != nil {
		return hitResult{}, err
	}
	t, st, err := h.sessions.Fetch(ctx, s, limit, core.TreeOptions{Actions: true})
	if err != nil {
		return hitResult{}, err
	}
	out := hitResult{Session: s.ID, Ancestors: []*core.Element{}, Truncated: st.Truncated}
	if st.Truncated {
		out.Note = fmt.Sprintf(truncatedNote, st.Reason)
	}
	id, ok := t.HitTest(in.X, in.Y)
	if !ok {
		return out, nil
	}
	out.Element, _ = t.Element(id)
	for _, a := range t.Ancestors(id) {
		e, _ := t.Element(a)
		out.Ancestors = append(out.Ancestors, e)
	}
	return out, nil
}
