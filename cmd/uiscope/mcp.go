package main

import (
	"context"
	"fmt"
	"os"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/mcpserver"
	"github.com/uiscope/uiscope/internal/platform/linux"
	"github.com/uiscope/uiscope/internal/sandbox"
)

func init() {
	register(command{name: "mcp", summary: "serve the Model Context Protocol over stdio", run: runMCP})
}

func runMCP(ctx context.Context, c *cli, args []string) error {
	fs := newFlags(c, "mcp", "[--allow-input] [--sandbox [--launch CMD]...]")
	cfg := mcpserver.Config{Log: c.stderr}
	fs.BoolVar(&cfg.AllowInput, "allow-input", false, "register and permit the tools that act on applications")
	inSandbox := fs.Bool("sandbox", false, "serve inside a private virtual desktop (Xvfb + AT-SPI + openbox)")
	var launches [][]string
	fs.Func("launch", "with --sandbox: start `CMD` in the desktop (repeatable); the only way anything is started", func(s string) error {
		argv, err := splitWords(s)
		if err == nil && len(argv) == 0 {
			err = fmt.Errorf("empty command")
		}
		launches = append(launches, argv)
		return err
	})
	var unsupported string
	for _, name := range []string{"http", "audit-log", "consent", "rate-limit"} {
		fs.Func(name, "not supported yet", func(string) error {
			unsupported = name
			return nil
		})
	}
	if err := parseFlags(fs, args); err != nil {
		return exitError{2}
	}
	if unsupported != "" {
		fmt.Fprintf(c.stderr, "uiscope mcp: --%s is not supported yet; only stdio without it is\n", unsupported)
		return exitError{2}
	}
	if len(launches) > 0 && !*inSandbox {
		fmt.Fprintln(c.stderr, "uiscope mcp: --launch needs --sandbox")
		return exitError{2}
	}
	if *inSandbox {
		// Everything the desktop says goes to stderr: stdout is the protocol.
		d, err := sandbox.Start(ctx, sandbox.Options{Log: c.stderr})
		if err != nil {
			return err
		}
		defer d.Close()
		for k, v := range map[string]string{"DISPLAY": d.Display, "XAUTHORITY": d.XAuthority,
			"DBUS_SESSION_BUS_ADDRESS": d.SessionBus, "UISCOPE_A11Y_BUS": d.A11yBus} {
			os.Setenv(k, v)
		}
		for _, argv := range launches {
			if _, err := d.Launch(argv); err != nil {
				return fmt.Errorf("--launch %v: %w", argv, err)
			}
		}
	}
	// A server outlives desktops and buses that come late: it reconnects,
	// and mirrors the trees it can (linux.Desktop.Mirror).
	desk := linux.Reconnecting()
	desk.Mirror = true
	defer desk.Close()
	sessions := core.NewSessions(desk.Platform())
	sessions.AllowInput = cfg.AllowInput
	return mcpserver.Serve(ctx, cfg, sessions)
}
