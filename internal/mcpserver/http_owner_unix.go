//go:build unix

package mcpserver

import (
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
