//go:build linux

// Package linux joins the AT-SPI backend (semantics, actions, events), the
// X11 backend (windows, input, geometry) or on sway the compositor's IPC
// (windows, geometry; sway.go), and /proc (process identity) into one
// platform.Desktop: applications with their windows, and accessible
// trees with bounds in screen pixels. It also shows the server's consent
// dialog (consent.go), a security.Prompter.
package linux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/atspi"
	"github.com/uiscope/uiscope/internal/platform/sway"
	"github.com/uiscope/uiscope/internal/platform/wayland"
	"github.com/uiscope/uiscope/internal/platform/x11"
	"github.com/uiscope/uiscope/internal/procinfo"
)

// Desktop is the Linux desktop: an AT-SPI connection and an X connection.
// Either may be missing (no accessibility bus, no display); what needs it
// then fails with a clear error and the rest keeps working.
//
// A desktop from Open keeps the connections it found. One from
// Reconnecting connects on first use and, while it has no accessibility
// bus, tries again on every call, so that a long-running server started
// before the desktop (or its accessibility bus) keeps working once it
// appears.
type Desktop struct {
	// The connections, as Open found them. Read them directly only on a
	// desktop from Open: a reconnecting one replaces them under mu.
	A11y    *atspi.Conn
	A11yErr error
	X       *x11.Conn
	XErr    error
	// Sway is the compositor's IPC when uiscope runs on sway (SWAYSOCK
	// set and answering at Open): windows come from it, not from X11.
	Sway    *sway.Client
	SwayErr error
	// Wayland is the project's Wayland client on sway (input, captures),
	// made at Open or on first use.
	Wayland *wayland.Backend
	// Mirror serves repeated tree reads of toolkits whose events cover
	// every change (GTK 3) from a copy kept current by those events; for
	// long-lived connections, such as a server's. Set it before use.
	Mirror bool

	reconnect bool
	mu        sync.Mutex // guards the connections of a reconnecting desktop

	// tl lists a Wayland compositor's windows where it has no sway IPC
	// (toplevel.go); guarded by tlMu.
	tl   *wayland.Conn
	tlMu sync.Mutex
}

var (
	_ platform.Accessibility      = (*Desktop)(nil)
	_ platform.Windows            = (*Desktop)(nil)
	_ platform.Input              = (*Desktop)(nil)
	_ platform.ButtonHolder       = (*Desktop)(nil)
	_ platform.KeyHolder          = (*Desktop)(nil)
	_ platform.Actions            = (*Desktop)(nil)
	_ platform.LengthChecker      = (*Desktop)(nil)
	_ platform.CheckedTyper       = (*Desktop)(nil)
	_ platform.StillReader        = (*Desktop)(nil)
	_ platform.TopLevelReader     = (*Desktop)(nil)
	_ platform.AttachedReader     = (*Desktop)(nil)
	_ platform.FocusTracker       = (*Desktop)(nil)
	_ platform.FocusedChildReader = (*Desktop)(nil)
	_ platform.TextReader         = (*Desktop)(nil)
	_ platform.ActionStarter      = (*Desktop)(nil)
	_ platform.WindowLister       = (*Desktop)(nil)
	_ platform.Events             = (*Desktop)(nil)
	_ platform.TableReader        = (*Desktop)(nil)
)

// Reconnecting returns a desktop that connects on first use and again on
// every call while it has no accessibility bus (keeping the X connection it
// has meanwhile).
func Reconnecting() *Desktop { return &Desktop{reconnect: true} }

// Platform is the desktop as the core receives it: every part of the seam.
// The display server's parts (Windows, Input, Pixels) are chosen here and
// only here: X11's are the Desktop's own methods, sway's are in sway.go.
func (d *Desktop) Platform() platform.Desktop {
	desk := platform.Desktop{Accessibility: d, Processes: Processes{}, Windows: d, Input: d, Actions: d, Events: d, Pixels: d}
	if d.onSway() {
		desk.Windows, desk.Input, desk.Pixels = swayWindows{d}, waylandParts{d}, waylandParts{d}
	} else if os.Getenv("WAYLAND_DISPLAY") != "" && os.Getenv("DISPLAY") == "" {
		// A Wayland compositor without sway's IPC: its own window list;
		// input and pixels stay X11's, which answer notSupported (errNotSway).
		desk.Windows = toplevelWindows{d}
	}
	return desk
}

