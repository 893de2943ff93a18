package mcpserver

import (
	"context"

	"github.com/uiscope/uiscope/internal/core"
)

func (h *handlers) clickTools() []toolDef {
	s := h.sessions
	return []toolDef{
		action(ToolsetInteract, "click",
			"Click an element: its own action, else a real left click where nothing covers it.", actTimeout,
			func(ctx context.Context, in clickArgs) (*core.ActResult, error) {
				wait, err := core.ReplyWait(in.TimeoutMs)
				if err != nil {
					return nil, err
				}
				return s.ClickWait(ctx, in.Session, in.Element, wait)
			}),
		action(ToolsetInteract, "invoke",
			"Run an element's action by name, never moving the pointer.", actTimeout,
			func(ctx context.Context, in invokeArgs) (*core.ActResult, error) {
				wait, err := core.ReplyWait(in.TimeoutMs)
				if err != nil {
					return nil, err
				}
				return s.InvokeWait(ctx, in.Session, in.Element, in.Action, wait)
			}),
		action(ToolsetInteract, "toggle",
			"Flip a check box, toggle button, switch or radio button.", actTimeout,
			func(ctx context.Context, in elementArgs) (*core.ActResult, error) {
				return s.Toggle(ctx, in.Session, in.Element)
			}),
	}
}

type clickArgs struct {
	sessionField
	observeField
	Element   string `json:"element"`
	TimeoutMs *int   `json:"timeoutMs,omitempty"`
}

type invokeArgs struct {
	sessionField
	observeField
	Element   string `json:"element"`
	Action    string `json:"action,omitempty" jsonschema:"default the click-like one"`
	TimeoutMs *int   `json:"timeoutMs,omitempty"`
}

func (in clickArgs) precheck() error  { return replyCheck(in.observeField, in.TimeoutMs) }
func (in invokeArgs) precheck() error { return replyCheck(in.observeField, in.TimeoutMs) }

// replyCheck checks maxBytes and the reply's timeoutMs without running
// anything (run_steps).
func replyCheck(o observeField, timeoutMs *int) error {
	if err := o.precheck(); err != nil {
		return err
	}
	_, err := core.ReplyWait(timeoutMs)
	return err
}
