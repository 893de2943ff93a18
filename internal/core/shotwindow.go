package core

import (
	"context"
	"fmt"
	"strings"

	"github.com/uiscope/uiscope/internal/platform"
)

// A screenshot shows the window the user sees an element in (docs/api.md,
// "Screenshots"): a dialog, a popup menu, not the main window behind it;
// and marks only the elements that window shows.

// shotWindow is what a screenshot captures: the window, and which of the
// tree's elements it shows (nil: all).
type shotWindow struct {
	win   platform.Window
	shows func(id int) bool
}

// shotWindow decides what a screenshot captures: the window asked for
// (window), the window the element at pos shows in (element), else the
// session's window. Never another window's pixels: a window that cannot
// be told is an error.
func (m *Sessions) shotWindow(ctx context.Context, s *Session, t *Tree, pos int, element, window string) (shotWindow, error) {
	var want platform.WindowID
	if window != "" {
		id, err := platform.ParseWindowID(window)
		if err != nil {
			return shotWindow{}, Errorf(CodeInvalidArgument, "%v", err)
		}
		want = id
	}
	if t.Kind() == KindVisual {
		return m.shotWindowVisual(ctx, s, t, pos, element, want)
	}
	wl, ok := m.desk.Windows.(platform.WindowLayouts)
	if !ok || m.desk.Windows == nil {
		// A platform that cannot tell which window shows what: the
		// session's window, or the element's top level's.
		win, err := m.mainWindow(ctx, s)
		if err != nil {
			return shotWindow{}, err
		}
		if element != "" && m.desk.Windows != nil {
			n, _ := t.Node(pos)
			if win, err = m.desk.Windows.Window(ctx, s.App, n.Key); err != nil {
				return shotWindow{}, mapActErr(err)
			}
		}
		if want != 0 && want != win.ID {
			return shotWindow{}, Errorf(CodeNotSupported, "this platform cannot tell which elements window %s shows; capture the session's window (no window)", want)
		}
		return shotWindow{win: win}, nil
	}
	layout, err := wl.WindowLayout(ctx, s.App, t.Root())
	if err != nil {
		if cerr := m.check(ctx, s); cerr != nil {
			return shotWindow{}, cerr
		}
		return shotWindow{}, mapActErr(err)
	}
	// shownBy is the window that shows id: that of its nearest listed
	// ancestor-or-self; 0 when none could be told.
	shownBy := func(id int) platform.WindowID {
		for p, ok := id, true; ok; p, ok = t.Parent(p) {
			n, _ := t.Node(p)
			if w, listed := layout.Shows[n.Key]; listed {
				return w
			}
		}
		return 0
	}
	find := func(id platform.WindowID) (platform.Window, bool) {
		for _, w := range layout.Windows {
			if w.ID == id {
				return w, true
			}
		}
		return platform.Window{}, false
	}
	var win platform.Window
	switch {
	case want != 0:
		w, ok := find(want)
		if !ok {
			return shotWindow{}, Errorf(CodeNotFound, "window %s is not one of the application's windows now (%s); list them with connect or list_apps", want, describeLayout(layout))
		}
		win = w
	case element != "":
		id := shownBy(pos)
		w, ok := find(id)
		if id == 0 || !ok {
			n, _ := t.Node(pos)
			return shotWindow{}, AsError(fmt.Errorf("%s (%s %s): %w (%s): no image is returned rather than another window's pixels; capture a window (window, or no element)",
				element, n.Role, Quote(n.Name), platform.ErrWindowUnknown, describeLayout(layout)))
		}
		win = w
	default:
		if win, err = m.mainWindow(ctx, s); err != nil {
			return shotWindow{}, err
		}
	}
	return shotWindow{win: win, shows: func(id int) bool { return shownBy(id) == win.ID }}, nil
}

// shotWindowVisual is shotWindow in a visual session: the window tree
// itself says which top-level window (or popup) holds each window.
func (m *Sessions) shotWindowVisual(ctx context.Context, s *Session, t *Tree, pos int, element string, want platform.WindowID) (shotWindow, error) {
	// rootOf is the application's top-level window (frame, popup) that
	// holds id: the root's child on its way up.
	rootOf := func(id int) int {
		for {
			p, ok := t.Parent(id)
			if !ok || p <= 0 {
				return id
			}
			id = p
		}
	}
	pick := func(id int) (shotWindow, error) {
		r := rootOf(id)
		n, _ := t.Node(r)
		_, win, _, err := m.liveWindow(ctx, s, n.Key)
		if err != nil {
			return shotWindow{}, err
		}
		if win.ID == 0 {
			return shotWindow{}, AsError(fmt.Errorf("%s: %w: its top-level window is neither one the window manager manages for the application nor one of its popups", element, platform.ErrWindowUnknown))
		}
		return shotWindow{win: win, shows: func(id int) bool { return rootOf(id) == r }}, nil
	}
	switch {
	case want != 0:
		for id := 1; id < t.Len(); id++ {
			if w := t.Window(id); w != nil && w.ID == want {
				return pick(id)
			}
		}
		return shotWindow{}, Errorf(CodeNotFound, "window %s is not in the application's window tree; read get_visual_tree", want)
	case element != "" && pos > 0:
		return pick(pos)
	}
	win, err := m.mainWindow(ctx, s)
	if err != nil {
		return shotWindow{}, err
	}
	for id := 1; id < t.Len(); id++ {
		if w := t.Window(id); w != nil && w.ID == win.ID {
			r := rootOf(id)
			return shotWindow{win: win, shows: func(id int) bool { return rootOf(id) == r }}, nil
		}
	}
	return shotWindow{win: win}, nil
}

// describeLayout lists an application's windows for an error.
func describeLayout(l *platform.WindowLayout) string {
	if len(l.Windows) == 0 {
		return "it has no windows"
	}
	parts := make([]string, 0, len(l.Windows))
	for _, w := range l.Windows {
		kind := ""
		if w.Popup {
			kind = " popup"
		}
		parts = append(parts, fmt.Sprintf("%s%s %s %dx%d", w.ID, kind, Quote(w.Title), w.Bounds.Width, w.Bounds.Height))
	}
	return "its windows: " + strings.Join(parts, ", ")
}
