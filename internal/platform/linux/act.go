//go:build linux

package linux

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/atspi"
	"github.com/uiscope/uiscope/internal/platform/x11"
)

// xErr maps the X backend's sentinels to the platform's.
func xErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, x11.ErrNotActivated):
		return fmt.Errorf("%w: %v", platform.ErrNotActivated, err)
	case errors.Is(err, x11.ErrNoWindowManager):
		return fmt.Errorf("%w: %v", platform.ErrNoWindowManager, err)
	case errors.Is(err, x11.ErrOffscreen):
		return fmt.Errorf("%w: %v", platform.ErrOffscreen, err)
	case errors.Is(err, x11.ErrNotApplied):
		return fmt.Errorf("%w: %v", platform.ErrNoEffect, err)
	}
	return err
}

// elementA11y is the accessibility connection for acting on one element of
// app, refusing a key that names another application's element, as reads
// are (elementConns): an action never reaches an application the session
// was not opened on, whatever key the caller passes.
func (d *Desktop) elementA11y(ctx context.Context, app platform.App, key string) (*atspi.Conn, error) {
	c, err := d.elementConns(ctx, app, key)
	if err != nil {
		return nil, err
	}
	return c.a11y, nil
}

// DoAction runs the element's first action named in names.
func (d *Desktop) DoAction(ctx context.Context, app platform.App, key string, names ...string) (string, error) {
	a, err := d.elementA11y(ctx, app, key)
	if err != nil {
		return "", err
	}
	return a.DoAction(ctx, key, names...)
}

// SetText replaces an editable element's text and reads it back.
func (d *Desktop) SetText(ctx context.Context, app platform.App, key, text string) (string, string, error) {
	a, err := d.elementA11y(ctx, app, key)
	if err != nil {
		return "", "", err
	}
	r, err := a.SetText(ctx, key, text)
	return r.Text, r.Method, err
}

// SetValue sets a Value element and reads it back.
func (d *Desktop) SetValue(ctx context.Context, app platform.App, key string, v float64) (float64, error) {
	a, err := d.elementA11y(ctx, app, key)
	if err != nil {
		return 0, err
	}
	return a.SetValue(ctx, key, v)
}

// TextLengthIs reports whether an element's text has n characters, without
// reading its characters (password fields).
func (d *Desktop) TextLengthIs(ctx context.Context, app platform.App, key string, n int) (bool, error) {
	a, err := d.elementA11y(ctx, app, key)
	if err != nil {
		return false, err
	}
	return a.TextLengthIs(ctx, key, n)
}

// GrabFocus focuses an element.
func (d *Desktop) GrabFocus(ctx context.Context, app platform.App, key string) error {
	a, err := d.elementA11y(ctx, app, key)
	if err != nil {
		return err
	}
	return a.GrabFocus(ctx, key)
}

// ScrollTo scrolls an element into view.
func (d *Desktop) ScrollTo(ctx context.Context, app platform.App, key string) error {
	a, err := d.elementA11y(ctx, app, key)
	if err != nil {
		return err
	}
	return a.ScrollTo(ctx, key)
}

// Select selects or deselects child index of a container; clear first
// empties the selection (replace).
func (d *Desktop) Select(ctx context.Context, app platform.App, containerKey string, index int, selected, clear bool) error {
	a, err := d.elementA11y(ctx, app, containerKey)
	if err != nil {
		return err
	}
	if !selected {
		return a.DeselectChild(ctx, containerKey, index)
	}
	if clear {
		if err := a.ClearSelection(ctx, containerKey); err != nil && !errors.Is(err, platform.ErrNoEffect) {
			return err
		}
	}
	return a.SelectChild(ctx, containerKey, index)
}

// IsSelected asks the container whether child index is selected.
func (d *Desktop) IsSelected(ctx context.Context, app platform.App, containerKey string, index int) (bool, error) {
	a, err := d.elementA11y(ctx, app, containerKey)
	if err != nil {
		return false, err
	}
	return a.IsChildSelected(ctx, containerKey, index)
}

// SelectText selects a range of an element's text.
func (d *Desktop) SelectText(ctx context.Context, app platform.App, key string, start, end int) error {
	a, err := d.elementA11y(ctx, app, key)
	if err != nil {
		return err
	}
	return a.SelectText(ctx, key, start, end)
}

