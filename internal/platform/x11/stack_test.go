//go:build linux

package x11

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/uiscope/uiscope/internal/platform"
)

// appWindowsDesk is an X server with openbox and, for this process, a
// client window with _GTK_FRAME_EXTENTS, a second client window and a
// popup (override-redirect) above them, plus a client window of another
// process (xmessage) and one of this process that claims another pid in
// _NET_WM_PID (the X server's word on its creator wins, WindowPid).
func appWindowsDesk(t testing.TB) (*Conn, *client, []xproto.Window) {
	tt := t
	display, _ := startXvfb(tt)
	cl := newClient(tt, display)
	c, err := Open(display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx := ctxT(tt)
	pid := uint32(os.Getpid())
	ids := []xproto.Window{
		cl.create(winSpec{x: 100, y: 100, w: 310, h: 210, netName: "main", class: "UiscopeTest", pid: pid}),
		cl.create(winSpec{x: 500, y: 300, w: 200, h: 100, netName: "dialog", class: "UiscopeTest", pid: pid}),
		cl.create(winSpec{x: 600, y: 50, w: 80, h: 60, netName: "menu", class: "UiscopeTest", overrideRedir: true}),
	}
	other := exec.Command("xmessage", "-geometry", "90x90+20+500", "other")
	other.Env = append(os.Environ(), "DISPLAY="+display)
	if err := other.Start(); err != nil {
		t.Fatalf("xmessage (x11-utils): %v", err)
	}
	t.Cleanup(func() { other.Process.Kill(); other.Wait() })
	forged := cl.create(winSpec{x: 200, y: 500, w: 90, h: 90, netName: "forged", class: "UiscopeTest", pid: 424242})
	b := make([]byte, 16)
	for i, v := range []uint32{5, 5, 3, 7} {
		xgb.Put32(b[4*i:], v)
	}
	cl.setProp(ids[0], cl.atom("_GTK_FRAME_EXTENTS"), xproto.AtomCardinal, 32, b)
	// Openbox adopts the windows as it starts, as in TestTopLevels.
	startOpenbox(tt, display)
	waitFor(tt, 30*time.Second, "openbox to manage the windows", func() (bool, string) {
		wm, err := c.WindowManagerPresent(ctx)
		list := cl.clientList()
		return err == nil && wm && len(list) == 4, fmt.Sprintf("wm %v %v, client list %#x", wm, err, list)
	})
	// The forged window is this process's: listed with it, then gone, so
	// that the rest sees the three windows above.
	waitFor(tt, 30*time.Second, "the window with a forged _NET_WM_PID listed as this process's", func() (bool, string) {
		wins, err := c.AppWindows(ctx, os.Getpid())
		for _, w := range wins {
			if w.ID == platform.WindowID(forged) {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%+v %v", wins, err)
	})
	if err := xproto.DestroyWindowChecked(cl.xc, forged).Check(); err != nil {
		t.Fatal(err)
	}
	waitFor(tt, 30*time.Second, "openbox to let the forged window go", func() (bool, string) {
		list := cl.clientList()
		return len(list) == 3, fmt.Sprintf("client list %#x", list)
	})
	return c, cl, ids
}

func TestAppWindows(t *testing.T) {
	c, cl, ids := appWindowsDesk(t)
	ctx := ctxT(t)
	var wins []AppWindow
	read := func() []AppWindow {
		wins, err := c.AppWindows(ctx, os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		return wins
	}
	waitFor(t, 30*time.Second, "the windows managed", func() (bool, string) {
		wins = read()
		return len(wins) == 3 && wins[0].Frame != wins[0].Bounds && wins[1].Frame != wins[1].Bounds, fmt.Sprintf("%+v", wins)
	})
	// The popup on top, as a menu opens.
	if err := xproto.ConfigureWindowChecked(cl.xc, ids[2], xproto.ConfigWindowStackMode, []uint32{xproto.StackModeAbove}).Check(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the popup on top", func() (bool, string) {
		wins = read()
		return wins[2].ID == platform.WindowID(ids[2]), fmt.Sprintf("%+v", wins)
	})
	// Bottom to top: the clients in the order they were mapped, then the
	// popup.
	for i, want := range ids[:3] {
		if wins[i].ID != platform.WindowID(want) {
			t.Fatalf("window %d is %s, want %#x: %+v", i, wins[i].ID, want, wins)
		}
	}
	main, dialog, menu := wins[0], wins[1], wins[2]
	x, y := cl.origin(ids[0])
	if main.Bounds != (platform.Rect{X: x, Y: y, Width: 310, Height: 210}) || main.Title != "main" || main.Popup {
		t.Errorf("main = %+v (origin %d,%d)", main, x, y)
	}
	// Openbox frames it: the frame holds the interior, decorations around.
	if !main.Frame.Contains(main.Bounds.X, main.Bounds.Y) || main.Frame.Width < main.Bounds.Width || main.Frame.Height <= main.Bounds.Height {
		t.Errorf("main's frame %+v does not hold its interior %+v", main.Frame, main.Bounds)
	}
	if main.FrameExtents == nil || *main.FrameExtents != [4]int{5, 5, 3, 7} {
		t.Errorf("main's _GTK_FRAME_EXTENTS = %v", main.FrameExtents)
	}
	if dialog.FrameExtents != nil || dialog.Title != "dialog" {
		t.Errorf("dialog = %+v", dialog)
	}
	if !menu.Popup || menu.Bounds != (platform.Rect{X: 600, Y: 50, Width: 80, Height: 60}) || menu.Frame != menu.Bounds {
		t.Errorf("menu = %+v", menu)
	}
	// A menu by its window type alone: none, a tooltip's, then a popup
	// menu's.
	if menu.Menu {
		t.Errorf("a popup without _NET_WM_WINDOW_TYPE is a menu: %+v", menu)
	}
	for _, c := range []struct {
		typ  string
		menu bool
	}{{"_NET_WM_WINDOW_TYPE_TOOLTIP", false}, {"_NET_WM_WINDOW_TYPE_POPUP_MENU", true}} {
		b := make([]byte, 4)
		xgb.Put32(b, uint32(cl.atom(c.typ)))
		cl.setProp(ids[2], cl.atom("_NET_WM_WINDOW_TYPE"), xproto.AtomAtom, 32, b)
		waitFor(t, 10*time.Second, "the popup typed "+c.typ, func() (bool, string) {
			wins := read()
			last := wins[len(wins)-1]
			return last.Popup && last.Menu == c.menu, fmt.Sprintf("%+v", last)
		})
	}
	active := 0
	for _, w := range wins {
		if w.Active {
			active++
		}
	}
	if active > 1 {
		t.Errorf("%d windows active: %+v", active, wins)
	}

	// Live: a move shows in the next read.
	if err := xproto.ConfigureWindowChecked(cl.xc, ids[2], xproto.ConfigWindowX|xproto.ConfigWindowY, []uint32{640, 90}).Check(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the popup moved", func() (bool, string) {
		wins := read()
		last := wins[len(wins)-1]
		return last.Bounds.X == 640 && last.Bounds.Y == 90, fmt.Sprintf("%+v", last)
	})
	if _, err := c.AppWindows(ctx, 0); err == nil {
		t.Error("AppWindows(0) succeeded")
	}
}

// BenchmarkAppWindows is the cost of reading an application's windows
// live, which every action, tree read of a window-relative toolkit and
// screenshot does once.
func BenchmarkAppWindows(b *testing.B) {
	c, _, _ := appWindowsDesk(b)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var n int
	for b.Loop() {
		wins, err := c.AppWindows(ctx, os.Getpid())
		if err != nil {
			b.Fatal(err)
		}
		n = len(wins)
	}
	b.ReportMetric(float64(n), "windows")
}
