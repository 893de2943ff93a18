//go:build linux

package wayland

import (
	"context"
	"errors"
	"fmt"
	"image"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/uiscope/uiscope/internal/platform"
)

// MaxTypeRunes is the most characters TypeText types in one call.
const MaxTypeRunes = 10000

// maxScrollSteps bounds each axis of Scroll, in wheel clicks.
const maxScrollSteps = 100

// Linux input event codes of the pointer buttons (BTN_LEFT...), by X11
// button number.
var buttonCodes = map[int]uint32{1: 0x110, 2: 0x112, 3: 0x111, 8: 0x113, 9: 0x114}

// bindSeat binds the first wl_seat, which the virtual devices join.
func (c *Conn) bindSeat() error {
	if c.seat != 0 {
		return nil
	}
	ids, _, err := c.bind("wl_seat", 1, 1, false)
	if err != nil {
		return err
	}
	c.seat = ids[0]
	return nil
}

// ensureKeyboard creates the virtual keyboard once
// (zwp_virtual_keyboard_manager_v1.create_virtual_keyboard).
func (c *Conn) ensureKeyboard() error {
	if c.keyboard != 0 {
		return nil
	}
	if err := c.bindSeat(); err != nil {
		return err
	}
	ids, _, err := c.bind("zwp_virtual_keyboard_manager_v1", 1, 1, false)
	if err != nil {
		return err
	}
	kb := c.newID()
	if err := c.send(newRequest(ids[0], 0).Object(c.seat).NewID(kb)); err != nil {
		return err
	}
	c.keyboard = kb
	return nil
}

// EnsureDevices creates the virtual keyboard (with a keymap) and pointer
// now, so that the seat announces a keyboard and a pointer to clients
// before the first input: a client binds its wl_keyboard and wl_pointer
// only once the seat has them, and input sent before it did is lost.
func (c *Conn) EnsureDevices(ctx context.Context) error {
	return c.do(ctx, "creating the virtual keyboard and pointer", func() error {
		if err := c.ensureKeyboard(); err != nil {
			return err
		}
		if err := c.keymapFor([]uint32{platform.KeysymReturn}); err != nil {
			return err
		}
		if err := c.ensurePointer(); err != nil {
			return err
		}
		if err := c.roundtrip(); err != nil {
			return err
		}
		c.startWatchdog()
		return nil
	})
}

// uploadKeymap gives the virtual keyboard km (keymap request, format 1:
// xkb text, NUL-terminated, in a shared file).
func (c *Conn) uploadKeymap(km *keymap) error {
	text := km.text()
	f, err := newShmFile("uiscope-keymap", len(text)+1)
	if err != nil {
		return err
	}
	defer f.close()
	copy(f.data, text)
	f.data[len(text)] = 0
	if err := c.send(newRequest(c.keyboard, 0).Uint(1).FD(f.fd).Uint(uint32(len(text) + 1))); err != nil {
		return err
	}
	c.keys = km
	return nil
}

// keymapFor makes sure the keymap types every one of syms (which fit in
// one keymap), uploading a new one when it lacks any.
func (c *Conn) keymapFor(syms []uint32) error {
	km := c.keys.with(append(slices.Clone(syms), c.heldSyms...))
	if km == c.keys {
		return nil
	}
	return c.uploadKeymap(km)
}

// key sends one key event (key request: time, evdev code, 1 pressed / 0
// released). The compositor does not derive the modifier state from a
// virtual keyboard's keys, so a modifier's key is followed by the new
// state (modifiers request: depressed, latched, locked, group).
func (c *Conn) key(code uint32, down bool) error {
	state := uint32(0)
	if down {
		state = 1
	}
	if err := c.send(newRequest(c.keyboard, 1).Uint(c.now()).Uint(code).Uint(state)); err != nil {
		return err
	}
	bit := modMask(code)
	if bit == 0 {
		return nil
	}
	if down {
		c.mods |= bit
	} else {
		c.mods &^= bit
	}
	return c.send(newRequest(c.keyboard, 2).Uint(c.mods).Uint(0).Uint(0).Uint(0))
}