// conns is the desktop's connections at one moment.
type conns struct {
	a11y    *atspi.Conn
	a11yErr error
	x       *x11.Conn
	xErr    error
	sway    *sway.Client
	swayErr error
}

// conns returns the connections to use for one call, connecting first when
// the desktop reconnects and has no accessibility bus yet.
func (d *Desktop) conns(ctx context.Context) (conns, error) {
	if !d.reconnect {
		return conns{d.A11y, d.A11yErr, d.X, d.XErr, d.Sway, d.SwayErr}, nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case d.A11y != nil:
	case d.X != nil:
		// X only so far: look for the bus again, keeping the X connection
		// that calls in flight may be using.
		d.A11y, d.A11yErr = atspi.Open(ctx, d.X.RootProperty)
	case d.Sway != nil:
		d.A11y, d.A11yErr = atspi.Open(ctx, nil)
	default:
		n, err := Open(ctx)
		if err != nil {
			return conns{}, err
		}
		d.A11y, d.A11yErr, d.X, d.XErr, d.Sway, d.SwayErr = n.A11y, n.A11yErr, n.X, n.XErr, n.Sway, n.SwayErr
		if d.Sway != nil && d.Wayland == nil {
			d.openWayland(ctx)
		}
	}
	return conns{d.A11y, d.A11yErr, d.X, d.XErr, d.Sway, d.SwayErr}, nil
}

// a11y returns the accessibility connection for a call on app.
func (d *Desktop) a11y(ctx context.Context, app platform.App) (*atspi.Conn, error) {
	c, err := d.conns(ctx)
	if err != nil {
		return nil, err
	}
	if err := c.needA11y(app); err != nil {
		return nil, err
	}
	return c.a11y, nil
}

// x returns the X connection.
func (d *Desktop) x(ctx context.Context) (*x11.Conn, error) {
	c, err := d.conns(ctx)
	if err != nil {
		return nil, err
	}
	if c.x == nil && c.sway == nil && os.Getenv("WAYLAND_DISPLAY") != "" {
		return nil, fmt.Errorf("%w: %v", platform.ErrNotSupported, c.xErr) // errNotSway
	}
	if c.x == nil {
		return nil, fmt.Errorf("%w: no X display (%v)", platform.ErrNotSupported, c.xErr)
	}
	return c.x, nil
}

// Open connects to the accessibility bus and to the display server: sway's
// IPC when $SWAYSOCK names a compositor that answers, else the X display
// named by $DISPLAY. It fails only when none is reachable.
func Open(ctx context.Context) (*Desktop, error) {
	d := &Desktop{}
	if os.Getenv("SWAYSOCK") != "" {
		d.Sway, d.SwayErr = openSway(ctx)
	}
	if d.Sway != nil {
		d.XErr = errors.New("on sway: windows come from its IPC")
	} else if os.Getenv("DISPLAY") != "" {
		d.X, d.XErr = x11.OpenContext(ctx, "")
	} else if os.Getenv("WAYLAND_DISPLAY") != "" {
		d.XErr = errNotSway(d.SwayErr)
	} else {
		d.XErr = errors.New("DISPLAY is not set")
	}
	var rootProp func(context.Context, string) (string, error)
	if d.X != nil {
		rootProp = d.X.RootProperty
	}
	d.A11y, d.A11yErr = atspi.Open(ctx, rootProp)
	if d.A11y == nil && d.X == nil && d.Sway == nil {
		if d.SwayErr != nil {
			return nil, fmt.Errorf("no desktop to read: %v; %v; sway: %v", d.A11yErr, d.XErr, d.SwayErr)
		}
		return nil, fmt.Errorf("no desktop to read: %v; %v", d.A11yErr, d.XErr)
	}
	return d, nil
}

// Close closes both connections.
func (d *Desktop) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closeConns()
	return nil
}

