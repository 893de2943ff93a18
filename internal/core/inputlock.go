package core

import (
	"context"
)

// inputLock is held by every real-input sequence in the process, from
// choosing and activating the target window, through verifying it is in
// front (and the element focused), to the last key or click sent. Tool
// calls run concurrently: without it, one call could activate its window
// between another call's check and its send, and the keys — a password,
// perhaps — would land in the wrong application. One lock for the process,
// not per session or per app, because the keyboard focus and the pointer
// are one for the whole desktop. Semantic actions (AT-SPI calls on an
// element) do not take it: they do not depend on which window is in front.
var inputLock = make(chan struct{}, 1)

// lockInput takes the input lock, or gives up when ctx ends first, so a
// call queued behind a long typing run still answers within its deadline.
func lockInput(ctx context.Context) (unlock func(), err error) {
	select {
	case inputLock <- struct{}{}:
		return func() { <-inputLock }, nil
	case <-ctx.Done():
		e := Errorf(CodeTimeout, "another input action (typing or a click) was still running when this call's deadline passed; nothing was sent: try again")
		e.Retryable, e.Disposition, e.Err = true, DispositionTransient, ctx.Err()
		return nil, e
	}
}
