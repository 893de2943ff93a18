package mcpserver

import (
	"context"

	"github.com/uiscope/uiscope/internal/core"
)

func (h *handlers) valueTools() []toolDef {
	s := h.sessions
	return []toolDef{
		action(ToolsetInteract, "set_value", "Set text or value",
			"Replace an entry's text (EditableText) or set a slider/spin button's number (Value), then read it "+
				"back: after shows what the element holds now. When the toolkit accepts the text call but changes "+
				"nothing (GTK 4.8), it selects all and types instead, and says so (method keyboard).", actTimeout,
			func(ctx context.Context, in setValueArgs) (*core.ActResult, error) {
				return s.SetValue(ctx, in.Session, in.Element, in.Value)
			}),
	}
}

type setValueArgs struct {
	sessionField
	observeField
	Element string `json:"element" jsonschema:"element ref"`
	Value   string `json:"value" jsonschema:"the text, or the number for sliders and spin buttons"`
}
