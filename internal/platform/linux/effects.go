//go:build linux

package linux

import (
	"context"

	"github.com/uiscope/uiscope/internal/platform"
)

// TopLevels reads the application's top-level accessibles: their role,
// name, states and bounds (what a window's role is read from). On sway,
// where toolkits give window-relative boxes, each is placed by the view
// it fits (as reads are: swayOrigins), so that an untitled window is
// matched to its accessible by place too; one no view fits keeps its box
// as the toolkit gave it.
func (d *Desktop) TopLevels(ctx context.Context, app platform.App) ([]platform.Node, error) {
	a, err := d.a11y(ctx, app)
	if err != nil {
		return nil, err
	}
	tops, err := a.TopLevels(ctx, app.BusName)
	if err != nil || !d.onSway() {
		return tops, err
	}
	sc, err := swayWindows{d}.client(ctx)
	if err != nil {
		return tops, nil
	}
	origin, _ := swayOrigins(sc, app.Pid, true, a.ChildExtents) // atspi.TopLevels reads screen extents
	for i := range tops {
		if b := tops[i].Bounds; b != nil {
			if x, y, ok := origin(ctx, &tops[i]); ok {
				placed := platform.Rect{X: x + b.X, Y: y + b.Y, Width: b.Width, Height: b.Height}
				tops[i].Bounds = &placed
			}
		}
	}
	return tops, nil
}

// Attached reports whether the element is still in the application's tree
// (see atspi.Conn.Attached).
func (d *Desktop) Attached(ctx context.Context, app platform.App, key string) (bool, error) {
	a, err := d.elementA11y(ctx, app, key)
	if err != nil {
		return false, err
	}
	return a.Attached(ctx, key)
}

// KeepsDetached reports a toolkit that keeps answering for the widgets of
// a window it destroyed: GTK 4.
func (d *Desktop) KeepsDetached(app platform.App) bool { return isGTK4(app) }

// Focus is the application's element that last announced it took the
// keyboard focus while watched, and how many times the focus moved (see
// atspi.Conn.Focus).
func (d *Desktop) Focus(ctx context.Context, app platform.App) (string, uint64) {
	a, err := d.a11y(ctx, app)
	if err != nil {
		return "", 0
	}
	return a.Focus(app.BusName)
}

// StartAction runs the element's first action named in names without
// waiting for its reply, which arrives on the channel (by ctx's deadline).
func (d *Desktop) StartAction(ctx context.Context, app platform.App, key string, names ...string) (string, <-chan error, error) {
	a, err := d.a11y(ctx, app)
	if err != nil {
		return "", nil, err
	}
	return a.StartAction(ctx, key, names...)
}

// AppWindows lists the top-level windows of a process, as the display
// server has them now, and its open menus (popups whose window type says
// menu, Popup set: a menu bar's menu, a combo box's list, a GTK 4
// popover); not its other popups (a tooltip is no effect of an action).
func (d *Desktop) AppWindows(ctx context.Context, pid int) ([]platform.Window, error) {
	xc, err := d.x(ctx)
	if err != nil {
		return nil, err
	}
	all, err := xc.AppWindows(ctx, pid)
	if err != nil {
		return nil, err
	}
	var wins []platform.Window
	for _, w := range all {
		if w.Popup && !w.Menu {
			continue
		}
		pw := w.Window
		pw.Popup = w.Popup
		wins = append(wins, pw)
	}
	return wins, nil
}

// EventPoor reports an application that announces too little on the
// accessibility bus for "no event for a while" to mean it is done: GTK 4.8
// raises almost no events (a text view's text changes silently).
func (d *Desktop) EventPoor(app platform.App) bool { return isGTK4(app) }

// Fingerprint sums up what the application shows now (see
// atspi.Conn.Fingerprint): equal twice means it held still in between.
func (d *Desktop) Fingerprint(ctx context.Context, app platform.App) (uint64, error) {
	a, err := d.a11y(ctx, app)
	if err != nil {
		return 0, err
	}
	return a.Fingerprint(ctx, app.BusName)
}

// FocusedChild is the element's child that has the keyboard focus, ""
// when none has (see atspi.Conn.FocusedChild).
func (d *Desktop) FocusedChild(ctx context.Context, app platform.App, key string) (string, error) {
	a, err := d.a11y(ctx, app)
	if err != nil {
		return "", err
	}
	return a.FocusedChild(ctx, key)
}
