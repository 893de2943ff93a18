//go:build linux

package atspi

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
)

// TestAppLockKeepsDeadline: with an application's lock held (a long read
// of a frozen app), a second read with a short deadline gives up by its own
// deadline with ErrTimeout, never reaching the bus; once the lock is free
// it is taken again, and other applications are never held up.
func TestAppLockKeepsDeadline(t *testing.T) {
	c := &Conn{appLocks: map[string]appLock{}} // no bus: a read past the lock would panic
	unlock, err := c.lockApp(context.Background(), testBus)
	if err != nil {
		t.Fatal(err)
	}

	type answer struct {
		root *platform.Node
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		root, _, err := c.SubTree(ctx, objRef{testBus, rootPath}.key(), TreeOptions{})
		done <- answer{root, err}
	}()
	// Not a timing bound: the read has a 50 ms deadline, and this only
	// tells "never" from "eventually".
	select {
	case a := <-done:
		if !errors.Is(a.err, platform.ErrTimeout) || a.root != nil {
			t.Errorf("a read behind a held lock: %v, %v; want ErrTimeout", a.root, a.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a read with a 50 ms deadline is still waiting for the app's lock after 30 s")
	}

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.lockApp(cancelled, testBus); !errors.Is(err, platform.ErrTimeout) {
		t.Errorf("a cancelled wait for a held lock: %v, want ErrTimeout", err)
	}
	other, err := c.lockApp(cancelled, ":1.99")
	if err != nil {
		t.Errorf("another application's free lock: %v", err)
	} else {
		other()
	}

	unlock()
	again, err := c.lockApp(cancelled, testBus)
	if err != nil {
		t.Fatalf("the lock once released: %v", err)
	}
	again()
}
