//go:build linux

package atspi

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/uiscope/uiscope/internal/platform"
)

// The bulk call (Cache.GetItems) answers with an application's whole
// cache in one message, so its time grows with the application: GTK 3's
// answer for 5,001 labels took 1 to 9 s at load 7 to 10 (about half of it
// decoding, in a -race build) and 4 to 38 s at load 25 to 31, where a
// small app answers in milliseconds. One deadline for every app, the 3 s
// of any other call, made a large app unreadable on a loaded machine:
// each read gave up on it, and each call given up on was still answered
// by the app, whose main loop then answered the next read's call late
// too.
//
// So an application's bulk calls are timed, and each may take what its
// answers took, four times over, at least DefaultCallTimeout and at most
// the ceiling (30 s); never longer than its caller's context allows. What
// its answers took is the last one's time, or an earlier one's halved
// for each answer since when that is longer: consecutive answers of one
// app varied fivefold (1.3 to 6.9 s) at load 7. An application never
// answered yet has no time of its own: its first call may take its
// caller's deadline (up to the ceiling), since giving up on it earlier
// leaves the read with nothing. A call that went unanswered until the
// ceiling (a frozen app) leaves the app DefaultCallTimeout until it
// answers again.
//
// A call outlives the caller that gave up on it, up to the ceiling, so
// that its time is learned however long it took. While it runs no other
// bulk call is sent to the app (it would wait behind that one in the
// app's main loop, and a frozen app would only pile them up): a caller
// waits for it, no longer than the app's limit from its own asking (as
// long as it would have waited for a call of its own), and then sends its
// own. A call's answer goes only to callers that asked before it was
// sent, so that it shows what the app showed after they asked.

// bulkRule is how long an application's bulk calls may take.
type bulkRule struct {
	floor   time.Duration // the least, whatever the app's history
	factor  int           // times what the app's answers took
	ceiling time.Duration // the most, and how long a call is kept waiting for its answer
}

// defaultBulkRule is the rule of connections.
var defaultBulkRule = bulkRule{floor: DefaultCallTimeout, factor: 4, ceiling: 30 * time.Second}

// bulkHistory is what the connection knows of one application's bulk
// calls. Guarded by Conn.mu.
type bulkHistory struct {
	// took is how long the app's answered calls took, from sending to
	// the answer decoded: the longest of them, each counted at half the
	// time of the one after it (learn); 0 before any.
	took time.Duration
	// silent: the last call went unanswered until the ceiling.
	silent bool
	// flight is the call not answered yet, or nil.
	flight *bulkCall
}

// bulkCall is one Cache.GetItems call.
type bulkCall struct {
	sent time.Time
	done chan struct{} // closed once call has its answer or error
	call *dbus.Call
}

// limit is how long a call of the app may take, the caller's context
// aside.
func (r bulkRule) limit(h bulkHistory) time.Duration {
	switch {
	case h.silent:
		return r.floor
	case h.took == 0:
		return r.ceiling
	}
	return min(max(r.floor, time.Duration(r.factor)*h.took), r.ceiling)
}

// learn notes how a call sent at sent ended, at now.
func (r bulkRule) learn(h *bulkHistory, sent, now time.Time, err error) {
	switch {
	case err == nil:
		// A slow answer is remembered over a few quick ones: each answer
		// halves what the ones before it count for.
		h.took, h.silent = max(now.Sub(sent), h.took/2), false
	case errors.Is(err, context.DeadlineExceeded):
		h.silent = true
	}
	// Other errors (no such object or method, the app gone) say nothing
	// of its time.
}

// bulkFlight returns the app's bulk call in flight, sending one when
// there is none, and how long it may take.
func (c *Conn) bulkFlight(bus string) (*bulkCall, time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bulks == nil {
		c.bulks = map[string]*bulkHistory{}
	}
	h := c.bulks[bus]
	if h == nil {
		h = &bulkHistory{}
		c.bulks[bus] = h
	}
	rule := c.bulkRule
	if rule == (bulkRule{}) {
		rule = defaultBulkRule
	}
	if h.flight == nil {
		f := &bulkCall{sent: time.Now(), done: make(chan struct{})}
		// Its deadline is the ceiling, whoever waits: the answer is timed
		// even when every caller gave up on it.
		cctx, cancel := context.WithTimeout(context.Background(), rule.ceiling)
		f.call = c.bus.Object(bus, cachePath).GoWithContext(cctx, ifaceCache+".GetItems", dbus.FlagNoAutoStart, make(chan *dbus.Call, 1))
		h.flight = f
		go func() {
			<-f.call.Done
			now := time.Now()
			cancel()
			c.mu.Lock()
			rule.learn(h, f.sent, now, f.call.Err)
			h.flight = nil
			if errors.Is(mapErr(f.call.Err), platform.ErrElementGone) {
				delete(c.bulks, bus)
			}
			c.mu.Unlock()
			close(f.done)
		}()
	}
	return h.flight, rule.limit(*h)
}

// getItems makes the application's bulk call and returns its answer to a
// call sent after getItems began; ErrTimeout when none came within the
// app's limit or ctx.
func (c *Conn) getItems(ctx context.Context, bus string) (*dbus.Call, error) {
	asked := time.Now()
	for {
		f, limit := c.bulkFlight(bus)
		// Its own call may take the limit from its sending; an earlier
		// one, answered to others, the limit from this read's asking: a
		// read behind a frozen app's call fails as if it had sent its own.
		wait, cancel := context.WithDeadline(ctx, later(f.sent, asked).Add(limit))
		select {
		case <-f.done:
		case <-wait.Done():
		}
		cancel()
		select {
		case <-f.done:
		default:
			why := "its bulk call (Cache.GetItems) was not answered"
			if f.sent.Before(asked) {
				why = "its bulk call (Cache.GetItems) sent before this read was still not answered"
			}
			cause := ctx.Err()
			if cause == nil {
				cause = context.DeadlineExceeded
			}
			return nil, fmt.Errorf("%w: %s after %v, %v allowed (the application may be busy or frozen): %v", platform.ErrTimeout, why,
				time.Since(later(f.sent, asked)).Round(time.Millisecond), limit.Round(time.Millisecond), cause)
		}
		if f.sent.Before(asked) {
			continue // an answer of what the app showed before this read began
		}
		if f.call.Err != nil {
			return nil, mapErr(f.call.Err)
		}
		return f.call, nil
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
