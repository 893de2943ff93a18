package core

import (
	"context"

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
