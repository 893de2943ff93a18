//go:build linux

package linux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/atspi"
	"github.com/uiscope/uiscope/internal/platform/sway"
)

// On sway the display server's parts of the seam come from the compositor:
// windows, focus, geometry and window actions from its IPC (swayWindows);
// keyboard and pointer input and captures from the project's Wayland
// client (waylandParts, wayland.go). Platform picks them; accessibility,
// actions and events stay AT-SPI's.
//
// Wayland clients do not know where their windows are, so every toolkit
// reports window-relative extents there: on sway every read asks for them
// and adds the origin of the sway window its top level is shown in, read
// live for that read (swayOrigins). Popups (menus, popovers shown as
// xdg_popup surfaces) are not in sway's tree: an element in one keeps no
// bounds rather than the main window's, unless the read placed the view
// it opened from (swayOrigins).

// onSway reports whether the desktop's windows come from sway: a desktop
// from Open that found sway answering, or a reconnecting one started with
// SWAYSOCK set.
func (d *Desktop) onSway() bool {
	if d.reconnect {
		return os.Getenv("SWAYSOCK") != ""
	}
	return d.Sway != nil
}

// openSway finds the compositor: SWAYSOCK set and answering.
func openSway(ctx context.Context) (*sway.Client, error) {
	c := sway.FromEnv()
	if c == nil {
		return nil, errors.New("SWAYSOCK is not set")
	}
	if _, err := c.Version(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// errNotSway is why a Wayland session without sway's IPC has no windows:
// uiscope takes them, and sends input and captures, through sway's IPC
// (or X11). swayErr is SWAYSOCK's failure, nil when it is unset.
func errNotSway(swayErr error) error {
	which := "SWAYSOCK is unset"
	if swayErr != nil {
		which = "SWAYSOCK does not answer: " + swayErr.Error()
	}
	return fmt.Errorf("WAYLAND_DISPLAY=%s is a Wayland compositor without sway's IPC (%s): uiscope finds windows, sends pointer and keyboard input and takes screenshots on Wayland through sway's IPC only; trees and semantic actions (click, set_value, set_text) work",
		os.Getenv("WAYLAND_DISPLAY"), which)
}

// windowsUnknown says why an app listed without windows may have some
// (platform.App.WindowsUnknown): in a Wayland session without sway's IPC
// uiscope sees no Wayland window, through Xwayland only X clients'; ""
// when the list is whole.
func windowsUnknown(c conns) string {
	if c.sway != nil || os.Getenv("WAYLAND_DISPLAY") == "" {
		return ""
	}
	if c.x != nil {
		return "X11 (Xwayland) shows X clients' windows only, and this Wayland compositor has no sway IPC: the app's Wayland windows, if any, are not known"
	}
	if os.Getenv("SWAYSOCK") != "" {
		return "a Wayland compositor whose sway IPC (SWAYSOCK) does not answer: windows are not known"
	}
	return "a Wayland compositor without sway's IPC (SWAYSOCK unset): windows are not known (of the windows it lists without pids, none could be told to be this app's alone)"
}

// errNoSway is the error of a window call on sway without its IPC.
func errNoSway(err error) error {
	return fmt.Errorf("%w: sway's IPC does not answer (%v)", platform.ErrNotSupported, err)
}

// swayErr maps the sway client's sentinels to the platform's.
func swayErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sway.ErrNoWindow):
		return fmt.Errorf("%w: %v", platform.ErrElementGone, err)
	}
	return err
}

// swayErrOr is swayErr, with a command whose effect sway's tree does not
// show in time (sway.ErrNotApplied) as notApplied.
func swayErrOr(err, notApplied error) error {
	if errors.Is(err, sway.ErrNotApplied) {
		return fmt.Errorf("%w: %v", notApplied, err)
	}
	return swayErr(err)
}

// swayWindows is the Windows part of the seam on sway.
type swayWindows struct{ d *Desktop }

var (
	_ platform.Windows       = swayWindows{}
	_ platform.WindowLister  = swayWindows{}
	_ platform.WindowLayouts = swayWindows{}
)

