package atspi

import (
	"context"
	"sync"

	"github.com/godbus/dbus/v5"
)

// Event interfaces uiscope listens to: object changes (children, states,
// properties, text) and window life (create, destroy, activate...).
var eventInterfaces = []string{"org.a11y.atspi.Event.Object", "org.a11y.atspi.Event.Window"}

// watchers fans AT-SPI events out by sender. Signals are drained by one
// goroutine from a large buffer, as godbus gives every signal its own
// goroutine (and loses the order) once a channel is full.
type watchers struct {
	mu      sync.Mutex
	started bool
	err     error
	subs    map[string]map[chan struct{}]bool // by bus name
}

// Watch returns a channel that receives a value (coalesced: it holds at
// most one) whenever the application on bus emits an AT-SPI event, and a
// function that stops watching. Events only say "something changed": the
// caller reads what it needs again. The channel is never closed.
func (c *Conn) Watch(ctx context.Context, bus string) (<-chan struct{}, func(), error) {
	w := &c.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.started {
		w.started = true
		for _, iface := range eventInterfaces {
			if err := c.bus.AddMatchSignalContext(ctx, dbus.WithMatchInterface(iface)); err != nil {
				w.err = err
				break
			}
		}
		if w.err == nil {
			sigs := make(chan *dbus.Signal, 4096)
			c.bus.Signal(sigs)
			go w.dispatch(sigs)
		}
	}
	if w.err != nil {
		return nil, func() {}, w.err
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

// dispatch runs until the connection closes (godbus closes sigs then).
func (w *watchers) dispatch(sigs chan *dbus.Signal) {
	for sig := range sigs {
		w.mu.Lock()
		for ch := range w.subs[sig.Sender] {
			select {
			case ch <- struct{}{}:
			default: // a change is already pending
			}
		}
		w.mu.Unlock()
	}
}
