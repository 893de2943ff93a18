//go:build linux

package linux

import (
	"errors"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/x11"
)

func appWin(id platform.WindowID, title string, x, y, w, h int) x11.AppWindow {
	r := platform.Rect{X: x, Y: y, Width: w, Height: h}
	return x11.AppWindow{Window: platform.Window{ID: id, Title: title, Bounds: r, Mapped: true}, Frame: r}
}

func topNode(name string, w, h int) *platform.Node {
	return &platform.Node{Name: name, Bounds: &platform.Rect{Width: w, Height: h}}
}

func TestMatchTopWindowRelative(t *testing.T) {
	// GTK 4 without a compositor: a 5 px resize border on every side.
	main := appWin(1, "Editor", 700, 360, 520, 360)
	dialog := appWin(2, "Save As", 100, 650, 360, 220)
	wins := []x11.AppWindow{main, dialog}
	for _, c := range []struct {
		name  string
		wins  []x11.AppWindow
		top   *platform.Node
		want  platform.WindowID
		x, y  int
		known bool
	}{
		{"dialog by size", wins, topNode("Save As", 350, 210), 2, 105, 655, true},
		{"main by size, title changed", wins, topNode("Editor — renamed", 510, 350), 1, 705, 365, true},
		// The stale-list bug: one window listed, another top level.
		{"a dialog the list does not hold", []x11.AppWindow{main}, topNode("Save As", 350, 210), 0, 0, 0, false},
		{"no border (server-side decorations)", []x11.AppWindow{appWin(3, "Plain", 10, 20, 500, 300)}, topNode("Plain", 500, 300), 3, 10, 20, true},
		{"uneven margins without extents", []x11.AppWindow{appWin(3, "Odd", 0, 0, 507, 300)}, topNode("Odd", 500, 293), 0, 0, 0, false},
		{"no bounds: the title alone", wins, &platform.Node{Name: "Save As"}, 2, 100, 650, true},
	} {
		p, ok := matchTop(c.wins, c.top, true)
		if ok != c.known || ok && (p.win.ID != c.want || p.originX != c.x || p.originY != c.y) {
			t.Errorf("%s: got %v %+v (origin %d,%d), want window %s at %d,%d (known %v)", c.name, ok, p.win.ID, p.originX, p.originY, c.want, c.x, c.y, c.known)
		}
	}
}

func TestMatchTopFrameExtents(t *testing.T) {
	// A composited GTK window draws a shadow wider below than above.
	w := appWin(7, "Shadowed", 100, 100, 546, 392)
	w.FrameExtents = &[4]int{23, 23, 17, 29}
	p, ok := matchTop([]x11.AppWindow{w}, topNode("Shadowed", 500, 346), true)
	if !ok || p.originX != 123 || p.originY != 117 {
		t.Errorf("got %v origin %d,%d, want 123,117", ok, p.originX, p.originY)
	}
	if _, ok := matchTop([]x11.AppWindow{w}, topNode("Shadowed", 510, 356), true); ok {
		t.Error("a size the extents do not give matched")
	}
}

func TestMatchTopNarrowing(t *testing.T) {
	a := appWin(1, "Untitled", 0, 0, 400, 300)
	b := appWin(2, "Untitled", 500, 0, 400, 300)
	c := appWin(3, "Notes", 0, 400, 400, 300)
	// Same size: the title tells.
	if p, ok := matchTop([]x11.AppWindow{a, c}, topNode("Notes", 400, 300), true); !ok || p.win.ID != 3 {
		t.Errorf("by title: %v %s", ok, p.win.ID)
	}
	// Same size and title: the active one, if the element says it is.
	b.Active = true
	top := topNode("Untitled", 400, 300)
	top.States = platform.StateSet(1) << platform.StateActive
	if p, ok := matchTop([]x11.AppWindow{a, b}, top, true); !ok || p.win.ID != 2 {
		t.Errorf("by active: %v %s", ok, p.win.ID)
	}
	// Nothing tells them apart: unknown, never the first one.
	b.Active = false
	if p, ok := matchTop([]x11.AppWindow{a, b}, topNode("Untitled", 400, 300), true); ok {
		t.Errorf("two alike matched %s", p.win.ID)
	}
	// A popup is never a GTK 4 top level's window.
	pop := appWin(4, "", 0, 0, 400, 300)
	pop.Popup = true
	if p, ok := matchTop([]x11.AppWindow{pop, c}, topNode("Other", 400, 300), true); !ok || p.win.ID != 3 {
		t.Errorf("popup candidate: %v %s", ok, p.win.ID)
	}
}

func TestMatchTopScreenCoordinates(t *testing.T) {
	// A toolkit with screen coordinates: the place counts too. GTK 3
	// gives a frame's extents with the window manager's decorations.
	main := appWin(1, "gedit", 100, 120, 600, 400)
	main.Frame = platform.Rect{X: 99, Y: 100, Width: 602, Height: 421}
	alert := appWin(2, "", 300, 300, 600, 400)
	wins := []x11.AppWindow{main, alert}
	at := func(x, y, w, h int) *platform.Node {
		return &platform.Node{Name: "Question", Bounds: &platform.Rect{X: x, Y: y, Width: w, Height: h}}
	}
	for _, c := range []struct {
		name string
		top  *platform.Node
		want platform.WindowID
	}{
		{"the frame with decorations", at(99, 100, 602, 421), 1},
		{"the interior; name and title differ", at(300, 300, 600, 400), 2},
		{"client-side border", at(305, 305, 590, 390), 2},
		{"nowhere", at(0, 0, 600, 400), 0},
	} {
		p, ok := matchTop(wins, c.top, false)
		if ok != (c.want != 0) || ok && p.win.ID != c.want {
			t.Errorf("%s: got %v %s, want %s", c.name, ok, p.win.ID, c.want)
		}
	}
}

func TestWindowUnknownError(t *testing.T) {
	err := windowUnknown(42, topNode("Save As", 350, 210), []x11.AppWindow{appWin(0x1a00003, "Editor", 0, 0, 520, 360)})
	if !errors.Is(err, platform.ErrWindowUnknown) {
		t.Fatalf("not ErrWindowUnknown: %v", err)
	}
	for _, want := range []string{"pid 42", `"Save As" (350x210)`, `0x1a00003 "Editor" 520x360`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
}
