package mcpserver

import (
	"context"

	"github.com/uiscope/uiscope/internal/core"
)

func (h *handlers) clickTools() []toolDef {
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
	}
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
