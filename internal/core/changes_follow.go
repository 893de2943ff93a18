package core

import (
	"context"
	"sync"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
)

// Following an application (docs/api.md, "Live changes"). A session's
// watcher re-reads its application as soon as the platform reports a
// change (Events.Watch: every event of a burst collapses into one pending
// hint, so a dialog opening that raises dozens of events costs one or two
// reads) and diffs the read into the session's resource feed and its event
// log, then tells its listeners. A slow poll (FollowPoll) is the safety
// net for toolkits that raise no events. The patch is cached before the
// listeners hear of it, so the read that follows a notification is
// instant.
//
// One watcher per session, however many listeners: it starts with the
// first (Follow) and stops with the last, with Disconnect, or when the
// application is gone (ownershipLost); nothing of it outlives its session.

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// FollowPoll is the safety-net poll of a watcher. (A variable for tests.)
var FollowPoll = 2 * time.Second

// followMinGap is the least time from one read of a watcher to the next.
const followMinGap = 25 * time.Millisecond

// A watcher that only keeps the event log (no subscriber waits on its
// patches) reads less often: get_events asks it for a read of its own
// (Events), so what a caller takes is current however long the watcher
// waited, and a session costs little while the agent thinks.
var (
	logPoll   = 10 * time.Second
	logMinGap = 200 * time.Millisecond
)

// followReadTimeout bounds one read of a watcher.
const followReadTimeout = 10 * time.Second

// live is a session's live state.
type live struct {
	mu        sync.Mutex
	tool      *Feed     // get_a11y_tree_changes
	res       *Feed     // the session's resource, raw view
	log       *EventLog // get_events
	logHeld   bool      // the event log keeps the watcher running (KeepEvents, get_events)
	listeners map[int]func()
	nextTok   int
	cancel    context.CancelFunc // the running watcher's; nil when none
	done      chan struct{}      // closed when the running watcher ends
	ready     chan struct{}      // closed once the running watcher watches
	err       error              // why the last watcher ended by itself
	closed    bool
	reads     int // reads the watchers made (tests)
	// A read asked for (Events): poke wakes the watcher; begun counts the
	// reads it started, recorded the last one that ended (failed says it
	// read nothing), and after is closed when recorded moves.
	poke     chan struct{}
	begun    int64
	recorded int64
	failed   bool
	after    chan struct{}
}

// feeds returns the session's feeds and log, created on first use.
func (l *live) feeds() (tool, res *Feed, log *EventLog) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tool == nil {
		l.tool, l.res, l.log = NewFeed(ViewRaw), NewFeed(ViewRaw), NewEventLog(MaxEvents)
	}
	return l.tool, l.res, l.log
}

