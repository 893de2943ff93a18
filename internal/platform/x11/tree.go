//go:build linux

package x11

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jezek/xgb/xproto"

	"github.com/uiscope/uiscope/internal/platform"
)

// DefaultMaxWindows bounds a window-tree read when the caller gives no
// limit: far more than an application has (a Tk window with a hundred
// widgets has a few hundred), small enough to answer quickly.
const DefaultMaxWindows = 5000

// maxTreeDepth bounds how deep a window-tree read goes; X allows any depth,
// applications nest a few dozen levels at most.
const maxTreeDepth = 64

// WindowTree reads the window hierarchy of pid's top-level windows: each
// client window the window manager lists for pid (or, without one, the
// root's children that look like application windows), from the root
// child holding it (its frame) down, and pid's own mapped
// override-redirect root children (menus, tooltips), in the root's
// stacking order. Keys are left empty for the caller to give.
//
// Every window costs a handful of requests, pipelined a tree level at a
// time: a read is a few round trips per level, not per window.
func (c *Conn) WindowTree(ctx context.Context, pid int, opts platform.WindowTreeOptions) (*platform.NativeTree, error) {
	if pid <= 0 {
		return nil, fmt.Errorf("x11: window tree: pid %d is no process", pid)
	}
	return call(ctx, func(ctx context.Context) (*platform.NativeTree, error) {
		return c.windowTree(ctx, pid, opts)
	})
}

func (c *Conn) windowTree(ctx context.Context, pid int, opts platform.WindowTreeOptions) (*platform.NativeTree, error) {
	limit := opts.MaxWindows
	if limit <= 0 {
		limit = DefaultMaxWindows
	}
	all, err := c.topLevels(ctx)
	if err != nil {
		return nil, err
	}
	var clients []uint32
	isClient := map[xproto.Window]bool{}
	for _, w := range all {
		if w.Pid == pid {
			clients = append(clients, uint32(w.ID))
			isClient[xproto.Window(w.ID)] = true
		}
	}
	holders, err := c.topAncestors(ctx, clients)
	if err != nil {
		return nil, err
	}
	roots, err := c.rootWindows(ctx, pid, holders)
	if err != nil {
		return nil, err
	}
	chain, err := c.chains(ctx, clients)
	if err != nil {
		return nil, err
	}
	out := &platform.NativeTree{}
	type item struct {
		w              xproto.Window
		originX, origY int // the parent's interior origin on the screen
		node           *platform.NativeWindow
		depth          int
	}
	level := make([]item, 0, len(roots))
	for _, r := range roots {
		n := &platform.NativeWindow{ID: platform.WindowID(r), Frame: holders[r] != 0 && holders[r] != uint32(r)}
		out.Roots = append(out.Roots, n)
		level = append(level, item{w: r, node: n})
	}
	atoms, err := c.internAtoms(ctx, "_NET_WM_NAME", "UTF8_STRING")
	if err != nil {
		return nil, err
	}
	aNetName, aUTF8 := atoms[0], atoms[1]
	type cookies struct {
		attrs xproto.GetWindowAttributesCookie
		geom  xproto.GetGeometryCookie
		tree  xproto.QueryTreeCookie
		name  xproto.GetPropertyCookie
		wmNam xproto.GetPropertyCookie
		class xproto.GetPropertyCookie
	}
	gone := map[*platform.NativeWindow]bool{}
	for len(level) > 0 {
		if err := ctx.Err(); err != nil {
			out.Truncated, out.Reason = true, "deadline"
			break
		}
		cks := make([]cookies, len(level))
		ids := make([]uint32, len(level))
		for i, it := range level {
			ids[i] = uint32(it.w)
			cks[i] = cookies{
				attrs: xproto.GetWindowAttributes(c.xc, it.w),
				geom:  xproto.GetGeometry(c.xc, xproto.Drawable(it.w)),
				tree:  xproto.QueryTree(c.xc, it.w),
				name:  c.getProp(it.w, aNetName),
				wmNam: c.getProp(it.w, xproto.AtomWmName),
				class: c.getProp(it.w, xproto.AtomWmClass),
			}
		}
		pids, err := c.resPids(ctx, ids)
		if err != nil {
			return nil, err
		}
		var next []item
		var fatal error
		for i, it := range level {
			attrs, e1 := cks[i].attrs.Reply()
			geom, e2 := cks[i].geom.Reply()
			tree, e3 := cks[i].tree.Reply()
			name, e4 := cks[i].name.Reply()
			wmName, e5 := cks[i].wmNam.Reply()
			class, e6 := cks[i].class.Reply()
			vanished := false
			for _, err := range []error{e1, e2, e3, e4, e5, e6} {
				switch {
				case err == nil:
				case isXError(err):
					vanished = true
				case fatal == nil:
					fatal = fmt.Errorf("x11: window %#x: %w", uint32(it.w), err)
				}
			}
			if fatal != nil || vanished || attrs == nil || geom == nil || tree == nil {
				gone[it.node] = true
				continue
			}
			n := it.node
			n.Pid = pids[i]
			bw := int(geom.BorderWidth)
			n.Bounds = platform.Rect{X: it.originX + int(geom.X) + bw, Y: it.origY + int(geom.Y) + bw, Width: int(geom.Width), Height: int(geom.Height)}
			switch attrs.MapState {
			case xproto.MapStateViewable:
				n.MapState = platform.MapViewable
			case xproto.MapStateUnviewable:
				n.MapState = platform.MapUnviewable
			default:
				n.MapState = platform.MapUnmapped
			}
			n.OverrideRedirect = attrs.OverrideRedirect
			n.InputOnly = attrs.Class == xproto.WindowClassInputOnly
			n.Client = isClient[it.w]
			if s, ok := propString(name, aUTF8); ok && name.Type == aUTF8 {
				n.Name = s
			} else if s, ok := propString(wmName, aUTF8); ok {
				n.Name = s
			}
			if s, ok := propString(class, aUTF8); ok {
				inst, cls, _ := strings.Cut(s, "\x00")
				n.Instance, n.Class = inst, strings.TrimRight(cls, "\x00")
			}
			n.ChildCount = len(tree.Children)
			out.Windows++
			if it.depth+1 >= maxTreeDepth && len(tree.Children) > 0 {
				out.Truncated, out.Reason = true, "depth"
				continue
			}
			for _, ch := range tree.Children {
				// Inside a frame only the way down to the client is the
				// application's: the rest is the window manager's
				// decoration (openbox has some fifty windows per frame).
				if chain[it.w] && !n.Client && !chain[ch] {
					continue
				}
				cn := &platform.NativeWindow{ID: platform.WindowID(ch)}
				n.Children = append(n.Children, cn)
				next = append(next, item{w: ch, originX: n.Bounds.X, origY: n.Bounds.Y, node: cn, depth: it.depth + 1})
			}
		}
		if fatal != nil {
			return nil, fatal
		}
		if out.Windows+len(next) > limit {
			out.Truncated, out.Reason = true, "maxWindows"
			keep := limit - out.Windows
			for _, it := range next[max(keep, 0):] {
				gone[it.node] = true
			}
			next = next[:max(keep, 0)]
		}
		level = next
	}
	// Windows that vanished, or that the read did not reach, are left out.
	if len(gone) > 0 || out.Truncated {
		out.Roots = prune(out.Roots, gone)
	}
	return out, nil
}

