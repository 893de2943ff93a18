//go:build linux

package wayland

import (
	"context"
	"fmt"
	"slices"

	"github.com/uiscope/uiscope/internal/platform"
)

// Held input: a button or key pressed by one call and released by a later
// one (a drag, a modifier held through clicks). Nothing here releases on
// its own: the caller owns what it pressed (core/held.go releases on every
// way a hold can end). The virtual devices are this connection's: when it
// closes (the process exits, killed or not) the compositor destroys them,
// and their modifiers with them, but wlroots keeps a button they pressed
// pressed for the seat: a new virtual pointer releases the buttons a gone
// process recorded down (pressed.go).
//
// No Wayland client can read the seat's button or key state, so a held
// call's check is that the compositor has handled it (a round trip), and
// nothing reports holds this process did not make (no HeldReader). What a
// killed process held its watchdog releases (watchdog.go).

// checkHeldButton accepts the buttons that can be held: 1 (left), 2
// (middle), 3 (right).
func checkHeldButton(button int) (uint32, error) {
	if button < 1 || button > 3 {
		return 0, fmt.Errorf("wayland: button %d: only buttons 1 (left), 2 (middle) and 3 (right) can be held", button)
	}
	return buttonCodes[button], nil
}

// ButtonDown moves the pointer to (x, y) and presses button, leaving it
// down.
func (c *Conn) ButtonDown(ctx context.Context, x, y, button int) error {
	code, err := checkHeldButton(button)
	if err != nil {
		return err
	}
	return c.do(ctx, "pressing a button", func() error {
		if err := c.ensurePointer(); err != nil {
			return err
		}
		if err := c.moveTo(x, y); err != nil {
			return err
		}
		c.note("b", code, true) // before it goes down: see watchdog.go
		if err := c.button(code, true); err != nil {
			return err
		}
		if !slices.Contains(c.heldButtons, code) {
			c.heldButtons = append(c.heldButtons, code)
		}
		return c.roundtrip()
	})
}

// ButtonUp releases button wherever the pointer is. It is sent whatever
// this connection believes: the caller releases what it pressed (a
// release of a button that is up reaches the client under the pointer).
func (c *Conn) ButtonUp(ctx context.Context, button int) error {
	code, err := checkHeldButton(button)
	if err != nil {
		return err
	}
	return c.do(ctx, "releasing a button", func() error {
		if err := c.ensurePointer(); err != nil {
			return err
		}
		if err := c.button(code, false); err != nil {
			return err
		}
		c.heldButtons = slices.DeleteFunc(c.heldButtons, func(b uint32) bool { return b == code })
		if err := c.roundtrip(); err != nil {
			return err
		}
		c.note("b", code, false)
		return nil
	})
}

// DragTo moves the pointer to (x, y) in steps from where it was, so that a
// toolkit sees a drag pass its threshold and follows it the way it follows
// a hand.
func (c *Conn) DragTo(ctx context.Context, x, y int) error {
	return c.do(ctx, "moving the pointer", func() error {
		if err := c.ensurePointer(); err != nil {
			return err
		}
		x0, y0 := x, y
		if c.ptrKnown {
			x0, y0 = c.ptr.X, c.ptr.Y
		}
		const steps = 8
		for i := 1; i <= steps; i++ {
			if err := c.moveTo(x0+(x-x0)*i/steps, y0+(y-y0)*i/steps); err != nil {
				return err
			}
			if err := c.roundtrip(); err != nil {
				return err
			}
		}
		return nil
	})
}

// heldKey is the evdev code that holds ks: a modifier's own keycode for
// the modifiers (either side), else the keymap's, which the keymap keeps
// while the key is held.
func (c *Conn) heldKey(ks uint32) (uint32, error) {
	if m := platform.KeysymModifier(ks); m != 0 {
		if err := c.keymapFor(nil); err != nil {
			return 0, err
		}
		return c.keys.modKeycode(m), nil
	}
	if err := c.keymapFor([]uint32{ks}); err != nil {
		return 0, err
	}
	code, _ := c.keys.keycode(ks)
	return code, nil
}

// KeyDown presses one key (a chord of a key alone: "Shift", "a", "F5") and
// leaves it down. Like a physical key, one that is not a modifier repeats
// in the focused client until it is released.
func (c *Conn) KeyDown(ctx context.Context, ch platform.Chord) error {
	if ch.Key == 0 || ch.Mods != 0 {
		return fmt.Errorf("wayland: %s is not one key; hold each key of a chord with its own call", ch)
	}
	return c.do(ctx, "pressing "+ch.String(), func() error {
		if err := c.ensureKeyboard(); err != nil {
			return err
		}
		code, err := c.heldKey(ch.Key)
		if err != nil {
			return err
		}
		c.note("k", code, true) // before it goes down: see watchdog.go
		if err := c.key(code, true); err != nil {
			return err
		}
		if !slices.Contains(c.heldCodes, code) {
			c.heldCodes = append(c.heldCodes, code)
			c.heldSyms = append(c.heldSyms, ch.Key)
		}
		return c.roundtrip()
	})
}

// KeyUp releases a key KeyDown pressed; releasing a key that is up is
// harmless.
func (c *Conn) KeyUp(ctx context.Context, ch platform.Chord) error {
	if ch.Key == 0 || ch.Mods != 0 {
		return fmt.Errorf("wayland: %s is not one key", ch)
	}
	return c.do(ctx, "releasing "+ch.String(), func() error {
		if err := c.ensureKeyboard(); err != nil {
			return err
		}
		code, err := c.heldKey(ch.Key)
		if err != nil {
			return err
		}
		if err := c.key(code, false); err != nil {
			return err
		}
		if i := slices.Index(c.heldCodes, code); i >= 0 {
			c.heldCodes = slices.Delete(c.heldCodes, i, i+1)
			c.heldSyms = slices.Delete(c.heldSyms, i, i+1)
		}
		if err := c.roundtrip(); err != nil {
			return err
		}
		c.note("k", code, false)
		return nil
	})
}
