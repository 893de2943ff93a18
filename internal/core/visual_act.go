package core

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/security"
)

// Actions in visual sessions act by geometry: a window of the visual tree
// is read again live, its top-level window brought to the front (verified),
// the point checked to be the application's, and real input sent there,
// under the process-wide input lock (inputlock.go) like every real input.
// What the application made of the input cannot be read without an
// accessibility tree; results say what was verified (the window in front,
// the point uncovered, the window's state after) and nothing more.
// Semantic actions (toggle, set_value, select, set_expanded, invoke,
// select_text) need the accessibility tree and are refused.

// modeOf is the mode of an open session of the calling client, "" when it
// has none by that id (the caller's own path then reports the unknown
// session, as for any id): another client's session is not told apart,
// not even by which path refuses it.
func (m *Sessions) modeOf(ctx context.Context, id string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.sessions[id]; ok && s.Client == ClientOf(ctx) {
		return s.Mode
	}
	return ""
}

// semanticInVisual is the refusal of a semantic action in a visual session.
func semanticInVisual(s *Session) error {
	return &Error{Code: CodeNotSupported, Disposition: DispositionTerminal, Msg: fmt.Sprintf(
		"session %s is a visual session: it acts by geometry only (click, scroll, focus, type_text, press_key, window_action); "+
			"toggle, set_value, select, set_expanded, invoke and select_text need the accessibility tree: connect with mode \"a11y\" "+
			"(a second session on the same app is fine) and act on its a11y:eN refs", s.ID)}
}

// visualTarget is a window of the visual tree, read live, and the
// top-level window that holds it: a client window the window manager
// manages, or one of the app's popups (override-redirect: a menu, which
// is never activated and never takes the focus).
type visualTarget struct {
	win   *platform.NativeWindow
	top   platform.Window
	popup bool
}

// prepareVisual checks the gate and the session, resolves a visual ref and
// reads its window live: it must still exist (same key) and be viewable.
func (m *Sessions) prepareVisual(ctx context.Context, sessionID, ref string) (*actTarget, error) {
	if err := m.inputAllowed(); err != nil {
		return nil, err
	}
	s, a, err := m.actingSession(ctx, sessionID, security.Interact)
	if err != nil {
		return nil, err
	}
	n, id, t, err := s.Resolve(ref)
	if err != nil {
		return nil, err
	}
	r := t.RefString(id)
	w, top, popup, err := m.liveWindow(ctx, s, n.Key)
	if err != nil {
		return nil, err
	}
	if w == nil {
		return nil, Errorf(CodeElementGone, "window %s no longer exists (it was destroyed, or its id now names another window): read get_visual_tree again and use the new refs; nothing was done", r)
	}
	if !w.Viewable() || w.Bounds.Empty() {
		return nil, Errorf(CodeOffscreen, "window %s is not on screen (%s, %dx%d): its window may be minimized or hidden; nothing was done", r, w.MapState, w.Bounds.Width, w.Bounds.Height)
	}
	if top.ID == 0 {
		return nil, Errorf(CodeNotActivated, "window %s is in no top-level window of the application the window manager manages (a popup holds it?); nothing was done", r)
	}
	return &actTarget{s: s, ref: r, actor: a, visual: &visualTarget{win: w, top: top, popup: popup}, stop: func() {}, before: m.look(ctx, s)}, nil
}

