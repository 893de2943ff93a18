//go:build unix

package security

import "syscall"

// oNoFollow refuses a symbolic link where the audit log is to be, which
// could point the log into a file the user did not name.
const oNoFollow = syscall.O_NOFOLLOW

// oNonBlock opens a FIFO (or a device) at the audit log's path without
// waiting for a reader, which would hang the server's start; what is not a
// regular file is then refused.
const oNonBlock = syscall.O_NONBLOCK
