//go:build linux

package x11

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/uiscope/uiscope/internal/platform"
)

// setProtocols makes win accept WM_DELETE_WINDOW.
func (c *client) setProtocols(win xproto.Window) {
	b := make([]byte, 4)
	xgb.Put32(b, uint32(c.atom("WM_DELETE_WINDOW")))
	c.setProp(win, c.atom("WM_PROTOCOLS"), xproto.AtomAtom, 32, b)
}

func (c *client) card32Prop(win xproto.Window, name string) []uint32 {
	r, err := xproto.GetProperty(c.xc, false, win, c.atom(name), xproto.GetPropertyTypeAny, 0, 1024).Reply()
	if err != nil {
		c.t.Fatal(err)
	}
	return propCard32List(r)
}

// expectDelete waits for a WM_DELETE_WINDOW message to win.
func (ec *evClient) expectDelete(win xproto.Window) {
	ec.t.Helper()
	protocols, del := ec.atom("WM_PROTOCOLS"), ec.atom("WM_DELETE_WINDOW")
	for {
		e, ok := ec.next().(xproto.ClientMessageEvent)
		if ok && e.Window == win && e.Type == protocols && e.Data.Data32[0] == uint32(del) {
			return
		}
	}
}

func TestWindows(t *testing.T) {
	display, _ := startXvfb(t)
	ec := newEventClient(t, display)
	c, err := Open(display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx := ctxT(t)

	// Two overlapping windows; b, created last, is on top. Only a accepts
	// WM_DELETE_WINDOW (openbox would kill b's client, the test itself).
	a := ec.inputWindow(100, 100, 300, 200, "a")
	ec.setProtocols(a)
	b := ec.inputWindow(250, 200, 300, 200, "b")
	const bogus = 0x3fffff0

	t.Run("no window manager", func(t *testing.T) {
		if err := c.ActivateWindow(ctx, uint32(a)); !errors.Is(err, ErrNoWindowManager) {
			t.Errorf("ActivateWindow err = %v", err)
		}
		for _, act := range []string{ActionMinimize, ActionMaximize, ActionRestore} {
			if err := c.WindowAction(ctx, uint32(a), act); !errors.Is(err, ErrNoWindowManager) {
				t.Errorf("%s err = %v", act, err)
			}
		}
		if err := c.WindowAction(ctx, uint32(b), ActionClose); !errors.Is(err, ErrNoWindowManager) {
			t.Errorf("close without WM_DELETE_WINDOW err = %v", err)
		}
		ec.drain()
		if err := c.WindowAction(ctx, uint32(a), ActionClose); err != nil {
			t.Errorf("close with WM_DELETE_WINDOW: %v", err)
		}
		ec.expectDelete(a)
		if err := c.WindowAction(ctx, bogus, ActionClose); !errors.Is(err, platform.ErrElementGone) {
			t.Errorf("close of a bogus window err = %v", err)
		}
		if err := c.WindowAction(ctx, uint32(a), "explode"); err == nil {
			t.Error("unknown action succeeded")
		}
	})

	t.Run("topmost without window manager", func(t *testing.T) {
		for _, tc := range []struct {
			x, y int
			want xproto.Window
		}{{300, 250, b}, {110, 110, a}, {540, 390, b}, {900, 700, 0}, {0, 0, 0}} {
			if got, err := c.TopmostAt(ctx, tc.x, tc.y); err != nil || got != uint32(tc.want) {
				t.Errorf("TopmostAt(%d,%d) = %#x, %v; want %#x", tc.x, tc.y, got, err, tc.want)
			}
		}
		if err := xproto.ConfigureWindowChecked(ec.xc, a, xproto.ConfigWindowStackMode, []uint32{xproto.StackModeAbove}).Check(); err != nil {
			t.Fatal(err)
		}
		if got, err := c.TopmostAt(ctx, 300, 250); err != nil || got != uint32(a) {
			t.Errorf("TopmostAt after raising a = %#x, %v; want %#x", got, err, a)
		}
	})

	startOpenbox(t, display)
	waitFor(t, 30*time.Second, "openbox to manage the test windows", func() (bool, string) {
		wm, err := c.WindowManagerPresent(ctx)
		if err != nil {
			t.Fatal(err)
		}
		list := ec.clientList()
		return wm && slices.Contains(list, uint32(a)) && slices.Contains(list, uint32(b)),
			fmt.Sprintf("wm=%v client list=%#x", wm, list)
	})

	t.Run("activate", func(t *testing.T) {
		for _, w := range []xproto.Window{a, b, a, b} {
			if err := c.ActivateWindow(ctx, uint32(w)); err != nil {
				t.Fatalf("ActivateWindow(%#x): %v", w, err)
			}
			if got := ec.card32Prop(ec.root, "_NET_ACTIVE_WINDOW"); len(got) != 1 || got[0] != uint32(w) {
				t.Errorf("_NET_ACTIVE_WINDOW = %#x, want %#x", got, w)
			}
		}
		if err := c.ActivateWindow(ctx, bogus); !errors.Is(err, platform.ErrElementGone) {
			t.Errorf("ActivateWindow(bogus) err = %v", err)
		}
	})

	t.Run("not activated", func(t *testing.T) {
		// A withdrawn (never mapped) window is not managed: openbox ignores
		// the request, whether the wait ends by the caller's deadline or by
		// the built-in bound.
		u := ec.create(winSpec{x: 10, y: 10, w: 50, h: 50, netName: "withdrawn", class: "UiscopeTest", leaveUnmapped: true})
		sctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		if err := c.ActivateWindow(sctx, uint32(u)); !errors.Is(err, ErrNotActivated) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("ActivateWindow(withdrawn, short deadline) err = %v", err)
		}
		start := time.Now()
		if err := c.ActivateWindow(ctx, uint32(u)); !errors.Is(err, ErrNotActivated) {
			t.Errorf("ActivateWindow(withdrawn) err = %v", err)
		}
		if d := time.Since(start); d < verifyTimeout || d > verifyTimeout+20*time.Second {
			t.Errorf("ActivateWindow(withdrawn) gave up after %v", d)
		}
		sctx, cancel = context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		if err := c.WindowAction(sctx, uint32(u), ActionMaximize); !errors.Is(err, ErrNotApplied) {
			t.Errorf("maximize(withdrawn) err = %v", err)
		}
	})

	t.Run("topmost under openbox", func(t *testing.T) {
		ax, ay := ec.origin(a)
		bx, by := ec.origin(b)
		// A point inside both client areas, and one on b's frame above its
		// client area but inside a's client area.
		both := [2]int{bx + 10, by + 10}
		bFrame := [2]int{bx + 10, by - 3}
		if bFrame[1] < ay || bFrame[1] <= 0 {
			t.Fatalf("unexpected layout: a at %d,%d, b at %d,%d", ax, ay, bx, by)
		}
		for _, w := range []xproto.Window{a, b} {
			if err := c.ActivateWindow(ctx, uint32(w)); err != nil {
				t.Fatal(err)
			}
			waitFor(t, 30*time.Second, fmt.Sprintf("window %#x on top", w), func() (bool, string) {
				got, err := c.TopmostAt(ctx, both[0], both[1])
				if err != nil {
					t.Fatal(err)
				}
				return got == uint32(w), fmt.Sprintf("%#x", got)
			})
		}
		// b is on top: its frame covers a.
		if got, err := c.TopmostAt(ctx, bFrame[0], bFrame[1]); err != nil || got != uint32(b) {
			t.Errorf("TopmostAt(b's frame) = %#x, %v; want %#x", got, err, b)
		}
		if got, err := c.TopmostAt(ctx, ax+5, ay+5); err != nil || got != uint32(a) {
			t.Errorf("TopmostAt(a only) = %#x, %v; want %#x", got, err, a)
		}
		if got, err := c.TopmostAt(ctx, 1000, 750); err != nil || got != 0 {
			t.Errorf("TopmostAt(empty) = %#x, %v; want 0", got, err)
		}
	})

	wmState := func(w xproto.Window) uint32 {
		if s := ec.card32Prop(w, "WM_STATE"); len(s) > 0 {
			return s[0]
		}
		return 0
	}
	netState := func(w xproto.Window) (vert, horz bool) {
		l := ec.card32Prop(w, "_NET_WM_STATE")
		return slices.Contains(l, uint32(ec.atom("_NET_WM_STATE_MAXIMIZED_VERT"))),
			slices.Contains(l, uint32(ec.atom("_NET_WM_STATE_MAXIMIZED_HORZ")))
	}

	t.Run("minimize and restore", func(t *testing.T) {
		if err := c.WindowAction(ctx, uint32(a), ActionMinimize); err != nil {
			t.Fatal(err)
		}
		if s := wmState(a); s != wmStateIconic {
			t.Errorf("WM_STATE after minimize = %d", s)
		}
		if err := c.WindowAction(ctx, uint32(a), ActionRestore); err != nil {
			t.Fatal(err)
		}
		if s := wmState(a); s != wmStateNormal {
			t.Errorf("WM_STATE after restore = %d", s)
		}
	})

	t.Run("maximize and restore", func(t *testing.T) {
		if err := c.WindowAction(ctx, uint32(b), ActionMaximize); err != nil {
			t.Fatal(err)
		}
		if v, h := netState(b); !v || !h {
			t.Errorf("_NET_WM_STATE after maximize: vert %v horz %v", v, h)
		}
		if err := c.WindowAction(ctx, uint32(b), ActionRestore); err != nil {
			t.Fatal(err)
		}
		if v, h := netState(b); v || h {
			t.Errorf("_NET_WM_STATE after restore: vert %v horz %v", v, h)
		}
	})

	t.Run("close", func(t *testing.T) {
		ec.drain()
		if err := c.WindowAction(ctx, uint32(a), ActionClose); err != nil {
			t.Fatal(err)
		}
		ec.expectDelete(a)
		if err := c.WindowAction(ctx, bogus, ActionMinimize); !errors.Is(err, platform.ErrElementGone) {
			t.Errorf("minimize of a bogus window err = %v", err)
		}
	})
}
