//go:build linux

package mcpserver

import (
	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/linux"
	"github.com/uiscope/uiscope/internal/procinfo"
)

// The canned desktop of these tests runs on this machine's real processes
// (this test process is its application), which the identity checks read
// through /proc.

func hostProcesses() platform.Processes { return linux.Processes{} }

func hostExecutable(pid int) string { return procinfo.Executable(pid) }
