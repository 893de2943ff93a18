package mcpserver

import (
	"context"

	"github.com/uiscope/uiscope/internal/core"
)

func (h *handlers) windowTools() []toolDef {
	s := h.sessions
	return []toolDef{
		action(ToolsetInteract, "window_action", "Minimize, maximize, restore, close",
			"Minimize, maximize, restore or close one of the connected app's windows through the window manager: "+
				"the window given, the one element is in (a dialog), else the session's window; fails clearly when "+
				"there is no window manager.", actTimeout,
			func(ctx context.Context, in windowArgs) (*core.ActResult, error) {
				return s.WindowActionOn(ctx, in.Session, in.Action, core.WindowTarget{Window: in.Window, Element: in.Element})
			}),
	}
}

type windowArgs struct {
	sessionField
	Action  string `json:"action" jsonschema:"minimize, maximize, restore or close"`
	Window  string `json:"window,omitempty" jsonschema:"id of the app's window to act on, e.g. 0x1a00007 (from connect or list_apps); default the session's window"`
	Element string `json:"element,omitempty" jsonschema:"ref of an element: act on the window it is in (a dialog's button: the dialog); not with window"`
}