func (s swayWindows) client(ctx context.Context) (*sway.Client, error) {
	c, err := s.d.conns(ctx)
	if err != nil {
		return nil, err
	}
	if c.sway == nil {
		return nil, errNoSway(c.swayErr)
	}
	return c.sway, nil
}

// windowsOf is sway's list of a process's views, bottom to top.
func (s swayWindows) windowsOf(ctx context.Context, pid int) ([]sway.Window, error) {
	sc, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	return viewsOf(ctx, sc, pid)
}

// viewsOf reads sway's views and keeps the process's, bottom to top.
func viewsOf(ctx context.Context, sc *sway.Client, pid int) ([]sway.Window, error) {
	all, err := sc.Windows(ctx)
	if err != nil {
		return nil, err
	}
	return pidWindows(all, pid), nil
}

// platformWindow is a sway view as the platform shows windows: its
// content's rectangle, its app_id as the class. A view in a background tab
// or on another workspace is mapped, as a covered X window is; one in the
// scratchpad is not shown anywhere, as an unmapped one.
func platformWindow(w sway.Window) platform.Window {
	return platform.Window{ID: w.ID(), Pid: w.Pid, Title: w.Title, Class: w.AppID, Bounds: w.Bounds, Mapped: !w.Scratchpad()}
}

// pidWindows keeps the views of one process.
func pidWindows(all []sway.Window, pid int) []sway.Window {
	var out []sway.Window
	for _, w := range all {
		if w.Pid == pid {
			out = append(out, w)
		}
	}
	return out
}

// matchSway finds the view that shows a top-level accessible whose bounds
// are window-relative, among the process's views: the one whose content
// has the top level's size (or is inside it by the same margin on every
// side: an invisible client-side border), narrowed by title and focus
// when several fit. Sway does not say where in a surface its window
// geometry starts, so the border is split evenly here (csdCorner places
// it by the window's title bar where there is one: a shadow is deeper
// below than above); with no bounds, the one visible view titled the
// element's name. origin is where the toolkit's coordinates count from on
// the screen.
func matchSway(wins []sway.Window, top *platform.Node) (w sway.Window, x, y int, ok bool) {
	type fit struct {
		w    sway.Window
		x, y int
	}
	var fits []fit
	if b := top.Bounds; b != nil && !b.Empty() {
		for _, w := range wins {
			in := w.Bounds
			dw, dh := b.Width-in.Width, b.Height-in.Height
			if dw == dh && dw >= 0 && dw%2 == 0 && dw/2 <= maxCSDBorder {
				fits = append(fits, fit{w, in.X - dw/2, in.Y - dh/2})
			}
		}
	} else {
		for _, w := range wins {
			if w.Visible && top.Name != "" && w.Title == top.Name {
				fits = append(fits, fit{w, w.Bounds.X, w.Bounds.Y})
			}
		}
	}
	narrow := func(keep func(f fit) bool) {
		var kept []fit
		for _, f := range fits {
			if keep(f) {
				kept = append(kept, f)
			}
		}
		if len(kept) > 0 {
			fits = kept
		}
	}
	if len(fits) > 1 && top.Name != "" {
		narrow(func(f fit) bool { return f.w.Title == top.Name })
	}
	if len(fits) > 1 {
		narrow(func(f fit) bool { return f.w.Visible })
	}
	if len(fits) > 1 && top.States != 0 {
		active := top.States.Has(platform.StateActive)
		narrow(func(f fit) bool { return f.w.Focused == active })
	}
	if len(fits) != 1 {
		return sway.Window{}, 0, 0, false
	}
	return fits[0].w, fits[0].x, fits[0].y, true
}

// childExtents reads the extents of an element's children
// (atspi.Conn.ChildExtents).
type childExtents func(ctx context.Context, key string, windowRelative bool) ([]platform.Rect, error)