// ReclaimKeyboard makes this connection's keyboard the seat's again. Sway
// takes the keyboard whose modifiers last changed as the seat's, and
// leaves a seat whose keyboard went away (another client's virtual
// keyboard, destroyed with its connection) without one while it still has
// keyboards: a client that binds its keyboard then gets modifiers and no
// keymap, and Chromium 156 reads its missing xkb state (SIGSEGV at start).
// The modifiers change twice (Num Lock locked, then this keyboard's own
// state again), so that sway sees a change each time.
func (c *Conn) ReclaimKeyboard(ctx context.Context) error {
	return c.do(ctx, "reclaiming the seat's keyboard", func() error {
		if c.keyboard == 0 {
			return nil
		}
		const numLock = 1 << 4 // Mod2
		if err := c.send(newRequest(c.keyboard, 2).Uint(c.mods).Uint(0).Uint(numLock).Uint(0)); err != nil {
			return err
		}
		if err := c.send(newRequest(c.keyboard, 2).Uint(c.mods).Uint(0).Uint(0).Uint(0)); err != nil {
			return err
		}
		return c.roundtrip()
	})
}

// withKeys runs fn, then releases every key fn left down, on every path.
func (c *Conn) withKeys(fn func(press func(code uint32) error, release func(code uint32) error) error) (err error) {
	var down []uint32
	defer func() {
		for i := len(down) - 1; i >= 0; i-- {
			if rerr := c.key(down[i], false); rerr != nil && c.broken == nil {
				c.later = append(c.later, newRequest(c.keyboard, 1).Uint(c.now()).Uint(down[i]).Uint(0).m)
				if modMask(down[i]) != 0 {
					c.mods &^= modMask(down[i])
					c.later = append(c.later, newRequest(c.keyboard, 2).Uint(c.mods).Uint(0).Uint(0).Uint(0).m)
				}
			}
		}
		if err == nil {
			err = c.roundtrip()
		}
	}()
	press := func(code uint32) error {
		if slices.Contains(c.heldCodes, code) {
			return nil // held by KeyDown: it stays down
		}
		if err := c.key(code, true); err != nil {
			return err
		}
		down = append(down, code)
		return nil
	}
	release := func(code uint32) error {
		i := slices.Index(down, code)
		if i < 0 {
			return nil
		}
		down = slices.Delete(down, i, i+1)
		return c.key(code, false)
	}
	return fn(press, release)
}

// KeyChord presses the chord's modifiers, presses and releases its key,
// and releases the modifiers in reverse order (on every path, errors and
// timeouts included); it returns once the compositor has handled it all.
func (c *Conn) KeyChord(ctx context.Context, ch platform.Chord) error {
	if ch.Key == 0 || ch.Mods&^(platform.ModCtrl|platform.ModAlt|platform.ModShift|platform.ModSuper) != 0 {
		return fmt.Errorf("wayland: invalid key chord %+v", ch)
	}
	return c.do(ctx, "key chord "+ch.String(), func() error {
		if err := c.ensureKeyboard(); err != nil {
			return err
		}
		if err := c.keymapFor([]uint32{ch.Key}); err != nil {
			return err
		}
		p, _ := c.keys.place(ch.Key)
		return c.withKeys(func(press, release func(uint32) error) error {
			for _, m := range ch.Mods.List() {
				if err := press(c.keys.modKeycode(m)); err != nil {
					return err
				}
			}
			// A key on a shifted level ("exclam", "plus") is pressed
			// with its level's modifiers, as on a keyboard.
			for _, l := range levelKeys(p.level) {
				if err := press(l); err != nil {
					return err
				}
			}
			if err := press(p.code); err != nil {
				return err
			}
			return release(p.code)
		})
	})
}

// textKeysyms checks text whole and returns its keysyms: valid UTF-8, at
// most MaxTypeRunes characters, no control characters but '\n', '\r'
// (Return; "\r\n" is one) and '\t'.
func textKeysyms(text string) ([]uint32, error) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if !utf8.ValidString(text) {
		return nil, errors.New("wayland: text to type is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(text); n > MaxTypeRunes {
		return nil, fmt.Errorf("wayland: text to type has %d characters; at most %d can be typed in one call", n, MaxTypeRunes)
	}
	syms := make([]uint32, 0, len(text))
	for i, r := range []rune(text) {
		ks := platform.RuneKeysym(r)
		if ks == 0 {
			return nil, fmt.Errorf("wayland: cannot type control character U+%04X (character %d of the text)", r, i+1)
		}
		syms = append(syms, ks)
	}
	return syms, nil
}

// TypeText types text, each character one key of the virtual keyboard's
// own keymap (so any Unicode character types, whatever the user's
// layout), and returns how many characters were sent, also when it stops
// early.
func (c *Conn) TypeText(ctx context.Context, text string) (int, error) {
	return c.TypeTextChecked(ctx, text, 0, nil)
}

