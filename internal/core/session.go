package core

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/security"
)

// Modes a session speaks, fixed at connect.
const (
	ModeA11y   = "a11y"
	ModeVisual = "visual"
)

// Identity pins the application a session was opened on. Every call checks
// it again, so a restarted app or a recycled pid is never read in its place.
type Identity struct {
	Pid        int    `json:"pid"`
	StartTime  uint64 `json:"startTime"`
	Executable string `json:"executable"`
	Bus        string `json:"-"`
	Window     string `json:"window,omitempty"`
}

// Session is one agent's connection to one application.
type Session struct {
	ID       string
	Mode     string
	App      platform.App
	Identity Identity
	Created  time.Time
	// Client opened the session and alone may use it (client.go).
	Client Client
	used   atomic.Int64 // unix ns of its last lookup (CloseIdle)
	// Granted is what the session may do: with consent prompts, what the
	// user approved for its client on its process instance (inspection
	// alone, or with the server's input capabilities); else everything
	// the server grants.
	Granted security.Caps

	mu       sync.Mutex // guards tree, complete, watched and ids
	tree     *Tree      // the last read
	complete *Tree      // the last read that was not truncated
	watched  *Tree      // the watcher's last read (changes_follow.go)
	ids      IDs
	issued   map[string]issuedProperty // descriptor ids handed out (editable_set.go)

	live live // patches, events and the watcher that feeds them (changes_follow.go)
}

// MaxSessions bounds the sessions open at once: each holds its trees and
// its memory of keys.
const MaxSessions = 64

// Sessions holds the open sessions over one desktop. Safe for concurrent use.
type Sessions struct {
	// Caps are the capabilities granted beyond inspection: interact,
	// keyboard (security.Caps). Without them every action is refused here,
	// whatever tools the MCP layer registered. Set it before serving.
	Caps security.Caps
	// Allow, when set, restricts the applications listed and connected
	// to the executables it allows (--apps).
	Allow *security.Allowlist
	// Consent, when set, asks the user before a client's first session
	// on a process instance (--consent prompt); its dialogs are never
	// listed or connected.
	Consent *security.Consent
	// AllowDesktopKeys lets press_key send chords the window manager or
	// desktop acts on (Super+..., Alt+Tab, Ctrl+Alt+F1...). Off by default.
	AllowDesktopKeys bool
	// AllowClipboard lets an agent paste (middle button, Ctrl+V, a Paste
	// item) when Allow is set (clipboard.go). Off by default.
	AllowClipboard bool
	// ScreenshotDir is the directory a screenshot's path must lie in
	// (--screenshot-dir; the server's working directory by default), so
	// that an agent cannot write files where the user did not say
	// (~/.config/autostart, a project's hooks). "" refuses every path.
	ScreenshotDir string

	desk platform.Desktop

	mu       sync.Mutex
	sessions map[string]*Session
	numbers  Counter // element ids, for the whole run: see ids.go
	held     holds   // pointer buttons held across calls (held.go)
}

// NewSessions manages sessions over desk. Parts desk lacks make the
// operations that need them answer notSupported.
func NewSessions(desk platform.Desktop) *Sessions {
	return &Sessions{desk: desk, sessions: map[string]*Session{}}
}

// Desktop returns the platform the sessions read.
func (m *Sessions) Desktop() platform.Desktop { return m.desk }

// StartTime is the start time of the live process pid, as the platform
// reads it (clock ticks since boot on Linux), or 0 when it cannot be read:
// what tells a process from a later one under the same pid.
func (m *Sessions) StartTime(ctx context.Context, pid int) uint64 {
	if m.desk.Processes == nil {
		return 0
	}
	p, err := m.desk.Processes.Process(ctx, pid)
	if err != nil {
		return 0
	}
	return p.StartTime
}

// a11y is the platform's accessibility part.
func (m *Sessions) a11y() (platform.Accessibility, error) {
	if m.desk.Accessibility == nil {
		return nil, Errorf(CodeNotSupported, "this platform cannot read accessibility trees")
	}
	return m.desk.Accessibility, nil
}

