package mcpserver

import (
	"context"

	"github.com/uiscope/uiscope/internal/core"
)

func (h *handlers) keyboardTools() []toolDef {
	s := h.sessions
	return []toolDef{
		action(ToolsetKeyboard, "type_text",
			"Type text with real keys into element or the focused window (set_value suits entries better).", 2*actTimeout,
			func(ctx context.Context, in typeArgs) (*core.ActResult, error) {
				return s.TypeText(ctx, in.Session, in.Element, in.Text)
			}),
		action(ToolsetKeyboard, "press_key",
			"Press one key chord (Enter, Ctrl+S) in element or the app's focused window.", actTimeout,
			func(ctx context.Context, in keyArgs) (*core.ActResult, error) {
				return s.PressKey(ctx, in.Session, in.Element, in.Keys)
			}),
	}
}

type typeArgs struct {
	sessionField
	observeField
	Text    string `json:"text"`
	Element string `json:"element,omitempty" jsonschema:"focus first"`
}

type keyArgs struct {
	sessionField
	observeField
	Keys    string `json:"keys"`
	Element string `json:"element,omitempty" jsonschema:"focus first"`
}
