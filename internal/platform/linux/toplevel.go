//go:build linux

package linux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/wayland"
)

// A wlroots compositor without sway's IPC lists its windows to any client
// through zwlr_foreign_toplevel_management_v1: title, app_id and states,
// but no pid and no place. uiscope gives an app the windows it can tell
// are the app's and no other's (matchToplevels), with their places
// unknown; the rest stay unknown (platform.App.WindowsUnknown).

// toplevels lists the compositor's windows over the desktop's own
// connection for them (dialed on first use, again once it broke), so that
// their ids hold for as long as this process keeps it.
func (d *Desktop) toplevels(ctx context.Context) ([]wayland.Toplevel, error) {
	d.tlMu.Lock()
	defer d.tlMu.Unlock()
	if d.tl == nil || d.tl.Broken() {
		if d.tl != nil {
			d.tl.Close()
			d.tl = nil
		}
		path, err := wayland.SocketPath(os.Getenv)
		if err != nil {
			return nil, err
		}
		c, err := wayland.Dial(ctx, path)
		if err != nil {
			return nil, err
		}
		d.tl = c
	}
	return d.tl.Toplevels(ctx)
}

// toplevelWindow is a compositor's window as the platform shows windows:
// no place, its app_id as the class, its states.
func toplevelWindow(t wayland.Toplevel, pid int) platform.Window {
	w := platform.Window{ID: platform.ToplevelWindowID(uint32(t.ID)), Pid: pid, Title: t.Title, Class: t.AppID,
		Mapped: !t.Minimized, BoundsUnknown: true}
	for _, s := range []struct {
		on    bool
		state platform.WindowStates
	}{{t.Activated, platform.WindowActive}, {t.Maximized, platform.WindowMaximized}, {t.Minimized, platform.WindowMinimized}, {t.Fullscreen, platform.WindowFullscreen}} {
		if s.on {
			w.States |= s.state
		}
	}
	return w
}

// matchToplevels tells which app each window is, by pid, from what both
// sides know: a window is an app's when its title is the name of one of
// that app's top-level accessibles (tops, by pid) and of no other app's;
// when several apps have such a top level, an app whose name is the
// window's app_id, if one alone, takes it. A title two windows share
// names neither. Windows left over are nobody's that uiscope can tell.
func matchToplevels(tls []wayland.Toplevel, tops map[int][]string, names map[int]string) map[int][]wayland.Toplevel {
	titles := map[string]int{}
	for _, t := range tls {
		titles[t.Title]++
	}
	out := map[int][]wayland.Toplevel{}
	for _, t := range tls {
		if t.Title == "" || titles[t.Title] > 1 {
			continue
		}
		var owners []int
		for pid, ns := range tops {
			for _, n := range ns {
				if n == t.Title {
					owners = append(owners, pid)
					break
				}
			}
		}
		if len(owners) > 1 {
			var byID []int
			for _, pid := range owners {
				if t.AppID != "" && names[pid] == t.AppID {
					byID = append(byID, pid)
				}
			}
			owners = byID
		}
		if len(owners) == 1 {
			out[owners[0]] = append(out[owners[0]], t)
		}
	}
	return out
}

// toplevelApps gives the accessible apps the compositor's windows that
// are theirs (matchToplevels). An error (a compositor without the
// protocol) leaves every app's windows unknown.
func (d *Desktop) toplevelApps(ctx context.Context, c conns, byPid map[int]*platform.App) {
	tls, err := d.toplevels(ctx)
	if err != nil || len(tls) == 0 {
		return
	}
	// Each app's top levels, all at once and each within a second: a busy
	// or frozen app keeps its own windows unknown, not the listing waiting.
	tops, names := map[int][]string{}, map[int]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for pid, a := range byPid {
		if !a.Accessible {
			continue
		}
		wg.Go(func() {
			actx, cancel := context.WithTimeout(ctx, time.Second)
			defer cancel()
			nodes, err := c.a11y.TopLevels(actx, a.BusName)
			if err != nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, n := range nodes {
				tops[pid] = append(tops[pid], n.Name)
			}
			names[pid] = a.Name
		})
	}
	wg.Wait()
	for pid, ts := range matchToplevels(tls, tops, names) {
		for _, t := range ts {
			byPid[pid].Windows = append(byPid[pid].Windows, toplevelWindow(t, pid))
		}
	}
}

// toplevelWindows is the Windows part of the seam on a Wayland compositor
// without sway's IPC: the windows it lists (matchToplevels gives them to
// apps), activated, closed, maximized, minimized and restored by request
// and read back. It has no places: what needs one answers notSupported.
type toplevelWindows struct{ d *Desktop }

var (
	_ platform.Windows      = toplevelWindows{}
	_ platform.WindowLister = toplevelWindows{}
)

// errNoPlace is the error of a call that needs where windows are.
func errNoPlace() error {
	return fmt.Errorf("%w: %v", platform.ErrNotSupported, errNotSway(nil))
}

// AppWindows lists the windows that are the process's (matchToplevels).
func (t toplevelWindows) AppWindows(ctx context.Context, pid int) ([]platform.Window, error) {
	apps, err := t.d.Apps(ctx)
	if err != nil {
		return nil, err
	}
	for _, a := range apps {
		if a.Pid == pid {
			return a.Windows, nil
		}
	}
	return nil, nil
}