// procs is the platform's processes part. Without it no identity can be
// pinned, so no session opens.
func (m *Sessions) procs() (platform.Processes, error) {
	if m.desk.Processes == nil {
		return nil, Errorf(CodeNotSupported, "this platform cannot tell processes apart, so sessions cannot pin their application")
	}
	return m.desk.Processes, nil
}

// Apps lists the applications the allowlist allows.
func (m *Sessions) Apps(ctx context.Context) ([]platform.App, error) {
	apps, err := m.allApps(ctx)
	if err != nil || m.Allow == nil {
		return apps, err
	}
	out := apps[:0:0]
	for _, a := range apps {
		if m.Allow.Allows(a.Executable) {
			out = append(out, a)
		}
	}
	return out, nil
}

// allApps lists every application, allowed or not, but never a consent
// dialog: an agent must not be able to answer one.
func (m *Sessions) allApps(ctx context.Context) ([]platform.App, error) {
	a, err := m.a11y()
	if err != nil {
		return nil, err
	}
	apps, err := a.Apps(ctx)
	if err != nil {
		return nil, AsError(err)
	}
	if m.Consent != nil {
		apps = slices.DeleteFunc(apps, func(a platform.App) bool { return m.Consent.IsDialog(a.Pid) })
	}
	return apps, nil
}

// Connect opens a session on the application the target names.
func (m *Sessions) Connect(ctx context.Context, t AppSpec, mode string) (*Session, error) {
	if mode == "" {
		mode = ModeA11y
	}
	switch mode {
	case ModeA11y:
	case ModeVisual:
		if _, err := m.windowTree(); err != nil {
			return nil, err
		}
	default:
		return nil, Errorf(CodeInvalidArgument, "mode must be \"a11y\" or \"visual\", not %s", Quote(mode))
	}
	apps, err := m.Apps(ctx)
	if err != nil {
		return nil, err
	}
	app, win, err := Resolve(apps, t)
	if e := AsError(err); e != nil && e.Code == CodeNotFound && m.Allow != nil {
		// Say that the app is there but not allowed, rather than that
		// it does not exist (only for a target naming one app).
		if all, aerr := m.allApps(ctx); aerr == nil {
			if hidden, _, herr := Resolve(all, t); herr == nil {
				return nil, AsError(m.Allow.Check(hidden.Pid, hidden.Executable))
			}
		}
	}
	if err != nil {
		return nil, err
	}
	// An app that is exiting leaves the accessibility bus and the display
	// at nearly the same moment: a listing may catch its windows without
	// its tree. So the process is looked up first, and an exited one is
	// notFound, not "no accessibility tree".
	procs, err := m.procs()
	if err != nil {
		return nil, err
	}
	pi, err := procs.Process(ctx, app.Pid)
	if errors.Is(err, platform.ErrProcessGone) {
		return nil, Errorf(CodeNotFound, "pid %d exited while connecting", app.Pid)
	} else if err != nil {
		return nil, AsError(err)
	}
	// The allowlist is held against the executable the process runs, as
	// the platform reads it, not the name it gave the accessibility bus.
	if m.Allow != nil {
		if err := m.Allow.Check(app.Pid, pi.Executable); err != nil {
			return nil, AsError(err)
		}
	}
	if pi.StartTime == 0 {
		return nil, Errorf(CodeNotSupported, "the start time of pid %d could not be read, and a pid alone does not pin a process: no session opens", app.Pid)
	}
	if !app.Accessible && mode == ModeA11y {
		why := "Tk and some toolkits never have one"
		if d, ok := m.desk.Accessibility.(platform.Diagnoser); ok {
			why = cmp.Or(d.WhyInaccessible(ctx, app), why)
		}
		return nil, &Error{Code: CodeNotAccessible, Disposition: DispositionTerminal, Msg: fmt.Sprintf(
			"pid %d (%s) has windows but no accessibility tree (%s); mode \"visual\" reads its windows without one", app.Pid, app.Name, why)}
	}
	exe := pi.Executable
	if exe == "" {
		exe = app.Executable
	}
	granted := security.Inspect | m.Caps
	if m.Consent != nil {
		alive := func(ctx context.Context) bool {
			p, err := procs.Process(ctx, app.Pid)
			return !errors.Is(err, platform.ErrProcessGone) && (err != nil || p.StartTime == pi.StartTime)
		}
		hold := func(ctx context.Context) (func(), error) { return lockInput(ctx) }
		cred := CredentialOf(ctx)
		via := cred.Via
		if cred.Describe != nil {
			via = cred.Describe()
		}
		granted, err = m.Consent.Ask(ctx, security.ConsentRequest{Client: string(ClientOf(ctx)), Credential: cred.ID, Via: via,
			Pid: app.Pid, StartTime: pi.StartTime, Executable: exe, Offer: m.Caps & security.Input}, alive, hold)
		if err != nil {
			return nil, AsError(err)
		}
	}
	s := &Session{Mode: mode, App: app, Created: time.Now(), Client: ClientOf(ctx), Granted: granted, Identity: Identity{
		Pid: app.Pid, StartTime: pi.StartTime, Executable: exe, Bus: app.BusName}}
	if win != nil {
		s.Identity.Window = win.ID.String()
	}
	if err := m.add(s); err != nil {
		return nil, err
	}
	security.NoteTarget(ctx, s.Identity.Pid, s.Identity.StartTime)
	return s, nil
}

