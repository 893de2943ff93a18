//go:build linux

package linux

import (
	"context"
	"fmt"
	"strconv"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/procinfo"
)

var _ platform.WindowTree = (*Desktop)(nil)

// WindowTree reads the X window hierarchy of pid's windows and gives every
// window its durable key (WindowKey).
func (d *Desktop) WindowTree(ctx context.Context, pid int, opts platform.WindowTreeOptions) (*platform.NativeTree, error) {
	xc, err := d.x(ctx)
	if err != nil {
		return nil, err
	}
	t, err := xc.WindowTree(ctx, pid, opts)
	if err != nil {
		return nil, err
	}
	owners := map[int]procinfo.Identity{}
	var walk func([]*platform.NativeWindow)
	walk = func(ws []*platform.NativeWindow) {
		for _, w := range ws {
			o, ok := owners[w.Pid]
			if !ok && w.Pid > 0 {
				o, _ = procinfo.Lookup(w.Pid)
				owners[w.Pid] = o
			}
			w.Key = WindowKey(w.ID, o)
			walk(w.Children)
		}
	}
	walk(t.Roots)
	return t, nil
}

// WindowKey is an X window's durable key: its id and, as its generation
// marker, the incarnation of the process that created it (pid and start
// time, from the X server's own record of the client through X-Resource).
// X hands a window id to a new window only after the old one is gone, and
// in practice only to another client (a client counts its ids up, and a
// new client may inherit a departed one's range), so a recycled id gets a
// new key and never an old window's identity. A window whose creator is
// unknown (a remote client) is keyed by its id alone, marked "?".
func WindowKey(id platform.WindowID, owner procinfo.Identity) string {
	if owner.Pid <= 0 {
		return fmt.Sprintf("x11:%s@?", id)
	}
	return fmt.Sprintf("x11:%s@%d.%s", id, owner.Pid, strconv.FormatUint(owner.StartTime, 10))
}
