package core

import (
	"context"

	"github.com/uiscope/uiscope/internal/security"
)

// Runs: several calls in one session answered as one (the MCP layer's
// run_steps). Each call goes its own way, gates and all; what a run adds
// is checked here before any call is made — that the session is the
// caller's and its app the one it was opened on, that every ref the calls
// name is one the session handed out, that the server and the user allow
// what the calls need — and the effects of the whole run: the app is looked
// at before the first call and once more after the last has settled.

// Run is one run of calls in a session, from BeginRun to End.
type Run struct {
	m        *Sessions
	s        *Session
	obs      *observer
	before   *Tree
	maxBytes int
}

// RunEffects is what a whole run caused: its effects, and with observe its
// tree changes (as an observed action's, ActResult.Changes).
type RunEffects struct {
	Effects     Effects
	Changes     *[]Change
	ChangesNote string
}

// BeginRun opens a run in the calling client's session sessionID; nothing
// is read of the app yet but what checks its identity.
func (m *Sessions) BeginRun(ctx context.Context, sessionID string) (*Run, error) {
	s, err := m.Get(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	return &Run{m: m, s: s}, nil
}

// Resolve checks that ref is one of the session's: well formed, of its
// tree kind, and in its last read (or its last complete read). Whether the
// element is still there is the call's to find out, as it would alone.
func (r *Run) Resolve(ref string) error {
	_, _, _, err := r.s.Resolve(ref)
	return err
}

// Allowed checks that the server grants need and that the user allowed it
// on this session (consent prompts): a call that needs more is refused
// before the run starts, as the call itself would be refused when its
// turn came.
func (r *Run) Allowed(need security.Caps) error {
	if err := r.m.require(need, "acting on applications"); err != nil {
		return err
	}
	return r.m.consented(r.s, need)
}

// Start looks at the app before the first call; with maxBytes > 0 it
// reads its tree too, for the run's changes within maxBytes (as WithObserve).
func (r *Run) Start(ctx context.Context, maxBytes int) {
	r.obs = r.m.observe(ctx, r.s)
	if maxBytes > 0 {
		r.maxBytes = maxBytes
		r.before = r.m.observeBefore(WithObserve(ctx, maxBytes), r.s)
	}
}

// End waits for the app to settle after the last call and says what the
// run changed since Start. settled says the last call was an action that
// answered, which it did once the app had settled after it: the app is
// looked at again without another wait.
func (r *Run) End(ctx context.Context, settled bool) RunEffects {
	defer r.obs.stop()
	var e RunEffects
	if settled {
		e.Effects = r.m.effects(ctx, r.s, r.obs.before, "")
	} else {
		e.Effects = r.obs.effects(ctx)
	}
	if r.before != nil {
		var ar ActResult
		r.m.observed(WithObserve(ctx, r.maxBytes), r.s, r.before, &ar)
		e.Changes, e.ChangesNote = ar.Changes, ar.ChangesNote
	}
	return e
}