// close ends the session's live state: the watcher stops (and is waited
// for), listeners are dropped.
func (l *live) close() {
	l.mu.Lock()
	l.closed = true
	l.listeners = nil
	cancel, done := l.cancel, l.done
	l.cancel, l.done = nil, nil
	l.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// ChangesRequest is one take of a session's tree changes:
// get_a11y_tree_changes and get_visual_tree_changes.
type ChangesRequest struct {
	// Kind is the tree the caller asked for (KindA11y, KindVisual); ""
	// for the session's. A session of the other mode is refused
	// (wrongTree).
	Kind string
	// View is raw (the default when empty), control, content or visible;
	// a view other than the last call's starts a snapshot.
	View string
	// MaxBytes bounds the events' JSON (ChangesBudget): MinMaxBytes to
	// MaxMaxBytes; nil for DefaultMaxBytes.
	MaxBytes *int
	// TimeoutMs bounds the tree read; nil for DefaultTimeoutMs.
	TimeoutMs *int
}

// Validate checks the view, the byte budget and the deadline.
func (r *ChangesRequest) Validate() error {
	if err := ValidateView(r.View); err != nil {
		return AsError(err)
	}
	if _, err := ChangesBudget(r.MaxBytes); err != nil {
		return err
	}
	_, err := Timeout(r.TimeoutMs)
	return err
}

// TreeChanges is get_a11y_tree_changes and get_visual_tree_changes: it
// reads the session's tree afresh and returns what changed since the last
// call in the same view (the first call, and a call in another view, get
// the whole tree as a snapshot). The read becomes the session's last read,
// so the events' refs resolve. The request's budget bounds the events'
// JSON (Feed.TakeBytes): what does not fit waits for the next call.
func (m *Sessions) TreeChanges(ctx context.Context, sessionID string, req ChangesRequest) (Patch, error) {
	if err := req.Validate(); err != nil {
		return Patch{}, err
	}
	budget, _ := ChangesBudget(req.MaxBytes)
	timeout, _ := Timeout(req.TimeoutMs)
	view := req.View
	s, err := m.getKind(ctx, sessionID, req.Kind)
	if err != nil {
		return Patch{}, err
	}
	tool, _, _ := s.live.feeds()
	tool.SetView(view)
	t, _, err := m.Fetch(ctx, s, timeout, platform.TreeOptions{})
	if err != nil {
		return Patch{}, err
	}
	if t.Truncated {
		return Patch{}, Errorf(CodeTimeout, "the tree read was cut short, so what is missing from it may not be gone: no patch was made; retry with a larger timeoutMs")
	}
	tool.Update(t)
	return tool.TakeBytes(budget), nil
}

// getKind is Get for a caller that reads the tree of kind (KindA11y,
// KindVisual; "" for the session's): a session of the other mode is
// refused (wrongTree).
func (m *Sessions) getKind(ctx context.Context, sessionID, kind string) (*Session, error) {
	s, err := m.Get(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if kind != "" && kind != s.Mode {
		other := map[string]string{KindA11y: "get_a11y_tree_changes", KindVisual: "get_visual_tree_changes"}[s.Mode]
		return nil, Errorf(CodeWrongTree, "session %s reads the %s tree: its changes come from %s (or connect with mode %s)", s.ID, s.Mode, other, Quote(kind))
	}
	return s, nil
}

// CanRead checks, as a read does (getKind), that the caller may read the
// session's tree of kind, without reading it: a second client of a
// subscription already running is checked so.
func (m *Sessions) CanRead(ctx context.Context, sessionID, kind string) error {
	_, err := m.getKind(ctx, sessionID, kind)
	return err
}

// ResourcePatch takes what the resource feed of the session holds, for a
// reader of the tree of kind ("" for the session's; getKind). Without a
// running watcher it reads the tree first (a client may read a resource
// without subscribing); with one, it answers from what the watcher cached.
// maxBytes bounds the events as Feed.TakeBytes does (0: no bound).
func (m *Sessions) ResourcePatch(ctx context.Context, sessionID, kind string, timeout time.Duration, maxBytes int) (Patch, error) {
	s, err := m.getKind(ctx, sessionID, kind)
	if err != nil {
		return Patch{}, err
	}
	_, res, _ := s.live.feeds()
	s.live.mu.Lock()
	running := s.live.cancel != nil
	s.live.mu.Unlock()
	// A watcher that has not read yet has nothing to answer with.
	if !running || !res.seen() {
		t, _, err := m.Fetch(ctx, s, timeout, platform.TreeOptions{})
		if err != nil {
			return Patch{}, err
		}
		m.record(s, t)
	}
	return res.TakeBytes(maxBytes), nil
}

// Follow calls notify after every change of the session's application
// has been diffed into its resource feed and event log, until stop, for a
// reader of the tree of kind ("" for the session's; getKind). The watcher
// runs while anyone follows. It fails on a disconnected session.
func (m *Sessions) Follow(ctx context.Context, sessionID, kind string, notify func()) (stop func(), err error) {
	s, err := m.getKind(ctx, sessionID, kind)
	if err != nil {
		return nil, err
	}
	s.live.feeds()
	l := &s.live
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil, Errorf(CodeUnknownSession, "session %s is disconnected", Quote(s.ID))
	}
	if l.listeners == nil {
		l.listeners = map[int]func(){}
	}
	tok := l.nextTok
	l.nextTok++
	l.listeners[tok] = notify
	ready := m.startLocked(s)
	l.mu.Unlock()
	// Changes are watched once Follow returns: what the caller does next
	// is seen.
	<-ready
	var once sync.Once
	return func() { once.Do(func() { m.unfollow(s, tok) }) }, nil
}

// unfollow drops a listener and stops the watcher when none is left.
func (m *Sessions) unfollow(s *Session, tok int) {
	l := &s.live
	l.mu.Lock()
	delete(l.listeners, tok)
	var cancel context.CancelFunc
	var done chan struct{}
	if len(l.listeners) == 0 && !l.logHeld {
		cancel, done = l.cancel, l.done
		l.cancel, l.done = nil, nil
	}
	l.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// startLocked starts the watcher unless it runs; l.mu is held. The
// channel it returns is closed once the watcher watches.
func (m *Sessions) startLocked(s *Session) <-chan struct{} {
	l := &s.live
	if l.cancel != nil {
		return l.ready
	}
	if l.closed {
		return closedChan
	}
	ctx, cancel := context.WithCancel(context.Background())
	done, ready := make(chan struct{}), make(chan struct{})
	l.cancel, l.done, l.ready, l.err = cancel, done, ready, nil
	if l.poke == nil {
		l.poke, l.after = make(chan struct{}, 1), make(chan struct{})
	}
	go m.follow(ctx, s, done, ready)
	return ready
}

// Following reports whether a watcher runs for the session.
func (m *Sessions) Following(s *Session) bool {
	s.live.mu.Lock()
	defer s.live.mu.Unlock()
	return s.live.cancel != nil
}

// subscribed reports whether a listener (a resource subscriber) follows
// the session; the event log's watcher alone does not count.
func (m *Sessions) subscribed(s *Session) bool {
	s.live.mu.Lock()
	defer s.live.mu.Unlock()
	return len(s.live.listeners) > 0
}

// follow is the watcher.
func (m *Sessions) follow(ctx context.Context, s *Session, done, ready chan struct{}) {
	defer close(done)
	changes, stop := m.Watch(ctx, s)
	defer stop()
	// ready closes once the first read (the baseline every later change is
	// diffed against) is recorded: a change made after Follow or the first
	// get_events returns is then a difference from the baseline, never
	// part of it. (The platform watches from here on, so a change during
	// the first read wakes a second one.)
	baseline := sync.OnceFunc(func() { close(ready) })
	defer baseline()
	poll := time.NewTimer(FollowPoll)
	defer poll.Stop()
	l := &s.live
	l.mu.Lock()
	poke := l.poke
	l.mu.Unlock()
	for {
		started := time.Now()
		l.mu.Lock()
		l.begun++
		n := l.begun
		l.mu.Unlock()
		t, _, err := m.read(ctx, s, followReadTimeout, platform.TreeOptions{})
		if ctx.Err() != nil {
			return
		}
		if err == nil && t.Truncated {
			// What a cut-short read lacks is not gone (a frozen app
			// answers nothing): no diff is made from it.
			err = Errorf(CodeTimeout, "the tree read was cut short")
		}
		if err == nil {
			s.watch(t)
		}
		if err != nil {
			if e := AsError(err); e.Code == CodeOwnershipLost {
				// The application is gone: the watcher ends, and its
				// listeners hear of it once more, so that their next read
				// says so.
				s.live.mu.Lock()
				s.live.err = e
				if s.live.done == done {
					s.live.cancel, s.live.done = nil, nil
				}
				s.live.mu.Unlock()
				m.tell(s)
				return
			}
		} else if m.record(s, t) {
			m.tell(s)
		}
		l.mu.Lock()
		l.recorded, l.failed = n, err != nil
		close(l.after)
		l.after = make(chan struct{})
		subscribed := len(l.listeners) > 0
		l.mu.Unlock()
		baseline()
		every, gap := FollowPoll, followMinGap
		if !subscribed {
			every, gap = logPoll, logMinGap
		}
		poll.Reset(every)
		select {
		case <-ctx.Done():
			return
		case <-poke:
		case <-changes:
			// An application that never stops changing (a progress bar
			// pulsing) is read at most every gap; the events that come
			// meanwhile are one hint. A read asked for goes first.
			select {
			case <-ctx.Done():
				return
			case <-poke:
			case <-time.After(time.Until(started.Add(gap))):
			}
		case <-poll.C:
		}
	}
}

// record diffs a read into the session's resource feed and event log; it
// reports whether anything changed.
func (m *Sessions) record(s *Session, t *Tree) bool {
	_, res, log := s.live.feeds()
	s.live.mu.Lock()
	s.live.reads++
	s.live.mu.Unlock()
	evs, n := res.update(t)
	log.derive(evs, t)
	return n > 0
}

// tell calls the session's listeners.
func (m *Sessions) tell(s *Session) {
	s.live.mu.Lock()
	fns := make([]func(), 0, len(s.live.listeners))
	for _, f := range s.live.listeners {
		fns = append(fns, f)
	}
	s.live.mu.Unlock()
	for _, f := range fns {
		f()
	}
}

// FollowErr is why the session's last watcher ended by itself (the
// application is gone), or nil.
func (m *Sessions) FollowErr(s *Session) error {
	s.live.mu.Lock()
	defer s.live.mu.Unlock()
	return s.live.err
}

// KeepEvents starts the session's event log (get_events) at connect: its
// watcher runs from now until the session ends, so that what happens
// before the first get_events (the dialog an agent's first keys open) is
// kept. It returns once the watcher has its baseline, or ctx ends (the log
// then starts with the watcher's first read).
func (m *Sessions) KeepEvents(ctx context.Context, s *Session) {
	s.live.feeds()
	s.live.mu.Lock()
	if s.live.closed {
		s.live.mu.Unlock()
		return
	}
	s.live.logHeld = true
	ready := m.startLocked(s)
	s.live.mu.Unlock()
	select {
	case <-ready:
	case <-ctx.Done():
	}
}

// EventsAnswer is what Events answers.
type EventsAnswer struct {
	EventsRead
	// Started: this call started the log (the session's watcher did not
	// run), so it holds what happens from now on.
	Started bool
	// Stale: the read that brings the log up to this call did not finish
	// in time (a busy or frozen app): the events are those seen until then.
	Stale bool
}

// EventsRequest is one take of a session's events: get_events.
type EventsRequest struct {
	// Since takes the events after this seq; nil for those after the
	// last take.
	Since *int64
	// Limit bounds the events taken: 1 to MaxEvents; nil for
	// DefaultEventsLimit.
	Limit *int
	// Filter says which events are wanted.
	Filter EventFilter
	// Fields are the optional fields to give: an event names its element
	// by ref, and by key only with FieldKey, as elements do.
	Fields Fields
}

// DefaultEventsLimit is how many events a take gives without a limit.
const DefaultEventsLimit = 100

// Validate checks the limit, since, the fields and the filter's types.
func (r *EventsRequest) Validate() error {
	if r.Limit != nil && (*r.Limit < 1 || *r.Limit > MaxEvents) {
		return Errorf(CodeInvalidArgument, "limit must be between 1 and %d, not %d", MaxEvents, *r.Limit)
	}
	if r.Since != nil && *r.Since < 0 {
		return Errorf(CodeInvalidArgument, "since must be 0 or more (a seq from an earlier call), not %d", *r.Since)
	}
	if err := r.Fields.Validate(); err != nil {
		return err
	}
	return r.Filter.Validate()
}

// Events is get_events: it takes the events the request's filter keeps
// from the session's log (EventLog.Take) once the watcher has read the app
// since this call began, so that what happened just before it is there (a
// read that does not finish by ctx's deadline leaves the answer Stale). A
// session whose log did not run (KeepEvents) has it started here, and the
// answer says so.
func (m *Sessions) Events(ctx context.Context, sessionID string, req EventsRequest) (EventsAnswer, error) {
	if err := req.Validate(); err != nil {
		return EventsAnswer{}, err
	}
	limit := DefaultEventsLimit
	if req.Limit != nil {
		limit = *req.Limit
	}
	s, err := m.Get(ctx, sessionID)
	if err != nil {
		return EventsAnswer{}, err
	}
	_, _, log := s.live.feeds()
	l := &s.live
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return EventsAnswer{}, Errorf(CodeUnknownSession, "session %s is disconnected", Quote(s.ID))
	}
	ctx, cancel := context.WithTimeout(ctx, DefaultTimeoutMs*time.Millisecond)
	defer cancel()
	var a EventsAnswer
	a.Started = !l.logHeld
	l.logHeld = true
	ready := m.startLocked(s)
	l.mu.Unlock()
	select {
	case <-ready:
	case <-ctx.Done():
		return EventsAnswer{}, Errorf(CodeTimeout, "the first read of the application did not finish: %v", ctx.Err())
	}
	if !a.Started {
		a.Stale = !m.readSince(ctx, s)
	}
	a.EventsRead = log.Take(req.Since, limit, req.Filter)
	if !req.Fields.Key() {
		for i := range a.Events { // copies: the log's events keep their keys
			a.Events[i].Key = ""
		}
	}
	return a, nil
}

// readSince asks the session's watcher for a read and waits until one
// that began after the call is recorded; false when that read failed, ctx
// ended first or the watcher stopped (the application is gone).
func (m *Sessions) readSince(ctx context.Context, s *Session) bool {
	return m.readSinceOr(ctx, s, nil)
}

// readSinceOr is readSince that ends early, true, once a read recorded
// meanwhile (one under way at the call included) makes enough true: a
// starved app's read already begun may hold what the caller looks for,
// a whole read sooner.
func (m *Sessions) readSinceOr(ctx context.Context, s *Session, enough func() bool) bool {
	l := &s.live
	l.mu.Lock()
	want, done := l.begun+1, l.done
	if done == nil {
		l.mu.Unlock()
		return false
	}
	select {
	case l.poke <- struct{}{}:
	default: // a read is asked for already
	}
	for l.recorded < want {
		after := l.after
		l.mu.Unlock()
		select {
		case <-after:
			if enough != nil && enough() {
				return true
			}
		case <-done:
			return false
		case <-ctx.Done():
			return false
		}
		l.mu.Lock()
	}
	ok := !l.failed
	l.mu.Unlock()
	return ok
}

// SetResourceView changes the view of the session's resource feed (raw
// by default); another view starts it over with a snapshot. uiscope watch
// follows a view this way.
func (m *Sessions) SetResourceView(s *Session, view string) error {
	if err := ValidateView(view); err != nil {
		return AsError(err)
	}
	_, res, _ := s.live.feeds()
	res.SetView(view)
	return nil
}
