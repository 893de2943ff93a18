package mcpserver

import (
	"context"

	"github.com/uiscope/uiscope/internal/core"
)

func (h *handlers) valueTools() []toolDef {
	s := h.sessions
	return []toolDef{
		action(ToolsetInteract, "set_value",
			"Set an entry's text or a slider's number, read back; better than type_text.", actTimeout,
			func(ctx context.Context, in setValueArgs) (*core.ActResult, error) {
				return s.SetValue(ctx, in.Session, in.Element, in.Value)
			}),
	}
}

type setValueArgs struct {
	sessionField
	observeField
	Element string `json:"element"`
	Value   string `json:"value"`
}