// TypeTextChecked is TypeText calling check before the first character
// and then before every every characters, stopping with check's error
// (as is) and the count typed when it fails. check runs outside the
// connection's lock, between batches that are each handled by the
// compositor before it is called.
func (c *Conn) TypeTextChecked(ctx context.Context, text string, every int, check func(ctx context.Context) error) (int, error) {
	syms, err := textKeysyms(text)
	if err != nil || len(syms) == 0 {
		return 0, err
	}
	batch := len(syms)
	if check != nil && every > 0 {
		batch = every
	}
	typed := 0
	for typed < len(syms) {
		if check != nil {
			if err := check(ctx); err != nil {
				return typed, err
			}
		}
		part := syms[typed:min(typed+batch, len(syms))]
		n, err := c.typeSyms(ctx, part)
		typed += n
		if err != nil {
			return typed, fmt.Errorf("%w (typed %d of %d characters)", err, typed, len(syms))
		}
	}
	return typed, nil
}

// typeSyms types syms as one call: keymaps uploaded as the text needs
// them, each key pressed and released, then a round trip.
func (c *Conn) typeSyms(ctx context.Context, syms []uint32) (int, error) {
	typed := 0
	err := c.do(ctx, "typing", func() error {
		if err := c.ensureKeyboard(); err != nil {
			return err
		}
		return c.withKeys(func(press, release func(uint32) error) error {
			for typed < len(syms) {
				run := syms[typed : typed+runOf(syms[typed:])]
				if err := c.keymapFor(run); err != nil {
					return err
				}
				for _, s := range run {
					p, _ := c.keys.place(s)
					levels := levelKeys(p.level)
					for _, l := range levels {
						if err := press(l); err != nil {
							return err
						}
					}
					if err := press(p.code); err != nil {
						return err
					}
					if err := release(p.code); err != nil {
						return err
					}
					for _, l := range slices.Backward(levels) {
						if err := release(l); err != nil {
							return err
						}
					}
					typed++
				}
			}
			return nil
		})
	})
	return typed, err
}

// ensurePointer creates the virtual pointer once
// (zwlr_virtual_pointer_manager_v1.create_virtual_pointer).
func (c *Conn) ensurePointer() error {
	if c.pointer != 0 {
		return nil
	}
	if err := c.bindSeat(); err != nil {
		return err
	}
	ids, _, err := c.bind("zwlr_virtual_pointer_manager_v1", 1, 1, false)
	if err != nil {
		return err
	}
	p := c.newID()
	if err := c.send(newRequest(ids[0], 0).Object(c.seat).NewID(p)); err != nil {
		return err
	}
	c.pointer = p
	// The compositor keeps a button pressed by a virtual pointer that went
	// away (a uiscope killed during a drag) pressed for the seat: the
	// client under it goes on dragging. A release from this pointer ends
	// that, for the buttons a gone process recorded down (pressed.go).
	return c.releaseLeftPressed()
}

// layout is the box around every output: the space absolute motion spans.
func (c *Conn) layout() (lay [4]int, err error) {
	if err := c.bindOutputs(); err != nil {
		return lay, err
	}
	outs := c.liveOutputs()
	if len(outs) == 0 || outs[0].Width == 0 {
		if err := c.roundtrip(); err != nil {
			return lay, err
		}
		outs = c.liveOutputs()
	}
	first := true
	for _, o := range outs {
		r := o.Rect()
		if r.Empty() {
			continue
		}
		if first {
			lay = [4]int{r.Min.X, r.Min.Y, r.Max.X, r.Max.Y}
			first = false
			continue
		}
		lay = [4]int{min(lay[0], r.Min.X), min(lay[1], r.Min.Y), max(lay[2], r.Max.X), max(lay[3], r.Max.Y)}
	}
	if first {
		return lay, errors.New("the compositor has no output")
	}
	return lay, nil
}

// moveTo sends absolute motion to (x, y) in compositor space, which must
// lie on an output, and a frame.
func (c *Conn) moveTo(x, y int) error {
	lay, err := c.layout()
	if err != nil {
		return err
	}
	on := false
	for _, o := range c.liveOutputs() {
		r := o.Rect()
		if x >= r.Min.X && y >= r.Min.Y && x < r.Max.X && y < r.Max.Y {
			on = true
		}
	}
	if !on {
		return fmt.Errorf("point (%d,%d) is on no output: %w", x, y, platform.ErrOffscreen)
	}
	w, h := lay[2]-lay[0], lay[3]-lay[1]
	if err := c.send(newRequest(c.pointer, 1).Uint(c.now()).Uint(uint32(x - lay[0])).Uint(uint32(y - lay[1])).Uint(uint32(w)).Uint(uint32(h))); err != nil {
		return err
	}
	c.ptr, c.ptrKnown = image.Pt(x, y), true
	return c.send(newRequest(c.pointer, 4)) // frame
}

