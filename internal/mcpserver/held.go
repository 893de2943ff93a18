package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
)

// heldResult is the held-input tools' success shape: what the call did and
// everything the session holds after it.
type heldResult struct {
	Session string `json:"session"`
	*core.HeldResult
}

type pressArgs struct {
	sessionField
	Element string `json:"element,omitempty" jsonschema:"ref to press at the centre of; or give x and y"`
	X       *int   `json:"x,omitempty" jsonschema:"screen x in pixels, with y, instead of element"`
	Y       *int   `json:"y,omitempty" jsonschema:"screen y in pixels"`
	Button  int    `json:"button,omitempty" jsonschema:"1 left (default), 2 middle, 3 right"`
}

type moveArgs struct {
	sessionField
	Element string `json:"element,omitempty" jsonschema:"ref to drag to the centre of; or give x and y"`
	X       *int   `json:"x,omitempty" jsonschema:"screen x in pixels, with y, instead of element"`
	Y       *int   `json:"y,omitempty" jsonschema:"screen y in pixels"`
}

type releaseArgs struct {
	sessionField
	Button int `json:"button,omitempty" jsonschema:"the held button to release; default the only one held"`
}

// point is x and y when both are given; one alone is refused by the core
// as neither.
func point(x, y *int) *core.Point {
	if x == nil || y == nil {
		return nil
	}
	return &core.Point{X: *x, Y: *y}
}

type heldKeyArgs struct {
	sessionField
	Key string `json:"key" jsonschema:"one key: Shift, Ctrl, Alt, or a key like a, Tab, F5"`
}

// heldTool builds one held-input tool.
func heldTool[In interface{ session() string }](toolset, name, title, desc string, act func(context.Context, In) (*core.HeldResult, error)) toolDef {
	return newTool(toolset, &mcp.Tool{Name: name, Annotations: destructive(title), Description: desc},
		func(ctx context.Context, _ *mcp.CallToolRequest, in In) (heldResult, error) {
			ctx, cancel := context.WithTimeout(ctx, actTimeout)
			defer cancel()
			r, err := act(ctx, in)
			if err != nil {
				return heldResult{}, err
			}
			return heldResult{Session: in.session(), HeldResult: r}, nil
		})
}

func (h *handlers) heldTools() []toolDef {
	s := h.sessions
	return []toolDef{
		heldTool(ToolsetInteract, "press", "Press and hold a pointer button",
			"Press a pointer button at an element's centre or a screen point in the session's window and keep it "+
				"down, for a drag: then move, then release. The window is brought to the front and checked to be on top "+
				"at the point first. held lists what the session holds. A held button is released automatically when "+
				"the window loses the focus or closes, the session or the client's MCP session ends, or the server "+
				"exits. Pressing a button that is held is refused (holdConflict).",
			func(ctx context.Context, in pressArgs) (*core.HeldResult, error) {
				return s.Press(ctx, in.Session, in.Element, point(in.X, in.Y), in.Button)
			}),
		heldTool(ToolsetInteract, "move", "Drag the held button",
			"Move the pointer, with the held button still down, to an element's centre or a screen point, "+
				"in steps as a hand does, so sliders, scrollbars and selections follow. Refused (holdConflict) when the "+
				"session holds nothing; when the window lost the focus, its buttons are released and nothing moves.",
			func(ctx context.Context, in moveArgs) (*core.HeldResult, error) {
				return s.Move(ctx, in.Session, in.Element, point(in.X, in.Y))
			}),
		heldTool(ToolsetInteract, "release", "Release a held button",
			"Release a button the session holds, where the pointer is. Releasing what is not held is refused "+
				"(holdConflict) with the reason, e.g. that it was released automatically.",
			func(ctx context.Context, in releaseArgs) (*core.HeldResult, error) {
				return s.Release(ctx, in.Session, in.Button)
			}),
		heldTool(ToolsetKeyboard, "key_down", "Press and hold a key",
			"Press one key (a modifier mostly: Shift, Ctrl, Alt) in the connected app's window that has the focus "+
				"and keep it down, e.g. Shift through clicks for a range selection; key_up releases it. held lists what "+
				"the session holds. Released automatically as a held button is (press). Holding a key that is held, "+
				"or a key that makes a desktop chord with those held (Super, Alt then Tab), is refused; while Alt is held, "+
				"keys and text that make one (Tab) and pointer input (the window manager's: Alt+wheel, Alt+drag) are refused.",
			func(ctx context.Context, in heldKeyArgs) (*core.HeldResult, error) {
				return s.KeyDown(ctx, in.Session, in.Key)
			}),
		heldTool(ToolsetKeyboard, "key_up", "Release a held key",
			"Release a key the session holds with key_down. Releasing what is not held is refused (holdConflict) "+
				"with the reason.",
			func(ctx context.Context, in heldKeyArgs) (*core.HeldResult, error) {
				return s.KeyUp(ctx, in.Session, in.Key)
			}),
	}
}
