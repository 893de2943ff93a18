package atspi

import (
	"context"

	"github.com/godbus/dbus/v5"
)

// maxInFlight bounds the calls a batch keeps outstanding. The bus daemon
// queues them for the app, which answers one at a time; a window this size
// keeps the app busy without building a huge queue in front of a frozen one.
const maxInFlight = 256

// batch pipelines D-Bus calls: it sends them without waiting and runs each
// reply's handler in send order once it arrives. One round trip of latency is
// paid per window, not per call.
type batch struct {
	c       *Conn
	ctx     context.Context
	pending []pendingCall
	sent    int
}

type pendingCall struct {
	call    *dbus.Call
	handler func(*dbus.Call)
}

func (c *Conn) newBatch(ctx context.Context) *batch { return &batch{c: c, ctx: ctx} }

// add sends one call; handler receives it with Err or Body set.
func (b *batch) add(dest string, path dbus.ObjectPath, method string, handler func(*dbus.Call), args ...any) {
	if len(b.pending) >= maxInFlight {
		b.drain(len(b.pending) / 2)
	}
	call := b.c.bus.Object(dest, path).GoWithContext(b.ctx, method, dbus.FlagNoAutoStart, nil, args...)
	b.pending = append(b.pending, pendingCall{call, handler})
	b.sent++
}

// drain waits for the oldest n pending calls.
func (b *batch) drain(n int) {
	for _, p := range b.pending[:n] {
		<-p.call.Done
		p.handler(p.call)
	}
	b.pending = append(b.pending[:0], b.pending[n:]...)
}

// wait waits for every pending call. Calls past the context's deadline
// finish with its error, so wait returns by the deadline.
func (b *batch) wait() { b.drain(len(b.pending)) }
