//go:build unix

package security

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestAuditFIFORefused: a FIFO at the log's path is refused at once, not
// waited on for a reader (which hung the server's start).
func TestAuditFIFORefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		a, err := OpenAudit(path)
		if err == nil {
			a.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a FIFO was taken for the audit log")
		}
	case <-time.After(20 * time.Second):
		// Unblock the open, so that the test ends.
		if f, err := os.OpenFile(path, os.O_RDONLY, 0); err == nil {
			defer f.Close()
		}
		t.Errorf("OpenAudit on a FIFO is still waiting for a reader after 20 s: %v", <-done)
	}
}
