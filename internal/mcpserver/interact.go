package mcpserver

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
)

// actTimeout bounds one action, its checks and its read-back.
const actTimeout = 20 * time.Second

// destructive is the annotation set of every tool that acts.
func destructive(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, DestructiveHint: ptr(true), OpenWorldHint: ptr(true)}
}

var actSchema = outputSchema(schema{
	"session": str, "element": str, "method": str, "detail": str,
	"before": anyObj, "after": anyObj, "note": str,
}, "session", "method")

// acted shapes an action's result.
func acted(session string, r *core.ActResult, err error) (*mcp.CallToolResult, any, error) {
	if err != nil {
		return fail(err)
	}
	out := map[string]any{"session": session, "method": r.Method}
	if r.Element != "" {
		out["element"] = r.Element
	}
	if r.Detail != "" {
		out["detail"] = r.Detail
	}
	if r.Before != nil {
		out["before"] = r.Before
	}
	if r.After != nil {
		out["after"] = r.After
	}
	if r.Note != "" {
		out["note"] = r.Note
	}
	return success(out)
}

type elementArgs struct {
	Session string `json:"session" jsonschema:"session id from connect"`
	Element string `json:"element" jsonschema:"element ref, e.g. a11y:e12"`
}

type invokeArgs struct {
	Session string `json:"session" jsonschema:"session id from connect"`
	Element string `json:"element" jsonschema:"element ref"`
	Action  string `json:"action,omitempty" jsonschema:"action name from the element's actions; default its click-like action"`
}

type setValueArgs struct {
	Session string `json:"session" jsonschema:"session id from connect"`
	Element string `json:"element" jsonschema:"element ref"`
	Value   string `json:"value" jsonschema:"the text, or the number for sliders and spin buttons"`
}

type expandArgs struct {
	Session  string `json:"session" jsonschema:"session id from connect"`
	Element  string `json:"element" jsonschema:"element ref"`
	Expanded bool   `json:"expanded" jsonschema:"true to expand, false to collapse"`
}

type selectArgs struct {
	Session string `json:"session" jsonschema:"session id from connect"`
	Element string `json:"element" jsonschema:"ref of the item to select (a list item, table cell, menu item, tab)"`
	Mode    string `json:"mode,omitempty" jsonschema:"replace (default), add or remove"`
}

type selectTextArgs struct {
	Session string `json:"session" jsonschema:"session id from connect"`
	Element string `json:"element" jsonschema:"element ref"`
	Start   int    `json:"start,omitempty" jsonschema:"first character (default 0)"`
	End     *int   `json:"end,omitempty" jsonschema:"character after the last (default: the end)"`
}

type scrollArgs struct {
	Session   string `json:"session" jsonschema:"session id from connect"`
	Element   string `json:"element" jsonschema:"element ref"`
	Direction string `json:"direction" jsonschema:"intoView (semantic), or up, down, left, right (wheel over the element)"`
	Amount    int    `json:"amount,omitempty" jsonschema:"wheel steps (default 3)"`
}

type typeArgs struct {
	Session string `json:"session" jsonschema:"session id from connect"`
	Text    string `json:"text" jsonschema:"text to type; any Unicode"`
	Element string `json:"element,omitempty" jsonschema:"ref to focus first; default wherever the app's focus is"`
}

type keyArgs struct {
	Session string `json:"session" jsonschema:"session id from connect"`
	Keys    string `json:"keys" jsonschema:"one chord: Enter, Tab, Ctrl+S, Alt+F4, Shift+Tab, F5, Ctrl+Shift+t"`
	Element string `json:"element,omitempty" jsonschema:"ref to focus first"`
}

type windowArgs struct {
	Session string `json:"session" jsonschema:"session id from connect"`
	Action  string `json:"action" jsonschema:"minimize, maximize, restore or close"`
}

