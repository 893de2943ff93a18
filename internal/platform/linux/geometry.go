//go:build linux

package linux

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/x11"
)

// Geometry is live (docs/platform.md, "Bounds"): every read that places elements on the
// screen and every action that aims at them reads the application's X
// windows at that moment, once per call, and maps each top-level
// accessible (frame, dialog, window) to the native window that shows it
// by the window's process, its size (and for toolkits with screen
// coordinates its place), its title and which window is active, together.
// A top level that no window fits, or that several fit alike, has no
// window: its elements get no bounds (platform.Node.BoundsUnknown), and an
// action on them fails with platform.ErrWindowUnknown. Another window's
// origin is never borrowed.

// maxCSDBorder is platform.MaxCSDBorder.
const maxCSDBorder = platform.MaxCSDBorder

// liveWindows is one call's read of an application's windows, made on
// first use and kept for that call only.
type liveWindows struct {
	x    *x11.Conn
	pid  int
	once sync.Once
	wins []x11.AppWindow
	err  error
}

func (l *liveWindows) get(ctx context.Context) ([]x11.AppWindow, error) {
	l.once.Do(func() { l.wins, l.err = l.x.AppWindows(ctx, l.pid) })
	return l.wins, l.err
}

// placement is where a top level's window is: the window, and the screen
// point that the toolkit's window-relative coordinates count from.
type placement struct {
	win              x11.AppWindow
	originX, originY int
}

// matchTop finds the native window that shows a top-level accessible
// element among the application's windows (bottom to top): the one window
// whose geometry fits the element's bounds (windowRelative: its size, the
// invisible client-side border aside; otherwise its place and size, as its
// interior or its frame), narrowed by title, by being mapped and by the
// active state when several fit. With no bounds to compare, the one mapped
// window whose title is the element's name. ok is false when no window, or
// more than one, is left.
func matchTop(wins []x11.AppWindow, top *platform.Node, windowRelative bool) (placement, bool) {
	var fits []placement
	if b := top.Bounds; b != nil && !b.Empty() {
		for _, w := range wins {
			if w.Popup && windowRelative {
				continue // GTK 4's top levels are windows; its popovers are inside them
			}
			if x, y, ok := fit(w, *b, windowRelative); ok {
				fits = append(fits, placement{w, x, y})
			}
		}
	} else {
		for _, w := range wins {
			if !w.Popup && w.Mapped && top.Name != "" && w.Title == top.Name {
				fits = append(fits, placement{w, w.Bounds.X, w.Bounds.Y})
			}
		}
	}
	narrow := func(keep func(p placement) bool) {
		var kept []placement
		for _, p := range fits {
			if keep(p) {
				kept = append(kept, p)
			}
		}
		if len(kept) > 0 {
			fits = kept
		}
	}
	if len(fits) > 1 && top.Name != "" {
		narrow(func(p placement) bool { return p.win.Title == top.Name })
	}
	if len(fits) > 1 {
		narrow(func(p placement) bool { return p.win.Mapped })
	}
	if len(fits) > 1 && top.States != 0 {
		active := top.States.Has(platform.StateActive)
		narrow(func(p placement) bool { return p.win.Active == active })
	}
	if len(fits) != 1 {
		return placement{}, false
	}
	return fits[0], true
}

// fit reports whether window w can show a top level whose bounds are b,
// and where its coordinates count from on the screen.
func fit(w x11.AppWindow, b platform.Rect, windowRelative bool) (x, y int, ok bool) {
	in := w.Bounds
	if windowRelative {
		if e := w.FrameExtents; e != nil {
			cw, ch := in.Width-e[0]-e[1], in.Height-e[2]-e[3]
			return in.X + e[0], in.Y + e[2], cw == b.Width && ch == b.Height
		}
		// Without extents, the border is the same on every side.
		dw, dh := in.Width-b.Width, in.Height-b.Height
		if dw != dh || dw < 0 || dw%2 != 0 || dw/2 > maxCSDBorder {
			return 0, 0, false
		}
		return in.X + dw/2, in.Y + dh/2, true
	}
	if b == in || b == w.Frame {
		return 0, 0, true
	}
	// A client-side decorated window's content inside its invisible
	// border.
	m := b.X - in.X
	return 0, 0, m > 0 && m <= maxCSDBorder && b.Y-in.Y == m && in.Width-b.Width == 2*m && in.Height-b.Height == 2*m
}

// describeWindows says which windows a top level was compared with, for an
// error.
func describeWindows(wins []x11.AppWindow) string {
	if len(wins) == 0 {
		return "it has no windows"
	}
	parts := make([]string, 0, len(wins))
	for _, w := range wins {
		kind := ""
		if w.Popup {
			kind = " popup"
		}
		if !w.Mapped {
			kind += " unmapped"
		}
		parts = append(parts, fmt.Sprintf("%s%s %q %dx%d", w.ID, kind, w.Title, w.Bounds.Width, w.Bounds.Height))
	}
	return "its windows are " + strings.Join(parts, ", ")
}

