//go:build linux

package wayland

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/sway"
	"github.com/uiscope/uiscope/internal/sandbox"
)

// need skips a test that starts a compositor under -short (make unit runs
// without a desktop) and otherwise fails it when a program it runs is
// missing: a desktop test that skips in CI would pass while proving
// nothing.
func need(t testing.TB, bins ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts headless sway; skipped under -short")
	}
	for _, b := range bins {
		if _, err := exec.LookPath(b); err != nil {
			t.Fatalf("%s not installed (make deps installs it)", b)
		}
	}
}

// startSway runs the sandbox's headless sway desktop (one 1280x800
// output, the accessibility buses) until the test ends.
func startSway(t testing.TB) *sandbox.Desktop {
	t.Helper()
	need(t, "sway")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	d, err := sandbox.Start(ctx, sandbox.Options{Desktop: sandbox.DesktopSway, Screen: "1280x800x24"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// dial connects to the desktop's compositor; the connection is closed
// when the test ends.
func dial(t testing.TB, d *sandbox.Desktop) *Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := Dial(ctx, filepath.Join(d.RuntimeDir, d.WaylandDisplay))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestSwayGlobalsOutputsCapture(t *testing.T) {
	d := startSway(t)
	c := dial(t, d)
	want := map[string]bool{"wl_shm": false, "wl_seat": false, "wl_output": false,
		"zwlr_screencopy_manager_v1": false, "zwp_virtual_keyboard_manager_v1": false, "zwlr_virtual_pointer_manager_v1": false}
	for _, g := range c.Globals() {
		if _, ok := want[g.Interface]; ok {
			want[g.Interface] = true
		}
	}
	for iface, ok := range want {
		if !ok {
			t.Errorf("sway does not announce %s", iface)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	outs, err := c.Outputs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 1 || outs[0].Width != 1280 || outs[0].Height != 800 || outs[0].Rect() != image.Rect(0, 0, 1280, 800) {
		t.Fatalf("outputs %+v, want one of 1280x800 at 0,0", outs)
	}
	img, err := c.Capture(ctx, outs[0], image.Rectangle{})
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 800 {
		t.Fatalf("capture is %v", b)
	}
	// Regions are clipped to the output.
	part, err := c.Capture(ctx, outs[0], image.Rect(1200, 700, 1400, 900))
	if err != nil {
		t.Fatal(err)
	}
	if b := part.Bounds(); b.Dx() != 80 || b.Dy() != 100 {
		t.Fatalf("clipped region capture is %v", b)
	}
}

// TestSwayFrozenAndGone: a compositor that stops answering (SIGSTOP) holds
// every call to its deadline and leaves the connection usable once it
// answers again; one that exits is an error at once, never a hang.
func TestSwayFrozenAndGone(t *testing.T) {
	d := startSway(t)
	c := dial(t, d)
	var sway *sandbox.Process
	for _, p := range d.Components() {
		if p.Name == "sway" {
			sway = p
		}
	}
	if sway == nil {
		t.Fatal("no sway among the sandbox's components")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	outs, err := c.Outputs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(sway.Pid(), syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := true
	defer func() {
		if stopped {
			syscall.Kill(sway.Pid(), syscall.SIGCONT)
		}
	}()
	short, cancelShort := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = c.Capture(short, outs[0], image.Rectangle{})
	cancelShort()
	if !errors.Is(err, platform.ErrTimeout) {
		t.Fatalf("a capture from a frozen compositor: %v", err)
	}
	short, cancelShort = context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = c.Toplevels(short)
	cancelShort()
	if !errors.Is(err, platform.ErrTimeout) {
		t.Fatalf("listing the windows of a frozen compositor: %v", err)
	}
	short, cancelShort = context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = c.TypeText(short, "x")
	cancelShort()
	if !errors.Is(err, platform.ErrTimeout) {
		t.Fatalf("typing to a frozen compositor: %v", err)
	}
	syscall.Kill(sway.Pid(), syscall.SIGCONT)
	stopped = false
	if _, err := c.Capture(ctx, outs[0], image.Rectangle{}); err != nil {
		t.Fatalf("a capture once the compositor answers again: %v", err)
	}
	if err := syscall.Kill(sway.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-sway.Done()
	if err := c.Roundtrip(ctx); !errors.Is(err, ErrClosed) {
		t.Fatalf("a round trip to a compositor that exited: %v", err)
	}
	if _, err := c.Capture(ctx, outs[0], image.Rectangle{}); !errors.Is(err, ErrClosed) {
		t.Fatalf("a capture after the compositor exited: %v", err)
	}
}

// TestSwayToplevels lists sway's windows through the foreign toplevel
// protocol and acts on them, each answer checked against sway's own tree
// (its IPC, outside this client): the same windows with the same titles
// and app ids, activation moving sway's focus, fullscreen, and a close
// that takes the window away.
func TestSwayToplevels(t *testing.T) {
	g := startGTK(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	factory := exec.Command("gtk3-widget-factory")
	factory.Env = g.env()
	if err := factory.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { factory.Wait(); close(exited) }()
	t.Cleanup(func() { factory.Process.Kill(); <-exited })
	sw := sway.New(g.box.SwaySock)
	views := func() []sway.Window {
		wins, err := sw.Windows(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return wins
	}
	g.until(t, "two windows in sway's tree", func() (bool, string) {
		n := len(views())
		return n == 2, fmt.Sprintf("%d windows", n)
	})
	// The lists agree once the factory has named its window, and the
	// window in front is on the output once its surface entered it (a tab
	// behind another is on none).
	var tops []Toplevel
	g.until(t, "the toplevels as sway lists its views", func() (bool, string) {
		var err error
		tops, err = g.conn.Toplevels(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ok, why := sameWindows(tops, views()); !ok {
			return false, why
		}
		for _, tl := range tops {
			if tl.Activated && !slices.Equal(tl.Outputs, []string{"HEADLESS-1"}) {
				return false, fmt.Sprintf("%q, in front, is on outputs %v", tl.Title, tl.Outputs)
			}
		}
		return true, ""
	})
	var other Toplevel
	for _, tl := range tops {
		if !tl.Activated {
			other = tl
		}
	}
	if other.ID == 0 {
		t.Fatalf("no window is without the focus: %+v", tops)
	}

	if err := g.conn.ActOnToplevel(ctx, other.ID, ToplevelActivate); err != nil {
		t.Fatal(err)
	}
	g.until(t, "sway's focus on the activated window", func() (bool, string) {
		f, ok, err := sw.Focused(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return ok && f.Title == other.Title, fmt.Sprintf("focused %q", f.Title)
	})

	if err := g.conn.ActOnToplevel(ctx, other.ID, ToplevelFullscreen); err != nil {
		t.Fatal(err)
	}
	g.until(t, "the window fullscreen in sway's tree and in its states", func() (bool, string) {
		f, _, err := sw.Focused(ctx)
		if err != nil {
			t.Fatal(err)
		}
		tops, err := g.conn.Toplevels(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range tops {
			if tl.ID == other.ID {
				return f.Fullscreen && tl.Fullscreen, fmt.Sprintf("sway %v, states %+v", f.Fullscreen, tl)
			}
		}
		return false, "the window is not listed"
	})

	if err := g.conn.ActOnToplevel(ctx, other.ID, ToplevelClose); err != nil {
		t.Fatal(err)
	}
	g.until(t, "the window gone from sway's tree and from the list", func() (bool, string) {
		tops, err := g.conn.Toplevels(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return len(views()) == 1 && len(tops) == 1, fmt.Sprintf("sway %d, toplevels %+v", len(views()), tops)
	})
	if err := g.conn.ActOnToplevel(ctx, other.ID, ToplevelActivate); !errors.Is(err, ErrToplevelGone) {
		t.Fatalf("acting on a closed window: %v", err)
	}
}

// sameWindows compares the toplevels with sway's views: the same titles
// and app ids, and the one sway focuses the one activated.
func sameWindows(tops []Toplevel, views []sway.Window) (bool, string) {
	key := func(title, app string, focus bool) string { return fmt.Sprintf("%q %q %v", title, app, focus) }
	var a, b []string
	for _, tl := range tops {
		a = append(a, key(tl.Title, tl.AppID, tl.Activated))
	}
	for _, v := range views {
		b = append(b, key(v.Title, v.AppID, v.Focused))
	}
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b), fmt.Sprintf("toplevels %v, sway %v", a, b)
}