func (h *handlers) interactTools() []toolDef {
	s := h.sessions
	tool := func(name, title, desc string) *mcp.Tool {
		return &mcp.Tool{Name: name, Annotations: destructive(title), Description: desc, OutputSchema: actSchema}
	}
	withTimeout := func(ctx context.Context) (context.Context, context.CancelFunc) {
		return context.WithTimeout(ctx, actTimeout)
	}
	return []toolDef{
		newTool(ToolsetInteract, tool("click", "Click an element",
			"Press an element: through its own action (click/press/activate) when it has one, else a real "+
				"left click at its centre — only after bringing its window to the front and checking nothing covers "+
				"the point. method says which way it went (action or pointer); before/after show its states."),
			func(ctx context.Context, _ *mcp.CallToolRequest, in elementArgs) (*mcp.CallToolResult, any, error) {
				ctx, cancel := withTimeout(ctx)
				defer cancel()
				r, err := s.Click(ctx, in.Session, in.Element)
				return acted(in.Session, r, err)
			}),
		newTool(ToolsetInteract, tool("invoke", "Invoke an action",
			"Run one of an element's accessibility actions (action names are in its properties), semantically "+
				"only: never moves the pointer. Default: its click-like action."),
			func(ctx context.Context, _ *mcp.CallToolRequest, in invokeArgs) (*mcp.CallToolResult, any, error) {
				ctx, cancel := withTimeout(ctx)
				defer cancel()
				r, err := s.Invoke(ctx, in.Session, in.Element, in.Action)
				return acted(in.Session, r, err)
			}),
		newTool(ToolsetInteract, tool("toggle", "Toggle a check box",
			"Flip a check box, toggle button, switch or radio button and report its checked state after."),
			func(ctx context.Context, _ *mcp.CallToolRequest, in elementArgs) (*mcp.CallToolResult, any, error) {
				ctx, cancel := withTimeout(ctx)
				defer cancel()
				r, err := s.Toggle(ctx, in.Session, in.Element)
				return acted(in.Session, r, err)
			}),
		newTool(ToolsetInteract, tool("set_value", "Set text or value",
			"Replace an entry's text (EditableText) or set a slider/spin button's number (Value), then read it "+
				"back: after shows what the element holds now. When the toolkit accepts the text call but changes "+
				"nothing (GTK 4.8), it selects all and types instead, and says so (method keyboard)."),
			func(ctx context.Context, _ *mcp.CallToolRequest, in setValueArgs) (*mcp.CallToolResult, any, error) {
				ctx, cancel := withTimeout(ctx)
				defer cancel()
				r, err := s.SetValue(ctx, in.Session, in.Element, in.Value)
				return acted(in.Session, r, err)
			}),
		newTool(ToolsetInteract, tool("set_expanded", "Expand or collapse",
			"Expand or collapse a tree row, expander or similar; a no-op (method none) when it already is."),
			func(ctx context.Context, _ *mcp.CallToolRequest, in expandArgs) (*mcp.CallToolResult, any, error) {
				ctx, cancel := withTimeout(ctx)
				defer cancel()
				r, err := s.SetExpanded(ctx, in.Session, in.Element, in.Expanded)
				return acted(in.Session, r, err)
			}),
		newTool(ToolsetInteract, tool("select", "Select an item",
			"Select (replace or add) or deselect (remove) an item through its container's selection; items "+
				"without one, like a closed combo box's menu items, are activated instead."),
			func(ctx context.Context, _ *mcp.CallToolRequest, in selectArgs) (*mcp.CallToolResult, any, error) {
				ctx, cancel := withTimeout(ctx)
				defer cancel()
				r, err := s.Select(ctx, in.Session, in.Element, in.Mode)
				return acted(in.Session, r, err)
			}),
		newTool(ToolsetInteract, tool("focus", "Focus an element",
			"Give an element the keyboard focus (Component.GrabFocus)."),
			func(ctx context.Context, _ *mcp.CallToolRequest, in elementArgs) (*mcp.CallToolResult, any, error) {
				ctx, cancel := withTimeout(ctx)
				defer cancel()
				r, err := s.Focus(ctx, in.Session, in.Element)
				return acted(in.Session, r, err)
			}),
		newTool(ToolsetInteract, tool("select_text", "Select text",
			"Select a range of an element's text by character offsets."),
			func(ctx context.Context, _ *mcp.CallToolRequest, in selectTextArgs) (*mcp.CallToolResult, any, error) {
				ctx, cancel := withTimeout(ctx)
				defer cancel()
				end := -1
				if in.End != nil {
					end = *in.End
				}
				r, err := s.SelectText(ctx, in.Session, in.Element, in.Start, end)
				return acted(in.Session, r, err)
			}),
		newTool(ToolsetInteract, tool("scroll", "Scroll",
			"Scroll an element into view (direction intoView, semantic) or turn the mouse wheel over it (up, "+
				"down, left, right; its window is brought to the front first)."),
			func(ctx context.Context, _ *mcp.CallToolRequest, in scrollArgs) (*mcp.CallToolResult, any, error) {
				ctx, cancel := withTimeout(ctx)
				defer cancel()
				r, err := s.Scroll(ctx, in.Session, in.Element, in.Direction, in.Amount)
				return acted(in.Session, r, err)
			}),
		newTool(ToolsetKeyboard, tool("type_text", "Type text",
			"Type text with real key presses into the connected app — into element (focused first) when given. "+
				"The app's window is brought to the front and checked again before every few keys; if it loses the "+
				"front, typing stops and fails rather than type into another window. Prefer set_value for entries."),
			func(ctx context.Context, _ *mcp.CallToolRequest, in typeArgs) (*mcp.CallToolResult, any, error) {
				ctx, cancel := context.WithTimeout(ctx, 2*actTimeout)
				defer cancel()
				r, err := s.TypeText(ctx, in.Session, in.Element, in.Text)
				return acted(in.Session, r, err)
			}),
		newTool(ToolsetKeyboard, tool("press_key", "Press a key chord",
			"Press one key chord in the connected app, its window in front: Enter, Escape, Tab, Ctrl+S, Alt+F4, "+
				"Shift+Tab, F5. Modifiers are always released afterwards."),
			func(ctx context.Context, _ *mcp.CallToolRequest, in keyArgs) (*mcp.CallToolResult, any, error) {
				ctx, cancel := withTimeout(ctx)
				defer cancel()
				r, err := s.PressKey(ctx, in.Session, in.Element, in.Keys)
				return acted(in.Session, r, err)
			}),
		newTool(ToolsetInteract, tool("window_action", "Minimize, maximize, restore, close",
			"Minimize, maximize, restore or close the connected app's window through the window manager; fails "+
				"clearly when there is none."),
			func(ctx context.Context, _ *mcp.CallToolRequest, in windowArgs) (*mcp.CallToolResult, any, error) {
				ctx, cancel := withTimeout(ctx)
				defer cancel()
				r, err := s.WindowAction(ctx, in.Session, in.Action)
				return acted(in.Session, r, err)
			}),
	}
}
