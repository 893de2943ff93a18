package mcpserver

import (
	"runtime"
	"testing"
	"time"
)

// Tests whose waits are the server's own (idle and expiry times, the
// core's polls) run in a synctest bubble, where those waits take no real
// time. A bubble ends only when none of its goroutines is left.

// drainBubble, called first in a bubble, waits after the test's other
// cleanups (they run last in, first out) for the goroutines that end on a
// timer of their own, such as the hold watcher at its next poll.
func drainBubble(t *testing.T) {
	n := runtime.NumGoroutine()
	t.Cleanup(func() {
		for deadline := time.Now().Add(time.Minute); runtime.NumGoroutine() > n && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
	})
}