// liveWindow reads the session's window tree again and finds the window
// with key, and the top-level window holding it: the client window (the
// window itself for a client), else the app's popup it is in (popup
// true); a zero Window for a frame. It does not change the session's tree:
// refs stay those of the last get_visual_tree.
func (m *Sessions) liveWindow(ctx context.Context, s *Session, key string) (*platform.NativeWindow, platform.Window, bool, error) {
	wt, err := m.windowTree()
	if err != nil {
		return nil, platform.Window{}, false, err
	}
	nt, err := wt.WindowTree(ctx, s.App.Pid, platform.WindowTreeOptions{})
	if err != nil {
		if cerr := m.check(ctx, s); cerr != nil {
			return nil, platform.Window{}, false, cerr
		}
		return nil, platform.Window{}, false, mapActErr(err)
	}
	asWindow := func(c *platform.NativeWindow) platform.Window {
		return platform.Window{ID: c.ID, Pid: c.Pid, Title: c.Name, Class: c.Class, Instance: c.Instance, Bounds: c.Bounds, Mapped: c.Viewable()}
	}
	var found *platform.NativeWindow
	var top platform.Window
	popup := false
	var walk func(ws []*platform.NativeWindow, client, root *platform.NativeWindow) bool
	walk = func(ws []*platform.NativeWindow, client, root *platform.NativeWindow) bool {
		for _, w := range ws {
			c, r := client, root
			if w.Client {
				c = w
			}
			if r == nil {
				r = w
			}
			if w.Key == key {
				found = w
				switch {
				case c != nil:
					top = asWindow(c)
				case r.OverrideRedirect && r.Pid == s.App.Pid:
					top, popup = asWindow(r), true
				}
				return true
			}
			if walk(w.Children, c, r) {
				return true
			}
		}
		return false
	}
	walk(nt.Roots, nil, nil)
	return found, top, popup, nil
}

// aimVisual brings the target's top-level window to the front and checks
// that the centre of its window is the application's to click: on top
// there is its top-level window or another window of its process (its own
// popup). The caller holds the input lock.
func (m *Sessions) aimVisual(ctx context.Context, t *actTarget) (x, y int, err error) {
	v := t.visual
	b := v.win.Bounds
	x, y = b.X+b.Width/2, b.Y+b.Height/2
	if scr, err := t.actor.Screen(ctx); err != nil {
		return 0, 0, mapActErr(err)
	} else if !scr.Contains(x, y) {
		return 0, 0, Errorf(CodeOffscreen, "the centre %d,%d of %s is outside the screen; nothing was sent", x, y, t.ref)
	}
	// A popup (a menu) is above everything already and is never
	// activated: a window manager does not manage it.
	if !v.popup {
		if err := m.activateFor(ctx, t.s, t.actor, v.top); err != nil {
			return 0, 0, err
		}
	}
	on, err := t.actor.TopmostAt(ctx, x, y)
	if err != nil {
		return 0, 0, mapActErr(err)
	}
	if on != v.top.ID {
		if pid, err := t.actor.WindowPid(ctx, on); err != nil || pid != t.s.App.Pid {
			return 0, 0, Errorf(CodeCovered, "the point %d,%d of %s is covered by another window (%s); nothing was sent", x, y, t.ref, on)
		}
	}
	return x, y, nil
}

// visualResult builds an action's result: the window's state before, and
// read live once the application had a moment to answer (it reports no
// events: a visual app is given the quiet time of a platform without
// them).
func (m *Sessions) visualResult(ctx context.Context, t *actTarget, method, detail string) (*ActResult, error) {
	m.settle(ctx, t.s, "", nil, nil)
	// Nothing the input was for can be read back: never verified.
	r := &ActResult{Element: t.ref, Method: method, Detail: detail, Before: windowSummary(t.visual.win), Effects: m.effects(ctx, t.s, t.before, "")}
	w, top, _, err := m.liveWindow(ctx, t.s, t.visual.win.Key)
	switch {
	case err != nil:
		var e *Error
		if errors.As(err, &e) && e.Code == CodeOwnershipLost {
			return nil, err
		}
		r.Note = "the window could not be read again after the input: " + err.Error()
	case w == nil:
		r.Note = "the window is gone after the input (the application closed or replaced it)"
	default:
		r.After = windowSummary(w)
		if top.ID != 0 && top.ID != w.ID {
			r.Note = fmt.Sprintf("its top-level window %s is titled %s now", top.ID, Quote(top.Title))
		}
	}
	return r, nil
}

// windowSummary is a window's state as an action result shows it: its
// name, and states showing/visible while it is viewable.
func windowSummary(w *platform.NativeWindow) *Summary {
	s := &Summary{Name: w.Name, States: []string{}}
	if w.Viewable() {
		s.States = []string{platform.StateShowing.String(), platform.StateVisible.String()}
	}
	return s
}

