//go:build linux

package atspi_test

import (
	"context"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// TestWatch: an app that changes a label on a timer is reported through
// Watch.
func TestWatch(t *testing.T) {
	d := testdesk.Shared(t)
	ticking := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "watch ticking", "--timer-label", "200")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	changes, stop, err := d.A11y.Watch(ctx, ticking.Bus)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	for i := 0; i < 3; i++ {
		select {
		case <-changes:
		case <-ctx.Done():
			t.Fatalf("no event from the ticking app (got %d)", i)
		}
	}
}
