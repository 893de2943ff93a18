//go:build linux

package linux

import (
	"context"
	"errors"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/sway"
)

func view(con int64, title string, x, y, w, h int) sway.Window {
	return sway.Window{Con: con, Pid: 10, Title: title, Bounds: platform.Rect{X: x, Y: y, Width: w, Height: h}, Visible: true}
}

func TestMatchSway(t *testing.T) {
	main := view(5, "Editor", 2, 25, 1916, 1053)
	dialog := view(7, "Save As", 700, 300, 400, 300)
	dialog.Focused = true
	wins := []sway.Window{main, dialog}
	active := &platform.Node{Name: "Save As", States: 1 << platform.StateActive, Bounds: &platform.Rect{Width: 400, Height: 300}}
	twin := view(8, "Save As", 100, 100, 400, 300)
	for _, c := range []struct {
		name  string
		wins  []sway.Window
		top   *platform.Node
		want  int64
		x, y  int
		known bool
	}{
		{"tiled main window by size", wins, topNode("Editor", 1916, 1053), 5, 2, 25, true},
		{"dialog by size, whatever its title", wins, topNode("Opening…", 400, 300), 7, 700, 300, true},
		{"a client-side border around the content", wins, topNode("Save As", 420, 320), 7, 690, 290, true},
		{"uneven margins", wins, topNode("Save As", 420, 310), 0, 0, 0, false},
		{"a top level no view shows (a popup menu)", wins, topNode("", 180, 240), 0, 0, 0, false},
		{"no bounds: the title alone", wins, &platform.Node{Name: "Save As"}, 7, 700, 300, true},
		{"two alike: the focus tells", []sway.Window{twin, dialog}, active, 7, 700, 300, true},
		{"two alike, nothing tells", []sway.Window{twin, dialog}, topNode("Save As", 400, 300), 0, 0, 0, false},
	} {
		w, x, y, ok := matchSway(c.wins, c.top)
		if ok != c.known || ok && (w.Con != c.want || x != c.x || y != c.y) {
			t.Errorf("%s: got %v sway:%d at %d,%d, want sway:%d at %d,%d (known %v)", c.name, ok, w.Con, x, y, c.want, c.x, c.y, c.known)
		}
	}
}

// TestCSDCorner: a client-side decorated window's geometry starts where
// its title bar does (measured: GTK 3's header bar in a floating view on
// sway 1.7, 23 px under the surface's top, 26 px in from its left).
func TestCSDCorner(t *testing.T) {
	in := platform.Rect{X: 230, Y: 170, Width: 560, Height: 462}
	top := platform.Rect{Width: 612, Height: 514}
	bar := platform.Rect{X: 26, Y: 23, Width: 560, Height: 47}
	content := platform.Rect{X: 34, Y: 78, Width: 544, Height: 436}
	for _, c := range []struct {
		name  string
		top   platform.Rect
		kids  []platform.Rect
		x, y  int
		found bool
	}{
		{"the header bar gives the top", top, []platform.Rect{content, bar}, 26, 23, true},
		{"no child as wide as the window", top, []platform.Rect{content}, 0, 0, false},
		{"as wide, but off the even split", top, []platform.Rect{{X: 20, Y: 23, Width: 560, Height: 47}}, 0, 0, false},
		{"as wide, but below the border", top, []platform.Rect{{X: 26, Y: 80, Width: 560, Height: 47}}, 0, 0, false},
		{"the highest of two", top, []platform.Rect{{X: 26, Y: 40, Width: 560, Height: 20}, bar}, 26, 23, true},
		{"no border", in, []platform.Rect{{X: 0, Y: 0, Width: 560, Height: 47}}, 0, 0, false},
		{"a border uneven across", platform.Rect{Width: 613, Height: 514}, []platform.Rect{bar}, 0, 0, false},
	} {
		x, y, ok := csdCorner(c.top, in, c.kids)
		if ok != c.found || ok && (x != c.x || y != c.y) {
			t.Errorf("%s: got %d,%d (found %v), want %d,%d (found %v)", c.name, x, y, ok, c.x, c.y, c.found)
		}
	}
}

// TestSwayWindowsWithoutIPC: window, input and capture calls on a desktop
// whose sway is gone answer notSupported, and minimize says sway has
// none, before any call.
func TestSwayWindowsWithoutIPC(t *testing.T) {
	d := &Desktop{Sway: nil, SwayErr: errors.New("connection refused")}
	s := swayWindows{d}
	ctx := context.Background()
	if _, err := s.ActiveWindow(ctx); !errors.Is(err, platform.ErrNotSupported) {
		t.Errorf("ActiveWindow without sway: %v", err)
	}
	win := platform.Window{ID: platform.SwayWindowID(5)}
	if err := s.WindowAction(ctx, win, "minimize"); !errors.Is(err, platform.ErrNotSupported) {
		t.Errorf("minimize: %v", err)
	}
	if err := s.Activate(ctx, platform.Window{ID: 0x1a00003}); !errors.Is(err, platform.ErrNotSupported) && !errors.Is(err, platform.ErrNotActivated) {
		t.Errorf("activating an X window on sway: %v", err)
	}
	w := waylandParts{d}
	if err := w.Click(ctx, 1, 1, 1, 1); !errors.Is(err, platform.ErrNotSupported) {
		t.Errorf("click: %v", err)
	}
	if err := w.ValidateChord("Ctrl+S"); err != nil {
		t.Errorf("ValidateChord: %v", err)
	}
	if err := w.KeyChord(ctx, "Ctrl+Nope"); !errors.Is(err, platform.ErrInvalidKeys) {
		t.Errorf("a bad chord: %v", err)
	}
	if _, _, err := w.CaptureWindow(ctx, win); !errors.Is(err, platform.ErrNotSupported) {
		t.Errorf("capture: %v", err)
	}
}
