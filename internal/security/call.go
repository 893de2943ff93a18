package security

import (
	"context"
	"sync"
)

// Call is what one tool call learns about itself as it runs: the client
// that made it, and the process it touched once the core has checked that
// process's identity. The MCP layer creates it and writes it to the audit
// log; the core fills in the target.
type Call struct {
	Client string

	mu        sync.Mutex
	pid       int
	startTime uint64
}

type callKey struct{}

// WithCall returns ctx carrying c.
func WithCall(ctx context.Context, c *Call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// CallFrom returns the call ctx carries, or nil.
func CallFrom(ctx context.Context) *Call {
	c, _ := ctx.Value(callKey{}).(*Call)
	return c
}

// NoteTarget records the process a call touched, identified by pid and
// start time. Without a call in ctx it does nothing.
func NoteTarget(ctx context.Context, pid int, startTime uint64) {
	c := CallFrom(ctx)
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pid, c.startTime = pid, startTime
}

// Target is the process the call touched (0, 0 when none).
func (c *Call) Target() (pid int, startTime uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pid, c.startTime
}
