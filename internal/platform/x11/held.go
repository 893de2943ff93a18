//go:build linux

package x11

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"github.com/uiscope/uiscope/internal/platform"
)

// Held input: a button pressed by one call and released by a later one (a
// drag). Unlike Click, nothing here releases on its own: the caller owns
// what it pressed and must release it (core/held.go does, on every way a
// hold can end).

// ErrNotHeld: the server does not show the button in the state a held
// input call left it in.
var ErrNotHeld = errors.New("the X server does not report the button in the state it was put in")

// buttonMask is the core protocol's state bit of buttons 1 to 5.
func buttonMask(button int) uint16 { return uint16(xproto.ButtonMask1) << (button - 1) }

// checkHeldButton accepts the buttons whose state X reports (1 to 3: the
// wheel's 4 to 7 are clicks, 8 and 9 have no state bit).
func checkHeldButton(button int) error {
	if button < 1 || button > 3 {
		return fmt.Errorf("x11: button %d: only buttons 1 (left), 2 (middle) and 3 (right) can be held", button)
	}
	return nil
}

// ButtonDown moves the pointer to (x, y) and presses button, leaving it
// down, and verifies the server reports it down.
func (c *Conn) ButtonDown(ctx context.Context, x, y, button int) error {
	if err := checkHeldButton(button); err != nil {
		return err
	}
	return c.input(ctx, func(ctx context.Context) error {
		if err := c.onscreen(x, y); err != nil {
			return err
		}
		c.fakeMotion(x, y)
		c.note("b", button, true) // before it goes down: see watchdog.go
		xtest.FakeInput(c.xc, fakeButtonPress, byte(button), 0, c.root, 0, 0, 0)
		return c.expectButton(button, true)
	})
}

// ButtonUp releases button wherever the pointer is and verifies the server
// reports it up. Releasing a button that is up is harmless to X, so a
// caller unsure of the state may always call it.
func (c *Conn) ButtonUp(ctx context.Context, button int) error {
	if err := checkHeldButton(button); err != nil {
		return err
	}
	_, err := call(ctx, func(ctx context.Context) (struct{}, error) {
		inputMu.Lock()
		defer inputMu.Unlock()
		if err := c.initXTest(); err != nil { // no ctx check: a release is always sent
			return struct{}{}, err
		}
		xtest.FakeInput(c.xc, fakeButtonRelease, byte(button), 0, c.root, 0, 0, 0)
		if err := c.expectButton(button, false); err != nil {
			return struct{}{}, err
		}
		c.note("b", button, false)
		return struct{}{}, nil
	})
	return err
}

// DragTo moves the pointer to (x, y) in steps, so that a toolkit sees a
// drag pass its threshold and follows it the way it follows a hand, and
// verifies the pointer arrived.
func (c *Conn) DragTo(ctx context.Context, x, y int) error {
	return c.input(ctx, func(ctx context.Context) error {
		if err := c.onscreen(x, y); err != nil {
			return err
		}
		r, err := c.queryPointer()
		if err != nil {
			return err
		}
		const steps = 8
		x0, y0 := int(r.RootX), int(r.RootY)
		for i := 1; i <= steps; i++ {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("x11: move: %w", err)
			}
			c.fakeMotion(x0+(x-x0)*i/steps, y0+(y-y0)*i/steps)
			if err := c.roundTrip(); err != nil {
				return err
			}
		}
		if err := settleState(func() (bool, error) {
			r, err = c.queryPointer()
			return err == nil && int(r.RootX) == x && int(r.RootY) == y, err
		}); err != nil {
			return err
		}
		if int(r.RootX) != x || int(r.RootY) != y {
			return fmt.Errorf("x11: the pointer is at %d,%d, not %d,%d: %w", r.RootX, r.RootY, x, y, ErrNotHeld)
		}
		return nil
	})
}

// ButtonsDown lists the buttons 1 to 5 the server reports down now.
func (c *Conn) ButtonsDown(ctx context.Context) ([]int, error) {
	return call(ctx, func(ctx context.Context) ([]int, error) {
		r, err := c.queryPointer()
		if err != nil {
			return nil, err
		}
		var out []int
		for b := 1; b <= 5; b++ {
			if r.Mask&buttonMask(b) != 0 {
				out = append(out, b)
			}
		}
		return out, nil
	})
}

// KeysDown lists the keycodes the server reports down now (QueryKeymap).
func (c *Conn) KeysDown(ctx context.Context) ([]int, error) {
	return call(ctx, func(ctx context.Context) ([]int, error) {
		r, err := c.queryKeymap()
		if err != nil {
			return nil, err
		}
		var out []int
		for i, b := range r.Keys {
			for bit := range 8 {
				if b&(1<<bit) != 0 {
					out = append(out, i*8+bit)
				}
			}
		}
		return out, nil
	})
}

