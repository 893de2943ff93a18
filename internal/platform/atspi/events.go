//go:build linux

package atspi

import (
	"context"
	"strings"
	"sync"

	"github.com/godbus/dbus/v5"
)

// Event interfaces uiscope listens to: object changes (children, states,
// properties, text) and window life (create, destroy, activate...).
var eventInterfaces = []string{"org.a11y.atspi.Event.Object", "org.a11y.atspi.Event.Window"}

// watchers fans AT-SPI events out by sender: coalesced pings to Watch
// subscribers, and each event itself to the application's mirror. Signals
// are drained by one goroutine from a large buffer, as godbus gives every
// signal its own goroutine (and loses the order) once a channel is full.
type watchers struct {
	mu      sync.Mutex
	started bool
	err     error
	sigs    chan *dbus.Signal
	subs    map[string]map[chan struct{}]bool // by bus name
	mirrors map[string]*mirror                // by bus name
	focus   map[string]focusNote              // by bus name (effects.go)
}

// barrierSignal marks a point in the signal stream (see barrier).
const barrierSignal = "uiscope.barrier"

// start adds the match rules and starts the dispatcher once; w.mu is held.
func (w *watchers) start(ctx context.Context, c *Conn) error {
	if w.started {
		return w.err
	}
	w.started = true
	for _, iface := range eventInterfaces {
		if err := c.bus.AddMatchSignalContext(ctx, dbus.WithMatchInterface(iface)); err != nil {
			w.err = err
			return err
		}
	}
	w.sigs = make(chan *dbus.Signal, 4096)
	c.bus.Signal(w.sigs)
	go w.dispatch(w.sigs)
	return nil
}

// Watch returns a channel that receives a value (coalesced: it holds at
// most one) whenever the application on bus emits an AT-SPI event other
// than a bounds change, and a function that stops watching. Events only
// say "something changed": the caller reads what it needs again. The
// channel is never closed.
func (c *Conn) Watch(ctx context.Context, bus string) (<-chan struct{}, func(), error) {
	w := &c.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.start(ctx, c); err != nil {
		return nil, func() {}, err
	}
	if w.subs == nil {
		w.subs = map[string]map[chan struct{}]bool{}
	}
	if w.subs[bus] == nil {
		w.subs[bus] = map[chan struct{}]bool{}
	}
	ch := make(chan struct{}, 1)
	w.subs[bus][ch] = true
	stop := func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		delete(w.subs[bus], ch)
	}
	return ch, stop, nil
}

// barrier returns once every signal that reached the connection before the
// call has been dispatched. A reply from an application comes after the
// signals it sent before it, so after a call to the app and a barrier its
// mirror has noted every change the app announced until it answered.
func (w *watchers) barrier(ctx context.Context) error {
	w.mu.Lock()
	sigs := w.sigs
	w.mu.Unlock()
	if sigs == nil {
		return nil
	}
	done := make(chan struct{})
	select {
	case sigs <- &dbus.Signal{Name: barrierSignal, Body: []any{done}}:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// dispatch runs until the connection closes (godbus closes sigs then).
func (w *watchers) dispatch(sigs chan *dbus.Signal) {
	for sig := range sigs {
		if sig.Name == barrierSignal && sig.Sender == "" {
			if done, ok := sig.Body[0].(chan struct{}); ok {
				close(done)
			}
			continue
		}
		w.mu.Lock()
		// Bounds changes are the mirrors' alone: they come every frame of
		// an animation, and would wake a watcher waiting for the effect of
		// an action before it happened.
		if sig.Name == "org.a11y.atspi.Event.Object.StateChanged" {
			w.noteFocus(sig)
		}
		if !strings.HasSuffix(sig.Name, ".BoundsChanged") {
			for ch := range w.subs[sig.Sender] {
				select {
				case ch <- struct{}{}:
				default: // a change is already pending
				}
			}
		}
		// A nearly full buffer means godbus may soon deliver signals out
		// of order, or late: no mirror can trust its notes then.
		overflow := len(sigs) > cap(sigs)/2
		for bus, m := range w.mirrors {
			if overflow {
				m.invalidate()
			} else if bus == sig.Sender {
				m.note(sig)
			}
		}
		w.mu.Unlock()
	}
}
