//go:build unix

package security

import "syscall"

// oNoFollow refuses a symbolic link where the audit log is to be, which
// could point the log into a file the user did not name.
const oNoFollow = syscall.O_NOFOLLOW
