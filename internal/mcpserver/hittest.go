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
			Annotations: readOnly(),
			Description: "The smallest element at a screen point, with its ancestors.",
		}, read(hitArgs.request, h.sessions.HitTest, hitAnswer)),
	}
}

type hitArgs struct {
	sessionField
	X         int  `json:"x"`
	Y         int  `json:"y"`
	TimeoutMs *int `json:"timeoutMs,omitempty"`
	fieldsArg
}

type hitResult struct {
	Session   string          `json:"session"`
	Element   *core.Element   `json:"element"` // null when nothing of the app is there
	Ancestors []*core.Element `json:"ancestors"`
	Truncated bool            `json:"truncated"`
	Note      string          `json:"note,omitempty"`
}

func (in hitArgs) request() (core.HitRequest, error) {
	return core.HitRequest{X: in.X, Y: in.Y, TimeoutMs: in.TimeoutMs, Fields: in.Fields}, nil
}

func hitAnswer(in hitArgs, r *core.HitRead) hitResult {
	out := hitResult{Session: in.Session, Element: r.Element, Ancestors: r.Ancestors, Truncated: r.Stats.Truncated}
	if r.Stats.Truncated {
		out.Note = fmt.Sprintf(truncatedNote, r.Stats.Reason)
	}
	return out
}
