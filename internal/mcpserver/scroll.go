package mcpserver

import (
	"context"

	"github.com/uiscope/uiscope/internal/core"
)

func (h *handlers) scrollTools() []toolDef {
	s := h.sessions
	return []toolDef{
		action(ToolsetInteract, "scroll", "Scroll",
			"Scroll an element into view (direction intoView, semantic) or turn the mouse wheel over it (up, "+
				"down, left, right; its window is brought to the front first). In a visual session: the wheel over "+
				"the window's centre.", actTimeout,
			func(ctx context.Context, in scrollArgs) (*core.ActResult, error) {
				return s.Scroll(ctx, in.Session, in.Element, in.Direction, in.Amount)
			}),
	}
}

type scrollArgs struct {
	sessionField
	observeField
	Element   string `json:"element" jsonschema:"element ref"`
	Direction string `json:"direction" jsonschema:"intoView (semantic), or up, down, left, right (wheel over the element)"`
	Amount    int    `json:"amount,omitempty" jsonschema:"wheel steps (default 3)"`
}
