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
	Element string `json:"element,omitempty" jsonschema:"or x and y"`
	X       *int   `json:"x,omitempty"`
	Y       *int   `json:"y,omitempty"`
	Button  int    `json:"button,omitempty" jsonschema:"1 left (default), 2 middle, 3 right"`
}

type moveArgs struct {
	sessionField
	Element string `json:"element,omitempty" jsonschema:"or x and y"`
	X       *int   `json:"x,omitempty"`
	Y       *int   `json:"y,omitempty"`
}

type releaseArgs struct {
	sessionField
	Button int `json:"button,omitempty"`
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
	Key string `json:"key"`
}

// heldTool builds one held-input tool.
func heldTool[In interface{ session() string }](toolset, name, desc string, act func(context.Context, In) (*core.HeldResult, error)) toolDef {
	return newTool(toolset, &mcp.Tool{Name: name, Annotations: destructive(), Description: desc},
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
		heldTool(ToolsetInteract, "press",
			"Hold a pointer button at an element or point, to drag (move, release).",
			func(ctx context.Context, in pressArgs) (*core.HeldResult, error) {
				return s.Press(ctx, in.Session, in.Element, point(in.X, in.Y), in.Button)
			}),
		heldTool(ToolsetInteract, "move",
			"Drag the held button to an element or point, in steps.",
			func(ctx context.Context, in moveArgs) (*core.HeldResult, error) {
				return s.Move(ctx, in.Session, in.Element, point(in.X, in.Y))
			}),
		heldTool(ToolsetInteract, "release",
			"Release the held button where the pointer is.",
			func(ctx context.Context, in releaseArgs) (*core.HeldResult, error) {
				return s.Release(ctx, in.Session, in.Button)
			}),
		heldTool(ToolsetKeyboard, "key_down",
			"Hold a key (Shift, Ctrl, Alt) over other input; key_up releases it.",
			func(ctx context.Context, in heldKeyArgs) (*core.HeldResult, error) {
				return s.KeyDown(ctx, in.Session, in.Key)
			}),
		heldTool(ToolsetKeyboard, "key_up",
			"Release a key held with key_down.",
			func(ctx context.Context, in heldKeyArgs) (*core.HeldResult, error) {
				return s.KeyUp(ctx, in.Session, in.Key)
			}),
	}
}