// Window finds the native window showing an element: the window of its
// top level, matched among the app's windows as they are now
// (ErrWindowUnknown when none, or several alike, fit); for a top level
// that is a popup, the window that owns it.
func (d *Desktop) Window(ctx context.Context, app platform.App, key string) (platform.Window, error) {
	xc, err := d.x(ctx)
	if err != nil {
		return platform.Window{}, err
	}
	a, err := d.elementA11y(ctx, app, key)
	if err != nil {
		return platform.Window{}, err
	}
	rel := WindowRelative(app.Toolkit, app.ToolkitVersion)
	top, err := a.TopLevel(ctx, key, rel)
	if err != nil {
		return platform.Window{}, err
	}
	wins, err := xc.AppWindows(ctx, app.Pid)
	if err != nil {
		return platform.Window{}, err
	}
	p, ok := matchTop(wins, top, rel)
	if !ok {
		return platform.Window{}, windowUnknown(app.Pid, top, wins)
	}
	if p.win.Popup {
		// A top level shown in a popup (a Qt menu): no window manager
		// activates one, and the keys it takes go to the window that
		// has the focus while it shows, which owns it.
		if w, ok := popupOwner(wins); ok {
			return w, nil
		}
		return platform.Window{}, windowUnknown(app.Pid, top, wins)
	}
	return p.win.Window, nil
}

// popupOwner is the window that owns the application's open popups: its
// active window, else its topmost mapped one.
func popupOwner(wins []x11.AppWindow) (platform.Window, bool) {
	var top *x11.AppWindow
	for i := range wins {
		w := &wins[i]
		if w.Popup || !w.Mapped {
			continue
		}
		if w.Active {
			return w.Window, true
		}
		top = w
	}
	if top == nil {
		return platform.Window{}, false
	}
	return top.Window, true
}

// Activate raises and focuses a window and verifies it became active.
func (d *Desktop) Activate(ctx context.Context, win platform.Window) error {
	xc, err := d.x(ctx)
	if err != nil {
		return err
	}
	id, ok := xid(win.ID)
	if !ok {
		return fmt.Errorf("%w: %s is not an X window", platform.ErrNotActivated, win.ID)
	}
	return xErr(xc.ActivateWindow(ctx, id))
}

// ActiveWindow is the window that has the focus, per the window manager.
func (d *Desktop) ActiveWindow(ctx context.Context) (platform.WindowID, error) {
	xc, err := d.x(ctx)
	if err != nil {
		return 0, err
	}
	id, err := xc.ActiveWindow(ctx)
	return platform.WindowID(id), err
}

// TopmostAt is the top-level window on top at a point.
func (d *Desktop) TopmostAt(ctx context.Context, x, y int) (platform.WindowID, error) {
	xc, err := d.x(ctx)
	if err != nil {
		return 0, err
	}
	id, err := xc.TopmostAt(ctx, x, y)
	return platform.WindowID(id), err
}

// WindowPid is the process behind a window.
func (d *Desktop) WindowPid(ctx context.Context, id platform.WindowID) (int, error) {
	xc, err := d.x(ctx)
	if err != nil {
		return 0, err
	}
	w, ok := xid(id)
	if !ok {
		return 0, nil // not an X window: unknown, as the interface allows
	}
	return xc.WindowPid(ctx, w)
}

// Click sends a real pointer click.
func (d *Desktop) Click(ctx context.Context, x, y, button, count int) error {
	xc, err := d.x(ctx)
	if err != nil {
		return err
	}
	return xErr(xc.Click(ctx, x, y, button, count))
}

// Wheel turns the wheel over a point.
func (d *Desktop) Wheel(ctx context.Context, x, y, dx, dy int) error {
	xc, err := d.x(ctx)
	if err != nil {
		return err
	}
	return xErr(xc.Scroll(ctx, x, y, dx, dy))
}

// ValidateChord parses a chord without sending anything.
func (d *Desktop) ValidateChord(chord string) error {
	if _, err := platform.ParseChord(chord); err != nil {
		return fmt.Errorf("%w: %v", platform.ErrInvalidKeys, err)
	}
	return nil
}

// KeyChord presses one chord ("Ctrl+S").
func (d *Desktop) KeyChord(ctx context.Context, chord string) error {
	xc, err := d.x(ctx)
	if err != nil {
		return err
	}
	ch, err := platform.ParseChord(chord)
	if err != nil {
		return fmt.Errorf("%w: %v", platform.ErrInvalidKeys, err)
	}
	return xErr(xc.KeyChord(ctx, ch))
}