// Window is the app's window titled with the name of the element's top
// level (ErrWindowUnknown when none is).
func (t toplevelWindows) Window(ctx context.Context, app platform.App, key string) (platform.Window, error) {
	a, err := t.d.elementA11y(ctx, app, key)
	if err != nil {
		return platform.Window{}, err
	}
	top, err := a.TopLevel(ctx, key, true)
	if err != nil {
		return platform.Window{}, err
	}
	wins, err := t.AppWindows(ctx, app.Pid)
	if err != nil {
		return platform.Window{}, err
	}
	for _, w := range wins {
		if top.Name != "" && w.Title == top.Name {
			return w, nil
		}
	}
	return platform.Window{}, fmt.Errorf("%w: no window the compositor lists is titled %q, the name of the element's top level, for pid %d alone", platform.ErrWindowUnknown, top.Name, app.Pid)
}

// handle is the toplevel handle a window id names.
func handle(id platform.WindowID, err error) (wayland.ToplevelID, error) {
	h, ok := id.Toplevel()
	if !ok {
		return 0, fmt.Errorf("%w: %s is not a window the compositor lists", err, id)
	}
	return wayland.ToplevelID(h), nil
}

// request asks the compositor for action on a window and waits until its
// list says done holds (ErrToplevelGone as platform.ErrElementGone), or
// returns notDone once it has not in time.
func (t toplevelWindows) request(ctx context.Context, id wayland.ToplevelID, action wayland.ToplevelAction, done func(wayland.Toplevel) bool, notDone error) error {
	t.d.tlMu.Lock()
	c := t.d.tl
	t.d.tlMu.Unlock()
	if c == nil {
		if _, err := t.d.toplevels(ctx); err != nil {
			return err
		}
		t.d.tlMu.Lock()
		c = t.d.tl
		t.d.tlMu.Unlock()
	}
	if err := c.ActOnToplevel(ctx, id, action); err != nil {
		if errors.Is(err, wayland.ErrToplevelGone) {
			return fmt.Errorf("%w: %v", platform.ErrElementGone, err)
		}
		return err
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		tls, err := t.d.toplevels(ctx)
		if err != nil {
			return err
		}
		gone := true
		for _, tl := range tls {
			if tl.ID == id {
				gone = false
				if done(tl) {
					return nil
				}
			}
		}
		if gone {
			if action == wayland.ToplevelClose {
				return nil
			}
			return fmt.Errorf("%w: the window closed", platform.ErrElementGone)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: the compositor did not %s the window", notDone, action)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Activate asks the compositor to activate the window and reads back that
// it did.
func (t toplevelWindows) Activate(ctx context.Context, win platform.Window) error {
	h, err := handle(win.ID, platform.ErrNotActivated)
	if err != nil {
		return err
	}
	return t.request(ctx, h, wayland.ToplevelActivate, func(tl wayland.Toplevel) bool { return tl.Activated }, platform.ErrNotActivated)
}

// ActiveWindow is the window the compositor says is active (0 when none
// is).
func (t toplevelWindows) ActiveWindow(ctx context.Context) (platform.WindowID, error) {
	tls, err := t.d.toplevels(ctx)
	if err != nil {
		return 0, err
	}
	for _, tl := range tls {
		if tl.Activated {
			return platform.ToplevelWindowID(uint32(tl.ID)), nil
		}
	}
	return 0, nil
}

// TopmostAt needs where windows are, which this compositor does not say.
func (toplevelWindows) TopmostAt(context.Context, int, int) (platform.WindowID, error) {
	return 0, errNoPlace()
}

// WindowPid is the process a window was given to (0 when none).
func (t toplevelWindows) WindowPid(ctx context.Context, id platform.WindowID) (int, error) {
	if _, ok := id.Toplevel(); !ok {
		return 0, nil
	}
	apps, err := t.d.Apps(ctx)
	if err != nil {
		return 0, err
	}
	for _, a := range apps {
		for _, w := range a.Windows {
			if w.ID == id {
				return a.Pid, nil
			}
		}
	}
	return 0, nil
}

// WindowAction asks the compositor to close, maximize, minimize or restore
// (out of maximized, minimized and fullscreen) a window, and reads back
// that it did: a compositor may ignore a request (noEffect).
func (t toplevelWindows) WindowAction(ctx context.Context, win platform.Window, action string) error {
	h, err := handle(win.ID, platform.ErrElementGone)
	if err != nil {
		return err
	}
	switch action {
	case "close":
		return t.request(ctx, h, wayland.ToplevelClose, func(wayland.Toplevel) bool { return false }, platform.ErrNoEffect)
	case "maximize":
		return t.request(ctx, h, wayland.ToplevelMaximize, func(tl wayland.Toplevel) bool { return tl.Maximized }, platform.ErrNoEffect)
	case "minimize":
		return t.request(ctx, h, wayland.ToplevelMinimize, func(tl wayland.Toplevel) bool { return tl.Minimized }, platform.ErrNoEffect)
	case "restore":
		for _, a := range []struct {
			on     bool
			action wayland.ToplevelAction
			done   func(wayland.Toplevel) bool
		}{
			{win.States&platform.WindowFullscreen != 0, wayland.ToplevelUnfullscreen, func(tl wayland.Toplevel) bool { return !tl.Fullscreen }},
			{win.States&platform.WindowMaximized != 0, wayland.ToplevelUnmaximize, func(tl wayland.Toplevel) bool { return !tl.Maximized }},
			{win.States&platform.WindowMinimized != 0, wayland.ToplevelUnminimize, func(tl wayland.Toplevel) bool { return !tl.Minimized }},
		} {
			if a.on {
				if err := t.request(ctx, h, a.action, a.done, platform.ErrNoEffect); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return fmt.Errorf("unknown window action %q; actions are maximize, minimize, restore, close", action)
}

// Screen needs the outputs' places, which uiscope reads from sway.
func (toplevelWindows) Screen(context.Context) (platform.Rect, error) {
	return platform.Rect{}, errNoPlace()
}