// csdCorner finds where, in a top level's coordinates, the window
// geometry of the view in starts, when the top level's box is the view's
// content with an invisible client-side border around it (top, as the
// toolkit gives it) and one of its children (kids) is a title bar: as wide
// as the view's content, its left edge where an even split of the border
// puts the content's (a shadow is as deep left as right), its top inside
// the border. A client-side decoration draws its title bar across the
// whole window from its top edge, and a shadow is deeper below than
// above (GTK 3's on sway 1.7: 23 px above, 29 below; split evenly, its
// elements were placed 3 px high). With no such child the border is
// split evenly (matchSway).
func csdCorner(top, in platform.Rect, kids []platform.Rect) (x, y int, ok bool) {
	dw, dh := top.Width-in.Width, top.Height-in.Height
	if dw <= 0 || dw%2 != 0 || dh < 0 {
		return 0, 0, false
	}
	for _, k := range kids {
		if k.Width != in.Width || k.X != top.X+dw/2 || k.Y < top.Y || k.Y > top.Y+dh {
			continue
		}
		if !ok || k.Y < y {
			x, y, ok = k.X, k.Y, true
		}
	}
	return x, y, ok
}

// swayPopup reports a top level that may be a popup surface: a role a
// popup's has, with bounds (its size; a popup that is not shown has none).
func swayPopup(top *platform.Node) bool {
	return atspi.PopupRole(top.Role) && top.Bounds != nil && !top.Bounds.Empty()
}

// popupParent is the view an application's popups open from: its focused
// view (a popup opens on the input its parent got, and sway keeps the
// focus on the parent while it shows), else its one visible view.
func popupParent(wins []sway.Window) (sway.Window, bool) {
	var visible []sway.Window
	for _, w := range wins {
		if w.Focused {
			return w, true
		}
		if w.Visible {
			visible = append(visible, w)
		}
	}
	if len(visible) == 1 {
		return visible[0], true
	}
	return sway.Window{}, false
}

// swayUnknown is the error for a top level no view could be matched to.
func swayUnknown(pid int, top *platform.Node, wins []sway.Window) error {
	size := "no bounds"
	if b := top.Bounds; b != nil {
		size = fmt.Sprintf("%dx%d", b.Width, b.Height)
	}
	desc := "it has no sway windows"
	if len(wins) > 0 {
		parts := make([]string, 0, len(wins))
		for _, w := range wins {
			parts = append(parts, fmt.Sprintf("%s %q %dx%d", w.ID(), w.Title, w.Bounds.Width, w.Bounds.Height))
		}
		desc = "its sway windows are " + strings.Join(parts, ", ")
	}
	return fmt.Errorf("%w: no window of pid %d matches the top level %q (%s); %s",
		platform.ErrWindowUnknown, pid, top.Name, size, desc)
}

