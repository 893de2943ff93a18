package fake

import (
	"context"
	"fmt"
	"slices"

	"github.com/uiscope/uiscope/internal/platform"
)

var _ platform.ButtonHolder = (*Desktop)(nil)

// ButtonDown presses button at a point and leaves it down; like Click it
// raises the window on top there.
func (d *Desktop) ButtonDown(ctx context.Context, x, y, button int) error {
	if err := d.enter(ctx, "ButtonDown", 0, false); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.screen.Contains(x, y) {
		return fmt.Errorf("%w: %d,%d", platform.ErrOffscreen, x, y)
	}
	d.pointer = [2]int{x, y}
	if !slices.Contains(d.buttons, button) {
		d.buttons = append(d.buttons, button)
	}
	if top := d.topmost(x, y); top != 0 {
		d.raise(top)
	}
	return nil
}

// DragTo moves the pointer.
func (d *Desktop) DragTo(ctx context.Context, x, y int) error {
	if err := d.enter(ctx, "DragTo", 0, false); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.screen.Contains(x, y) {
		return fmt.Errorf("%w: %d,%d", platform.ErrOffscreen, x, y)
	}
	d.pointer = [2]int{x, y}
	return nil
}

// ButtonUp releases button. Unlike the other calls it runs with an ended
// context too, as the contract asks of a release; a hook can still fail it.
func (d *Desktop) ButtonUp(ctx context.Context, button int) error {
	if err := d.enter(context.WithoutCancel(ctx), "ButtonUp", 0, false); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.buttons = slices.DeleteFunc(d.buttons, func(b int) bool { return b == button })
	return nil
}

// ButtonsDown are the buttons held down now, in the order pressed.
func (d *Desktop) ButtonsDown() []int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.buttons)
}

// Pointer is where the pointer is.
func (d *Desktop) Pointer() (x, y int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.pointer[0], d.pointer[1]
}

var _ platform.KeyHolder = (*Desktop)(nil)

// KeyDown presses one key and leaves it down.
func (d *Desktop) KeyDown(ctx context.Context, key string) error {
	if err := d.ValidateChord(key); err != nil {
		return err
	}
	if err := d.enter(ctx, "KeyDown", 0, false); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !slices.Contains(d.keysDown, key) {
		d.keysDown = append(d.keysDown, key)
	}
	return nil
}

// KeyUp releases a key, with an ended context too (see ButtonUp).
func (d *Desktop) KeyUp(ctx context.Context, key string) error {
	if err := d.enter(context.WithoutCancel(ctx), "KeyUp", 0, false); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.keysDown = slices.DeleteFunc(d.keysDown, func(k string) bool { return k == key })
	return nil
}

// KeysDown are the keys held down now, in the order pressed.
func (d *Desktop) KeysDown() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.keysDown)
}

var _ platform.HeldReader = (*Desktop)(nil)

// HeldDown reports the buttons held (by ButtonDown or HoldForeign) and the
// modifiers HoldForeign holds: those KeyDown holds are this process's own.
func (d *Desktop) HeldDown(ctx context.Context) (platform.HeldState, error) {
	if err := d.enter(ctx, "HeldDown", 0, false); err != nil {
		return platform.HeldState{}, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	st := platform.HeldState{Buttons: slices.Clone(d.buttons), Modifiers: slices.Clone(d.foreign.Modifiers)}
	for _, b := range d.foreign.Buttons {
		if !slices.Contains(st.Buttons, b) {
			st.Buttons = append(st.Buttons, b)
		}
	}
	return st, nil
}

// HoldForeign makes HeldDown report buttons and modifiers down that this
// process did not press (the user's, another program's); the zero state
// lets them go.
func (d *Desktop) HoldForeign(st platform.HeldState) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.foreign = st
}
