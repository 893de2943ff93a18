//go:build linux

package x11

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/uiscope/uiscope/internal/platform"
)

// evClient is a test client that receives the events of its own windows:
// key, button and client-message events arrive on events, in order. It also
// records every keyboard mapping the server announces (MappingNotify), so
// that keycodes bound only for a moment can still be decoded.
type evClient struct {
	*client
	events chan xgb.Event

	mu sync.Mutex
	km *keymap // union of the mappings seen: entries are only ever filled
}

func newEventClient(t *testing.T, display string) *evClient {
	t.Helper()
	xc, err := xgb.NewConnDisplay(display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(xc.Close)
	// Mappings are read on a second connection: a reply on xc could queue
	// behind events the loop below has not taken yet.
	side := newClient(t, display)
	ec := &evClient{
		client: &client{t: t, xc: xc, root: xproto.Setup(xc).DefaultScreen(xc).Root},
		events: make(chan xgb.Event, 1<<15),
	}
	ec.km = ec.readKeymap(side)
	go func() {
		for {
			ev, err := xc.WaitForEvent()
			if ev == nil && err == nil {
				return
			}
			switch e := ev.(type) {
			case xproto.MappingNotifyEvent:
				if e.Request == xproto.MappingKeyboard {
					ec.recordMapping(side, e.FirstKeycode, e.Count)
				}
			case xproto.KeyPressEvent, xproto.KeyReleaseEvent, xproto.ButtonPressEvent,
				xproto.ButtonReleaseEvent, xproto.ClientMessageEvent:
				select {
				case ec.events <- ev:
				default:
					panic("test event buffer full")
				}
			}
		}
	}()
	return ec
}

func (ec *evClient) readKeymap(side *client) *keymap {
	c := &Conn{xc: side.xc}
	km, err := c.readKeymap()
	if err != nil {
		ec.t.Error(err)
		return nil
	}
	return km
}

func (ec *evClient) recordMapping(side *client, first xproto.Keycode, count byte) {
	r, err := xproto.GetKeyboardMapping(side.xc, first, count).Reply()
	if err != nil || r == nil {
		return
	}
	ec.mu.Lock()
	defer ec.mu.Unlock()
	per := int(r.KeysymsPerKeycode)
	for i := range int(count) {
		src := r.Keysyms[i*per : (i+1)*per]
		if !slices.ContainsFunc(src, func(s xproto.Keysym) bool { return s != 0 }) {
			continue
		}
		dst := ec.km.syms[(int(first)+i-int(ec.km.min))*ec.km.per:]
		for j := range min(per, ec.km.per) {
			dst[j] = src[j]
		}
	}
}

// keysym decodes a key event as the client would have.
func (ec *evClient) keysym(kc xproto.Keycode, state uint16) uint32 {
	ec.mu.Lock()
	defer ec.mu.Unlock()
	l0, l1 := ec.km.levels(kc)
	if state&xproto.ModMaskShift != 0 {
		return l1
	}
	return l0
}

// next returns the next event, failing the test after a generous timeout.
func (ec *evClient) next() xgb.Event {
	ec.t.Helper()
	select {
	case ev := <-ec.events:
		return ev
	case <-time.After(30 * time.Second):
		ec.t.Fatal("timed out waiting for an X event")
		return nil
	}
}

func (ec *evClient) drain() {
	for {
		select {
		case <-ec.events:
		default:
			return
		}
	}
}

// inputWindow creates a mapped window at (x, y) that selects key and button
// events, and waits until it is viewable.
func (ec *evClient) inputWindow(x, y, w, h int, name string) xproto.Window {
	ec.t.Helper()
	win := ec.create(winSpec{x: x, y: y, w: w, h: h, netName: name, instance: name, class: "UiscopeTest"})
	mask := uint32(xproto.EventMaskKeyPress | xproto.EventMaskKeyRelease |
		xproto.EventMaskButtonPress | xproto.EventMaskButtonRelease)
	if err := xproto.ChangeWindowAttributesChecked(ec.xc, win, xproto.CwEventMask, []uint32{mask}).Check(); err != nil {
		ec.t.Fatal(err)
	}
	waitFor(ec.t, 30*time.Second, "the test window to be viewable", func() (bool, string) {
		a, err := xproto.GetWindowAttributes(ec.xc, win).Reply()
		if err != nil {
			ec.t.Fatal(err)
		}
		return a.MapState == xproto.MapStateViewable, fmt.Sprintf("map state %d", a.MapState)
	})
	return win
}

func (ec *evClient) focus(win xproto.Window) {
	ec.t.Helper()
	if err := xproto.SetInputFocusChecked(ec.xc, xproto.InputFocusParent, win, xproto.TimeCurrentTime).Check(); err != nil {
		ec.t.Fatal(err)
	}
}

// keysDown lists the keycodes the server reports down.
func (ec *evClient) keysDown() []int {
	r, err := xproto.QueryKeymap(ec.xc).Reply()
	if err != nil {
		ec.t.Fatal(err)
	}
	var down []int
	for i, b := range r.Keys {
		for bit := range 8 {
			if b&(1<<bit) != 0 {
				down = append(down, i*8+bit)
			}
		}
	}
	return down
}

// mapping returns the server's current core keyboard mapping.
func (ec *evClient) mapping() []xproto.Keysym {
	ec.t.Helper()
	km, err := (&Conn{xc: ec.xc}).readKeymap()
	if err != nil {
		ec.t.Fatal(err)
	}
	return km.syms
}

type keyEv struct {
	press bool
	kc    xproto.Keycode
	state uint16
}

// keyEvents reads key events until n presses of keys other than modifiers
// have arrived, and then until every key is released again.
func (ec *evClient) keyEvents(n int, isMod func(xproto.Keycode) bool) []keyEv {
	ec.t.Helper()
	var out []keyEv
	presses, down := 0, map[xproto.Keycode]bool{}
	for presses < n || len(down) > 0 {
		switch e := ec.next().(type) {
		case xproto.KeyPressEvent:
			out = append(out, keyEv{true, e.Detail, e.State})
			down[e.Detail] = true
			if !isMod(e.Detail) {
				presses++
			}
		case xproto.KeyReleaseEvent:
			out = append(out, keyEv{false, e.Detail, e.State})
			delete(down, e.Detail)
		}
	}
	return out
}

func newInputFixture(t *testing.T) (*Conn, *evClient, xproto.Window) {
	display, _ := startXvfb(t)
	ec := newEventClient(t, display)
	c, err := Open(display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	win := ec.inputWindow(100, 100, 300, 200, "input")
	ec.focus(win)
	return c, ec, win
}

func TestKeyboard(t *testing.T) {
	old := bindSettle.Load()
	// Long enough for the test client to read a binding before it goes,
	// even on a loaded machine.
	bindSettle.Store(int64(2 * time.Second))
	t.Cleanup(func() { bindSettle.Store(old) })
	lingerFor(t, 2*time.Second)

	c, ec, _ := newInputFixture(t)
	ctx := ctxT(t)
	initial := ec.mapping()
	km := ec.km
	isMod := func(kc xproto.Keycode) bool {
		return slices.ContainsFunc(km.mods[:], func(kcs []xproto.Keycode) bool { return slices.Contains(kcs, kc) })
	}
	kcOf := func(ks uint32) xproto.Keycode {
		kc, _, ok := km.lookup(ks)
		if !ok {
			t.Fatalf("keysym %#x not in the test keymap", ks)
		}
		return kc
	}
	ctrl, shift, aKey := kcOf(ksControlL), kcOf(ksShiftL), kcOf('a')
	noKeysDown := func() (bool, string) {
		d := ec.keysDown()
		return len(d) == 0, fmt.Sprintf("keycodes down: %v", d)
	}

	t.Run("chord", func(t *testing.T) {
		ec.drain()
		ch, err := platform.ParseChord("Ctrl+Shift+a")
		if err != nil {
			t.Fatal(err)
		}
		if err := c.KeyChord(ctx, ch); err != nil {
			t.Fatal(err)
		}
		got := ec.keyEvents(1, isMod)
		const cs = xproto.ModMaskControl | xproto.ModMaskShift
		want := []keyEv{
			{true, ctrl, 0}, {true, shift, xproto.ModMaskControl}, {true, aKey, cs},
			{false, aKey, cs}, {false, shift, cs}, {false, ctrl, xproto.ModMaskControl},
		}
		if !slices.Equal(got, want) {
			t.Errorf("events %+v\nwant %+v", got, want)
		}
		if ok, seen := noKeysDown(); !ok {
			t.Errorf("after the chord: %s", seen)
		}
		// A capital letter alone is typed with Shift.
		ch, _ = platform.ParseChord("A")
		if err := c.KeyChord(ctx, ch); err != nil {
			t.Fatal(err)
		}
		got = ec.keyEvents(1, isMod)
		want = []keyEv{{true, shift, 0}, {true, aKey, xproto.ModMaskShift}, {false, aKey, xproto.ModMaskShift}, {false, shift, xproto.ModMaskShift}}
		if !slices.Equal(got, want) {
			t.Errorf("chord A: events %+v\nwant %+v", got, want)
		}
		if err := c.KeyChord(ctx, Chord{}); err == nil {
			t.Error("KeyChord(empty chord) succeeded")
		}
	})

	t.Run("chord with a bound key", func(t *testing.T) {
		ec.drain()
		ch, _ := platform.ParseChord("Ctrl+€")
		if err := c.KeyChord(ctx, ch); err != nil {
			t.Fatal(err)
		}
		got := ec.keyEvents(1, isMod)
		if len(got) != 4 || got[1].state != xproto.ModMaskControl || ec.keysym(got[1].kc, got[1].state) != 0x010020ac {
			t.Errorf("events %+v", got)
		}
		waitFor(t, 30*time.Second, "the keyboard mapping restored after the chord", func() (bool, string) {
			return slices.Equal(ec.mapping(), initial), "mapping differs"
		})
	})

	t.Run("type", func(t *testing.T) {
		ec.drain()
		const text = "Hi! A_b@# é€"
		n, err := c.TypeText(ctx, text)
		if err != nil || n != len([]rune(text)) {
			t.Fatalf("TypeText = %d, %v", n, err)
		}
		evs := ec.keyEvents(n, isMod)
		var b strings.Builder
		var spareUsed bool
		for _, e := range evs {
			if !e.press || isMod(e.kc) {
				continue
			}
			ks := ec.keysym(e.kc, e.state)
			if r, ok := keysymRune(ks); ok {
				b.WriteRune(r)
			} else {
				fmt.Fprintf(&b, "<%#x>", ks)
			}
			i := (int(e.kc) - int(km.min)) * km.per
			if initial[i] == 0 {
				spareUsed = true
			}
		}
		if b.String() != text {
			t.Errorf("typed %q, want %q; events %+v", b.String(), text, evs)
		}
		if !spareUsed {
			t.Error("no spare keycode was used; the test keymap has é or €?")
		}
		waitFor(t, 30*time.Second, "the keyboard mapping restored after typing", func() (bool, string) {
			return slices.Equal(ec.mapping(), initial), "mapping differs"
		})
		if ok, seen := noKeysDown(); !ok {
			t.Errorf("after typing: %s", seen)
		}
	})

	t.Run("type rejects", func(t *testing.T) {
		for _, s := range []string{"ok\x07", "\xff", strings.Repeat("a", MaxTypeRunes+1)} {
			if n, err := c.TypeText(ctx, s); err == nil || n != 0 {
				t.Errorf("TypeText(%.20q) = %d, %v", s, n, err)
			}
		}
		if n, err := c.TypeText(ctx, ""); err != nil || n != 0 {
			t.Errorf("TypeText(\"\") = %d, %v", n, err)
		}
	})

	t.Run("cancelled while typing", func(t *testing.T) {
		ec.drain()
		text := "é" + strings.Repeat("aB", 1000)
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		type result struct {
			n   int
			err error
		}
		done := make(chan result, 1)
		go func() {
			n, err := c.TypeText(cctx, text)
			done <- result{n, err}
		}()
		for {
			if _, ok := ec.next().(xproto.KeyPressEvent); ok {
				break
			}
		}
		cancel()
		r := <-done
		if !errors.Is(r.err, context.Canceled) {
			t.Fatalf("TypeText after cancel = %d, %v", r.n, r.err)
		}
		t.Logf("typed %d of %d characters before the cancellation took effect", r.n, len([]rune(text)))
		waitFor(t, 30*time.Second, "all keys up after cancelling", noKeysDown)
		waitFor(t, 30*time.Second, "the spare keycode unbound after cancelling", func() (bool, string) {
			return slices.Equal(ec.mapping(), initial), "mapping differs"
		})
	})

	t.Run("concurrent chords do not interleave", func(t *testing.T) {
		// Events of the cancelled sequence may still be on their way: type
		// a marker and skip everything up to its release.
		if err := c.KeyChord(ctx, Chord{Key: 'z'}); err != nil {
			t.Fatal(err)
		}
		for z := kcOf('z'); ; {
			if e, ok := ec.next().(xproto.KeyReleaseEvent); ok && e.Detail == z {
				break
			}
		}
		ch, _ := platform.ParseChord("Ctrl+Shift+a")
		const workers, each = 4, 3
		var wg sync.WaitGroup
		errs := make(chan error, workers*each)
		for range workers {
			wg.Go(func() {
				for range each {
					errs <- c.KeyChord(ctx, ch)
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		got := ec.keyEvents(workers*each, isMod)
		one := []keyEv{
			{true, ctrl, 0}, {true, shift, 4}, {true, aKey, 5},
			{false, aKey, 5}, {false, shift, 5}, {false, ctrl, 4},
		}
		var want []keyEv
		for range workers * each {
			want = append(want, one...)
		}
		if !slices.Equal(got, want) {
			t.Errorf("interleaved events: %+v", got)
		}
	})
}

func TestPointer(t *testing.T) {
	c, ec, win := newInputFixture(t)
	ctx := ctxT(t)

	buttons := func(n int) []xproto.ButtonPressEvent {
		t.Helper()
		var out []xproto.ButtonPressEvent
		for len(out) < n {
			switch e := ec.next().(type) {
			case xproto.ButtonPressEvent:
				out = append(out, e)
			case xproto.ButtonReleaseEvent:
				e.Sequence = 0xffff // mark releases
				out = append(out, xproto.ButtonPressEvent(e))
			}
		}
		return out
	}
	type btn struct {
		press  bool
		button byte
		x, y   int16
	}
	simplify := func(evs []xproto.ButtonPressEvent) []btn {
		var out []btn
		for _, e := range evs {
			if e.Event != win {
				t.Errorf("event for window %#x, want %#x", e.Event, win)
			}
			out = append(out, btn{e.Sequence != 0xffff, byte(e.Detail), e.EventX, e.EventY})
		}
		return out
	}

	t.Run("click", func(t *testing.T) {
		ec.drain()
		if err := c.Click(ctx, 150, 170, 1, 1); err != nil {
			t.Fatal(err)
		}
		if got, want := simplify(buttons(2)), []btn{{true, 1, 50, 70}, {false, 1, 50, 70}}; !slices.Equal(got, want) {
			t.Errorf("click: %+v, want %+v", got, want)
		}
		if err := c.Click(ctx, 399, 299, 3, 2); err != nil {
			t.Fatal(err)
		}
		want := []btn{{true, 3, 299, 199}, {false, 3, 299, 199}, {true, 3, 299, 199}, {false, 3, 299, 199}}
		if got := simplify(buttons(4)); !slices.Equal(got, want) {
			t.Errorf("double right click: %+v, want %+v", got, want)
		}
	})

	t.Run("scroll", func(t *testing.T) {
		ec.drain()
		if err := c.Scroll(ctx, 110, 120, -1, 2); err != nil {
			t.Fatal(err)
		}
		want := []btn{{true, 5, 10, 20}, {false, 5, 10, 20}, {true, 5, 10, 20}, {false, 5, 10, 20}, {true, 6, 10, 20}, {false, 6, 10, 20}}
		if got := simplify(buttons(6)); !slices.Equal(got, want) {
			t.Errorf("scroll: %+v, want %+v", got, want)
		}
		if err := c.Scroll(ctx, 110, 120, 0, 0); err == nil {
			t.Error("Scroll(0,0) succeeded")
		}
		if err := c.Scroll(ctx, 110, 120, 0, 101); err == nil {
			t.Error("Scroll(0,101) succeeded")
		}
	})

	t.Run("move and position", func(t *testing.T) {
		if err := c.MovePointer(ctx, 10, 20); err != nil {
			t.Fatal(err)
		}
		if x, y, err := c.PointerPosition(ctx); err != nil || x != 10 || y != 20 {
			t.Errorf("PointerPosition = %d,%d,%v", x, y, err)
		}
		if err := c.MovePointer(ctx, 1023, 767); err != nil {
			t.Fatal(err)
		}
		if x, y, err := c.PointerPosition(ctx); err != nil || x != 1023 || y != 767 {
			t.Errorf("PointerPosition = %d,%d,%v", x, y, err)
		}
	})

	t.Run("offscreen", func(t *testing.T) {
		for _, p := range [][2]int{{-1, 5}, {5, -1}, {1024, 0}, {0, 768}, {100000, 100000}} {
			if err := c.Click(ctx, p[0], p[1], 1, 1); !errors.Is(err, ErrOffscreen) {
				t.Errorf("Click(%v) err = %v", p, err)
			}
			if err := c.MovePointer(ctx, p[0], p[1]); !errors.Is(err, ErrOffscreen) {
				t.Errorf("MovePointer(%v) err = %v", p, err)
			}
			if err := c.Scroll(ctx, p[0], p[1], 0, 1); !errors.Is(err, ErrOffscreen) {
				t.Errorf("Scroll(%v) err = %v", p, err)
			}
			if _, err := c.TopmostAt(ctx, p[0], p[1]); !errors.Is(err, ErrOffscreen) {
				t.Errorf("TopmostAt(%v) err = %v", p, err)
			}
		}
		// The pointer did not move.
		if x, y, err := c.PointerPosition(ctx); err != nil || x != 1023 || y != 767 {
			t.Errorf("PointerPosition = %d,%d,%v", x, y, err)
		}
	})

	t.Run("bad arguments", func(t *testing.T) {
		for _, a := range [][2]int{{0, 1}, {4, 1}, {10, 1}, {1, 0}, {1, 4}} {
			if err := c.Click(ctx, 150, 170, a[0], a[1]); err == nil {
				t.Errorf("Click(button %d, count %d) succeeded", a[0], a[1])
			}
		}
	})

	t.Run("cancelled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if err := c.Click(cctx, 150, 170, 1, 1); !errors.Is(err, context.Canceled) {
			t.Errorf("Click(cancelled) err = %v", err)
		}
		if _, err := c.TypeText(cctx, "x"); !errors.Is(err, context.Canceled) {
			t.Errorf("TypeText(cancelled) err = %v", err)
		}
	})
}

// TestTypeTextChecked: the check runs before the first character and every
// few after; its failure stops the typing there, with the count typed and
// the check's own error, and the keys and keymap are left as they were.
func TestTypeTextChecked(t *testing.T) {
	old := bindSettle.Load()
	bindSettle.Store(int64(2 * time.Second))
	t.Cleanup(func() { bindSettle.Store(old) })
	lingerFor(t, 2*time.Second)
	c, ec, _ := newInputFixture(t)
	ctx := ctxT(t)
	initial := ec.mapping()
	isMod := func(kc xproto.Keycode) bool {
		return slices.ContainsFunc(ec.km.mods[:], func(kcs []xproto.Keycode) bool { return slices.Contains(kcs, kc) })
	}
	errMoved := errors.New("the window moved away")
	calls := 0
	n, err := c.TypeTextChecked(ctx, "é1€2é3€4", 2, func(context.Context) error {
		calls++
		if calls == 3 {
			return errMoved
		}
		return nil
	})
	if n != 4 || !errors.Is(err, errMoved) || calls != 3 {
		t.Fatalf("TypeTextChecked = %d, %v after %d checks; want 4, the check's error, 3 checks", n, err, calls)
	}
	var b strings.Builder
	for _, e := range ec.keyEvents(n, isMod) {
		if e.press && !isMod(e.kc) {
			r, _ := keysymRune(ec.keysym(e.kc, e.state))
			b.WriteRune(r)
		}
	}
	if b.String() != "é1€2" {
		t.Errorf("typed %q, want %q", b.String(), "é1€2")
	}
	if d := ec.keysDown(); len(d) != 0 {
		t.Errorf("keycodes left down: %v", d)
	}
	waitFor(t, 30*time.Second, "the keyboard mapping restored after a stopped typing", func() (bool, string) {
		return slices.Equal(ec.mapping(), initial), "mapping differs"
	})
}

// lingerFor sets bindLinger for one test.
func lingerFor(t *testing.T, d time.Duration) {
	old := bindLinger.Load()
	bindLinger.Store(int64(d))
	t.Cleanup(func() { bindLinger.Store(old) })
}

// TestBindingsLinger: a keycode bound for a missing character stays bound
// after the call and is reused by the next one without a mapping change; a
// binding another client remapped meanwhile is neither typed with nor
// cleared; Close restores what is left.
func TestBindingsLinger(t *testing.T) {
	lingerFor(t, time.Hour)
	display, _ := startXvfb(t)
	ec := newEventClient(t, display)
	c, err := Open(display)
	if err != nil {
		t.Fatal(err)
	}
	win := ec.inputWindow(100, 100, 300, 200, "input")
	ec.focus(win)
	ctx := ctxT(t)
	initial := ec.mapping()
	isMod := func(kc xproto.Keycode) bool {
		return slices.ContainsFunc(ec.km.mods[:], func(kcs []xproto.Keycode) bool { return slices.Contains(kcs, kc) })
	}
	typeOne := func(text string) keyEv {
		t.Helper()
		if n, err := c.TypeText(ctx, text); err != nil || n != 1 {
			t.Fatalf("TypeText(%q) = %d, %v", text, n, err)
		}
		for _, e := range ec.keyEvents(1, isMod) {
			if e.press && !isMod(e.kc) {
				return e
			}
		}
		t.Fatalf("TypeText(%q): no key press seen", text)
		return keyEv{}
	}
	first := typeOne("é")
	bound := ec.mapping()
	if slices.Equal(bound, initial) {
		t.Fatal("no keycode bound for é after the call")
	}
	if second := typeOne("é"); second.kc != first.kc {
		t.Errorf("the second é used keycode %d, the first %d: the binding was not reused", second.kc, first.kc)
	}
	if !slices.Equal(ec.mapping(), bound) {
		t.Error("the mapping changed although the binding was reused")
	}

	if err := c.KeyDown(ctx, Chord{Key: uint32(platform.RuneKeysym('é'))}); err == nil {
		t.Error("KeyDown(é) held the keycode typing bound for it")
	}

	// Another client takes the keycode for something else.
	km := &keymap{min: ec.km.min, per: ec.km.per}
	other := make([]xproto.Keysym, km.per)
	other[0], other[1] = 0x01002603, 0x01002603 // ☃
	if err := xproto.ChangeKeyboardMappingChecked(ec.xc, 1, first.kc, byte(km.per), other).Check(); err != nil {
		t.Fatal(err)
	}
	i := (int(first.kc) - int(km.min)) * km.per
	waitFor(t, 30*time.Second, "the other client's mapping", func() (bool, string) {
		m := ec.mapping()
		return m[i] == 0x01002603, fmt.Sprintf("keysym %#x", m[i])
	})
	// The server fills the other levels as it sees fit.
	otherRow := slices.Clone(ec.mapping()[i : i+km.per])
	third := typeOne("é")
	if ks := ec.keysym(third.kc, third.state); ks != uint32(platform.RuneKeysym('é')) {
		t.Errorf("é typed as keysym %#x on keycode %d (the remapped one is %d)", ks, third.kc, first.kc)
	}

	c.Close()
	waitFor(t, 30*time.Second, "the bindings restored by Close, the other client's kept", func() (bool, string) {
		m := ec.mapping()
		want := slices.Clone(initial)
		copy(want[i:i+km.per], otherRow)
		var diff []string
		for j := range m {
			if m[j] != want[j] {
				diff = append(diff, fmt.Sprintf("keycode %d level %d: %#x, want %#x", int(km.min)+j/km.per, j%km.per, m[j], want[j]))
			}
		}
		return len(diff) == 0, strings.Join(diff, "; ")
	})
}