// TypeText types text with real key presses.
func (d *Desktop) TypeText(ctx context.Context, text string) (int, error) {
	xc, err := d.x(ctx)
	if err != nil {
		return 0, err
	}
	n, err := xc.TypeText(ctx, text)
	return n, xErr(err)
}

// TypeTextChecked types text as one sequence, calling check before the
// first character and every every characters after; it stops when check
// fails and returns its error as is.
func (d *Desktop) TypeTextChecked(ctx context.Context, text string, every int, check func(ctx context.Context) error) (int, error) {
	xc, err := d.x(ctx)
	if err != nil {
		return 0, err
	}
	var checkErr error
	n, err := xc.TypeTextChecked(ctx, text, every, func(ctx context.Context) error {
		checkErr = check(ctx)
		return checkErr
	})
	if checkErr != nil {
		return n, checkErr
	}
	return n, xErr(err)
}

// WindowAction minimizes, maximizes, restores or closes a window.
func (d *Desktop) WindowAction(ctx context.Context, win platform.Window, action string) error {
	xc, err := d.x(ctx)
	if err != nil {
		return err
	}
	id, ok := xid(win.ID)
	if !ok {
		return fmt.Errorf("%w: %s is not an X window", platform.ErrElementGone, win.ID)
	}
	return xErr(xc.WindowAction(ctx, id, action))
}

// Screen is the root window's rectangle.
func (d *Desktop) Screen(ctx context.Context) (platform.Rect, error) {
	xc, err := d.x(ctx)
	if err != nil {
		return platform.Rect{}, err
	}
	return xc.Screen(), nil
}

// xid converts a window id to an X one; ids past 32 bits name no X window.
func xid(id platform.WindowID) (uint32, bool) {
	return uint32(id), id != 0 && id <= math.MaxUint32
}

// ButtonDown presses a button at a point and leaves it down.
func (d *Desktop) ButtonDown(ctx context.Context, x, y, button int) error {
	xc, err := d.x(ctx)
	if err != nil {
		return err
	}
	return heldErr(xc.ButtonDown(ctx, x, y, button))
}

// DragTo moves the pointer in steps, for a drag.
func (d *Desktop) DragTo(ctx context.Context, x, y int) error {
	xc, err := d.x(ctx)
	if err != nil {
		return err
	}
	return heldErr(xc.DragTo(ctx, x, y))
}

// ButtonUp releases a held button.
func (d *Desktop) ButtonUp(ctx context.Context, button int) error {
	xc, err := d.x(ctx)
	if err != nil {
		return err
	}
	return heldErr(xc.ButtonUp(ctx, button))
}

func heldErr(err error) error {
	if errors.Is(err, x11.ErrNotHeld) {
		return fmt.Errorf("%w: %v", platform.ErrNoEffect, err)
	}
	return xErr(err)
}

// KeyDown presses one key and leaves it down.
func (d *Desktop) KeyDown(ctx context.Context, key string) error {
	return d.holdKey(ctx, key, (*x11.Conn).KeyDown)
}

// KeyUp releases a held key.
func (d *Desktop) KeyUp(ctx context.Context, key string) error {
	return d.holdKey(ctx, key, (*x11.Conn).KeyUp)
}

func (d *Desktop) holdKey(ctx context.Context, key string, fn func(*x11.Conn, context.Context, platform.Chord) error) error {
	ch, err := platform.ParseChord(key)
	if err != nil {
		return fmt.Errorf("%w: %v", platform.ErrInvalidKeys, err)
	}
	xc, err := d.x(ctx)
	if err != nil {
		return err
	}
	return heldErr(fn(xc, ctx, ch))
}

// HeldDown reads the buttons and modifiers the X server has down.
func (d *Desktop) HeldDown(ctx context.Context) (platform.HeldState, error) {
	xc, err := d.x(ctx)
	if err != nil {
		return platform.HeldState{}, err
	}
	st, err := xc.HeldDown(ctx)
	return st, xErr(err)
}

// Texts reads the text of many elements at once (see atspi.Conn.Texts).
func (d *Desktop) Texts(ctx context.Context, app platform.App, nodes []*platform.Node, maxRunes int) ([]*string, error) {
	a, err := d.a11y(ctx, app)
	if err != nil {
		return make([]*string, len(nodes)), err
	}
	return a.Texts(ctx, nodes, maxRunes)
}