func (c *Conn) queryPointer() (*xproto.QueryPointerReply, error) {
	r, err := xproto.QueryPointer(c.xc, c.root).Reply()
	if err != nil {
		return nil, fmt.Errorf("x11: querying the pointer: %w", err)
	}
	if r == nil {
		return nil, errors.New("x11: querying the pointer: connection closed")
	}
	return r, nil
}

func (c *Conn) queryKeymap() (*xproto.QueryKeymapReply, error) {
	r, err := xproto.QueryKeymap(c.xc).Reply()
	if err != nil {
		return nil, fmt.Errorf("x11: querying the keymap: %w", err)
	}
	if r == nil {
		return nil, errors.New("x11: querying the keymap: connection closed")
	}
	return r, nil
}

// expectButton waits for the server to have processed the input sent and
// checks the button's state.
func (c *Conn) expectButton(button int, down bool) error {
	var r *xproto.QueryPointerReply
	err := settleState(func() (bool, error) {
		var err error
		r, err = c.queryPointer()
		return err == nil && (r.Mask&buttonMask(button) != 0) == down, err
	})
	if err != nil {
		return err
	}
	if (r.Mask&buttonMask(button) != 0) != down {
		state := "up"
		if !down {
			state = "down"
		}
		return fmt.Errorf("x11: button %d is still %s: %w", button, state, ErrNotHeld)
	}
	return nil
}

// heldKeys maps the keysym of each key KeyDown left down to the keycode it
// pressed, so that KeyUp releases that very key even if the layout
// changed meanwhile. Guarded by inputMu, as all input.
var heldKeys = map[uint32]xproto.Keycode{}

// KeyDown presses one key (a chord of a key alone: "Shift", "a", "F5") and
// leaves it down, verified by QueryKeymap. A key the layout lacks, or has
// only on the shifted level, is refused: a held key is a physical key, and
// a spare keycode bound to it could not stay bound for the hold's length.
func (c *Conn) KeyDown(ctx context.Context, ch Chord) error {
	if ch.Key == 0 || ch.Mods != 0 {
		return fmt.Errorf("x11: %s is not one key; hold each key of a chord with its own call", ch)
	}
	return c.input(ctx, func(ctx context.Context) error {
		km, err := c.readKeymap()
		if err != nil {
			return err
		}
		kc, shift, ok := km.lookup(ch.Key)
		switch {
		case !ok || slices.Contains(slices.Collect(maps.Values(c.keys.bound)), kc):
			// A keycode typing bound for a missing character is no key of
			// the layout: it loses its keysym after bindLinger.
			return fmt.Errorf("x11: the keyboard layout has no key for %s, so it cannot be held", keysymDesc(ch.Key))
		case shift:
			return fmt.Errorf("x11: %s is on a key's shifted level; hold Shift and the key's unshifted character instead", keysymDesc(ch.Key))
		}
		c.note("k", int(kc), true) // before it goes down: see watchdog.go
		xtest.FakeInput(c.xc, fakeKeyPress, byte(kc), 0, c.root, 0, 0, 0)
		heldKeys[ch.Key] = kc
		return c.expectKey(kc, true)
	})
}

// KeyUp releases a key KeyDown pressed (or, unknown to it, the layout's key
// for it), verified by QueryKeymap. Releasing a key that is up is harmless.
func (c *Conn) KeyUp(ctx context.Context, ch Chord) error {
	_, err := call(ctx, func(ctx context.Context) (struct{}, error) {
		inputMu.Lock()
		defer inputMu.Unlock()
		if err := c.initXTest(); err != nil { // no ctx check: a release is always sent
			return struct{}{}, err
		}
		kc, ok := heldKeys[ch.Key]
		if !ok {
			km, err := c.readKeymap()
			if err != nil {
				return struct{}{}, err
			}
			if kc, _, ok = km.lookup(ch.Key); !ok {
				return struct{}{}, fmt.Errorf("x11: the keyboard layout has no key for %s", keysymDesc(ch.Key))
			}
		}
		xtest.FakeInput(c.xc, fakeKeyRelease, byte(kc), 0, c.root, 0, 0, 0)
		delete(heldKeys, ch.Key)
		if err := c.expectKey(kc, false); err != nil {
			return struct{}{}, err
		}
		c.note("k", int(kc), false)
		return struct{}{}, nil
	})
	return err
}

