package mcpserver

import (
	"context"

	"github.com/uiscope/uiscope/internal/core"
)

func (h *handlers) keyboardTools() []toolDef {
	s := h.sessions
	return []toolDef{
		action(ToolsetKeyboard, "type_text", "Type text",
			"Type text with real keys into element or the app's focused window; fails if the window loses the "+
				"front. Prefer set_value for entries.", 2*actTimeout,
			func(ctx context.Context, in typeArgs) (*core.ActResult, error) {
				return s.TypeText(ctx, in.Session, in.Element, in.Text)
			}),
		action(ToolsetKeyboard, "press_key", "Press a key chord",
			"Press one key chord (Enter, Ctrl+S) to element (focused first) or the app's focused window; desktop "+
				"chords (Super, Alt+Tab) are refused.", actTimeout,
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
