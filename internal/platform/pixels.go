package platform

import (
	"context"
	"errors"
	"image"
)

// Pixels captures what windows show, for screenshots. The core crops,
// redacts, scales and annotates the capture itself (OS-neutral); a backend
// only delivers the window's pixels.
type Pixels interface {
	// CaptureWindow returns the window's own content, as it would look
	// with nothing in front of it: a part covered by another window is
	// the target's pixels, not the cover's (a backend that cannot promise
	// that says so with an error, never with the other window's pixels).
	// at is where the image's top-left pixel lies on the screen now, and
	// the image's size is the window's. A minimized or unmapped window
	// fails with ErrWindowHidden; a window that no longer exists with
	// ErrElementGone; one covered by another, where the backend cannot
	// read under the cover, with ErrWindowCovered.
	CaptureWindow(ctx context.Context, win Window) (img *image.RGBA, at Rect, err error)
}

// ErrWindowHidden: the window is not on screen (minimized, or unmapped), so
// it has no pixels to capture.
var ErrWindowHidden = errors.New("the window is not shown (minimized or unmapped)")

// ErrWindowCovered: another window covers part of the one to capture, and
// the backend can only copy what the screen shows (a Wayland screencopy),
// so it would show the cover's pixels there.
var ErrWindowCovered = errors.New("another window covers it")
