package core

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/security"
)

// WindowTarget says which of an application's windows a window action is
// for: the window with that id, the window an element is in (a dialog's
// button: the dialog), or with neither the session's window.
type WindowTarget struct {
	Window  string
	Element string
}

// WindowActionOn minimizes, maximizes, restores or closes one of the
// session's application's windows (on): never another process's, and
// never the main window when a dialog was meant.
func (m *Sessions) WindowActionOn(ctx context.Context, sessionID, action string, on WindowTarget) (*ActResult, error) {
	switch action {
	case "minimize", "maximize", "restore", "close":
	default:
		return nil, Errorf(CodeInvalidArgument, "action must be minimize, maximize, restore or close, not %s", Quote(action))
	}
	if on.Window != "" && on.Element != "" {
		return nil, Errorf(CodeInvalidArgument, "give window or element, not both")
	}
	var want platform.WindowID
	if on.Window != "" {
		id, err := platform.ParseWindowID(on.Window)
		if err != nil {
			return nil, Errorf(CodeInvalidArgument, "%v", err)
		}
		want = id
	}
	if on.Element != "" {
		if err := validRef(on.Element); err != nil {
			return nil, err
		}
	}
	if err := m.inputAllowed(); err != nil {
		return nil, err
	}
	s, a, err := m.actingSession(ctx, sessionID, security.Interact)
	if err != nil {
		return nil, err
	}
	win, err := m.actionWindow(ctx, s, a, want, on.Element)
	if err != nil {
		return nil, err
	}
	before := m.look(ctx, s)
	if err := a.WindowAction(ctx, win, action); err != nil {
		return nil, mapActErr(err)
	}
	return m.windowResult(ctx, s, before, win, action), nil
}

// actionWindow finds the window a window action is for, among the app's
// windows as they are now.
func (m *Sessions) actionWindow(ctx context.Context, s *Session, a actor, want platform.WindowID, element string) (platform.Window, error) {
	wins, err := m.appWindows(ctx, s)
	if err != nil {
		return platform.Window{}, err
	}
	find := func(id platform.WindowID) (platform.Window, bool) {
		for _, w := range wins {
			if w.ID == id {
				return w, true
			}
		}
		return platform.Window{}, false
	}
	popup := func(id platform.WindowID) error {
		return Errorf(CodeInvalidArgument, "window %s is one of the application's popups (a menu), which no window manager minimizes or closes: press Escape (press_key) to close it", id)
	}
	switch {
	case want != 0:
		if w, ok := find(want); ok {
			return w, nil
		}
		if pid, err := a.WindowPid(ctx, want); err == nil && pid == s.App.Pid {
			return platform.Window{}, popup(want)
		}
		return platform.Window{}, Errorf(CodeNotFound, "window %s is not one of the application's windows now; list them with connect or list_apps", want)
	case element == "":
		return pickMainWindow(s, wins)
	}
	n, _, _, err := s.Resolve(element)
	if err != nil {
		return platform.Window{}, err
	}
	var win platform.Window
	if s.Mode == ModeVisual {
		_, top, isPopup, err := m.liveWindow(ctx, s, n.Key)
		switch {
		case err != nil:
			return platform.Window{}, err
		case isPopup:
			return platform.Window{}, popup(top.ID)
		case top.ID == 0:
			return platform.Window{}, Errorf(CodeElementGone, "%s is no longer one of the application's windows: read the tree again", element)
		}
		win = top
	} else if win, err = a.Window(ctx, s.App, n.Key); err != nil {
		return platform.Window{}, mapActErr(err)
	}
	if w, ok := find(win.ID); ok {
		return w, nil
	}
	return platform.Window{}, Errorf(CodeNotFound, "the window %s that shows %s is not one of the application's windows now: read the tree again", win.ID, element)
}

// appWindow is where keys for the app as a whole go: the app's window that
// has the focus now, if one has (its own dialog included: a modal dialog
// holds the keys and raising the main window past it fails), else the
// session's main window, activated. Never a window of another process.
// The caller holds the input lock.
func (m *Sessions) appWindow(ctx context.Context, t *actTarget) (platform.Window, error) {
	wins, err := m.appWindows(ctx, t.s)
	if err != nil {
		return platform.Window{}, err
	}
	if active, err := t.actor.ActiveWindow(ctx); err == nil && active != 0 {
		for _, w := range wins {
			if w.ID == active {
				return w, m.holdsIn(t.s.ID, w.ID)
			}
		}
	}
	win, err := pickMainWindow(t.s, wins)
	if err != nil {
		return win, err
	}
	return win, m.activateFor(ctx, t.s, t.actor, win)
}

// appWindows lists the session's app's top-level windows, as listed now.
func (m *Sessions) appWindows(ctx context.Context, s *Session) ([]platform.Window, error) {
	apps, err := m.Apps(ctx)
	if err != nil {
		return nil, err
	}
	for _, a := range apps {
		if a.Pid == s.App.Pid {
			return a.Windows, nil
		}
	}
	return nil, Errorf(CodeNotFound, "the application has no window")
}

// pickMainWindow is the session's window: the one it connected by, else
// the app's first mapped window.
func pickMainWindow(s *Session, wins []platform.Window) (platform.Window, error) {
	for _, w := range wins {
		if s.Identity.Window != "" && w.ID.String() == s.Identity.Window {
			return w, nil
		}
	}
	for _, w := range wins {
		if w.Mapped {
			return w, nil
		}
	}
	if len(wins) > 0 { // minimized: unmapped, still there
		return wins[0], nil
	}
	return platform.Window{}, Errorf(CodeNotFound, "the application has no window")
}

// mainWindow is the session's window, as listed now.
func (m *Sessions) mainWindow(ctx context.Context, s *Session) (platform.Window, error) {
	wins, err := m.appWindows(ctx, s)
	if err != nil {
		return platform.Window{}, err
	}
	return pickMainWindow(s, wins)
}

// WindowAction minimizes, maximizes, restores or closes the session's
// window (WindowActionOn for another of the app's windows).
func (m *Sessions) WindowAction(ctx context.Context, sessionID, action string) (*ActResult, error) {
	return m.WindowActionOn(ctx, sessionID, action, WindowTarget{})
}

// windowResult is the answer of a window action: verified when the window
// manager applied it (the backend checks maximize and restore; a closed
// window has left the app's windows), with the windows it opened or
// closed. A window minimized is unmapped, not closed: it is not listed.
func (m *Sessions) windowResult(ctx context.Context, s *Session, before scene, win platform.Window, action string) *ActResult {
	r := &ActResult{Method: "window", Detail: fmt.Sprintf("%s window %s", action, win.ID), Verified: true}
	if action == "close" {
		// The window manager asks the app to close it; the app may take
		// a moment, or ask the user first ("Save changes?").
		r.Verified = false
		deadline := time.Now().Add(changeTime)
		for {
			r.Effects = m.effects(ctx, s, before, "")
			for _, c := range r.Effects.WindowsClosed {
				r.Verified = r.Verified || c.Window == win.ID.String()
			}
			if r.Verified || time.Now().After(deadline) || ctx.Err() != nil {
				break
			}
			select {
			case <-time.After(pollGap):
			case <-ctx.Done():
			}
		}
		if !r.Verified {
			r.Note = "the window manager asked the application to close the window, and it is still open (the application may be asking the user first: see effects)"
		}
		return r
	}
	r.Effects = m.effects(ctx, s, before, "")
	if action == "minimize" {
		r.Effects.WindowsClosed = slices.DeleteFunc(r.Effects.WindowsClosed, func(c WindowRef) bool { return c.Window == win.ID.String() })
	}
	return r
}
