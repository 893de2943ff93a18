//go:build !linux

package main

import (
	"context"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/unsupported"
	"github.com/uiscope/uiscope/internal/security"
)

// On systems without a backend yet every read answers notSupported, saying
// that only Linux is supported so far: the MCP server starts and answers
// every tool with that error as data, and the CLI prints it.

func openDesktop(context.Context) (platform.Desktop, func(), error) {
	return unsupported.Desktop(), func() {}, nil
}

func serverDesktop() (platform.Desktop, func()) {
	return unsupported.Desktop(), func() {}
}

// consentPrompter has no dialog to show: every prompt fails, which
// refuses the request.
func consentPrompter() security.Prompter {
	return func(context.Context, security.Prompt, func(int), func()) (string, error) {
		return "", security.ErrNoDialog
	}
}

// hiddenMode runs a mode of the binary no user calls; there is none here.
func hiddenMode([]string) (int, bool) { return 0, false }

func startSandbox(context.Context, *cli, string, bool, [][]string) (func(), error) {
	return nil, unsupported.Err
}

// The commands that exist only for Linux desktops (the sandbox is Xvfb,
// D-Bus and AT-SPI; doctor and apps read them directly) say so.
func init() {
	for name, summary := range map[string]string{
		"apps":    "list applications and their top-level windows (Linux only so far)",
		"doctor":  "explain what is missing when a tree is empty or partial (Linux only so far)",
		"sandbox": "start a private virtual desktop (Linux only so far)",
		"demo":    "a first look: sandbox, sample app and an agent session (Linux only so far)",
	} {
		register(command{name: name, summary: summary, run: func(_ context.Context, c *cli, _ []string) error {
			return cliError(c, name, unsupported.Err)
		}})
	}
}
