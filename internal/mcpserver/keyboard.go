package mcpserver

import (
	"context"

	"github.com/uiscope/uiscope/internal/core"
)

func (h *handlers) keyboardTools() []toolDef {
	s := h.sessions
	return []toolDef{
		action(ToolsetKeyboard, "type_text", "Type text",
			"Type text with real key presses into the connected app — into element (focused first) when given. "+
				"The app's window is brought to the front and checked again before every few keys; if it loses the "+
				"front, typing stops and fails rather than type into another window. Text that makes a desktop chord with keys "+
				"held by key_down (a Tab with Alt held) is refused. Prefer set_value for entries. In a "+
				"visual session a window inside the app's top-level window is clicked first, as a user focuses a field.", 2*actTimeout,
			func(ctx context.Context, in typeArgs) (*core.ActResult, error) {
				return s.TypeText(ctx, in.Session, in.Element, in.Text)
			}),
		action(ToolsetKeyboard, "press_key", "Press a key chord",
			"Press one key chord (Enter, Escape, Tab, Ctrl+S, Alt+F4, Shift+Tab, F5) in the connected app: to element "+
				"(focused first) when given, else to the app's window that has the focus, its dialogs included (its main "+
				"window is raised only when none has). Chords the desktop acts on (Super, Win or Meta alone or in a chord, Alt+Tab, "+
				"Ctrl+Alt+T), held keys included, are refused unless the server allows them. Modifiers are always released afterwards.", actTimeout,
			func(ctx context.Context, in keyArgs) (*core.ActResult, error) {
				return s.PressKey(ctx, in.Session, in.Element, in.Keys)
			}),
	}
}

type typeArgs struct {
	sessionField
	observeField
	Text    string `json:"text" jsonschema:"text to type; any Unicode"`
	Element string `json:"element,omitempty" jsonschema:"ref to focus first; default wherever the app's focus is"`
}

type keyArgs struct {
	sessionField
	observeField
	Keys    string `json:"keys" jsonschema:"one chord: Enter, Tab, Ctrl+S, Alt+F4, Shift+Tab, F5, Ctrl+Shift+t"`
	Element string `json:"element,omitempty" jsonschema:"ref to focus first"`
}