func (d *Desktop) closeConns() {
	if d.A11y != nil {
		d.A11y.Close()
		d.A11y = nil
	}
	if d.X != nil {
		d.X.Close()
		d.X = nil
	}
	if d.Wayland != nil {
		d.Wayland.Close()
		d.Wayland = nil
	}
	d.tlMu.Lock()
	if d.tl != nil {
		d.tl.Close()
		d.tl = nil
	}
	d.tlMu.Unlock()
}

// Apps lists applications: those registered on the accessibility bus, and
// those that only have X windows (Tk, or apps started before accessibility
// was on), marked not accessible. Windows are joined by pid.
func (d *Desktop) Apps(ctx context.Context) ([]platform.App, error) {
	c, err := d.conns(ctx)
	if err != nil {
		return nil, err
	}
	byPid := map[int]*platform.App{}
	var order []int
	get := func(pid int) *platform.App {
		if a, ok := byPid[pid]; ok {
			return a
		}
		a := &platform.App{Pid: pid, Name: procinfo.DisplayName(pid), Executable: procinfo.Executable(pid), Windows: []platform.Window{}}
		byPid[pid] = a
		order = append(order, pid)
		return a
	}
	if c.a11y != nil {
		infos, err := c.a11y.Apps(ctx)
		if err != nil {
			return nil, err
		}
		for _, in := range infos {
			if in.Pid <= 0 {
				continue
			}
			a := get(in.Pid)
			a.Accessible, a.BusName = true, in.Bus
			a.Toolkit, a.ToolkitVersion = in.Toolkit, in.ToolkitVersion
			if a.Name == "" {
				a.Name = in.Name
			}
		}
	}
	if c.sway != nil {
		// Without sway's answer every app would be listed windowless,
		// which is not so: the call fails (a frozen compositor at the
		// deadline, ErrTimeout).
		wins, err := c.sway.Windows(ctx)
		if err != nil {
			return nil, err
		}
		for _, w := range wins {
			if w.Pid > 0 {
				a := get(w.Pid)
				a.Windows = append(a.Windows, platformWindow(w))
			}
		}
	}
	if c.x != nil {
		wins, err := c.x.TopLevels(ctx)
		if err != nil && c.a11y == nil {
			return nil, err
		}
		for _, w := range wins {
			if w.Pid <= 0 {
				continue
			}
			a := get(w.Pid)
			a.Windows = append(a.Windows, w)
		}
	}
	if c.sway == nil && c.x == nil && c.a11y != nil && os.Getenv("WAYLAND_DISPLAY") != "" {
		d.toplevelApps(ctx, c, byPid)
	}
	apps := make([]platform.App, 0, len(order))
	sort.Ints(order)
	why := windowsUnknown(c)
	for _, pid := range order {
		a := byPid[pid]
		if len(a.Windows) == 0 {
			a.WindowsUnknown = why
		}
		apps = append(apps, *a)
	}
	return apps, nil
}

func (c conns) needA11y(app platform.App) error {
	if c.a11y == nil {
		return fmt.Errorf("%w: %v", platform.ErrNoBus, c.a11yErr)
	}
	if !app.Accessible || app.BusName == "" {
		return fmt.Errorf("%w: pid %d (%s)", platform.ErrNotAccessible, app.Pid, app.Name)
	}
	return nil
}

// Tree reads an application's whole accessible tree.
func (d *Desktop) Tree(ctx context.Context, app platform.App, opts platform.TreeOptions) (*platform.Node, platform.TreeStats, error) {
	c, err := d.conns(ctx)
	if err != nil {
		return nil, platform.TreeStats{}, err
	}
	if err := c.needA11y(app); err != nil {
		return nil, platform.TreeStats{}, err
	}
	origin, popup := c.originFuncs(app)
	return c.a11y.Tree(ctx, app.BusName, atspi.TreeOptions{MaxNodes: opts.MaxNodes, Actions: opts.Actions,
		WindowOrigin: origin, PopupOrigin: popup, ScreenExtents: c.screenExtents(app), NoShowing: isGTK4(app), MenuPopups: c.menuPopups(app),
		Mirror: d.Mirror && Mirrorable(app), Bulk: isBrowser(app), SilentMoves: isBrowser(app)})
}