// clickVisual clicks the centre of a window of the visual tree.
func (m *Sessions) clickVisual(ctx context.Context, sessionID, ref string) (*ActResult, error) {
	t, err := m.prepareVisual(ctx, sessionID, ref)
	if err != nil {
		return nil, err
	}
	x, y, err := m.pointerInput(ctx, t.s, func() (int, int, error) { return m.aimVisual(ctx, t) },
		func(x, y int) error { return t.actor.Click(ctx, x, y, 1, 1) })
	if err != nil {
		return nil, err
	}
	return m.visualResult(ctx, t, MethodPointer, fmt.Sprintf("left click at %d,%d (the centre of window %s)", x, y, t.visual.win.ID))
}

// scrollVisual turns the wheel over the centre of a window.
func (m *Sessions) scrollVisual(ctx context.Context, sessionID, ref, direction string, dx, dy, amount int) (*ActResult, error) {
	if direction == "intoView" {
		return nil, Errorf(CodeInvalidArgument, "direction intoView needs the accessibility tree (Component.ScrollTo); in a visual session scroll up, down, left or right over a window")
	}
	t, err := m.prepareVisual(ctx, sessionID, ref)
	if err != nil {
		return nil, err
	}
	x, y, err := m.pointerInput(ctx, t.s, func() (int, int, error) { return m.aimVisual(ctx, t) },
		func(x, y int) error { return t.actor.Wheel(ctx, x, y, dx, dy) })
	if err != nil {
		return nil, err
	}
	return m.visualResult(ctx, t, MethodPointer, fmt.Sprintf("wheel %s x%d at %d,%d (the centre of window %s)", direction, amount, x, y, t.visual.win.ID))
}

// focusVisual gives the keyboard focus to the top-level window holding a
// window of the visual tree, verified by the window manager's active
// window. Which widget inside takes the keys is the application's
// business, unknowable here: clicking a field puts the caret in it.
func (m *Sessions) focusVisual(ctx context.Context, sessionID, ref string) (*ActResult, error) {
	t, err := m.prepareVisual(ctx, sessionID, ref)
	if err != nil {
		return nil, err
	}
	if t.visual.popup {
		return nil, Errorf(CodeInvalidArgument, "%s is in a popup (a menu or tooltip), which never takes the keyboard focus: the keys for it go to the app's focused window (press_key without element)", t.ref)
	}
	unlock, err := m.lockInputFor(ctx, t.s)
	if err != nil {
		return nil, err
	}
	err = m.activateFor(ctx, t.s, t.actor, t.visual.top)
	unlock()
	if err != nil {
		return nil, err
	}
	r, err := m.visualResult(ctx, t, MethodKeyboard, fmt.Sprintf("window %s is the active window", t.visual.top.ID))
	if r != nil && t.visual.win.ID != t.visual.top.ID {
		r.Note = joinNote(r.Note, "in a visual session focus activates the top-level window holding the element; to put the keyboard focus on a field inside it, click it")
	}
	return r, err
}

// aimKeysVisual is where keys to a window of the visual tree go: its
// top-level window, in front; a window inside it is clicked first, as a
// user gives a field the focus. The caller holds the input lock.
func (m *Sessions) aimKeysVisual(ctx context.Context, t *actTarget) (platform.Window, error) {
	v := t.visual
	if v.popup {
		return v.top, Errorf(CodeInvalidArgument, "%s is in a popup (a menu or tooltip), which never takes the keyboard focus; nothing was sent: give no element, and the keys go to the app's focused window, which drives its menus", t.ref)
	}
	if v.win.ID == v.top.ID {
		if err := m.activateFor(ctx, t.s, t.actor, v.top); err != nil {
			return v.top, err
		}
		return v.top, nil
	}
	if err := m.pointerAllowed("focusing it with a click"); err != nil {
		return v.top, err
	}
	x, y, err := m.aimVisual(ctx, t)
	if err != nil {
		return v.top, err
	}
	if err := t.actor.Click(ctx, x, y, 1, 1); err != nil {
		return v.top, mapActErr(err)
	}
	// The click may have opened something that took the focus; the
	// caller's last check before the keys sees it.
	select {
	case <-time.After(pollGap):
	case <-ctx.Done():
	}
	return v.top, nil
}

// visualKeysNote says what keys sent in a visual session verified.
const visualKeysNote = "visual session: the keys went to the window while it was the active one (checked before they were sent); what the app did with them is not read back (there is no accessibility tree): check with get_visual_tree or a screenshot"

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
