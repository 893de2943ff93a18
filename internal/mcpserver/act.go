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

// actResult is every acting tool's success shape: the session and what
// the core says the action did.
type actResult struct {
	Session string `json:"session"`
	*core.ActResult
}

// sessionField is the session argument every acting tool takes.
type sessionField struct {
	Session string `json:"session" jsonschema:"session id from connect"`
}

func (s sessionField) session() string { return s.Session }

// observeField asks an acting tool for the tree changes its action caused.
type observeField struct {
	Observe  bool `json:"observe,omitempty" jsonschema:"also answer with the tree changes the action caused (changes, as get_a11y_tree_changes gives them, refs included); costs a tree read before and after"`
	MaxBytes *int `json:"maxBytes,omitempty" jsonschema:"byte budget of changes with observe (default 4000)"`
}

func (o observeField) observing() (bool, *int) { return o.Observe, o.MaxBytes }

// action builds one acting tool: the deadline, the core call, the result
// shape are the same for all of them.
func action[In interface{ session() string }](toolset, name, title, desc string, limit time.Duration,
	act func(context.Context, In) (*core.ActResult, error)) toolDef {
	return newTool(toolset, &mcp.Tool{Name: name, Annotations: destructive(title), Description: desc},
		func(ctx context.Context, _ *mcp.CallToolRequest, in In) (actResult, error) {
			ctx, cancel := context.WithTimeout(ctx, limit)
			defer cancel()
			if o, ok := any(in).(interface{ observing() (bool, *int) }); ok {
				if on, maxBytes := o.observing(); on {
					if maxBytes != nil && (*maxBytes < 500 || *maxBytes > core.MaxMaxBytes) {
						return actResult{}, core.Errorf(core.CodeInvalidArgument, "maxBytes must be between 500 and %d, not %d", core.MaxMaxBytes, *maxBytes)
					}
					b := 0
					if maxBytes != nil {
						b = *maxBytes
					}
					ctx = core.WithObserve(ctx, b)
				}
			}
			r, err := act(ctx, in)
			if err != nil {
				return actResult{}, err
			}
			return actResult{Session: in.session(), ActResult: r}, nil
		})
}

type elementArgs struct {
	sessionField
	observeField
	Element string `json:"element" jsonschema:"element ref, e.g. a11y:e12"`
}

type clickArgs struct {
	sessionField
	observeField
	Element   string `json:"element" jsonschema:"element ref, e.g. a11y:e12"`
	TimeoutMs *int   `json:"timeoutMs,omitempty" jsonschema:"how long to wait for the app to answer the element's action, in ms (default 3000, at most 15000); past it the answer is what the action caused"`
}

type invokeArgs struct {
	sessionField
	observeField
	Element   string `json:"element" jsonschema:"element ref"`
	Action    string `json:"action,omitempty" jsonschema:"action name from the element's actions; default its click-like action"`
	TimeoutMs *int   `json:"timeoutMs,omitempty" jsonschema:"how long to wait for the app to answer the action, in ms (default 3000, at most 15000); past it the answer is what the action caused"`
}

type setValueArgs struct {
	sessionField
	observeField
	Element string `json:"element" jsonschema:"element ref"`
	Value   string `json:"value" jsonschema:"the text, or the number for sliders and spin buttons"`
}

type expandArgs struct {
	sessionField
	observeField
	Element  string `json:"element" jsonschema:"element ref"`
	Expanded bool   `json:"expanded" jsonschema:"true to expand, false to collapse"`
}

type selectArgs struct {
	sessionField
	observeField
	Element string `json:"element" jsonschema:"ref of the item to select (a list item, table cell, menu item, tab)"`
	Mode    string `json:"mode,omitempty" jsonschema:"replace (default), add or remove"`
}

type selectTextArgs struct {
	sessionField
	observeField
	Element string `json:"element" jsonschema:"element ref"`
	Start   int    `json:"start,omitempty" jsonschema:"first character (default 0)"`
	End     *int   `json:"end,omitempty" jsonschema:"character after the last (default: the end)"`
}

