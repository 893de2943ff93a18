package mcpserver

import (
	"context"

	"github.com/uiscope/uiscope/internal/core"
)

func (h *handlers) windowTools() []toolDef {
	s := h.sessions
	return []toolDef{
		action(ToolsetInteract, "window_action",
			"Minimize, maximize, restore or close a window of the app.", actTimeout,
			func(ctx context.Context, in windowArgs) (*core.ActResult, error) {
				return s.WindowActionOn(ctx, in.Session, in.Action, core.WindowTarget{Window: in.Window, Element: in.Element})
			}),
	}
}

type windowArgs struct {
	sessionField
	Action  string `json:"action"`
	Window  string `json:"window,omitempty"`
	Element string `json:"element,omitempty" jsonschema:"act on the window it is in"`
}
