//go:build linux

package linux

import (
	"context"
	"os"

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
	tops, names := map[int][]string{}, map[int]string{}
	for pid, a := range byPid {
		if !a.Accessible {
			continue
		}
		nodes, err := c.a11y.TopLevels(ctx, a.BusName)
		if err != nil {
			continue
		}
		for _, n := range nodes {
			tops[pid] = append(tops[pid], n.Name)
		}
		names[pid] = a.Name
	}
	for pid, ts := range matchToplevels(tls, tops, names) {
		for _, t := range ts {
			byPid[pid].Windows = append(byPid[pid].Windows, toplevelWindow(t, pid))
		}
	}
}
