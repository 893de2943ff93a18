//go:build linux

package linux

import (
	"context"
	"fmt"
	"strconv"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/sway"
	"github.com/uiscope/uiscope/internal/procinfo"
)

var _ platform.WindowTree = swayWindows{}

// WindowTree on sway is the process's views as sway's layout tree lists
// them, bottom to top, each a top level of the visual tree: its con id,
// app_id (as the class), title and content rectangle. A Wayland client's
// surfaces below its toplevel (subsurfaces, popups such as menus) are not
// in sway's tree, and no other client may read them: a view has no
// children. A view sway shows is viewable; one mapped but not shown (a
// tab behind another, a workspace not shown) unviewable, as an X window
// under an unmapped ancestor; one in the scratchpad unmapped.
func (s swayWindows) WindowTree(ctx context.Context, pid int, opts platform.WindowTreeOptions) (*platform.NativeTree, error) {
	wins, err := s.windowsOf(ctx, pid)
	if err != nil {
		return nil, err
	}
	owner, _ := procinfo.Lookup(pid)
	t := &platform.NativeTree{}
	for _, w := range wins {
		if opts.MaxWindows > 0 && len(t.Roots) >= opts.MaxWindows {
			t.Truncated, t.Reason = true, fmt.Sprintf("maxWindows %d reached", opts.MaxWindows)
			break
		}
		t.Roots = append(t.Roots, swayNative(w, owner))
	}
	t.Windows = len(t.Roots)
	return t, nil
}

// swayNative is a view as a window of the visual tree.
func swayNative(w sway.Window, owner procinfo.Identity) *platform.NativeWindow {
	state := platform.MapUnviewable
	switch {
	case w.Scratchpad():
		state = platform.MapUnmapped
	case w.Visible:
		state = platform.MapViewable
	}
	return &platform.NativeWindow{ID: w.ID(), Key: SwayWindowKey(w.Con, owner), Pid: w.Pid, Class: w.AppID,
		Name: w.Title, Bounds: w.Bounds, MapState: state, Client: true}
}

// SwayWindowKey is a sway view's durable key: its con id (sway numbers
// containers upwards and never reuses one while it runs) and the
// incarnation of the process it shows (pid and start time), so that a
// con id of a restarted sway never carries an old view's identity.
func SwayWindowKey(con int64, owner procinfo.Identity) string {
	if owner.Pid <= 0 {
		return fmt.Sprintf("sway:%d@?", con)
	}
	return fmt.Sprintf("sway:%d@%d.%s", con, owner.Pid, strconv.FormatUint(owner.StartTime, 10))
}