// expectKey waits for the server to have processed the input sent and
// checks the key's state.
func (c *Conn) expectKey(kc xproto.Keycode, down bool) error {
	var r *xproto.QueryKeymapReply
	err := settleState(func() (bool, error) {
		var err error
		r, err = c.queryKeymap()
		if err != nil {
			return false, err
		}
		return (r.Keys[kc/8]&(1<<(kc%8)) != 0) == down, nil
	})
	if err != nil {
		return err
	}
	if (r.Keys[kc/8]&(1<<(kc%8)) != 0) != down {
		state := "up"
		if !down {
			state = "down"
		}
		return fmt.Errorf("x11: keycode %d is still %s: %w", kc, state, ErrNotHeld)
	}
	return nil
}

// stateSettle bounds how long a held-input call waits for the server to
// show the state it asked for. The server queues XTest's events and
// processes them with its input, not always before the client's next
// request (a release read back at once was seen still down, about one
// run in three), so the state is read until it shows or this passes.
const stateSettle = time.Second

// settleState reads until done reports the state shows, an error, or
// stateSettle passes (then the last read stands).
func settleState(read func() (bool, error)) error {
	deadline := time.Now().Add(stateSettle)
	for {
		ok, err := read()
		if ok || err != nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// modBitNames are the core protocol's eight modifier bits, in mask order.
var modBitNames = [8]string{"Shift", "Lock", "Control", "Mod1", "Mod2", "Mod3", "Mod4", "Mod5"}

// lockKeysyms are the keys whose modifier is a lock, on while the key is
// up: Caps Lock, Shift Lock, Num Lock, Scroll Lock.
var lockKeysyms = []uint32{0xffe5, 0xffe6, 0xff7f, 0xff14}

// HeldDown reports what the server has down that could bend the next
// input: every pointer button 1 to 5, and each modifier down (a key of it
// pressed, or the modifier latched or locked) that no key KeyDown holds
// accounts for. Locks (Caps Lock, Num Lock: their modifier is on while
// the key is up) are left out. Keys that are not modifiers are not
// reported: they do not change what another key or a click means.
func (c *Conn) HeldDown(ctx context.Context) (platform.HeldState, error) {
	return call(ctx, func(ctx context.Context) (platform.HeldState, error) {
		// heldKeys is inputMu's; a sequence that holds it finishes first.
		inputMu.Lock()
		defer inputMu.Unlock()
		var st platform.HeldState
		r, err := c.queryPointer()
		if err != nil {
			return st, err
		}
		for b := 1; b <= 5; b++ {
			if r.Mask&buttonMask(b) != 0 {
				st.Buttons = append(st.Buttons, b)
			}
		}
		mods := r.Mask & 0xff &^ xproto.ModMaskLock
		if mods == 0 {
			return st, nil
		}
		km, err := c.readKeymap()
		if err != nil {
			return st, err
		}
		keys, err := c.queryKeymap()
		if err != nil {
			return st, err
		}
		mine := map[xproto.Keycode]bool{}
		for _, kc := range heldKeys {
			mine[kc] = true
		}
		for i := range 8 {
			if mods&(1<<i) == 0 || km.lockBit(i) {
				continue
			}
			var down, others []string
			for _, kc := range km.mods[i] {
				if keys.Keys[kc/8]&(1<<(kc%8)) == 0 {
					continue
				}
				down = append(down, km.keyName(kc))
				if !mine[kc] {
					others = append(others, km.keyName(kc))
				}
			}
			switch {
			case len(down) == 0:
				st.Modifiers = append(st.Modifiers, modBitNames[i]+" (latched or locked)")
			case len(others) > 0:
				st.Modifiers = append(st.Modifiers, others...)
			}
		}
		return st, nil
	})
}

// lockBit reports a modifier bit whose keys are all locks (Num Lock's Mod2
// on most layouts).
func (m *keymap) lockBit(i int) bool {
	if len(m.mods[i]) == 0 {
		return false
	}
	for _, kc := range m.mods[i] {
		if l0, _ := m.levels(kc); !slices.Contains(lockKeysyms, l0) {
			return false
		}
	}
	return true
}

// keyName names a keycode by its first keysym: a chord's name for it
// (Shift_L, Control_R), or the keysym.
func (m *keymap) keyName(kc xproto.Keycode) string {
	l0, _ := m.levels(kc)
	if n, ok := platform.KeysymName(l0); ok {
		return n
	}
	switch l0 {
	case 0xffe7, 0xffe8:
		return []string{"Meta_L", "Meta_R"}[l0-0xffe7]
	case 0xffed, 0xffee:
		return []string{"Hyper_L", "Hyper_R"}[l0-0xffed]
	case 0xfe03:
		return "ISO_Level3_Shift"
	case 0xff7e:
		return "Mode_switch"
	}
	return fmt.Sprintf("keycode %d (keysym %#x)", kc, l0)
}
