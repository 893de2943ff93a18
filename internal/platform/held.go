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
