//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/linux"
	"github.com/uiscope/uiscope/internal/platform/x11"
	"github.com/uiscope/uiscope/internal/sandbox"
	"github.com/uiscope/uiscope/internal/security"
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

// serverDesktop is the desktop of 'uiscope mcp'. A server outlives
// desktops and buses that come late: it reconnects, and mirrors the trees
// it can (linux.Desktop.Mirror).
func serverDesktop() (desk platform.Desktop, done func()) {
	x11.Watchdog.Command, x11.Watchdog.Log = watchdogCommand, os.Stderr
	d := linux.Reconnecting()
	d.Mirror = true
	return d.Platform(), func() { d.Close() }
}

// consentPrompter shows the consent dialog of 'uiscope mcp --consent
// prompt' (linux/consent.go).
func consentPrompter() security.Prompter { return linux.ConsentPrompter(pythonPath) }

// pythonPath runs the consent dialog: the Debian interpreter, which has
// PyGObject (a python3 earlier on PATH may not).
const pythonPath = "/usr/bin/python3"

// watchdogCommand re-executes this binary as the watchdog of a server's
// held input (x11/watchdog.go): it outlives a killed server just long
// enough to release what that held. Its stdout is not the protocol's.
func watchdogCommand(display string) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		exe = "/proc/self/exe"
	}
	cmd := exec.Command(exe, x11.WatchdogArg, display)
	cmd.Stderr = os.Stderr
	return cmd
}

// hiddenMode runs a mode of the binary no user calls: the watchdog.
func hiddenMode(args []string) (int, bool) {
	if len(args) == 2 && args[0] == x11.WatchdogArg {
		return x11.RunWatchdog(os.Stdin, args[1]), true
	}
	return 0, false
}

// startSandbox starts a private desktop for 'uiscope mcp --sandbox', points
// this process at it and launches the --launch commands in it. Everything
// the desktop says goes to stderr: stdout is the protocol.
func startSandbox(ctx context.Context, c *cli, launches [][]string) (stop func(), err error) {
	d, err := sandbox.Start(ctx, sandbox.Options{Log: c.stderr})
	if err != nil {
		return nil, err
	}
	for k, v := range map[string]string{"DISPLAY": d.Display, "XAUTHORITY": d.XAuthority,
		"DBUS_SESSION_BUS_ADDRESS": d.SessionBus, "UISCOPE_A11Y_BUS": d.A11yBus} {
		os.Setenv(k, v)
	}
	for _, argv := range launches {
		if _, err := d.Launch(argv); err != nil {
			d.Close()
			return nil, fmt.Errorf("--launch %v: %w", argv, err)
		}
	}
	return func() { d.Close() }, nil
}
