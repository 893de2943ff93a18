package mcpserver

import (
	"context"

	"github.com/uiscope/uiscope/internal/core"
)

func (h *handlers) scrollTools() []toolDef {
	s := h.sessions
	return []toolDef{
		action(ToolsetInteract, "scroll",
			"Scroll an element into view (intoView) or turn the wheel over it.", actTimeout,
			func(ctx context.Context, in scrollArgs) (*core.ActResult, error) {
				return s.Scroll(ctx, in.Session, in.Element, in.Direction, in.Amount)
			}),
	}
}

type scrollArgs struct {
	sessionField
	observeField
	Element   string `json:"element"`
	Direction string `json:"direction" jsonschema:"intoView, up, down, left or right"`
	Amount    int    `json:"amount,omitempty" jsonschema:"wheel steps"`
}