// swayOrigins are originFuncs on sway: the process's views read once per
// read, on first use. A top level that no view shows but whose role a
// popup's has (a menu, a combo box's list: an xdg_popup surface, which
// sway's tree does not list) is placed by the view it opened from
// (popupParent), at the origin the read found for that view's own top
// level: GTK 3 and Qt 5 report a popup's extents relative to its parent
// toplevel in screen coordinates (measured on sway 1.7: KWrite's File
// menu and a GTK 3 combo box's list, against grim's capture), so this
// holds for a read in screen coordinates (screen: Qt's and GTK 3's,
// atspi.TreeOptions.ScreenExtents); window coordinates of a popup count
// from the popup's own surface, whose place no client can read, so there
// (GTK 4) a popup's elements keep no bounds. Without that origin (the popup read
// first, or alone) a tiled view's content origin is its toplevel's (a
// tiled client draws no shadow); a floating view's popup has no known
// place.
func swayOrigins(sc *sway.Client, pid int, screen bool, kids childExtents) (origin, popup func(context.Context, *platform.Node) (int, int, bool)) {
	var once sync.Once
	var wins []sway.Window
	var err error
	var mu sync.Mutex
	placed := map[int64][2]int{} // view -> origin of the top level it shows
	// parentOrigin is where the toolkit's coordinates of the popups of the
	// view they open from count from (mu held).
	parentOrigin := func() (int, int, bool) {
		if !screen {
			return 0, 0, false
		}
		p, ok := popupParent(wins)
		if !ok {
			return 0, 0, false
		}
		if p.Shell == "xwayland" {
			return 0, 0, true // as above: an X client's screen coordinates
		}
		if o, ok := placed[p.Con]; ok {
			return o[0], o[1], true
		}
		if !p.Floating {
			// A tiled view's client draws no shadow around it: its
			// toplevel's origin is the content's.
			return p.Bounds.X, p.Bounds.Y, true
		}
		return 0, 0, false
	}
	origin = func(ctx context.Context, top *platform.Node) (int, int, bool) {
		once.Do(func() { wins, err = viewsOf(ctx, sc, pid) })
		if err != nil {
			return 0, 0, false
		}
		mu.Lock()
		defer mu.Unlock()
		w, x, y, ok := matchSway(wins, top)
		if ok && screen && w.Shell == "xwayland" {
			// An X client's screen coordinates are its X screen's,
			// which Xwayland lays out as sway does: already placed.
			x, y = 0, 0
		} else if ok && kids != nil && top.Key != "" && top.Bounds != nil && top.Bounds.Width > w.Bounds.Width {
			if ks, err := kids(ctx, top.Key, !screen); err == nil {
				if cx, cy, found := csdCorner(*top.Bounds, w.Bounds, ks); found {
					x, y = w.Bounds.X-cx, w.Bounds.Y-cy
				}
			}
		}
		if ok {
			placed[w.Con] = [2]int{x, y}
			return x, y, true
		}
		if !swayPopup(top) {
			return 0, 0, false
		}
		return parentOrigin()
	}
	// A popup below a top level (Qt's menus, GTK 3's menus of a menu
	// bar) counts from its parent toplevel as well: its place is that
	// origin plus its own extents.
	popup = func(ctx context.Context, n *platform.Node) (int, int, bool) {
		once.Do(func() { wins, err = viewsOf(ctx, sc, pid) })
		if err != nil || n.Bounds == nil {
			return 0, 0, false
		}
		mu.Lock()
		defer mu.Unlock()
		x, y, ok := parentOrigin()
		return x + n.Bounds.X, y + n.Bounds.Y, ok
	}
	return origin, popup
}

// Window finds the view that shows an element: the view of its top level
// (ErrWindowUnknown when none, or several alike, fit).
func (s swayWindows) Window(ctx context.Context, app platform.App, key string) (platform.Window, error) {
	sc, err := s.client(ctx)
	if err != nil {
		return platform.Window{}, err
	}
	a, err := s.d.elementA11y(ctx, app, key)
	if err != nil {
		return platform.Window{}, err
	}
	top, err := a.TopLevel(ctx, key, !screenOnSway(app)) // atspi.TreeOptions.ScreenExtents
	if err != nil {
		return platform.Window{}, err
	}
	wins, err := viewsOf(ctx, sc, app.Pid)
	if err != nil {
		return platform.Window{}, err
	}
	w, _, _, ok := matchSway(wins, top)
	if !ok && swayPopup(top) {
		// A popup is drawn with the view it opened from: a capture of
		// that view shows it where it lies inside.
		w, ok = popupParent(wins)
	}
	if !ok {
		return platform.Window{}, swayUnknown(app.Pid, top, wins)
	}
	return platformWindow(w), nil
}

// con is the sway container a window id names.
func con(id platform.WindowID, err error) (int64, error) {
	c, ok := id.SwayCon()
	if !ok {
		return 0, fmt.Errorf("%w: %s is not a sway window", err, id)
	}
	return c, nil
}

// Activate focuses a view and verifies sway has it focused.
func (s swayWindows) Activate(ctx context.Context, win platform.Window) error {
	sc, err := s.client(ctx)
	if err != nil {
		return err
	}
	c, err := con(win.ID, platform.ErrNotActivated)
	if err != nil {
		return err
	}
	return swayErrOr(sc.Focus(ctx, c), platform.ErrNotActivated)
}

// ActiveWindow is the focused view (0 when none is).
func (s swayWindows) ActiveWindow(ctx context.Context) (platform.WindowID, error) {
	sc, err := s.client(ctx)
	if err != nil {
		return 0, err
	}
	w, ok, err := sc.Focused(ctx)
	if err != nil || !ok {
		return 0, err
	}
	return w.ID(), nil
}

