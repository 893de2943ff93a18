//go:build linux

package x11

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jezek/xgb/xproto"

	"github.com/uiscope/uiscope/internal/platform"
)

// AppWindow is one of an application's windows as the screen holds it at
// the moment of the read: a client window the window manager lists for the
// process (or, without one, a root child that looks like an application
// window), or a popup of its own (an override-redirect window: a menu, a
// tooltip, a GTK 4 popover).
type AppWindow struct {
	// Window is the client window: its id, title and interior in screen
	// pixels. A popup's title is left empty.
	platform.Window
	// Frame is the root child holding the window (its window-manager
	// frame, decorations included; the window itself when unframed), in
	// screen pixels, its border included.
	Frame platform.Rect
	// Popup marks an override-redirect window, which no window manager
	// manages (nor can activate).
	Popup bool
	// Menu marks a popup whose _NET_WM_WINDOW_TYPE says it is a menu: a
	// menu, a popup or dropdown menu, a combo box's list (not a tooltip,
	// a notification or a drag icon).
	Menu bool
	// FrameExtents is _GTK_FRAME_EXTENTS (left, right, top, bottom): the
	// invisible border a client-side decorated window draws around its
	// content (shadow, resize area); nil when the window sets none, as GTK
	// does not without a compositing manager.
	FrameExtents *[4]int
	// Active: the window manager's _NET_ACTIVE_WINDOW.
	Active bool
}

// AppWindows lists pid's windows as they are now, bottom to top in the
// server's stacking order (clients the stack does not show, unmapped ones,
// first). It is a handful of pipelined round trips, read afresh on every
// call: geometry is never remembered.
func (c *Conn) AppWindows(ctx context.Context, pid int) ([]AppWindow, error) {
	if pid <= 0 {
		return nil, fmt.Errorf("x11: app windows: pid %d is no process", pid)
	}
	return call(ctx, func(ctx context.Context) ([]AppWindow, error) { return c.appWindows(ctx, pid) })
}

