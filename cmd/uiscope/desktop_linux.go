//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/linux"
	"github.com/uiscope/uiscope/internal/platform/wayland"
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
	x11.Watchdog.Command, x11.Watchdog.Log = watchdogCommand(x11.WatchdogArg), os.Stderr
	wayland.Watchdog.Command, wayland.Watchdog.Log = watchdogCommand(wayland.WatchdogArg), os.Stderr
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

// watchdogCommand re-executes this binary, with the hidden argument arg,
// as the watchdog of a server's held input (platform/watchdog) for a
// display or compositor socket: it outlives a killed server just long
// enough to release what that held. Its stdout is not the protocol's.
func watchdogCommand(arg string) func(display string) *exec.Cmd {
	return func(display string) *exec.Cmd {
		exe, err := os.Executable()
		if err != nil {
			exe = "/proc/self/exe"
		}
		cmd := exec.Command(exe, arg, display)
		cmd.Stderr = os.Stderr
		return cmd
	}
}

// hiddenMode runs a mode of the binary no user calls: a watchdog.
func hiddenMode(args []string) (int, bool) {
	if len(args) != 2 {
		return 0, false
	}
	switch args[0] {
	case x11.WatchdogArg:
		return x11.RunWatchdog(os.Stdin, args[1]), true
	case wayland.WatchdogArg:
		return wayland.RunWatchdog(os.Stdin, args[1]), true
	}
	return 0, false
}

// useSandbox points this process at a sandbox desktop, and only at it:
// the caller's own display, compositor and IPC socket are forgotten (the
// desktop backend picks sway when SWAYSOCK is set). On sway
// WAYLAND_DISPLAY is the socket's absolute path, which libwayland takes
// as is, so that this process keeps its own XDG_RUNTIME_DIR.
func useSandbox(d *sandbox.Desktop) {
	set := map[string]string{"DBUS_SESSION_BUS_ADDRESS": d.SessionBus, "UISCOPE_A11Y_BUS": d.A11yBus}
	unset := []string{"WAYLAND_DISPLAY", "SWAYSOCK", "I3SOCK"}
	if d.Kind == sandbox.DesktopSway {
		set["WAYLAND_DISPLAY"] = filepath.Join(d.RuntimeDir, d.WaylandDisplay)
		set["SWAYSOCK"] = d.SwaySock
		unset = []string{"DISPLAY", "XAUTHORITY", "I3SOCK"}
		if d.Display != "" {
			// Xwayland's, as a user's sway session with it sets: the
			// compositor still has the windows (linux.Open).
			set["DISPLAY"], unset = d.Display, []string{"XAUTHORITY", "I3SOCK"}
		}
	} else {
		set["DISPLAY"], set["XAUTHORITY"] = d.Display, d.XAuthority
	}
	for _, k := range unset {
		os.Unsetenv(k)
	}
	for k, v := range set {
		os.Setenv(k, v)
	}
}

// startSandbox starts a private desktop for 'uiscope mcp --sandbox', points
// this process at it and launches the --launch commands in it (with
// xwayland, sway runs Xwayland). Everything the desktop says goes to
// stderr: stdout is the protocol.
func startSandbox(ctx context.Context, c *cli, desktop string, xwayland bool, launches [][]string) (stop func(), err error) {
	d, err := sandbox.Start(ctx, sandbox.Options{Desktop: desktop, Xwayland: xwayland, Log: c.stderr, Seat: wayland.HoldDevices})
	if err != nil {
		return nil, err
	}
	useSandbox(d)
	for _, argv := range launches {
		if _, err := d.Launch(argv); err != nil {
			d.Close()
			return nil, fmt.Errorf("--launch %v: %w", argv, err)
		}
	}
	return func() { d.Close() }, nil
}
