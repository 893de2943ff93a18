package core

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/security"
)

// Held input (docs/api.md, "Held input"): a pointer button pressed by one
// call and released by a later one, for drags. A hold belongs to the
// uiscope session that pressed it, and so to the MCP client that opened
// that session, and to the window it was pressed in. It is released by the
// session's own release call, or automatically when the session closes
// (disconnect, or its client's MCP session ending: clients.go in
// mcpserver), when the window stops being the active one (it lost the
// focus or closed), or when the server exits (ReleaseAll). A button is
// never left down: every path that ends a hold sends the release, and a
// release is sent with a context of its own, never the caller's, which may
// have ended.

// CodeHoldConflict refuses a held-input call that does not fit what is
// held: pressing a held button again, releasing or dragging what is not
// held. The sequence is refused, never repaired.
const CodeHoldConflict = "holdConflict"

// Hold is one held button or key, as results list it.
type Hold struct {
	Button int    `json:"button,omitempty"`
	Key    string `json:"key,omitempty"`    // Ctrl, Alt, Shift, Super, or the key as given
	Window string `json:"window,omitempty"` // the window it was pressed in
	At     *Point `json:"at,omitempty"`     // a button's: where the pointer is now
	// Holder, in a holdConflict refusal only: "this session", "another
	// session", or "unknown" (the X server reports it down and no session
	// of this server holds it).
	Holder string `json:"holder,omitempty"`
}

// HeldResult says what a held-input call did and what the session holds
// after it. Held is the whole list, empty when nothing is held.
type HeldResult struct {
	Element string `json:"element,omitempty"`
	Method  string `json:"method"`
	Detail  string `json:"detail"`
	// Verified: the X server's own state says the button or key is down
	// (or up) as asked. Effects: what changed in the app meanwhile.
	Verified bool    `json:"verified"`
	Effects  Effects `json:"effects"`
	// Window is where input without an element went (a point in the
	// session's window, a held key).
	Window *WindowRef `json:"window,omitempty"`
	Held   []Hold     `json:"held"`
	Note   string     `json:"note,omitempty"`
}

// Point is a screen point in pixels.
type Point struct {
	X int `json:"x"`
	Y int `json:"y"`
}

type hold struct {
	session string
	client  Client // the session's, for ExpireHolds
	Hold
	win platform.WindowID
	raw string // a key as given to KeyDown, for KeyUp
}

// holds are the buttons held in the process: the pointer is one for the
// whole desktop, so a button is held by one session at most.
type holds struct {
	mu       sync.Mutex
	list     []*hold
	ended    map[string]string // session -> why its holds were last released without its asking
	watching bool

	// expire and expireAfter: ExpireHolds. heard is when each client
	// holding something last sent a request (Heard).
	expire      func(Client) bool
	expireAfter time.Duration
	heard       map[Client]time.Time
	poll        time.Duration // holdPoll when 0
}

// releaseTime bounds one release, on its own context.
const releaseTime = 5 * time.Second

// holdPoll is how often the window of a hold is checked to still be the
// active one (holds.poll, when set, for the unit tests).
const holdPoll = 100 * time.Millisecond

func (m *Sessions) heldOf(session string) []Hold {
	m.held.mu.Lock()
	defer m.held.mu.Unlock()
	out := []Hold{}
	for _, h := range m.held.list {
		if h.session == session {
			out = append(out, h.Hold)
		}
	}
	return out
}

// holdParts checks the gate and the session for a held-input call and
// returns the platform's holding part.
func (m *Sessions) holdParts(ctx context.Context, sessionID string) (*Session, actor, platform.ButtonHolder, error) {
	if err := m.require(security.Interact, "holding a pointer button"); err != nil {
		return nil, actor{}, nil, err
	}
	s, a, err := m.actingSession(ctx, sessionID, security.Interact)
	if err != nil {
		return nil, actor{}, nil, err
	}
	hb, ok := a.Input.(platform.ButtonHolder)
	if !ok {
		return nil, actor{}, nil, Errorf(CodeNotSupported, "this platform cannot hold a pointer button down")
	}
	return s, a, hb, nil
}

