package mcpserver

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// Tests whose waits are the server's own (idle and expiry times, the
// core's polls) run in a synctest bubble, where those waits take no real
// time. A bubble ends only when none of its goroutines is left.

// drainBubble, called first in a bubble, lets the goroutines that end on
// a timer of their own (the hold watcher at its next poll) end after the
// test's other cleanups (they run last in, first out): a minute of the
// bubble's clock, which takes no real time. Counting goroutines would not
// do: runtime.NumGoroutine counts the whole process, whose other
// goroutines come and go meanwhile.
func drainBubble(t *testing.T) {
	t.Cleanup(func() { time.Sleep(time.Minute) })
}

// bubbleGoroutines counts the goroutines of the calling goroutine's bubble
// (the stack dump names each one's bubble, and begins with the caller):
// runtime.NumGoroutine counts the process, where a goroutine an earlier
// test left behind (a timer's function) or a test running in parallel
// may start or end while a bubble's clock runs without it.
func bubbleGoroutines() int {
	buf := make([]byte, 1<<22)
	bubble, n := "", 0
	for _, line := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n") {
		if !strings.HasPrefix(line, "goroutine ") {
			continue
		}
		_, b, ok := strings.Cut(line, "synctest bubble ")
		if bubble == "" {
			if !ok {
				panic("bubbleGoroutines called outside a bubble")
			}
			bubble = b // "5]:"
		}
		if ok && b == bubble {
			n++
		}
	}
	return n
}