// button sends a button event and a frame.
func (c *Conn) button(code uint32, down bool) error {
	state := uint32(0)
	if down {
		state = 1
		c.notePressed(code, true) // recorded before it goes down
	}
	if err := c.send(newRequest(c.pointer, 2).Uint(c.now()).Uint(code).Uint(state)); err != nil {
		return err
	}
	if err := c.send(newRequest(c.pointer, 4)); err != nil {
		return err
	}
	if !down {
		c.notePressed(code, false)
	}
	return nil
}

// pointerInput runs a pointer sequence at (x, y): the move there, then fn;
// a button fn pressed is released on every path, and the call returns once
// the compositor has handled it all.
func (c *Conn) pointerInput(ctx context.Context, what string, x, y int, fn func(click func(code uint32) error) error) error {
	return c.do(ctx, what, func() (err error) {
		if err := c.ensurePointer(); err != nil {
			return err
		}
		if err := c.moveTo(x, y); err != nil {
			return err
		}
		var down uint32
		defer func() {
			if down != 0 {
				if rerr := c.button(down, false); rerr != nil && c.broken == nil {
					c.later = append(c.later, newRequest(c.pointer, 2).Uint(c.now()).Uint(down).Uint(0).m, newRequest(c.pointer, 4).m)
				}
			}
			if err == nil {
				err = c.roundtrip()
			}
		}()
		if fn == nil {
			return nil
		}
		return fn(func(code uint32) error {
			if err := c.button(code, true); err != nil {
				return err
			}
			down = code
			if err := c.button(code, false); err != nil {
				return err
			}
			down = 0
			return nil
		})
	})
}

// MovePointer moves the pointer to (x, y) in compositor space.
func (c *Conn) MovePointer(ctx context.Context, x, y int) error {
	return c.pointerInput(ctx, "moving the pointer", x, y, nil)
}

// Click moves the pointer to (x, y) in compositor space and clicks button
// (1 left, 2 middle, 3 right, 8 back, 9 forward) count times (1 to 3).
func (c *Conn) Click(ctx context.Context, x, y, button, count int) error {
	code, ok := buttonCodes[button]
	if !ok {
		return fmt.Errorf("wayland: button %d: buttons are 1 (left), 2 (middle), 3 (right), 8, 9; use Scroll for the wheel", button)
	}
	if count < 1 || count > 3 {
		return fmt.Errorf("wayland: click count %d: must be 1, 2 or 3", count)
	}
	return c.pointerInput(ctx, "clicking", x, y, func(click func(uint32) error) error {
		for range count {
			if err := click(code); err != nil {
				return err
			}
		}
		return nil
	})
}

// Scroll moves the pointer to (x, y) and turns the wheel: dy > 0 scrolls
// down, dy < 0 up, dx > 0 right, dx < 0 left, each unit one wheel click
// (axis 15 with one discrete step, as a mouse wheel sends), at most 100
// per axis.
func (c *Conn) Scroll(ctx context.Context, x, y, dx, dy int) error {
	if dx == 0 && dy == 0 {
		return errors.New("wayland: scroll by 0,0: nothing to scroll")
	}
	if dx < -maxScrollSteps || dx > maxScrollSteps || dy < -maxScrollSteps || dy > maxScrollSteps {
		return fmt.Errorf("wayland: scroll by %d,%d: at most %d clicks per axis", dx, dy, maxScrollSteps)
	}
	return c.pointerInput(ctx, "scrolling", x, y, func(func(uint32) error) error {
		steps := func(axis uint32, n int) error {
			step := 1
			if n < 0 {
				step, n = -1, -n
			}
			for range n {
				// axis_source(wheel), axis_discrete(time, axis, value, steps), frame
				if err := c.send(newRequest(c.pointer, 5).Uint(0)); err != nil {
					return err
				}
				if err := c.send(newRequest(c.pointer, 7).Uint(c.now()).Uint(axis).Fixed(FixedFrom(15 * float64(step))).Int(int32(step))); err != nil {
					return err
				}
				if err := c.send(newRequest(c.pointer, 4)); err != nil {
					return err
				}
			}
			return nil
		}
		if err := steps(0, dy); err != nil { // vertical
			return err
		}
		return steps(1, dx) // horizontal
	})
}