type scrollArgs struct {
	sessionField
	observeField
	Element   string `json:"element" jsonschema:"element ref"`
	Direction string `json:"direction" jsonschema:"intoView (semantic), or up, down, left, right (wheel over the element)"`
	Amount    int    `json:"amount,omitempty" jsonschema:"wheel steps (default 3)"`
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

type windowArgs struct {
	sessionField
	Action  string `json:"action" jsonschema:"minimize, maximize, restore or close"`
	Window  string `json:"window,omitempty" jsonschema:"id of the app's window to act on, e.g. 0x1a00007 (from connect or list_apps); default the session's window"`
	Element string `json:"element,omitempty" jsonschema:"ref of an element: act on the window it is in (a dialog's button: the dialog); not with window"`
}

func (h *handlers) interactTools() []toolDef {
	s := h.sessions
	return []toolDef{
		action(ToolsetInteract, "click", "Click an element",
			"Press an element: through its own action (click/press/activate) when it has one, else a real "+
				"left click at its centre — only after bringing its window to the front and checking nothing covers "+
				"the point. method says which way it went (action or pointer); before/after show its states. In a visual "+
				"session (visual:eN refs) it clicks the window's centre, after the same checks.", actTimeout,
			func(ctx context.Context, in clickArgs) (*core.ActResult, error) {
				wait, err := core.ReplyWait(in.TimeoutMs)
				if err != nil {
					return nil, err
				}
				return s.ClickWait(ctx, in.Session, in.Element, wait)
			}),
		action(ToolsetInteract, "invoke", "Invoke an action",
			"Run one of an element's accessibility actions (action names are in its properties), semantically "+
				"only: never moves the pointer. Default: its click-like action.", actTimeout,
			func(ctx context.Context, in invokeArgs) (*core.ActResult, error) {
				wait, err := core.ReplyWait(in.TimeoutMs)
				if err != nil {
					return nil, err
				}
				return s.InvokeWait(ctx, in.Session, in.Element, in.Action, wait)
			}),
		action(ToolsetInteract, "toggle", "Toggle a check box",
			"Flip a check box, toggle button, switch or radio button and report its checked state after.", actTimeout,
			func(ctx context.Context, in elementArgs) (*core.ActResult, error) {
				return s.Toggle(ctx, in.Session, in.Element)
			}),
		action(ToolsetInteract, "set_value", "Set text or value",
			"Replace an entry's text (EditableText) or set a slider/spin button's number (Value), then read it "+
				"back: after shows what the element holds now. When the toolkit accepts the text call but changes "+
				"nothing (GTK 4.8), it selects all and types instead, and says so (method keyboard).", actTimeout,
			func(ctx context.Context, in setValueArgs) (*core.ActResult, error) {
				return s.SetValue(ctx, in.Session, in.Element, in.Value)
			}),
		newTool(ToolsetInteract, &mcp.Tool{Name: "set_property", Annotations: destructive("Set a property"),
			Description: "Set one editable property of an element, named by a descriptorId from get_editable_properties " +
				"on that element in this session: value a string (editor string, or enum: one of choices; command: an " +
				"action name), a number (integer, number: within minimum/maximum) or a boolean. It goes through the " +
				"verified action for its kind (set_value, toggle, set_expanded, select, invoke), and value in the " +
				"result is the property read back from the app afterwards. A descriptorId that is unknown " +
				"(unknownDescriptor), from another element (descriptorMismatch), stale because the element changed " +
				"(staleDescriptor) or read-only (readOnlyProperty) is refused: read get_editable_properties again.",
		}, h.setProperty),
		newTool(ToolsetInteract, &mcp.Tool{Name: "clear_property", Annotations: destructive("Clear a property"),
			Description: "Clear one clearable property (clearable true: an editable text) named by a descriptorId from " +
				"get_editable_properties, and answer with the value read back from the app. Refused as set_property " +
				"refuses, and with notClearable for a property that cannot be cleared.",
		}, h.clearProperty),
		action(ToolsetInteract, "set_expanded", "Expand or collapse",
			"Expand or collapse a tree row, expander or similar; a no-op (method none) when it already is.", actTimeout,
			func(ctx context.Context, in expandArgs) (*core.ActResult, error) {
				return s.SetExpanded(ctx, in.Session, in.Element, in.Expanded)
			}),
		action(ToolsetInteract, "select", "Select an item",
			"Select (replace or add) or deselect (remove) an item through its container's selection; items "+
				"without one, like a closed combo box's menu items, are activated instead.", actTimeout,
			func(ctx context.Context, in selectArgs) (*core.ActResult, error) {
				return s.Select(ctx, in.Session, in.Element, in.Mode)
			}),
		action(ToolsetInteract, "focus", "Focus an element",
			"Give an element the keyboard focus (Component.GrabFocus). In a visual session it activates the "+
				"top-level window holding the element; click a field to focus it.", actTimeout,
			func(ctx context.Context, in elementArgs) (*core.ActResult, error) {
				return s.Focus(ctx, in.Session, in.Element)
			}),
		action(ToolsetInteract, "select_text", "Select text",
			"Select a range of an element's text by character offsets.", actTimeout,
			func(ctx context.Context, in selectTextArgs) (*core.ActResult, error) {
				end := -1
				if in.End != nil {
					end = *in.End
				}
				return s.SelectText(ctx, in.Session, in.Element, in.Start, end)
			}),
		action(ToolsetInteract, "scroll", "Scroll",
			"Scroll an element into view (direction intoView, semantic) or turn the mouse wheel over it (up, "+
				"down, left, right; its window is brought to the front first). In a visual session: the wheel over "+
				"the window's centre.", actTimeout,
			func(ctx context.Context, in scrollArgs) (*core.ActResult, error) {
				return s.Scroll(ctx, in.Session, in.Element, in.Direction, in.Amount)
			}),
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
		action(ToolsetInteract, "window_action", "Minimize, maximize, restore, close",
			"Minimize, maximize, restore or close one of the connected app's windows through the window manager: "+
				"the window given, the one element is in (a dialog), else the session's window; fails clearly when "+
				"there is no window manager.", actTimeout,
			func(ctx context.Context, in windowArgs) (*core.ActResult, error) {
				return s.WindowActionOn(ctx, in.Session, in.Action, core.WindowTarget{Window: in.Window, Element: in.Element})
			}),
	}
}

type setPropertyArgs struct {
	sessionField
	Element      string `json:"element" jsonschema:"element ref"`
	DescriptorID string `json:"descriptorId" jsonschema:"descriptorId from get_editable_properties on this element"`
	Value        any    `json:"value" jsonschema:"the new value: a string, number or boolean, as the descriptor's editor says"`
}

type clearPropertyArgs struct {
	sessionField
	Element      string `json:"element" jsonschema:"element ref"`
	DescriptorID string `json:"descriptorId" jsonschema:"descriptorId from get_editable_properties on this element"`
}

type propertyResult struct {
	Session string `json:"session"`
	*core.PropertyResult
}

func (h *handlers) setProperty(ctx context.Context, _ *mcp.CallToolRequest, in setPropertyArgs) (propertyResult, error) {
	return h.property(ctx, in.Session, in.Element, in.DescriptorID, in.Value, false)
}

func (h *handlers) clearProperty(ctx context.Context, _ *mcp.CallToolRequest, in clearPropertyArgs) (propertyResult, error) {
	return h.property(ctx, in.Session, in.Element, in.DescriptorID, nil, true)
}

// property sets (or, with clear, clears) one property under the acting
// deadline: the body set_property and clear_property share.
func (h *handlers) property(ctx context.Context, session, element, descriptorID string, value any, clear bool) (propertyResult, error) {
	ctx, cancel := context.WithTimeout(ctx, actTimeout)
	defer cancel()
	r, err := h.sessions.SetProperty(ctx, session, element, descriptorID, value, clear)
	if err != nil {
		return propertyResult{}, err
	}
	return propertyResult{Session: session, PropertyResult: r}, nil
}
