//go:build linux

package wayland

import (
	"context"
	"errors"
	"image"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
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