// prune drops the windows in drop, and windows never filled in (a read cut
// short before their level), from a hierarchy.
func prune(ws []*platform.NativeWindow, drop map[*platform.NativeWindow]bool) []*platform.NativeWindow {
	out := ws[:0]
	for _, w := range ws {
		if drop[w] || w.MapState == "" {
			continue
		}
		w.Children = prune(w.Children, drop)
		out = append(out, w)
	}
	return out
}

// chains returns every window from each client up to the root's child
// holding it, clients included: the way down through window-manager frames.
func (c *Conn) chains(ctx context.Context, clients []uint32) (map[xproto.Window]bool, error) {
	out := map[xproto.Window]bool{}
	cur := make([]xproto.Window, 0, len(clients))
	for _, cl := range clients {
		cur = append(cur, xproto.Window(cl))
	}
	for depth := 0; len(cur) > 0 && depth < maxTreeDepth; depth++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cks := make([]xproto.QueryTreeCookie, len(cur))
		for i, w := range cur {
			out[w] = true
			cks[i] = xproto.QueryTree(c.xc, w)
		}
		var next []xproto.Window
		for i, w := range cur {
			r, err := cks[i].Reply()
			switch {
			case err != nil && !isXError(err):
				return nil, fmt.Errorf("x11: window %#x: %w", uint32(w), err)
			case err != nil || r == nil || r.Parent == c.root || r.Parent == 0:
			case !out[r.Parent]:
				next = append(next, r.Parent)
			}
		}
		cur = next
	}
	return out, nil
}

// rootWindows lists, in the root's stacking order (bottom to top), the root
// children that make up pid's windows: those holding its client windows
// (holders maps them to the client), and pid's own mapped
// override-redirect windows (popup menus, tooltips, drag icons).
func (c *Conn) rootWindows(ctx context.Context, pid int, holders map[xproto.Window]uint32) ([]xproto.Window, error) {
	tree, err := xproto.QueryTree(c.xc, c.root).Reply()
	if err != nil {
		return nil, fmt.Errorf("x11: listing root children: %w", err)
	}
	if tree == nil {
		return nil, errors.New("x11: listing root children: connection closed")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	attrCks := make([]xproto.GetWindowAttributesCookie, len(tree.Children))
	for i, w := range tree.Children {
		attrCks[i] = xproto.GetWindowAttributes(c.xc, w)
	}
	var popups []uint32
	var fatal error
	for i, w := range tree.Children {
		a, err := attrCks[i].Reply()
		switch {
		case err != nil && !isXError(err):
			if fatal == nil {
				fatal = fmt.Errorf("x11: window %#x: %w", uint32(w), err)
			}
		case err != nil || a == nil:
		case holders[w] == 0 && a.OverrideRedirect && a.MapState == xproto.MapStateViewable:
			popups = append(popups, uint32(w))
		}
	}
	if fatal != nil {
		return nil, fatal
	}
	pids, err := c.resPids(ctx, popups)
	if err != nil {
		return nil, err
	}
	mine := map[xproto.Window]bool{}
	for i, w := range popups {
		if pids[i] == pid {
			mine[xproto.Window(w)] = true
		}
	}
	var out []xproto.Window
	for _, w := range tree.Children {
		if holders[w] != 0 || mine[w] {
			out = append(out, w)
		}
	}
	return out, nil
}
