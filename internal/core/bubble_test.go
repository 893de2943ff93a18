package core

import (
	"cmp"
	"time"
)

// Tests whose waits are the product's own (settle, quiet and poll times,
// hold expiry) run in a synctest bubble, where those waits take no real
// time. A bubble ends only when none of its goroutines is left.

// endHolds releases what m holds and waits for its hold watcher to stop:
// the watcher sees that nothing is held at its next poll only.
func endHolds(m *Sessions) {
	m.ReleaseAll()
	for {
		m.held.mu.Lock()
		watching, poll := m.held.watching, cmp.Or(m.held.poll, holdPoll)
		m.held.mu.Unlock()
		if !watching {
			return
		}
		time.Sleep(poll)
	}
}