// Element reads one element of the application live.
func (d *Desktop) Element(ctx context.Context, app platform.App, key string) (*platform.Details, error) {
	c, err := d.elementConns(ctx, app, key)
	if err != nil {
		return nil, err
	}
	origin, popup := c.originFuncs(app)
	return c.a11y.Element(ctx, key, atspi.ElementOptions{WindowOrigin: origin, PopupOrigin: popup, ScreenExtents: c.screenExtents(app)})
}

// elementConns returns the connections for a call on one element of app,
// refusing a key that names another application's element.
func (d *Desktop) elementConns(ctx context.Context, app platform.App, key string) (conns, error) {
	c, err := d.conns(ctx)
	if err != nil {
		return conns{}, err
	}
	if err := c.needA11y(app); err != nil {
		return conns{}, err
	}
	bus, _, err := atspi.ParseKey(key)
	if err != nil {
		return conns{}, err
	}
	if bus != app.BusName {
		return conns{}, fmt.Errorf("%w: element %s belongs to another application", platform.ErrElementGone, key)
	}
	return c, nil
}

// TableSize reads how many rows and columns a table of app reports.
func (d *Desktop) TableSize(ctx context.Context, app platform.App, key string) (int, int, error) {
	c, err := d.elementConns(ctx, app, key)
	if err != nil {
		return 0, 0, err
	}
	return c.a11y.TableSize(ctx, key)
}

// TableCells reads a range of a table's cells through its Table interface.
func (d *Desktop) TableCells(ctx context.Context, app platform.App, key string, rows, columns [2]int) (*platform.TableCells, error) {
	c, err := d.elementConns(ctx, app, key)
	if err != nil {
		return nil, err
	}
	return c.a11y.TableCells(ctx, key, rows, columns)
}

// Mirrorable reports whether a mirror of an application's tree, kept by its
// events, can be as true as a walk: GTK 3's atk-bridge announces every
// change, bounds included (tested against fresh walks in atspi's mirror
// tests); Gecko and Chromium announce every change but their pages' moves,
// which the mirror checks itself (SilentMoves; tested by a random walk of
// actions on a page in e2e). GTK 4 and Qt 5 have not been shown to
// announce every bounds change.
func Mirrorable(app platform.App) bool {
	return strings.EqualFold(app.Toolkit, "gtk") && strings.HasPrefix(app.ToolkitVersion, "3.") || isBrowser(app)
}

// isBrowser reports Firefox (Gecko) and Chromium (Chromium, Electron): their
// atk-bridge answers Properties.GetAll and Accessible.GetChildren, which
// read an element in fewer calls than a property and a child at a time.
func isBrowser(app platform.App) bool {
	return strings.EqualFold(app.Toolkit, "gecko") || strings.EqualFold(app.Toolkit, "chromium")
}

// isGTK4 reports a GTK 4 application, which sets SHOWING on windows only.
// isGTK2 reports a GTK 2 application: its accessibility comes from gail,
// which names itself as the toolkit.
func isGTK2(app platform.App) bool {
	gtk := strings.EqualFold(app.Toolkit, "gail") || strings.EqualFold(app.Toolkit, "gtk")
	return gtk && strings.HasPrefix(app.ToolkitVersion, "2.")
}

// menuPopups returns, for GTK 2, how to list the application's mapped
// menu windows for one read (atspi.TreeOptions.MenuPopups); nil for
// other toolkits, which set SHOWING on an open menu's items.
func (c conns) menuPopups(app platform.App) func(context.Context) []platform.Rect {
	if c.x == nil || !isGTK2(app) {
		return nil
	}
	return func(ctx context.Context) []platform.Rect {
		wins, err := c.x.AppWindows(ctx, app.Pid)
		if err != nil {
			return nil
		}
		var out []platform.Rect
		for _, w := range wins {
			if w.Popup && w.Menu && w.Mapped {
				out = append(out, w.Bounds)
			}
		}
		return out
	}
}

