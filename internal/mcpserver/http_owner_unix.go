//go:build unix

package mcpserver

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// ownedByUs refuses a directory another user owns: they could read the
// token, or replace the file.
func ownedByUs(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("discovery directory %s belongs to uid %d, not to this user", dir, st.Uid)
	}
	return nil
}

// alive reports whether a process with the pid exists (signal 0 checks
// without sending). A pid reused since only keeps a stale file a while.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
