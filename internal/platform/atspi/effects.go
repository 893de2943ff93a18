//go:build linux

package atspi

// What an action caused, read cheaply: the application's top-level
// accessibles (a dialog opened, a window closed) and where the keyboard
// focus went, from the focus events the connection already receives; and
// actions started without waiting for their reply, because Qt answers
// DoAction only once the slot it ran has returned, which for a slot that
// runs QDialog::exec() is when the dialog closes.

import (
	"context"
	"errors"
	"fmt"

	"github.com/godbus/dbus/v5"

	"github.com/uiscope/uiscope/internal/platform"
)

// TopLevels reads the application's top-level accessibles (the children of
// its root: frames, dialogs, menus' windows) with their role, name and
// states, in one round trip after GetChildren. Children that no longer
// answer are left out.
func (c *Conn) TopLevels(ctx context.Context, bus string) ([]platform.Node, error) {
	var refs []objRef
	if err := c.call(ctx, bus, rootPath, ifaceAccessible+".GetChildren", nil, &refs); err != nil {
		return nil, goneErr(err)
	}
	nodes := make([]platform.Node, 0, len(refs))
	live := make([]bool, 0, len(refs))
	b := c.newBatch(ctx)
	defer b.close()
	for _, r := range refs {
		if r.null() {
			continue
		}
		nodes = append(nodes, platform.Node{Key: r.key()})
		live = append(live, true)
		i := len(nodes) - 1
		n := &nodes[i]
		b.add(r.Bus, r.Path, ifaceAccessible+".GetRole", func(call *dbus.Call) {
			var role uint32
			if call.Err != nil || call.Store(&role) != nil {
				live[i] = false
				return
			}
			n.Role = platform.Role(role)
		})
		b.get(r.Bus, r.Path, ifaceAccessible, "Name", func(v any, err error) {
			n.Name, _ = v.(string)
		})
		b.states(r.Bus, r.Path, func(s platform.StateSet, err error) {
			if err != nil {
				live[i] = false
			}
			n.States = s
		})
		b.extents(r.Bus, r.Path, 0, func(rect *platform.Rect) { n.Bounds = rect })
	}
	b.wait()
	if err := ctx.Err(); err != nil {
		return nil, mapErr(err)
	}
	out := nodes[:0]
	for i, n := range nodes {
		if live[i] && !n.States.Has(platform.StateDefunct) {
			out = append(out, n)
		}
	}
	return out, nil
}

// Focus is the last element of an application that announced it took the
// keyboard focus since the connection started listening (Watch), and a
// count of such announcements: a count that moved between two looks means
// the focus moved in between, even back to where it was. Key is "" when
// nothing was announced yet.
func (c *Conn) Focus(bus string) (key string, moves uint64) {
	w := &c.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	f := w.focus[bus]
	return f.key, f.moves
}

// focusNote is what the dispatcher keeps of an application's focus events.
type focusNote struct {
	key   string
	moves uint64
}

// noteFocus records a focus event (state-changed:focused set); w.mu is held.
func (w *watchers) noteFocus(sig *dbus.Signal) {
	if len(sig.Body) < 2 {
		return
	}
	detail, _ := sig.Body[0].(string)
	on, _ := sig.Body[1].(int32)
	if detail != "focused" || on != 1 {
		return
	}
	if w.focus == nil {
		w.focus = map[string]focusNote{}
	}
	f := w.focus[sig.Sender]
	w.focus[sig.Sender] = focusNote{key: objRef{sig.Sender, sig.Path}.key(), moves: f.moves + 1}
}

// StartAction runs the element's action named by the first of names it has
// (as DoAction chooses) and returns at once with the action's own name and
// a channel that receives the reply's outcome: nil, ErrNoEffect when the
// element answered false, or the call's error. The call waits for its reply
// until ctx is done (ErrTimeout then), so ctx must carry the deadline the
// caller wants: a late reply is no failure here, the caller decides what it
// means.
func (c *Conn) StartAction(ctx context.Context, key string, names ...string) (string, <-chan error, error) {
	t, idx, name, err := c.chooseAction(ctx, key, names)
	if err != nil {
		return name, nil, err
	}
	if _, ok := ctx.Deadline(); !ok {
		return name, nil, errors.New("StartAction: the context has no deadline")
	}
	reply := make(chan error, 1)
	call := c.bus.Object(t.ref.Bus, t.ref.Path).GoWithContext(ctx, ifaceAction+".DoAction", dbus.FlagNoAutoStart, nil, int32(idx))
	go func() {
		<-call.Done
		var err error
		var ok bool
		switch {
		case call.Err != nil && errors.Is(mapErr(call.Err), platform.ErrTimeout):
			err = mapErr(call.Err)
		case call.Err != nil:
			// The element may be gone, or not implement the call: ask it
			// as op does, under a deadline of its own (ctx may be over).
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), DefaultCallTimeout)
			err = c.opErr(cctx, t, ifaceAction+".DoAction", call.Err)
			cancel()
		case call.Store(&ok) != nil:
			err = fmt.Errorf("DoAction: an answer that is not a boolean: %v", call.Body)
		case !ok:
			err = fmt.Errorf("%w: the %s refused action %q", ErrNoEffect, t.role, name)
		}
		reply <- err
	}()
	return name, reply, nil
}