// beginPointerHold is what press and move share: exactly one of an
// element and a point, the gate and the session (holdParts), the element
// read live, and the input lock taken. end releases the lock and the
// element's event watch.
func (m *Sessions) beginPointerHold(ctx context.Context, sessionID, ref string, at *Point, verb string) (*Session, actor, platform.ButtonHolder, *actTarget, func(), error) {
	if (ref == "") == (at == nil) {
		return nil, actor{}, nil, nil, nil, Errorf(CodeInvalidArgument, "%s takes an element or a point (x and y), exactly one of them", verb)
	}
	s, a, hb, err := m.holdParts(ctx, sessionID)
	if err != nil {
		return nil, actor{}, nil, nil, nil, err
	}
	var t *actTarget
	if ref != "" {
		if t, err = m.prepare(ctx, sessionID, ref); err != nil {
			return nil, actor{}, nil, nil, nil, err
		}
	}
	unlock, err := m.lockInputFor(ctx, s)
	if err != nil {
		if t != nil {
			t.done()
		}
		return nil, actor{}, nil, nil, nil, err
	}
	return s, a, hb, t, func() {
		unlock()
		if t != nil {
			t.done()
		}
	}, nil
}

// endedNote says why a session's holds went away without its asking, for
// a refusal that would otherwise puzzle it.
func (m *Sessions) endedNote(session string) string {
	m.held.mu.Lock()
	defer m.held.mu.Unlock()
	if why := m.held.ended[session]; why != "" {
		return " (its last holds were released automatically: " + why + ")"
	}
	return ""
}

// Press presses a pointer button at an element's centre or at a point in
// the session's window, and leaves it down until Release, Move's window
// check or the session's end releases it.
func (m *Sessions) Press(ctx context.Context, sessionID, ref string, at *Point, button int) (*HeldResult, error) {
	if button == 0 {
		button = 1
	}
	if button < 1 || button > 3 {
		return nil, Errorf(CodeInvalidArgument, "button %d cannot be held: buttons are 1 (left), 2 (middle) and 3 (right)", button)
	}
	if button == 2 && m.clipboardGuarded() {
		// X applications paste PRIMARY where the middle button goes down.
		return nil, clipboardRefusal("pressing the middle button (2)")
	}
	s, a, hb, t, end, err := m.beginPointerHold(ctx, sessionID, ref, at, "press")
	if err != nil {
		return nil, err
	}
	defer end()
	if err := m.pasteElement("press", t); err != nil {
		return nil, err
	}
	// Checked under the input lock, so two presses cannot both pass it.
	if err := m.pressable(s.ID, button); err != nil {
		return nil, err
	}
	if err := m.pointerAllowed("press"); err != nil {
		return nil, err
	}
	var x, y int
	var win platform.Window
	if t != nil {
		x, y, win, err = m.pointAtWin(ctx, t)
	} else {
		x, y, win, err = m.pointInWindow(ctx, s, a, *at)
	}
	if err != nil {
		return nil, err
	}
	obs := m.observe(ctx, s)
	defer obs.stop()
	if err := hb.ButtonDown(ctx, x, y, button); err != nil {
		// It may have gone down before the failure: never leave it.
		_ = sendUp(hb, button)
		return nil, mapActErr(err)
	}
	m.addHold(&hold{session: s.ID, client: s.Client, win: win.ID, Hold: Hold{Button: button, Window: win.ID.String(), At: &Point{x, y}}})
	m.watchHolds()
	var where *WindowRef
	if t == nil {
		w := windowRef(win, obs.before.tops)
		where = &w
	}
	return &HeldResult{Element: t.refOr(), Method: MethodPointer, Detail: fmt.Sprintf("button %d pressed at %d,%d in window %s and held", button, x, y, win.ID),
		Verified: true, Effects: obs.effects(ctx), Window: where, Held: m.heldOf(s.ID), Note: "release it with release; it is released automatically if the window loses the focus or the session ends"}, nil
}

// addHold records a hold that went down.
func (m *Sessions) addHold(h *hold) {
	m.held.mu.Lock()
	defer m.held.mu.Unlock()
	m.held.list = append(m.held.list, h)
	delete(m.held.ended, h.session)
	if m.held.heard == nil {
		m.held.heard = map[Client]time.Time{}
	}
	m.held.heard[h.client] = time.Now()
}

