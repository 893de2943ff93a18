package core

import (
	"context"

	"github.com/uiscope/uiscope/internal/platform"
)

// TreeOptions and TreeStats are the platform's, re-exported so that the
// front ends need no platform import.
type (
	TreeOptions = platform.TreeOptions
	TreeStats   = platform.TreeStats
	Framework   = platform.Framework
)

// Frameworks names the UI toolkits of the session's app: the toolkit its
// accessibility tree reports, then what the process has loaded. With an
// error it returns what it could tell.
func (m *Sessions) Frameworks(ctx context.Context, sessionID string) ([]Framework, error) {
	s, err := m.Get(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	out := []Framework{}
	if s.App.Toolkit != "" {
		out = append(out, Framework{Name: s.App.Toolkit, Version: s.App.ToolkitVersion, Evidence: "AT-SPI Application.ToolkitName"})
	}
	if m.desk.Processes == nil {
		return out, Errorf(CodeNotSupported, "this platform cannot tell what a process has loaded")
	}
	loaded, err := m.desk.Processes.Frameworks(ctx, s.App.Pid)
	out = append(out, loaded...)
	if err != nil {
		return out, Errorf(CodeOwnershipLost, "cannot read pid %d's libraries: %v", s.App.Pid, err)
	}
	return out, nil
}
