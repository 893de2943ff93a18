package mcpserver

import (
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
		}, read(hitArgs.request, h.sessions.HitTest, hitAnswer)),
	}
}

type hitArgs struct {
	sessionField
	X         int  `json:"x" jsonschema:"screen x in pixels"`
	Y         int  `json:"y" jsonschema:"screen y in pixels"`
	TimeoutMs *int `json:"timeoutMs,omitempty" jsonschema:"deadline for reading the tree in ms (default 10000)"`
}

type hitResult struct {
	Session   string          `json:"session"`
	Element   *core.Element   `json:"element"` // null when nothing of the app is there
	Ancestors []*core.Element `json:"ancestors"`
	Truncated bool            `json:"truncated"`
	Note      string          `json:"note,omitempty"`
}

func (in hitArgs) request() (core.HitRequest, error) {
	return core.HitRequest{X: in.X, Y: in.Y, TimeoutMs: in.TimeoutMs}, nil
}

func hitAnswer(in hitArgs, r *core.HitRead) hitResult {
	out := hitResult{Session: in.Session, Element: r.Element, Ancestors: r.Ancestors, Truncated: r.Stats.Truncated}
	if r.Stats.Truncated {
		out.Note = fmt.Sprintf(truncatedNote, r.Stats.Reason)
	}
	return out
}
