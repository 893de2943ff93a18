//go:build linux

package atspi

import "time"

// SetMirrorMaxAge changes how long mirrors are trusted, for tests that must
// see the event-driven path however slow the machine; it returns the undo.
func SetMirrorMaxAge(d time.Duration) func() {
	was := mirrorMaxAge
	mirrorMaxAge = d
	return func() { mirrorMaxAge = was }
}
