//go:build linux

package mcpserver

import "github.com/uiscope/uiscope/internal/procinfo"

// startTime is a process's start time, 0 when it cannot be read.
func startTime(pid int) uint64 {
	id, err := procinfo.Lookup(pid)
	if err != nil {
		return 0
	}
	return id.StartTime
}
