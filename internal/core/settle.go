package core

import (
	"context"
	"errors"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
)

// An action returns on a settled UI: the app has sent no event for
// quietTime, and the element read back then shows what was asked. An app
// may still be working on the input when the call that sent it returns (GTK's
// file chooser completes a typed path on its own a moment later and eats
// an Enter sent meanwhile); answering only once it is quiet makes the
// agent's next action land where a user's would, and makes the result's
// `after` the state the app settled on, not its first step.
//
// Variables, not constants, only so that unit tests of what happens at
// the cap need not wait for it.
var (
	// quietTime is how long without an event counts as settled.
	quietTime = 200 * time.Millisecond
	// settleCap bounds the whole wait: an app that never stops sending
	// events (an animation, a clock) is read when it passes.
	settleCap = 3 * time.Second
	// pollGap paces re-reads while the app is quiet and the read-back is
	// not yet what was asked (a change that comes without an event).
	pollGap = 50 * time.Millisecond
	// noWatchQuiet stands in for quiet on a platform without events: the
	// first read after it is taken as settled.
	noWatchQuiet = 150 * time.Millisecond
	// stillTime is how long an application that announces almost nothing
	// (GTK 4.8) must hold still, read again every stillGap, before it
	// counts as settled: its quiet says nothing.
	stillTime = 300 * time.Millisecond
	stillGap  = 60 * time.Millisecond
)

// settle waits for the app to be quiet and then reads key back until want
// holds (want nil: any read), bounded by settleCap and ctx. It returns
// the last read (nil when every read failed) and whether want held on it;
// with want nil, an element that can no longer be read after the quiet
// time (gone with the dialog it closed) is settled too, with no read.
// changes are the app's events, subscribed before the action was sent;
// a nil channel means the platform has none.
func (m *Sessions) settle(ctx context.Context, s *Session, key string, changes <-chan struct{}, want func(*platform.Details) bool) (*platform.Details, bool) {
	read := func() (*platform.Details, error) {
		return m.desk.Accessibility.Element(ctx, s.App, key)
	}
	capAt := time.Now().Add(settleCap)
	d, held := m.settleQuiet(ctx, s, key, changes, want, read)
	sr, ok := m.desk.Accessibility.(platform.StillReader)
	if !ok || s.Mode == ModeVisual || !sr.EventPoor(s.App) || ctx.Err() != nil {
		return d, held
	}
	// Quiet came at once, as it does on GTK 4: what the action changes
	// may still be on its way. Wait until the app holds still, then read
	// the element again.
	if !m.holdStill(ctx, s, sr, capAt) || key == "" {
		return d, held
	}
	if again, err := read(); err == nil {
		return again, want == nil || want(again)
	} else if want == nil {
		return nil, true
	}
	return d, held
}

// holdStill reads the app's fingerprint every stillGap until it has not
// changed for stillTime, or until capAt; it reports whether it read any.
func (m *Sessions) holdStill(ctx context.Context, s *Session, sr platform.StillReader, capAt time.Time) bool {
	last, err := sr.Fingerprint(ctx, s.App)
	if err != nil {
		return false
	}
	since := time.Now()
	for time.Since(since) < stillTime && time.Now().Before(capAt) {
		select {
		case <-time.After(stillGap):
		case <-ctx.Done():
			return true
		}
		fp, err := sr.Fingerprint(ctx, s.App)
		if err != nil {
			return true
		}
		if fp != last {
			last, since = fp, time.Now()
		}
	}
	return true
}

// settleQuiet is settle until the app is quiet (the first part of
// settle, and all of it where events say when an app is done).
func (m *Sessions) settleQuiet(ctx context.Context, s *Session, key string, changes <-chan struct{}, want func(*platform.Details) bool, read func() (*platform.Details, error)) (*platform.Details, bool) {
	limit := time.NewTimer(settleCap)
	defer limit.Stop()
	first := quietTime
	if changes == nil {
		first = noWatchQuiet
	}
	quiet := time.NewTimer(first)
	defer quiet.Stop()
	var last *platform.Details
	for {
		select {
		case <-changes:
			// Still busy: settled means quietTime after the last event.
			quiet.Reset(quietTime)
		case <-quiet.C:
			// Quiet ends with a call the app answers (the element read
			// back, else its top levels, twice): an app still at work on
			// the action (a starved GTK 3 app building a file chooser
			// falls silent for longer than quietTime before it shows it)
			// answers only after it, and what it sent meanwhile says it
			// is not done. Without an element, a second call: an app
			// that has not yet taken the keys (in its socket, in the
			// same turn of its main loop as the first call) answers it
			// after their handler.
			if key == "" {
				if m.roundTrip(ctx, s) && (sent(changes) || m.roundTrip(ctx, s) && sent(changes)) {
					quiet.Reset(quietTime)
					continue
				}
				return nil, true
			}
			d, err := read()
			if sent(changes) {
				quiet.Reset(quietTime)
				continue
			}
			switch {
			case err == nil:
				last = d
				if want == nil || want(d) {
					return d, true
				}
			case want == nil:
				// Gone (the OK button of a dialog it closed) or not
				// answering: settled, with nothing to show.
				return nil, true
			case errors.Is(err, platform.ErrElementGone):
				return last, false
			}
			quiet.Reset(pollGap)
		case <-limit.C:
			if d, err := read(); err == nil {
				last = d
			}
			return last, last != nil && (want == nil || want(last))
		case <-ctx.Done():
			return last, last != nil && (want == nil || want(last))
		}
	}
}

// roundTrip makes one call the app answers (its top levels), for settle;
// false when the platform has none to make or the session is visual.
func (m *Sessions) roundTrip(ctx context.Context, s *Session) bool {
	tl, ok := m.desk.Accessibility.(platform.TopLevelReader)
	if !ok || s.Mode == ModeVisual {
		return false
	}
	_, err := tl.TopLevels(ctx, s.App)
	return err == nil
}

// sent reports whether the app sent an event since changes was last
// drained (false for a platform without events).
func sent(changes <-chan struct{}) bool {
	select {
	case <-changes:
		return true
	default:
		return false
	}
}