// add gives s its id and its numbering from the run's counter, and opens
// it, unless MaxSessions are open already.
func (m *Sessions) add(s *Session) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.sessions) >= MaxSessions {
		return &Error{Code: CodeTooManySessions, Disposition: DispositionTransient, Msg: fmt.Sprintf(
			"%d sessions are open, the most one server holds: disconnect one you no longer use (disconnect {session}), then connect again", len(m.sessions))}
	}
	for s.ID == "" || m.sessions[s.ID] != nil {
		s.ID = newSessionID()
	}
	s.ids.Counter = &m.numbers
	s.used.Store(time.Now().UnixNano())
	m.sessions[s.ID] = s
	return nil
}

// Get returns an open session of the calling client (ClientOf(ctx)) after
// checking that its application is still the one it was opened on.
func (m *Sessions) Get(ctx context.Context, id string) (*Session, error) {
	s, err := m.lookup(ctx, id)
	if err != nil {
		return nil, err
	}
	security.NoteTarget(ctx, s.Identity.Pid, s.Identity.StartTime)
	if err := m.check(ctx, s); err != nil {
		return nil, err
	}
	return s, nil
}

// check compares the live process and its accessibility connection with
// the identity captured at connect (docs/api.md, "identity").
func (m *Sessions) check(ctx context.Context, s *Session) error {
	lost := func(why string) error {
		return &Error{Code: CodeOwnershipLost, Disposition: DispositionOwnershipLost, Msg: fmt.Sprintf(
			"session %s: %s; the application it was opened on is gone: disconnect and connect again", s.ID, why)}
	}
	procs, err := m.procs()
	if err != nil {
		return err
	}
	p, err := procs.Process(ctx, s.Identity.Pid)
	if errors.Is(err, platform.ErrProcessGone) || (err == nil && p.StartTime != s.Identity.StartTime) {
		return lost(fmt.Sprintf("pid %d exited or was reused by another process", s.Identity.Pid))
	} else if err != nil {
		// Not knowing (a deadline spent) is not proof the app is gone.
		return AsError(err)
	}
	if p.Executable != "" && s.Identity.Executable != "" && p.Executable != s.Identity.Executable {
		return lost(fmt.Sprintf("pid %d now runs %s", s.Identity.Pid, p.Executable))
	}
	// A session opened on a window stays on it: a window id the X server
	// handed to another process since is not this app's (a window that
	// closed is not proof the app is gone; acting finds another).
	if w := m.desk.Windows; w != nil && s.Identity.Window != "" {
		if id, err := platform.ParseWindowID(s.Identity.Window); err == nil {
			if pid, err := w.WindowPid(ctx, id); err == nil && pid != 0 && pid != s.Identity.Pid {
				return lost(fmt.Sprintf("its window %s now belongs to pid %d", s.Identity.Window, pid))
			}
		}
	}
	// An app without an accessibility tree (visual sessions on Tk) has
	// no accessibility connection to check, and a visual session does not
	// use the one it has: its identity is the process.
	if a := m.desk.Accessibility; a != nil && s.App.Accessible && s.Mode != ModeVisual {
		pid, err := a.Owner(ctx, s.App)
		if err != nil && !errors.Is(err, platform.ErrTimeout) {
			return lost("its accessibility connection closed")
		}
		if err == nil && pid != s.Identity.Pid {
			return lost("its accessibility connection now belongs to another process")
		}
	}
	return nil
}

