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
func destructive() *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(true)}
}

// actResult is every acting tool's success shape: the session and what
// the core says the action did.
type actResult struct {
	Session string `json:"session"`
	*core.ActResult
}

// sessionField is the session argument of the tools that act or read
// through a core request (action, read).
type sessionField struct {
	Session string `json:"session"`
}

func (s sessionField) session() string { return s.Session }

// observeField asks an acting tool for the tree changes its action caused.
type observeField struct {
	Observe  bool `json:"observe,omitempty"`
	MaxBytes *int `json:"maxBytes,omitempty"`
}

func (o observeField) observing() (bool, *int) { return o.Observe, o.MaxBytes }

// precheck checks maxBytes without running anything (run_steps).
func (o observeField) precheck() error {
	_, err := observeBytes(o.MaxBytes)
	return err
}

// observeBytes is the byte budget of an observed call's changes: maxBytes,
// or the default when none is given.
func observeBytes(maxBytes *int) (int, error) {
	if maxBytes == nil {
		return core.DefaultObserveBytes, nil
	}
	if *maxBytes < 500 || *maxBytes > core.MaxMaxBytes {
		return 0, core.Errorf(core.CodeInvalidArgument, "maxBytes must be between 500 and %d, not %d", core.MaxMaxBytes, *maxBytes)
	}
	return *maxBytes, nil
}

// action builds one acting tool: the deadline, the core call, the result
// shape are the same for all of them.
func action[In interface{ session() string }](toolset, name, desc string, limit time.Duration,
	act func(context.Context, In) (*core.ActResult, error)) toolDef {
	return newTool(toolset, &mcp.Tool{Name: name, Annotations: destructive(), Description: desc},
		func(ctx context.Context, _ *mcp.CallToolRequest, in In) (actResult, error) {
			ctx, cancel := context.WithTimeout(ctx, limit)
			defer cancel()
			if o, ok := any(in).(interface{ observing() (bool, *int) }); ok {
				if on, maxBytes := o.observing(); on {
					b, err := observeBytes(maxBytes)
					if err != nil {
						return actResult{}, err
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
	Element string `json:"element"`
}
