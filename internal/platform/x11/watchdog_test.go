//go:build linux

package x11

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/jezek/xgb/xtest"
)

// envWatchdogChild makes this test binary the watchdog (TestWatchdogChild).
const envWatchdogChild = "UISCOPE_X11_WATCHDOG_CHILD"

// TestWatchdogChild is the watchdog process of TestWatchdog, not a test.
func TestWatchdogChild(t *testing.T) {
	if display := os.Getenv(envWatchdogChild); display != "" {
		os.Exit(RunWatchdog(os.Stdin, display))
	}
}

// downNow reads the buttons and keycodes the server has down, on a
// connection of the test's.
func downNow(t *testing.T, c *Conn) ([]int, []int) {
	t.Helper()
	b, err := c.ButtonsDown(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	k, err := c.KeysDown(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	return b, k
}

// TestWatchdog: a connection's held key and button are released by its
// watchdog once the pipe to it closes (as when the owner is killed), with
// the owner's X connection still open: the X server itself would keep
// them down. What was released before is not released again.
func TestWatchdog(t *testing.T) {
	display, _ := startXvfb(t)
	obs, err := Open(display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(obs.Close)
	old := Watchdog
	t.Cleanup(func() { Watchdog = old })
	Watchdog.Command = func(display string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestWatchdogChild$")
		cmd.Env = append(os.Environ(), envWatchdogChild+"="+display)
		cmd.Stderr = os.Stderr
		return cmd
	}
	Watchdog.Log = os.Stderr
	c, err := Open(display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx := ctxT(t)
	shift, _ := ParseChord("Shift")
	ctrl, _ := ParseChord("Ctrl")
	if err := c.KeyDown(ctx, ctrl); err != nil {
		t.Fatal(err)
	}
	if err := c.KeyUp(ctx, ctrl); err != nil {
		t.Fatal(err)
	}
	if err := c.KeyDown(ctx, shift); err != nil {
		t.Fatal(err)
	}
	if err := c.ButtonDown(ctx, 10, 10, 1); err != nil {
		t.Fatal(err)
	}
	if b, k := downNow(t, obs); !slices.Contains(b, 1) || len(k) != 1 {
		t.Fatalf("while held: buttons %v, keycodes %v down", b, k)
	}
	if !c.wd.Running() {
		t.Fatal("no watchdog was started")
	}
	c.closeWatchdog() // the pipe closes, as it does when the owner dies
	waitFor(t, 20*time.Second, "the watchdog releases the key and the button", func() (bool, string) {
		b, k := downNow(t, obs)
		return len(b) == 0 && len(k) == 0, fmt.Sprintf("buttons %v, keycodes %v", b, k)
	})
	if _, err := c.KeysDown(ctx); err != nil {
		t.Errorf("the owner's connection is gone: %v", err)
	}
}

// TestHeldDown: the buttons down whoever pressed them; the modifiers
// down that this process's KeyDown did not press, by key name; Num Lock
// and Caps Lock on are not holds.
func TestHeldDown(t *testing.T) {
	display, _ := startXvfb(t)
	c, err := Open(display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	other, err := Open(display) // another program's input
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(other.Close)
	ctx := ctxT(t)
	if err := other.initXTest(); err != nil {
		t.Fatal(err)
	}
	km, err := other.readKeymap()
	if err != nil {
		t.Fatal(err)
	}
	kc := func(ks uint32) byte {
		k, _, ok := km.lookup(ks)
		if !ok {
			t.Fatalf("no key for keysym %#x", ks)
		}
		return byte(k)
	}
	tap := func(typ byte, detail byte) {
		xtest.FakeInput(other.xc, typ, detail, 0, other.root, 0, 0, 0)
		if err := other.roundTrip(); err != nil {
			t.Fatal(err)
		}
	}
	held := func() string {
		st, err := c.HeldDown(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(st.Buttons, st.Modifiers)
	}
	wait := func(want string) {
		t.Helper()
		waitFor(t, 10*time.Second, "HeldDown "+want, func() (bool, string) { got := held(); return got == want, got })
	}
	wait("[] []")
	for _, lock := range []uint32{0xff7f, 0xffe5} { // Num Lock, Caps Lock on
		tap(fakeKeyPress, kc(lock))
		tap(fakeKeyRelease, kc(lock))
	}
	shift, _ := ParseChord("Shift")
	if err := c.KeyDown(ctx, shift); err != nil {
		t.Fatal(err)
	}
	wait("[] []")
	tap(fakeKeyPress, kc(ksControlL))
	tap(fakeButtonPress, 3)
	wait("[3] [Control_L]")
	tap(fakeKeyPress, kc(ksShiftR))
	wait("[3] [Shift_R Control_L]")
	tap(fakeKeyRelease, kc(ksShiftR))
	tap(fakeKeyRelease, kc(ksControlL))
	tap(fakeButtonRelease, 3)
	if err := c.KeyUp(ctx, shift); err != nil {
		t.Fatal(err)
	}
	wait("[] []")
}