func (t *actTarget) refOr() string {
	if t == nil {
		return ""
	}
	return t.ref
}

// pressable refuses a button some session holds already.
func (m *Sessions) pressable(session string, button int) error {
	m.held.mu.Lock()
	defer m.held.mu.Unlock()
	for _, h := range m.held.list {
		if h.Button != button || button == 0 {
			continue
		}
		if h.session == session {
			return Errorf(CodeHoldConflict, "button %d is already held by this session (pressed in window %s); pressing it again is refused: release it first, or move to drag it", button, h.Window)
		}
		return Errorf(CodeHoldConflict, "button %d is held by another session; nothing was pressed: try again once it is released", button)
	}
	return nil
}

// pointAtWin is pointAt that also returns the window it activated.
func (m *Sessions) pointAtWin(ctx context.Context, t *actTarget) (int, int, platform.Window, error) {
	x, y, err := m.pointAt(ctx, t)
	if err != nil {
		return 0, 0, platform.Window{}, err
	}
	win, err := t.actor.Window(ctx, t.s.App, t.node.Key)
	return x, y, win, mapActErr(err)
}

// pointInWindow activates the session's window and checks that it is on
// top at the point. The caller holds the input lock.
func (m *Sessions) pointInWindow(ctx context.Context, s *Session, a actor, p Point) (int, int, platform.Window, error) {
	if scr, err := a.Screen(ctx); err != nil {
		return 0, 0, platform.Window{}, mapActErr(err)
	} else if !scr.Contains(p.X, p.Y) {
		return 0, 0, platform.Window{}, Errorf(CodeOffscreen, "the point %d,%d is outside the screen", p.X, p.Y)
	}
	win, err := m.mainWindow(ctx, s)
	if err != nil {
		return 0, 0, win, err
	}
	if err := m.activateFor(ctx, s, a, win); err != nil {
		return 0, 0, win, err
	}
	top, err := a.TopmostAt(ctx, p.X, p.Y)
	if err != nil {
		return 0, 0, win, mapActErr(err)
	}
	if top != win.ID {
		if pid, err := a.WindowPid(ctx, top); err != nil || pid != s.App.Pid {
			return 0, 0, win, Errorf(CodeCovered, "the point %d,%d is not on the session's window %s (window %s is on top there); nothing was pressed", p.X, p.Y, win.ID, top)
		}
	}
	return p.X, p.Y, win, nil
}

// Move drags what the session holds to an element's centre or a point,
// after checking the window it was pressed in still has the focus.
func (m *Sessions) Move(ctx context.Context, sessionID, ref string, at *Point) (*HeldResult, error) {
	s, a, hb, t, end, err := m.beginPointerHold(ctx, sessionID, ref, at, "move")
	if err != nil {
		return nil, err
	}
	defer end()
	mine := slices.DeleteFunc(m.heldOf(s.ID), func(h Hold) bool { return h.Button == 0 })
	if len(mine) == 0 {
		return nil, Errorf(CodeHoldConflict, "this session holds no button, so there is nothing to drag; press one first (click moves and clicks in one call)%s", m.endedNote(s.ID))
	}
	if active, err := a.ActiveWindow(ctx); err != nil {
		return nil, mapActErr(err)
	} else if active.String() != mine[0].Window {
		m.releaseWhere(func(h *hold) bool { return h.session == s.ID }, "window "+mine[0].Window+" lost the focus")
		return nil, Errorf(CodeNotActivated, "window %s, where the button was pressed, no longer has the focus (%s has); the held buttons were released and nothing was moved", mine[0].Window, active)
	}
	var p Point
	if t != nil {
		b := t.det.Node.Bounds
		if b == nil || b.Empty() {
			return nil, Errorf(CodeOffscreen, "%s has no on-screen bounds to move to", t.ref)
		}
		p = Point{b.X + b.Width/2, b.Y + b.Height/2}
	} else {
		p = *at
	}
	if scr, err := a.Screen(ctx); err != nil {
		return nil, mapActErr(err)
	} else if !scr.Contains(p.X, p.Y) {
		return nil, Errorf(CodeOffscreen, "the point %d,%d is outside the screen; nothing was moved", p.X, p.Y)
	}
	obs := m.observe(ctx, s)
	defer obs.stop()
	if err := hb.DragTo(ctx, p.X, p.Y); err != nil {
		return nil, mapActErr(err)
	}
	m.held.mu.Lock()
	for _, h := range m.held.list {
		if h.session == s.ID && h.Button != 0 {
			h.At = &Point{p.X, p.Y}
		}
	}
	m.held.mu.Unlock()
	return &HeldResult{Element: t.refOr(), Method: MethodPointer, Detail: fmt.Sprintf("pointer dragged to %d,%d", p.X, p.Y),
		Verified: true, Effects: obs.effects(ctx), Held: m.heldOf(s.ID)}, nil
}