// Disconnect closes a session of the calling client. Closing an unknown
// session is an error, so that a typo is not mistaken for success.
func (m *Sessions) Disconnect(ctx context.Context, id string) error {
	m.mu.Lock()
	s, ok := m.sessions[id]
	if !ok || s.Client != ClientOf(ctx) {
		m.mu.Unlock()
		return unknownSession(id)
	}
	delete(m.sessions, id)
	m.mu.Unlock()
	s.live.close()
	m.releaseSession(s.ID, "the session was disconnected")
	return nil
}

// List returns the calling client's open sessions in creation order.
func (m *Sessions) List(ctx context.Context) []*Session {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		if s.Client == ClientOf(ctx) {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out
}

// Fetch reads the application's tree afresh and makes it the session's tree:
// refs handed out from now on point into it.
//
// A visual session's tree is its window hierarchy (visual.go), so that
// find_elements, hit_test and wait_for work on it too.
func (m *Sessions) Fetch(ctx context.Context, s *Session, timeout time.Duration, opts platform.TreeOptions) (*Tree, platform.TreeStats, error) {
	t, st, err := m.read(ctx, s, timeout, opts)
	if err != nil {
		return nil, st, err
	}
	t, st = m.warm(ctx, s, t, st, timeout, opts)
	s.adopt(t)
	return t, st, nil
}

// read reads the application's tree afresh, as Fetch does, without making
// it the session's tree.
func (m *Sessions) read(ctx context.Context, s *Session, timeout time.Duration, opts platform.TreeOptions) (*Tree, platform.TreeStats, error) {
	if s.Mode == ModeVisual {
		return m.readVisual(ctx, s, timeout, opts.MaxNodes)
	}
	a, err := m.a11y()
	if err != nil {
		return nil, platform.TreeStats{}, err
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	root, st, err := a.Tree(tctx, s.App, opts)
	if err != nil {
		if cerr := m.check(ctx, s); cerr != nil {
			return nil, st, cerr
		}
		return nil, st, AsError(err)
	}
	t := NewTree(root, KindA11y)
	t.Truncated = st.Truncated
	return t, st, nil
}

// adopt numbers a fetched tree and makes it the session's last read.
func (s *Session) adopt(t *Tree) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids.Number(t)
	s.tree = t
	if !t.Truncated {
		s.complete = t
	}
}

// watch numbers a read of the session's watcher and keeps it as the
// watcher's last: the refs its events name resolve there, while the
// caller's own last read stays what its refs mean (an element the caller
// saw that has gone since is elementGone, not unknownRef).
func (s *Session) watch(t *Tree) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids.Number(t)
	s.watched = t
}

// Tree returns the session's last fetched tree, or nil.
func (s *Session) Tree() *Tree {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tree
}

