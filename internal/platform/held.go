package platform

import "context"

// ButtonHolder is the optional part of Input that holds a pointer button
// down across calls (drags). A backend whose Input also implements it
// supports held input; the core asks for it by type assertion. Each call
// verifies the state it leaves (ErrNoEffect when the display server does
// not show it). ButtonUp must be sent whatever state the caller believes
// the button is in, and is harmless on a button that is up.
type ButtonHolder interface {
	// ButtonDown moves the pointer to (x, y) and presses button (1 to 3).
	ButtonDown(ctx context.Context, x, y, button int) error
	// DragTo moves the pointer to (x, y) the way a hand does, in steps.
	DragTo(ctx context.Context, x, y int) error
	// ButtonUp releases button where the pointer is.
	ButtonUp(ctx context.Context, button int) error
}

// KeyHolder is the optional part of Input that holds a key down across
// calls (a modifier held through clicks). key is one key as a chord names
// it ("Shift", "Control_L", "a"). The same rules as ButtonHolder's hold.
type KeyHolder interface {
	KeyDown(ctx context.Context, key string) error
	KeyUp(ctx context.Context, key string) error
}

// HeldReader is the optional part of Input that reads what the display
// server has down now, whoever pressed it: the core checks it before any
// input, so that a hold it did not record (the user's, another program's,
// or one a killed server left) is caught as well as one it did.
type HeldReader interface {
	HeldDown(ctx context.Context) (HeldState, error)
}

// HeldState is what HeldDown reports.
type HeldState struct {
	// Buttons are the pointer buttons down, 1 to 5, whoever pressed them.
	Buttons []int
	// Modifiers are the modifier keys down (by key name, "Shift_L") that
	// this process's KeyDown did not press, and modifiers latched or
	// locked without a key down. Locks (Caps Lock, Num Lock) are not holds
	// and are left out.
	Modifiers []string
}
