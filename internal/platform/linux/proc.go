//go:build linux

package linux

import (
	"context"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/procinfo"
)

// Processes reads process identity and loaded toolkits from /proc. It needs
// no connection, so it works with or without a desktop.
type Processes struct{}

var _ platform.Processes = Processes{}

// Process returns a live process's pid, start time and executable.
func (Processes) Process(_ context.Context, pid int) (platform.Process, error) {
	id, err := procinfo.Lookup(pid)
	if err != nil || !id.Alive() {
		return platform.Process{}, platform.ErrProcessGone
	}
	return platform.Process{Pid: pid, StartTime: id.StartTime, Executable: procinfo.Executable(pid)}, nil
}

// Frameworks lists the toolkits mapped into a process.
func (Processes) Frameworks(_ context.Context, pid int) ([]platform.Framework, error) {
	fws, err := procinfo.Frameworks(pid)
	out := make([]platform.Framework, 0, len(fws))
	for _, f := range fws {
		out = append(out, platform.Framework(f))
	}
	return out, err
}