// isQt reports a Qt application.
func isQt(app platform.App) bool { return strings.EqualFold(app.Toolkit, "qt") }

// screenExtents reports whether a read of app asks for screen coordinates
// though it shifts them by a window origin (atspi.TreeOptions
// .ScreenExtents): on sway, Qt, whose window coordinates are wrong there,
// and GTK 3, whose screen coordinates there count from its toplevel's
// corner for a popup's elements too (its window coordinates count from
// the popup's own surface, which no client can place); for a toplevel's
// own elements the two are the same.
func (c conns) screenExtents(app platform.App) bool { return c.sway != nil && screenOnSway(app) }

// screenOnSway reports a toolkit read in screen coordinates on sway.
func screenOnSway(app platform.App) bool {
	return isQt(app) || strings.EqualFold(app.Toolkit, "gtk") && strings.HasPrefix(app.ToolkitVersion, "3.")
}

func isGTK4(app platform.App) bool {
	return strings.EqualFold(app.Toolkit, "gtk") && strings.HasPrefix(app.ToolkitVersion, "4.")
}

// WindowRelative reports whether a toolkit gives element extents relative
// to the window whatever coordinate type is asked for. GTK 4 does (4.8
// through at least 4.12), having no global coordinates under Wayland.
func WindowRelative(toolkit, version string) bool {
	return isGTK4(platform.App{Toolkit: toolkit, ToolkitVersion: version})
}

// childExtents reads an element's children's extents on the
// accessibility bus, or is nil without one.
func (c conns) childExtents() childExtents {
	if c.a11y == nil {
		return nil
	}
	return c.a11y.ChildExtents
}

// originFuncs return how to find the screen origin of a top-level
// element's window, and of a popover's popup window, for one read, or nil
// when the toolkit reports screen coordinates already. On sway every
// toolkit's are window-relative (swayOrigins). The application's windows are read from the
// display when first needed and kept for that read only (geometry.go).
func (c conns) originFuncs(app platform.App) (origin, popup func(context.Context, *platform.Node) (int, int, bool)) {
	if c.sway != nil {
		return swayOrigins(c.sway, app.Pid, c.screenExtents(app), c.childExtents())
	}
	// In a Wayland session without sway's IPC every Wayland client's
	// extents are its window's, whose place is not known: an element is
	// placed only by an X window of its app (Xwayland's), else its
	// bounds are unknown, never its window-relative ones as the screen's.
	wl := os.Getenv("WAYLAND_DISPLAY") != ""
	if wl && c.x == nil {
		unknown := func(context.Context, *platform.Node) (int, int, bool) { return 0, 0, false }
		return unknown, unknown
	}
	if c.x == nil || !wl && !WindowRelative(app.Toolkit, app.ToolkitVersion) {
		return nil, nil
	}
	live := &liveWindows{x: c.x, pid: app.Pid}
	origin = func(ctx context.Context, top *platform.Node) (int, int, bool) {
		wins, err := live.get(ctx)
		if err != nil {
			return 0, 0, false
		}
		p, ok := matchTop(wins, top, true)
		return p.originX, p.originY, ok
	}
	popup = func(ctx context.Context, n *platform.Node) (int, int, bool) {
		wins, err := live.get(ctx)
		if err != nil || n.Bounds == nil {
			return 0, 0, false
		}
		w, ok := popupOf(wins, *n.Bounds, true)
		return w.Bounds.X, w.Bounds.Y, ok
	}
	return origin, popup
}

// Owner returns the pid that owns the application's accessibility bus
// connection.
func (d *Desktop) Owner(ctx context.Context, app platform.App) (int, error) {
	c, err := d.conns(ctx)
	if err != nil {
		return 0, err
	}
	if c.a11y == nil {
		return 0, platform.ErrNoBus
	}
	return c.a11y.BusOwner(ctx, app.BusName)
}

// Watch reports the application's accessibility events.
func (d *Desktop) Watch(ctx context.Context, app platform.App) (<-chan struct{}, func(), error) {
	a, err := d.a11y(ctx, app)
	if err != nil {
		return nil, func() {}, err
	}
	return a.Watch(ctx, app.BusName)
}
