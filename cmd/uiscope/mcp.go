package main

import (
	"context"
	"fmt"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/mcpserver"
)

func init() {
	register(command{name: "mcp", summary: "serve the Model Context Protocol over stdio, or streamable HTTP with --http", run: runMCP})
}

func runMCP(ctx context.Context, c *cli, args []string) error {
	fs := newFlags(c, "mcp", "[--allow-input [--allow-desktop-keys]] [--http 127.0.0.1:0 [--http-unsafe-bind]] [--sandbox [--launch CMD]...]")
	cfg := mcpserver.Config{Log: c.stderr}
	fs.BoolVar(&cfg.AllowInput, "allow-input", false, "register and permit the tools that act on applications")
	desktopKeys := fs.Bool("allow-desktop-keys", false, "with --allow-input: let press_key send chords the desktop acts on (Super+..., Alt+Tab, Ctrl+Alt+T, Ctrl+Alt+F1..F12)")
	httpAddr := fs.String("http", "", "serve streamable HTTP on `ADDR` (host:port, loopback; port 0 picks one) instead of stdio, with a bearer token in $XDG_RUNTIME_DIR/uiscope/mcp/<pid>.json")
	unsafeBind := fs.Bool("http-unsafe-bind", false, "with --http: allow an address that is not loopback (reachable from other machines; the token is then all that guards the desktop)")
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
	for _, name := range []string{"audit-log", "consent", "rate-limit"} {
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
	if *unsafeBind && *httpAddr == "" {
		fmt.Fprintln(c.stderr, "uiscope mcp: --http-unsafe-bind needs --http")
		return exitError{2}
	}
	if *httpAddr != "" {
		// Refused before a desktop is started for nothing.
		if err := mcpserver.CheckBind(*httpAddr, *unsafeBind); err != nil {
			fmt.Fprintf(c.stderr, "uiscope mcp: %v\n", err)
			return exitError{2}
		}
	}
	if len(launches) > 0 && !*inSandbox {
		fmt.Fprintln(c.stderr, "uiscope mcp: --launch needs --sandbox")
		return exitError{2}
	}
	if *inSandbox {
		stop, err := startSandbox(ctx, c, launches)
		if err != nil {
			return err
		}
		defer stop()
	}
	desk, done := serverDesktop()
	defer done()
	sessions := core.NewSessions(desk)
	sessions.AllowInput = cfg.AllowInput
	sessions.AllowDesktopKeys = *desktopKeys
	if *httpAddr != "" {
		return mcpserver.ServeHTTP(ctx, cfg, sessions, mcpserver.HTTPOptions{Addr: *httpAddr, UnsafeBind: *unsafeBind})
	}
	return mcpserver.Serve(ctx, cfg, sessions)
}