// Resolve finds a ref in the session's last tree. A ref with no tree yet, or
// an id not in it, is an error that says to re-read.
//
// A truncated read (a deadline, the node cap) must not make every ref of
// the read before it die with it, so when the last read was truncated a ref
// it lacks is looked up in the last complete read too. The rule: a ref
// resolves when the last read, or the last complete read, holds its id;
// the last read wins when both do (it is fresher). Refs of an earlier
// truncated read that the last read lacks are unknownRef. This never
// aliases: an id names one key for the whole run (ids.go), so both trees
// name the same element by it; whether that element is still there is for
// the live read that follows to say (elementGone).
func (s *Session) Resolve(ref string) (*platform.Node, int, *Tree, error) {
	r, err := ParseRef(ref)
	if err != nil {
		return nil, 0, nil, AsError(err)
	}
	if r.Tree == KindVisual && s.Mode == ModeA11y {
		return nil, 0, nil, Errorf(CodeWrongTree, "%s is a visual-tree ref and session %s reads the accessibility tree; connect with mode \"visual\" to use it, or use a11y:eN refs from get_a11y_tree", ref, s.ID)
	}
	if r.Tree == KindA11y && s.Mode == ModeVisual {
		return nil, 0, nil, Errorf(CodeWrongTree, "%s is an accessibility-tree ref and session %s reads the visual (native window) tree; use it in an a11y session, or visual:eN refs from get_visual_tree", ref, s.ID)
	}
	s.mu.Lock()
	t, c, w := s.tree, s.complete, s.watched
	s.mu.Unlock()
	if t == nil {
		t = w
	}
	if t == nil {
		read := "get_a11y_tree or find_elements"
		if s.Mode == ModeVisual {
			read = "get_visual_tree"
		}
		return nil, 0, nil, Errorf(CodeUnknownRef, "session %s has not read a tree yet: call %s first, then use the refs it returns", s.ID, read)
	}
	n, id, err := t.Lookup(r)
	if errors.Is(err, ErrUnknownRef) {
		if t.Truncated && c != nil && c != t {
			if n, id, cerr := c.Lookup(r); cerr == nil {
				return n, id, c, nil
			}
		}
		// A ref an event named, from a read of the watcher's.
		if w != nil && w != t {
			if n, id, werr := w.Lookup(r); werr == nil {
				return n, id, w, nil
			}
		}
	}
	if err != nil {
		return nil, 0, nil, AsError(err)
	}
	return n, id, t, nil
}

// Element reads one element of the session's app live.
func (m *Sessions) Element(ctx context.Context, s *Session, key string) (*platform.Details, error) {
	if s.Mode == ModeVisual {
		return nil, Errorf(CodeWrongTree, "session %s reads the visual (native window) tree, whose windows have no accessible properties: get_visual_tree shows what there is (with correlate: true, each window's accessible counterpart), or connect with mode \"a11y\"", s.ID)
	}
	a, err := m.a11y()
	if err != nil {
		return nil, err
	}
	d, err := a.Element(ctx, s.App, key)
	if err != nil {
		if cerr := m.check(ctx, s); cerr != nil {
			return nil, cerr
		}
		if errors.Is(err, platform.ErrElementGone) {
			return nil, &Error{Code: CodeElementGone, Disposition: DispositionTerminal, Err: err,
				Msg: "the element no longer exists (the UI changed): re-read the tree with get_a11y_tree or find_elements and use the new refs"}
		}
		return nil, AsError(err)
	}
	return d, nil
}

// Watch returns a channel that receives a value when the session's app
// reports a change, or nil (a channel that never fires) when the platform
// cannot tell: callers keep a poll as the safety net either way.
func (m *Sessions) Watch(ctx context.Context, s *Session) (<-chan struct{}, func()) {
	if m.desk.Events == nil {
		return nil, func() {}
	}
	ch, stop, err := m.desk.Events.Watch(ctx, s.App)
	if err != nil {
		return nil, func() {}
	}
	return ch, stop
}
