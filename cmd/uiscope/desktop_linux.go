//go:build linux

package main

import (
	"context"
	"fmt"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/linux"
)

// openDesktop connects to the desktop for one command: the X display named
// by $DISPLAY and the accessibility bus. A command reads once, so trees
// are walked fresh (no mirror). The caller calls done when finished.
func openDesktop(ctx context.Context) (desk platform.Desktop, done func(), err error) {
	d, err := linux.Open(ctx)
	if err != nil {
		return platform.Desktop{}, nil, fmt.Errorf("%w: %v", platform.ErrNoBus, err)
	}
	return d.Platform(), func() { d.Close() }, nil
}
