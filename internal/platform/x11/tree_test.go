//go:build linux

package x11

import (
	"os"
	"testing"

	"github.com/jezek/xgb/xproto"

	"github.com/uiscope/uiscope/internal/platform"
)

// child creates a window inside parent at x, y (relative to the parent's
// interior) with a border, mapped unless unmapped.
func (c *client) child(parent xproto.Window, x, y, w, h, border int, unmapped bool) xproto.Window {
	c.t.Helper()
	id, err := xproto.NewWindowId(c.xc)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := xproto.CreateWindowChecked(c.xc, 0, id, parent, int16(x), int16(y), uint16(w), uint16(h),
		uint16(border), xproto.WindowClassInputOutput, 0, 0, nil).Check(); err != nil {
		c.t.Fatal(err)
	}
	if !unmapped {
		if err := xproto.MapWindowChecked(c.xc, id).Check(); err != nil {
			c.t.Fatal(err)
		}
	}
	return id
}

// TestWindowTree: without a window manager the tree starts at the client
// windows themselves; children nest with their screen bounds (borders and
// parents' offsets added up), map states, the process from X-Resource and
// the app's popup at the top; MaxWindows cuts the read short and says so.
func TestWindowTree(t *testing.T) {
	display, _ := startXvfb(t)
	cl := newClient(t, display)
	c, err := Open(display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx := ctxT(t)

	top := cl.create(winSpec{x: 100, y: 50, w: 300, h: 200, netName: "tree top", instance: "treetest", class: "TreeTest"})
	panel := cl.child(top, 10, 20, 200, 100, 3, false)
	button := cl.child(panel, 5, 6, 40, 30, 1, false)
	hiddenParent := cl.child(top, 250, 0, 40, 40, 0, true)
	hiddenChild := cl.child(hiddenParent, 1, 1, 10, 10, 0, false)
	popup := cl.create(winSpec{x: 500, y: 500, w: 80, h: 60, netName: "menu", overrideRedir: true})

	tr, err := c.WindowTree(ctx, os.Getpid(), platform.WindowTreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[xproto.Window]*platform.NativeWindow{}
	var walk func([]*platform.NativeWindow)
	walk = func(ws []*platform.NativeWindow) {
		for _, w := range ws {
			byID[xproto.Window(w.ID)] = w
			walk(w.Children)
		}
	}
	walk(tr.Roots)
	if tr.Truncated || tr.Windows != len(byID) {
		t.Errorf("read: truncated %v (%s), %d windows counted, %d in the tree", tr.Truncated, tr.Reason, tr.Windows, len(byID))
	}
	want := map[xproto.Window]platform.NativeWindow{
		top:          {Name: "tree top", Class: "TreeTest", Instance: "treetest", Client: true, MapState: platform.MapViewable, Bounds: platform.Rect{X: 100, Y: 50, Width: 300, Height: 200}},
		panel:        {MapState: platform.MapViewable, Bounds: platform.Rect{X: 113, Y: 73, Width: 200, Height: 100}},
		button:       {MapState: platform.MapViewable, Bounds: platform.Rect{X: 119, Y: 80, Width: 40, Height: 30}},
		hiddenParent: {MapState: platform.MapUnmapped, Bounds: platform.Rect{X: 350, Y: 50, Width: 40, Height: 40}},
		hiddenChild:  {MapState: platform.MapUnviewable, Bounds: platform.Rect{X: 351, Y: 51, Width: 10, Height: 10}},
		popup:        {Name: "menu", OverrideRedirect: true, MapState: platform.MapViewable, Bounds: platform.Rect{X: 500, Y: 500, Width: 80, Height: 60}},
	}
	for id, w := range want {
		got, ok := byID[id]
		if !ok {
			t.Errorf("window %#x missing from the tree", uint32(id))
			continue
		}
		if got.Pid != os.Getpid() || got.Name != w.Name || got.Class != w.Class || got.Instance != w.Instance || got.Client != w.Client ||
			got.MapState != w.MapState || got.OverrideRedirect != w.OverrideRedirect || got.Bounds != w.Bounds || got.Frame {
			t.Errorf("window %#x: got %+v, want %+v (pid %d)", uint32(id), *got, w, os.Getpid())
		}
	}
	if len(tr.Roots) != 2 || tr.Roots[0].ID != platform.WindowID(top) || tr.Roots[1].ID != platform.WindowID(popup) {
		t.Errorf("roots %v; want the client, then the popup above it", tr.Roots)
	}
	if x, y := cl.origin(button); byID[button].Bounds.X != x || byID[button].Bounds.Y != y {
		t.Errorf("button at %d,%d by the tree, %d,%d by the server", byID[button].Bounds.X, byID[button].Bounds.Y, x, y)
	}

	cut, err := c.WindowTree(ctx, os.Getpid(), platform.WindowTreeOptions{MaxWindows: 3})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	walk = func(ws []*platform.NativeWindow) {
		for _, w := range ws {
			n++
			if w.MapState == "" {
				t.Errorf("window %#x in a cut read is not filled in", uint32(w.ID))
			}
			walk(w.Children)
		}
	}
	walk(cut.Roots)
	if !cut.Truncated || cut.Reason != "maxWindows" || n > 3 {
		t.Errorf("MaxWindows 3: truncated %v (%s), %d windows", cut.Truncated, cut.Reason, n)
	}
	if _, err := c.WindowTree(ctx, 0, platform.WindowTreeOptions{}); err == nil {
		t.Error("pid 0 was accepted")
	}
}