// Release releases a button the session holds (0: its only one).
func (m *Sessions) Release(ctx context.Context, sessionID string, button int) (*HeldResult, error) {
	s, _, hb, err := m.holdParts(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	unlock, err := lockInput(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	mine := slices.DeleteFunc(m.heldOf(s.ID), func(h Hold) bool { return h.Button == 0 })
	if button == 0 && len(mine) == 1 {
		button = mine[0].Button
	}
	if !slices.ContainsFunc(mine, func(h Hold) bool { return h.Button == button }) {
		switch {
		case len(mine) == 0:
			return nil, Errorf(CodeHoldConflict, "this session holds no button, so nothing was released%s", m.endedNote(s.ID))
		case button == 0:
			return nil, Errorf(CodeHoldConflict, "this session holds several buttons (%s); say which to release", buttonList(mine))
		}
		return nil, Errorf(CodeHoldConflict, "button %d is not held by this session (it holds %s); nothing was released", button, buttonList(mine))
	}
	obs := m.observe(ctx, s)
	defer obs.stop()
	if err := sendUp(hb, button); err != nil {
		return nil, mapActErr(err)
	}
	m.held.mu.Lock()
	m.held.list = slices.DeleteFunc(m.held.list, func(h *hold) bool { return h.session == s.ID && h.Button == button })
	m.held.mu.Unlock()
	return &HeldResult{Method: MethodPointer, Detail: fmt.Sprintf("button %d released", button), Verified: true, Effects: obs.effects(ctx), Held: m.heldOf(s.ID)}, nil
}

func buttonList(hs []Hold) string {
	var b []string
	for _, h := range hs {
		b = append(b, fmt.Sprintf("button %d", h.Button))
	}
	return strings.Join(b, ", ")
}

// sendUp releases a button on a context of its own: the caller's may have
// ended, and a release must still go out.
func sendUp(hb platform.ButtonHolder, button int) error {
	ctx, cancel := context.WithTimeout(context.Background(), releaseTime)
	defer cancel()
	return hb.ButtonUp(ctx, button)
}

// releaseWhere releases the holds that match, whoever holds them, and
// records why for their sessions. A release that fails is still
// forgotten: nothing more could be done about it later than now.
func (m *Sessions) releaseWhere(match func(*hold) bool, why string) {
	m.held.mu.Lock()
	var gone []*hold
	m.held.list = slices.DeleteFunc(m.held.list, func(h *hold) bool {
		if match(h) {
			gone = append(gone, h)
			return true
		}
		return false
	})
	for _, h := range gone {
		if m.held.ended == nil {
			m.held.ended = map[string]string{}
		}
		m.held.ended[h.session] = why
	}
	m.held.mu.Unlock()
	hb, _ := m.desk.Input.(platform.ButtonHolder)
	kh, _ := m.desk.Input.(platform.KeyHolder)
	// Released in the reverse order of pressing, as a hand lets go.
	for i := len(gone) - 1; i >= 0; i-- {
		switch h := gone[i]; {
		case h.Key != "" && kh != nil:
			_ = sendKeyUp(kh, h.raw)
		case h.Button != 0 && hb != nil:
			_ = sendUp(hb, h.Button)
		}
	}
}

// releaseSession releases what a closing session holds.
func (m *Sessions) releaseSession(id, why string) {
	m.releaseWhere(func(h *hold) bool { return h.session == id }, why)
	m.held.mu.Lock()
	delete(m.held.ended, id) // the session is gone: nobody will ask
	m.held.mu.Unlock()
}

// ReleaseAll releases every held button and key: the server calls it as it exits.
func (m *Sessions) ReleaseAll() {
	m.releaseWhere(func(*hold) bool { return true }, "the server is exiting")
}

// Held lists every hold, for tests and diagnostics.
func (m *Sessions) Held() []Hold {
	m.held.mu.Lock()
	defer m.held.mu.Unlock()
	out := make([]Hold, 0, len(m.held.list))
	for _, h := range m.held.list {
		out = append(out, h.Hold)
	}
	return out
}

// ExpireHolds makes the holds of the clients whose matches expire once
// the client sent no request for after: a client the server cannot see
// leave (sessionless HTTP: no MCP session ends when it stops) would
// otherwise keep a key or button down until the focus moves. The
// transport tells of each request with Heard. Set it before serving.
func (m *Sessions) ExpireHolds(whose func(Client) bool, after time.Duration) {
	m.held.mu.Lock()
	defer m.held.mu.Unlock()
	m.held.expire, m.held.expireAfter = whose, after
}

// Heard notes a request of client c, for ExpireHolds. Only clients
// holding something are remembered.
func (m *Sessions) Heard(c Client) {
	m.held.mu.Lock()
	defer m.held.mu.Unlock()
	if _, ok := m.held.heard[c]; ok {
		m.held.heard[c] = time.Now()
	}
}

// expireSilent releases the holds of expiring clients silent since
// ExpireHolds' time before now, and forgets when clients holding nothing
// were heard.
func (m *Sessions) expireSilent(now time.Time) {
	m.held.mu.Lock()
	whose, after := m.held.expire, m.held.expireAfter
	holding := map[Client]bool{}
	for _, h := range m.held.list {
		holding[h.client] = true
	}
	var silent []Client
	for c, t := range m.held.heard {
		switch {
		case !holding[c]:
			delete(m.held.heard, c)
		case whose != nil && whose(c) && now.Sub(t) >= after:
			silent = append(silent, c)
		}
	}
	m.held.mu.Unlock()
	for _, c := range silent {
		m.releaseWhere(func(h *hold) bool { return h.client == c },
			fmt.Sprintf("its client sent no request for %s (holds of a client without an MCP session expire then)", after))
	}
}

// expiryNote is the part of a refusal that says when holds expire, if
// any of hs is of an expiring client.
func (m *Sessions) expiryNote(hs []*hold) string {
	m.held.mu.Lock()
	defer m.held.mu.Unlock()
	for _, h := range hs {
		if m.held.expire != nil && m.held.expire(h.client) {
			return fmt.Sprintf(": this one expires %s after its client's last request", m.held.expireAfter)
		}
	}
	return ""
}

// watchHolds starts, unless it runs, the watcher that releases a hold
// whose window stopped being the active one (it lost the focus to another
// window, or closed) or whose session is gone. It stops when nothing is
// held.
func (m *Sessions) watchHolds() {
	m.held.mu.Lock()
	defer m.held.mu.Unlock()
	if m.held.watching || m.desk.Windows == nil {
		return
	}
	m.held.watching = true
	go m.watchLoop()
}

func (m *Sessions) watchLoop() {
	for {
		m.held.mu.Lock()
		poll := cmp.Or(m.held.poll, holdPoll)
		m.held.mu.Unlock()
		time.Sleep(poll)
		m.held.mu.Lock()
		if len(m.held.list) == 0 {
			m.held.watching = false
			m.held.mu.Unlock()
			return
		}
		m.held.mu.Unlock()
		m.mu.Lock()
		open := make(map[string]bool, len(m.sessions))
		for id := range m.sessions {
			open[id] = true
		}
		m.mu.Unlock()
		m.releaseWhere(func(h *hold) bool { return !open[h.session] }, "the session closed")
		m.expireSilent(time.Now())
		ctx, cancel := context.WithTimeout(context.Background(), releaseTime)
		active, err := m.desk.Windows.ActiveWindow(ctx)
		cancel()
		if err != nil {
			continue // unknown for now: the next poll asks again
		}
		m.releaseWhere(func(h *hold) bool { return h.win != active }, "its window lost the focus or closed")
	}
}