// TopmostAt is the view on top at a point (0 when none is).
func (s swayWindows) TopmostAt(ctx context.Context, x, y int) (platform.WindowID, error) {
	sc, err := s.client(ctx)
	if err != nil {
		return 0, err
	}
	w, ok, err := sc.At(ctx, x, y)
	if err != nil || !ok {
		return 0, err
	}
	return w.ID(), nil
}

// WindowPid is the process behind a view (0 for an id that is not sway's).
func (s swayWindows) WindowPid(ctx context.Context, id platform.WindowID) (int, error) {
	c, ok := id.SwayCon()
	if !ok {
		return 0, nil
	}
	sc, err := s.client(ctx)
	if err != nil {
		return 0, err
	}
	w, err := sc.Window(ctx, c)
	if err != nil {
		return 0, swayErr(err)
	}
	return w.Pid, nil
}

// WindowAction closes a view (asks its client to), or puts it in
// fullscreen (maximize: sway has no maximized state, its tiles fill their
// space) or out of it (restore), verified. Minimize answers notSupported:
// sway never iconifies a window.
func (s swayWindows) WindowAction(ctx context.Context, win platform.Window, action string) error {
	c, err := con(win.ID, platform.ErrElementGone)
	if err != nil {
		return err
	}
	switch action {
	case "minimize":
		return fmt.Errorf("%w: sway has no minimize (a window is tiled, floating or fullscreen, never iconified): close it, or leave it", platform.ErrNotSupported)
	case "maximize", "restore", "close":
	default:
		return fmt.Errorf("sway: unknown window action %q; actions are maximize, restore, close", action)
	}
	sc, err := s.client(ctx)
	if err != nil {
		return err
	}
	switch action {
	case "close":
		return swayErr(sc.Kill(ctx, c))
	default:
		return swayErrOr(sc.Fullscreen(ctx, c, action == "maximize"), platform.ErrNoEffect)
	}
}

// Screen is the rectangle of sway's outputs.
func (s swayWindows) Screen(ctx context.Context) (platform.Rect, error) {
	sc, err := s.client(ctx)
	if err != nil {
		return platform.Rect{}, err
	}
	return sc.Screen(ctx)
}

// AppWindows lists a process's views, bottom to top.
func (s swayWindows) AppWindows(ctx context.Context, pid int) ([]platform.Window, error) {
	wins, err := s.windowsOf(ctx, pid)
	if err != nil {
		return nil, err
	}
	var out []platform.Window
	for _, w := range wins {
		out = append(out, platformWindow(w))
	}
	return out, nil
}

// WindowLayout maps root's top levels (bounds in screen pixels, as a read
// placed them) to the application's views: the view whose content they
// fill. Popups are not sway's to list.
func (s swayWindows) WindowLayout(ctx context.Context, app platform.App, root *platform.Node) (*platform.WindowLayout, error) {
	wins, err := s.windowsOf(ctx, app.Pid)
	if err != nil {
		return nil, err
	}
	out := &platform.WindowLayout{Shows: map[string]platform.WindowID{}}
	for _, w := range wins {
		out.Windows = append(out.Windows, platformWindow(w))
	}
	if root == nil {
		return out, nil
	}
	var popups []*platform.Node
	for _, top := range root.Children {
		b := top.Bounds
		if b == nil {
			continue
		}
		shown := false
		for _, w := range wins {
			// The content itself, or inside an invisible client-side
			// border (deeper below than above where a shadow falls:
			// csdCorner).
			if *b == w.Bounds || b.Borders(w.Bounds) {
				out.Shows[top.Key] = w.ID()
				shown = true
				break
			}
		}
		if !shown && swayPopup(top) {
			popups = append(popups, top)
		}
	}
	// A popup is drawn with the view it opened from (sway lists no
	// surface of its own for it): that view shows it.
	if p, ok := popupParent(wins); ok {
		for _, top := range popups {
			out.Shows[top.Key] = p.ID()
		}
	}
	return out, nil
}
