//go:build linux

package atspi

import (
	"context"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/uiscope/uiscope/internal/platform"
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
	via     *dbus.Conn // nil: the bus
	ctx     context.Context
	cancel  context.CancelFunc
	pending []pendingCall
	sent    int
}

type pendingCall struct {
	call    *dbus.Call
	handler func(*dbus.Call)
}

// maxBatchTime bounds a batch whose context has no deadline of its own:
// no call ever waits for an answer without one.
const maxBatchTime = 30 * time.Second

func (c *Conn) newBatch(ctx context.Context) *batch {
	if _, ok := ctx.Deadline(); ok {
		return &batch{c: c, ctx: ctx, cancel: func() {}}
	}
	ctx, cancel := context.WithTimeout(ctx, maxBatchTime)
	return &batch{c: c, ctx: ctx, cancel: cancel}
}

// add sends one call; handler receives it with Err or Body set.
func (b *batch) add(dest string, path dbus.ObjectPath, method string, handler func(*dbus.Call), args ...any) {
	if len(b.pending) >= maxInFlight {
		b.drain(len(b.pending) / 2)
	}
	conn := b.c.bus.Conn
	if b.via != nil {
		conn = b.via
	}
	call := conn.Object(dest, path).GoWithContext(b.ctx, method, dbus.FlagNoAutoStart, nil, args...)
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

// close releases the batch's own deadline, if it made one.
func (b *batch) close() { b.cancel() }

// extents queues a Component.GetExtents in the given coordinate type and
// hands set the bounds, or nil when the call failed or the extents are not
// a usable rectangle.
func (b *batch) extents(dest string, path dbus.ObjectPath, coord uint32, set func(*platform.Rect)) {
	b.add(dest, path, ifaceComponent+".GetExtents", func(call *dbus.Call) {
		var r struct{ X, Y, W, H int32 }
		if call.Err != nil || call.Store(&r) != nil || !validExtents(r.X, r.Y, r.W, r.H) {
			set(nil)
			return
		}
		set(&platform.Rect{X: int(r.X), Y: int(r.Y), Width: int(r.W), Height: int(r.H)})
	}, coord)
}

// states queues an Accessible.GetState and hands set the states, or the
// error of a call that failed or answered what is no state set.
func (b *batch) states(dest string, path dbus.ObjectPath, set func(s platform.StateSet, err error)) {
	b.add(dest, path, ifaceAccessible+".GetState", func(call *dbus.Call) {
		var words []uint32
		if call.Err != nil {
			set(0, call.Err)
		} else if err := call.Store(&words); err != nil {
			set(0, err)
		} else {
			set(platform.StateSetFromWords(words), nil)
		}
	})
}

// get queues a Properties.Get and hands the value to set when it arrives.
// Properties are read one by one, never with GetAll: Qt 5.15 crashes when
// asked for GetAll on an application root.
func (b *batch) get(dest string, path dbus.ObjectPath, iface, prop string, set func(v any, err error)) {
	b.add(dest, path, ifaceProps+".Get", func(call *dbus.Call) {
		var v dbus.Variant
		if call.Err != nil {
			set(nil, call.Err)
			return
		}
		if err := call.Store(&v); err != nil {
			set(nil, err)
			return
		}
		set(v.Value(), nil)
	}, iface, prop)
}