func (c *Conn) appWindows(ctx context.Context, pid int) ([]AppWindow, error) {
	all, err := c.topLevels(ctx)
	if err != nil {
		return nil, err
	}
	atoms, err := c.internAtoms(ctx, "_GTK_FRAME_EXTENTS", "_NET_ACTIVE_WINDOW", "_NET_WM_WINDOW_TYPE",
		"_NET_WM_WINDOW_TYPE_MENU", "_NET_WM_WINDOW_TYPE_POPUP_MENU", "_NET_WM_WINDOW_TYPE_DROPDOWN_MENU", "_NET_WM_WINDOW_TYPE_COMBO")
	if err != nil {
		return nil, err
	}
	aExtents, aActive, aType := atoms[0], atoms[1], atoms[2]
	menuTypes := atoms[3:]
	byID := map[xproto.Window]*AppWindow{}
	var clients []uint32
	var mine []*AppWindow
	for _, w := range all {
		if w.Pid != pid {
			continue
		}
		aw := &AppWindow{Window: w, Frame: w.Bounds}
		byID[xproto.Window(w.ID)] = aw
		mine = append(mine, aw)
		clients = append(clients, uint32(w.ID))
	}
	// One round trip: each client's frame extents, the active window and
	// the root's children; then the frames (one per nesting level).
	extCks := make([]xproto.GetPropertyCookie, len(mine))
	for i, aw := range mine {
		extCks[i] = c.getProp(xproto.Window(aw.ID), aExtents)
	}
	activeCk := c.getProp(c.root, aActive)
	treeCk := xproto.QueryTree(c.xc, c.root)
	var fatal error
	for i, aw := range mine {
		r, err := extCks[i].Reply()
		switch {
		case err != nil && !isXError(err):
			if fatal == nil {
				fatal = fmt.Errorf("x11: window %#x: %w", uint32(aw.ID), err)
			}
		case err != nil:
		default:
			if l := propCard32List(r); len(l) == 4 {
				aw.FrameExtents = &[4]int{int(l[0]), int(l[1]), int(l[2]), int(l[3])}
			}
		}
	}
	activeR, aerr := activeCk.Reply()
	tree, terr := treeCk.Reply()
	if err := errors.Join(fatal, aerr, terr); err != nil {
		return nil, fmt.Errorf("x11: reading the window stack: %w", err)
	}
	if tree == nil {
		return nil, errors.New("x11: reading the window stack: connection closed")
	}
	if active, ok := propCard32(activeR); ok {
		if aw := byID[xproto.Window(active)]; aw != nil {
			aw.Active = true
		}
	}
	holders, err := c.topAncestors(ctx, clients)
	if err != nil {
		return nil, err
	}
	children := tree.Children
	attrCks := make([]xproto.GetWindowAttributesCookie, len(children))
	geomCks := make([]xproto.GetGeometryCookie, len(children))
	for i, w := range children {
		attrCks[i] = xproto.GetWindowAttributes(c.xc, w)
		geomCks[i] = xproto.GetGeometry(c.xc, xproto.Drawable(w))
	}
	type rootChild struct {
		w      xproto.Window
		rect   platform.Rect // border included
		inside platform.Rect // border excluded
		popup  bool
	}
	var stack []rootChild
	var popups []uint32
	for i, w := range children {
		a, aerr := attrCks[i].Reply()
		g, gerr := geomCks[i].Reply()
		for _, err := range []error{aerr, gerr} {
			if err != nil && !isXError(err) && fatal == nil {
				fatal = fmt.Errorf("x11: reading window %#x: %w", uint32(w), err)
			}
		}
		if a == nil || g == nil || aerr != nil || gerr != nil {
			continue
		}
		bw := int(g.BorderWidth)
		rc := rootChild{w: w,
			rect:   platform.Rect{X: int(g.X), Y: int(g.Y), Width: int(g.Width) + 2*bw, Height: int(g.Height) + 2*bw},
			inside: platform.Rect{X: int(g.X) + bw, Y: int(g.Y) + bw, Width: int(g.Width), Height: int(g.Height)}}
		switch {
		case holders[w] != 0:
		case a.OverrideRedirect && a.MapState == xproto.MapStateViewable && a.Class == xproto.WindowClassInputOutput:
			rc.popup = true
			popups = append(popups, uint32(w))
		default:
			continue
		}
		stack = append(stack, rc)
	}
	if fatal != nil {
		return nil, fatal
	}
	// The popups' types go out with the question of who made them.
	typeCks := make([]xproto.GetPropertyCookie, len(popups))
	for i, w := range popups {
		typeCks[i] = c.getProp(xproto.Window(w), aType)
	}
	pids, err := c.resPids(ctx, popups)
	if err != nil {
		return nil, err
	}
	popupPid := make(map[xproto.Window]int, len(popups))
	popupMenu := make(map[xproto.Window]bool, len(popups))
	for i, w := range popups {
		popupPid[xproto.Window(w)] = pids[i]
		r, err := typeCks[i].Reply()
		if err != nil && !isXError(err) {
			return nil, fmt.Errorf("x11: reading window %#x: %w", w, err)
		}
		for _, t := range propCard32List(r) {
			popupMenu[xproto.Window(w)] = popupMenu[xproto.Window(w)] || slices.Contains(menuTypes, xproto.Atom(t))
		}
	}
	placed := map[*AppWindow]bool{}
	var stacked []AppWindow
	for _, rc := range stack {
		if rc.popup {
			if popupPid[rc.w] != pid {
				continue
			}
			stacked = append(stacked, AppWindow{Window: platform.Window{ID: platform.WindowID(rc.w), Pid: pid,
				Bounds: rc.inside, Mapped: true}, Frame: rc.rect, Popup: true, Menu: popupMenu[rc.w]})
			continue
		}
		aw := byID[xproto.Window(holders[rc.w])]
		if aw == nil || placed[aw] {
			continue
		}
		aw.Frame = rc.rect
		placed[aw] = true
		stacked = append(stacked, *aw)
	}
	out := make([]AppWindow, 0, len(mine)+len(popups))
	for _, aw := range mine {
		if !placed[aw] {
			out = append(out, *aw)
		}
	}
	return append(out, stacked...), nil
}
