//go:build linux

package x11

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/uiscope/uiscope/internal/platform"
)

// need skips a test that starts an X server under -short (make unit runs
// without a desktop) and otherwise fails it when a program it starts is
// missing: a desktop test that skips in CI would pass while proving nothing.
func need(t testing.TB, bins ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts an X server; skipped under -short")
	}
	for _, b := range bins {
		if _, err := exec.LookPath(b); err != nil {
			t.Fatalf("%s not installed (make deps installs it)", b)
		}
	}
}

// startXvfb runs a private X server on a free display and returns its
// display string and process. It is killed when the test ends.
func startXvfb(t testing.TB) (string, *os.Process) {
	t.Helper()
	need(t, "Xvfb")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-nolisten", "tcp", "-ac",
		"-screen", "0", "1024x768x24", "-noreset")
	cmd.ExtraFiles = []*os.File{w} // fd 3 in the child
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		w.Close()
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	// Xvfb writes the display number once it accepts connections.
	_ = r.SetReadDeadline(time.Now().Add(60 * time.Second))
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("Xvfb did not report its display: %v; stderr: %s", err, stderr.String())
	}
	return ":" + strings.TrimSpace(line), cmd.Process
}

// startOpenbox runs openbox on display; stop kills it and waits for it.
func startOpenbox(t testing.TB, display string) (stop func()) {
	t.Helper()
	need(t, "openbox")
	dir := t.TempDir()
	cmd := exec.Command("openbox", "--sm-disable")
	cmd.Env = append(os.Environ(), "DISPLAY="+display,
		"XDG_CONFIG_HOME="+dir, "XDG_CACHE_HOME="+dir, "XDG_DATA_HOME="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := false
	stop = func() {
		if done {
			return
		}
		done = true
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	t.Cleanup(stop)
	return stop
}

// waitFor polls cond until it holds or the deadline passes; cond returns a
// description of what it saw, for the failure message.
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var last string
	for {
		ok, seen := cond()
		if ok {
			return
		}
		last = seen
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; last seen: %s", what, last)
		}
		<-tick.C
	}
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// client is the test's own X connection, standing in for applications.
type client struct {
	t    testing.TB
	xc   *xgb.Conn
	root xproto.Window
}

func newClient(t testing.TB, display string) *client {
	t.Helper()
	xc, err := xgb.NewConnDisplay(display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(xc.Close)
	go func() {
		for {
			if ev, err := xc.WaitForEvent(); ev == nil && err == nil {
				return
			}
		}
	}()
	return &client{t: t, xc: xc, root: xproto.Setup(xc).DefaultScreen(xc).Root}
}

func (c *client) atom(name string) xproto.Atom {
	r, err := xproto.InternAtom(c.xc, false, uint16(len(name)), name).Reply()
	if err != nil {
		c.t.Fatal(err)
	}
	return r.Atom
}

func (c *client) setProp(w xproto.Window, prop, typ xproto.Atom, format byte, data []byte) {
	n := uint32(len(data))
	if format == 32 {
		n /= 4
	}
	if err := xproto.ChangePropertyChecked(c.xc, xproto.PropModeReplace, w, prop, typ, format, n, data).Check(); err != nil {
		c.t.Fatal(err)
	}
}

type winSpec struct {
	x, y, w, h     int
	netName        string // _NET_WM_NAME (UTF-8)
	wmName         string // WM_NAME, as Latin-1 bytes
	instance       string
	class          string
	pid            uint32 // _NET_WM_PID; 0 leaves it unset
	overrideRedir  bool
	inputOnly      bool
	leaveUnmapped  bool
	expectedInList bool
}

func (c *client) create(s winSpec) xproto.Window {
	c.t.Helper()
	w, err := xproto.NewWindowId(c.xc)
	if err != nil {
		c.t.Fatal(err)
	}
	class := uint16(xproto.WindowClassInputOutput)
	if s.inputOnly {
		class = xproto.WindowClassInputOnly
	}
	var mask uint32
	var vals []uint32
	if s.overrideRedir {
		mask, vals = xproto.CwOverrideRedirect, []uint32{1}
	}
	err = xproto.CreateWindowChecked(c.xc, 0, w, c.root, int16(s.x), int16(s.y), uint16(s.w), uint16(s.h),
		0, class, 0, mask, vals).Check()
	if err != nil {
		c.t.Fatal(err)
	}
	if s.netName != "" {
		c.setProp(w, c.atom("_NET_WM_NAME"), c.atom("UTF8_STRING"), 8, []byte(s.netName))
	}
	if s.wmName != "" {
		c.setProp(w, xproto.AtomWmName, xproto.AtomString, 8, []byte(s.wmName))
	}
	if s.class != "" {
		c.setProp(w, xproto.AtomWmClass, xproto.AtomString, 8, []byte(s.instance+"\x00"+s.class+"\x00"))
	}
	if s.pid != 0 {
		b := make([]byte, 4)
		xgb.Put32(b, s.pid)
		c.setProp(w, c.atom("_NET_WM_PID"), xproto.AtomCardinal, 32, b)
	}
	// USPosition+USSize in WM_NORMAL_HINTS, so openbox keeps the size.
	hints := make([]byte, 18*4)
	xgb.Put32(hints, 1|2)
	xgb.Put32(hints[4:], uint32(s.x))
	xgb.Put32(hints[8:], uint32(s.y))
	xgb.Put32(hints[12:], uint32(s.w))
	xgb.Put32(hints[16:], uint32(s.h))
	c.setProp(w, xproto.AtomWmNormalHints, xproto.AtomWmSizeHints, 32, hints)
	if !s.leaveUnmapped {
		if err := xproto.MapWindowChecked(c.xc, w).Check(); err != nil {
			c.t.Fatal(err)
		}
	}
	return w
}

func (c *client) origin(w xproto.Window) (int, int) {
	r, err := xproto.TranslateCoordinates(c.xc, w, c.root, 0, 0).Reply()
	if err != nil {
		c.t.Fatal(err)
	}
	return int(r.DstX), int(r.DstY)
}

func (c *client) parent(w xproto.Window) xproto.Window {
	r, err := xproto.QueryTree(c.xc, w).Reply()
	if err != nil {
		c.t.Fatal(err)
	}
	return r.Parent
}

func (c *client) clientList() []uint32 {
	r, err := xproto.GetProperty(c.xc, false, c.root, c.atom("_NET_CLIENT_LIST"), xproto.GetPropertyTypeAny, 0, 1024).Reply()
	if err != nil {
		c.t.Fatal(err)
	}
	return propCard32List(r)
}

func find(wins []platform.Window, id xproto.Window) (platform.Window, bool) {
	for _, w := range wins {
		if w.ID == platform.WindowID(id) {
			return w, true
		}
	}
	return platform.Window{}, false
}

func describe(wins []platform.Window) string {
	var b strings.Builder
	for _, w := range wins {
		fmt.Fprintf(&b, "{%#x pid=%d %q %s/%s %+v mapped=%v} ", w.ID, w.Pid, w.Title, w.Instance, w.Class, w.Bounds, w.Mapped)
	}
	return b.String()
}

func TestTopLevels(t *testing.T) {
	display, _ := startXvfb(t)
	cl := newClient(t, display)
	c, err := Open(display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx := ctxT(t)

	if got := c.Screen(); got != (platform.Rect{Width: 1024, Height: 768}) {
		t.Errorf("Screen() = %+v", got)
	}
	if wm, err := c.WindowManagerPresent(ctx); err != nil || wm {
		t.Fatalf("WindowManagerPresent before openbox = %v, %v", wm, err)
	}
	if a, err := c.ActiveWindow(ctx); err != nil || a != 0 {
		t.Errorf("ActiveWindow without WM = %#x, %v", a, err)
	}

	const fakePid = 424242
	specs := []winSpec{
		{x: 50, y: 60, w: 200, h: 100, netName: "uiscope test α", wmName: "uiscope test a",
			instance: "alpha", class: "UiscopeTest", pid: fakePid, expectedInList: true},
		// No _NET_WM_PID, Latin-1 WM_NAME only: the Tk case.
		{x: 300, y: 200, w: 150, h: 120, wmName: "caf\xe9", instance: "beta", class: "UiscopeTest", expectedInList: true},
		{x: 10, y: 10, w: 50, h: 50, netName: "popup", class: "UiscopeTest", overrideRedir: true},
		{x: 10, y: 10, w: 50, h: 50, netName: "input only", class: "UiscopeTest", inputOnly: true},
		{x: 10, y: 10, w: 50, h: 50, netName: "never mapped", class: "UiscopeTest", leaveUnmapped: true},
	}
	// The first window claims another pid in _NET_WM_PID: the X server's
	// word on who created it (this test) wins.
	want := []platform.Window{
		{Pid: os.Getpid(), Title: "uiscope test α", Instance: "alpha", Class: "UiscopeTest", Mapped: true},
		{Pid: os.Getpid(), Title: "café", Instance: "beta", Class: "UiscopeTest", Mapped: true},
	}
	ids := make([]xproto.Window, len(specs))
	for i, s := range specs {
		ids[i] = cl.create(s)
		if i < len(want) {
			want[i].ID = platform.WindowID(ids[i])
		}
	}
	// An unnamed, classless mapped window (like a toolkit's helper) is skipped.
	unnamed := cl.create(winSpec{x: 0, y: 0, w: 5, h: 5})

	// checkAll compares TopLevels with the expectation, bounds against the
	// client's own view of its absolute origin. A window manager decides for
	// itself what it manages (openbox takes the input-only and the unnamed
	// window), so only the fallback's filtering is checked fully.
	checkAll := func(wins []platform.Window, withWM bool) (bool, string) {
		seen := describe(wins)
		for i, w := range want {
			got, ok := find(wins, ids[i])
			if !ok {
				return false, seen
			}
			x, y := cl.origin(ids[i])
			w.Bounds = platform.Rect{X: x, Y: y, Width: specs[i].w, Height: specs[i].h}
			if got != w {
				return false, fmt.Sprintf("got %+v want %+v; all: %s", got, w, seen)
			}
		}
		skipped := slices.Concat(ids[len(want):], []xproto.Window{unnamed})
		if withWM {
			skipped = ids[2:3] // override-redirect is never managed
		}
		for _, id := range skipped {
			if _, ok := find(wins, id); ok {
				return false, fmt.Sprintf("window %#x should be skipped; all: %s", id, seen)
			}
		}
		return true, seen
	}

	t.Run("no window manager", func(t *testing.T) {
		waitFor(t, 20*time.Second, "test windows via QueryTree", func() (bool, string) {
			wins, err := c.TopLevels(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return checkAll(wins, false)
		})
		wins, _ := c.TopLevels(ctx)
		got, _ := find(wins, ids[0])
		if got.Bounds != (platform.Rect{X: 50, Y: 60, Width: 200, Height: 100}) {
			t.Errorf("unmanaged bounds = %+v", got.Bounds)
		}
		if x, y, err := c.WindowOrigin(ctx, uint32(ids[1])); err != nil || x != 300 || y != 200 {
			t.Errorf("WindowOrigin = %d,%d,%v", x, y, err)
		}
		if pid, err := c.WindowPid(ctx, uint32(ids[0])); err != nil || pid != os.Getpid() {
			t.Errorf("WindowPid(a forged _NET_WM_PID %d) = %d, %v; want the creator %d (X-Resource)", fakePid, pid, err, os.Getpid())
		}
		if pid, err := c.WindowPid(ctx, uint32(ids[1])); err != nil || pid != os.Getpid() {
			t.Errorf("WindowPid(XRes) = %d, %v; want %d", pid, err, os.Getpid())
		}
	})

	t.Run("root property", func(t *testing.T) {
		if s, err := c.RootProperty(ctx, "UISCOPE_TEST_ABSENT"); err != nil || s != "" {
			t.Errorf("absent property = %q, %v", s, err)
		}
		cl.setProp(cl.root, cl.atom("UISCOPE_TEST_BUS"), xproto.AtomString, 8, []byte("unix:path=/tmp/bus,guid=1\x00"))
		if s, err := c.RootProperty(ctx, "UISCOPE_TEST_BUS"); err != nil || s != "unix:path=/tmp/bus,guid=1" {
			t.Errorf("RootProperty = %q, %v", s, err)
		}
	})

	t.Run("vanished window", func(t *testing.T) {
		w := cl.create(winSpec{x: 5, y: 5, w: 20, h: 20, netName: "short-lived", class: "UiscopeTest"})
		if err := xproto.DestroyWindowChecked(cl.xc, w).Check(); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.WindowOrigin(ctx, uint32(w)); !errors.Is(err, platform.ErrElementGone) {
			t.Errorf("WindowOrigin(destroyed) err = %v", err)
		}
		if _, err := c.WindowPid(ctx, uint32(w)); !errors.Is(err, platform.ErrElementGone) {
			t.Errorf("WindowPid(destroyed) err = %v", err)
		}
		wins, err := c.TopLevels(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := find(wins, w); ok {
			t.Errorf("destroyed window listed")
		}
	})

	stopWM := startOpenbox(t, display)
	t.Run("openbox", func(t *testing.T) {
		waitFor(t, 30*time.Second, "openbox to manage the test windows", func() (bool, string) {
			wm, err := c.WindowManagerPresent(ctx)
			if err != nil {
				t.Fatal(err)
			}
			list := cl.clientList()
			if !wm || !slices.Contains(list, uint32(ids[0])) || !slices.Contains(list, uint32(ids[1])) {
				return false, fmt.Sprintf("wm=%v client list=%#x", wm, list)
			}
			return true, ""
		})
		waitFor(t, 30*time.Second, "managed windows with settled bounds", func() (bool, string) {
			wins, err := c.TopLevels(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if ok, seen := checkAll(wins, true); !ok {
				return false, seen
			}
			// The order is the window manager's.
			list := cl.clientList()
			var got []uint32
			for _, w := range wins {
				got = append(got, uint32(w.ID))
			}
			if !slices.Equal(got, list) {
				return false, fmt.Sprintf("order %#x, client list %#x", got, list)
			}
			return true, ""
		})
		// Reparented: the client's origin is not its position in its parent.
		for _, id := range ids[:2] {
			if p := cl.parent(id); p == cl.root {
				t.Errorf("window %#x not reparented by openbox", id)
			}
		}
		if _, err := c.ActiveWindow(ctx); err != nil {
			t.Errorf("ActiveWindow: %v", err)
		}
	})

	t.Run("window manager gone", func(t *testing.T) {
		stopWM()
		// Openbox leaves _NET_CLIENT_LIST behind; it must not be trusted.
		waitFor(t, 30*time.Second, "the stale client list to be ignored", func() (bool, string) {
			wm, err := c.WindowManagerPresent(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if wm {
				return false, "window manager still present"
			}
			wins, err := c.TopLevels(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return checkAll(wins, false)
		})
	})
}

func TestCancelledContext(t *testing.T) {
	display, _ := startXvfb(t)
	c, err := Open(display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if _, err := c.TopLevels(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("TopLevels(cancelled) err = %v", err)
	}
	if _, err := c.RootProperty(ctx, "AT_SPI_BUS"); !errors.Is(err, context.Canceled) {
		t.Errorf("RootProperty(cancelled) err = %v", err)
	}
	if _, _, err := c.WindowOrigin(ctx, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("WindowOrigin(cancelled) err = %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cancelled calls took %v", d)
	}
	if _, err := OpenContext(ctx, display); !errors.Is(err, context.Canceled) {
		t.Errorf("OpenContext(cancelled) err = %v", err)
	}
}

// A stopped X server accepts bytes but never answers: calls must still
// return by their deadline.
func TestHungServer(t *testing.T) {
	display, proc := startXvfb(t)
	c, err := Open(display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if err := proc.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// Registered after c.Close, so it runs first and Close is not stuck
	// behind a stopped server.
	t.Cleanup(func() { _ = proc.Signal(syscall.SIGCONT) })

	for _, call := range []struct {
		name string
		fn   func(ctx context.Context) error
	}{
		{"TopLevels", func(ctx context.Context) error { _, err := c.TopLevels(ctx); return err }},
		{"WindowManagerPresent", func(ctx context.Context) error { _, err := c.WindowManagerPresent(ctx); return err }},
		{"OpenContext", func(ctx context.Context) error {
			c2, err := OpenContext(ctx, display)
			if err == nil {
				c2.Close()
			}
			return err
		}},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		start := time.Now()
		err := call.fn(ctx)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s on a hung server: err = %v", call.name, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s on a hung server took %v", call.name, d)
		}
	}
}

// When the X server goes away, Done fires and calls fail instead of hanging.
func TestServerLost(t *testing.T) {
	display, proc := startXvfb(t)
	c, err := Open(display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if _, err := c.TopLevels(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if err := proc.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("Done not closed after the X server died")
	}
	if _, err := c.TopLevels(ctxT(t)); err == nil {
		t.Error("TopLevels on a lost connection succeeded")
	}
}