// windowUnknown is the error for a top level no window could be matched
// to.
func windowUnknown(pid int, top *platform.Node, wins []x11.AppWindow) error {
	size := "no bounds"
	if b := top.Bounds; b != nil {
		size = fmt.Sprintf("%dx%d", b.Width, b.Height)
	}
	return fmt.Errorf("%w: no window of pid %d matches the top level %q (%s); %s",
		platform.ErrWindowUnknown, pid, top.Name, size, describeWindows(wins))
}

var _ platform.WindowLayouts = (*Desktop)(nil)

// WindowLayout maps root's top levels to the application's windows as they
// are now (matchTop), and the popups inside them (a menu, a GTK 4
// popover: an element whose rectangle a popup window of the process
// fits, the topmost such window) to those popups.
func (d *Desktop) WindowLayout(ctx context.Context, app platform.App, root *platform.Node) (*platform.WindowLayout, error) {
	xc, err := d.x(ctx)
	if err != nil {
		return nil, err
	}
	wins, err := xc.AppWindows(ctx, app.Pid)
	if err != nil {
		return nil, err
	}
	rel := WindowRelative(app.Toolkit, app.ToolkitVersion)
	out := &platform.WindowLayout{Shows: map[string]platform.WindowID{}}
	for _, w := range wins {
		pw := w.Window
		pw.Popup = w.Popup
		out.Windows = append(out.Windows, pw)
	}
	if root == nil {
		return out, nil
	}
	var walk func(n *platform.Node, top bool)
	walk = func(n *platform.Node, top bool) {
		if !top && popupRole(n.Role) && n.Bounds != nil {
			if w, ok := popupOf(wins, *n.Bounds, rel); ok {
				out.Shows[n.Key] = w.ID
			} else if w, ok := popupOfItems(wins, n, rel); ok {
				for _, k := range n.Children {
					if k.Bounds != nil {
						out.Shows[k.Key] = w.ID
					}
				}
			}
		}
		for _, k := range n.Children {
			walk(k, false)
		}
	}
	for _, top := range root.Children {
		if p, ok := matchTop(wins, top, rel); ok {
			out.Shows[top.Key] = p.win.ID
		}
		walk(top, true)
	}
	return out, nil
}

// popupRole reports the roles a popup's own element has: GTK 3's and Qt's
// menus, GTK 4's popovers, tooltips, a combo box's list.
func popupRole(r platform.Role) bool {
	switch r.String() {
	case "menu", "popup menu", "window", "tool tip", "list":
		return true
	}
	return false
}

// popupOfItems finds the popup that shows an open menu's items where the
// menu's own extents are its title in the menu bar (GTK 2): the popup
// that holds the rectangle around the items with bounds.
func popupOfItems(wins []x11.AppWindow, menu *platform.Node, windowRelative bool) (x11.AppWindow, bool) {
	var items platform.Rect
	for _, k := range menu.Children {
		if k.Bounds == nil || k.Bounds.Empty() {
			continue
		}
		if items.Empty() {
			items = *k.Bounds
			continue
		}
		x0, y0 := min(items.X, k.Bounds.X), min(items.Y, k.Bounds.Y)
		x1, y1 := max(items.X+items.Width, k.Bounds.X+k.Bounds.Width), max(items.Y+items.Height, k.Bounds.Y+k.Bounds.Height)
		items = platform.Rect{X: x0, Y: y0, Width: x1 - x0, Height: y1 - y0}
	}
	if items.Empty() || items == *menu.Bounds {
		return x11.AppWindow{}, false
	}
	return popupOf(wins, items, windowRelative)
}

// maxPopupBorder is how much larger than its element a popup window may
// be (a menu's frame drawn around it).
const maxPopupBorder = 16

// popupOf finds the topmost popup window of the application that shows an
// element with bounds b: with screen coordinates, a popup holding b and at
// most a border larger; window-relative (GTK 4, whose popover extents do
// not count from the popover), a popup of b's size exactly.
func popupOf(wins []x11.AppWindow, b platform.Rect, windowRelative bool) (x11.AppWindow, bool) {
	for i := len(wins) - 1; i >= 0; i-- {
		w := wins[i]
		if !w.Popup {
			continue
		}
		in := w.Bounds
		if windowRelative {
			if in.Width == b.Width && in.Height == b.Height {
				return w, true
			}
			continue
		}
		if in.Intersect(b) == b && in.Width-b.Width <= maxPopupBorder && in.Height-b.Height <= maxPopupBorder {
			return w, true
		}
	}
	return x11.AppWindow{}, false
}
