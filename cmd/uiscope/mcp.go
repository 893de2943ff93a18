package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/mcpserver"
	"github.com/uiscope/uiscope/internal/security"
)

func init() {
	register(command{name: "mcp", summary: "serve the Model Context Protocol over stdio, or streamable HTTP with --http", run: runMCP})
}

func runMCP(ctx context.Context, c *cli, args []string) error {
	fs := newFlags(c, "mcp", "[--allow-input[=interact] [--allow-desktop-keys]] [--apps PATTERN,... [--allow-clipboard]] [--strict] [--rate-limit CLASS=N/min]... [--audit-log PATH] [--screenshot-dir DIR] [--consent prompt] [--http 127.0.0.1:0 [--http-unsafe-bind]] [--sandbox [--desktop x11|sway [--xwayland]] [--launch CMD]...]")
	cfg := mcpserver.Config{Log: c.stderr}
	input := &capsFlag{}
	fs.Var(input, "allow-input", "register and permit the tools that act on applications: alone, pointer and semantic actions (interact) and keystrokes (keyboard); =interact for actions without keystrokes")
	var apps *security.Allowlist
	fs.Func("apps", "allow listing and connecting only executables matching `PATTERN,...` (globs on the base name, or the full path when a pattern has a slash)", func(v string) error {
		var err error
		apps, err = security.ParseAllowlist(v)
		return err
	})
	strict := fs.Bool("strict", false, "strict rate limits: discovery 30/min, inspection 60/min, actions 10/min per client (--rate-limit overrides a class)")
	rates := security.Limits{}
	fs.Func("rate-limit", "limit a class of calls per client: `CLASS=N/min` with CLASS discovery, inspection or actions (repeatable; 0 lifts the limit)", func(v string) error {
		class, n, err := security.ParseRate(v)
		rates[class] = n
		return err
	})
	shotDir := fs.String("screenshot-dir", "", "with --allow-input: the `DIR` a screenshot's path may write in, or below (default the server's working directory)")
	auditPath := fs.String("audit-log", "", "append one JSON line per tool call to `PATH` (created 0600): time, hashed client, pid, start time, tool, outcome, reason — never UI text, values or keys")
	clipboard := fs.Bool("allow-clipboard", false, "with --apps: let an agent paste (the middle button, Ctrl+V, Shift+Insert, a Paste item), which can carry another application's selection or clipboard into an allowed one")
	desktopKeys := fs.Bool("allow-desktop-keys", false, "with --allow-input: let press_key send chords the desktop acts on (Super+..., Alt+Tab, Ctrl+Alt+T, Ctrl+Alt+F1..F12)")
	httpAddr := fs.String("http", "", "serve streamable HTTP on `ADDR` (host:port, loopback; port 0 picks one) instead of stdio, with a bearer token in $XDG_RUNTIME_DIR/uiscope/mcp/<pid>.json")
	unsafeBind := fs.Bool("http-unsafe-bind", false, "with --http: allow an address that is not loopback (reachable from other machines; the token is then all that guards the desktop)")
	inSandbox := fs.Bool("sandbox", false, "serve inside a private virtual desktop (Xvfb + AT-SPI + openbox)")
	desktop := fs.String("desktop", "x11", "with --sandbox: x11, or sway (headless sway, Wayland clients only)")
	xwayland := fs.Bool("xwayland", false, "with --desktop sway: run Xwayland too, so that X-only apps run as sway windows")
	var launches [][]string
	fs.Func("launch", "with --sandbox: start `CMD` in the desktop (repeatable); the only way anything is started", func(s string) error {
		argv, err := splitWords(s)
		if err == nil && len(argv) == 0 {
			err = fmt.Errorf("empty command")
		}
		launches = append(launches, argv)
		return err
	})
	consent := fs.String("consent", "off", "`off`, or prompt: ask the user in a dialog before a client's first session on each process (once per client and process for the server's run)")
	consentTimeout := fs.Duration("consent-timeout", time.Minute, "with --consent prompt: how long the dialog waits for an answer before refusing")
	if err := parseFlags(fs, args); err != nil {
		return exitError{2}
	}
	if *consent != "off" && *consent != "prompt" {
		fmt.Fprintf(c.stderr, "uiscope mcp: --consent must be off or prompt, not %q\n", *consent)
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
	limits := security.DefaultLimits()
	if *strict {
		limits = security.StrictLimits()
	}
	for class, n := range rates {
		limits[class] = n
	}
	cfg.Caps, cfg.Limits = input.caps, security.NewLimiter(limits)
	if *auditPath != "" {
		a, err := security.OpenAudit(*auditPath)
		if err != nil {
			fmt.Fprintf(c.stderr, "uiscope mcp: %v\n", err)
			return exitError{2}
		}
		defer a.Close()
		cfg.Audit = a
	}
	shots, err := screenshotDir(*shotDir)
	if err != nil {
		fmt.Fprintf(c.stderr, "uiscope mcp: %v\n", err)
		return exitError{2}
	}
	if *desktop != "x11" && !*inSandbox {
		fmt.Fprintln(c.stderr, "uiscope mcp: --desktop needs --sandbox (outside one uiscope uses the desktop it runs in)")
		return exitError{2}
	}
	if *xwayland && *desktop != "sway" {
		fmt.Fprintln(c.stderr, "uiscope mcp: --xwayland needs --sandbox --desktop sway")
		return exitError{2}
	}
	if len(launches) > 0 && !*inSandbox {
		fmt.Fprintln(c.stderr, "uiscope mcp: --launch needs --sandbox")
		return exitError{2}
	}
	if *inSandbox {
		stop, err := startSandbox(ctx, c, *desktop, *xwayland, launches)
		if err != nil {
			return err
		}
		defer stop()
	}
	desk, done := serverDesktop()
	defer done()
	sessions := core.NewSessions(desk)
	// Runs before done closes the desktop: no button stays held past the
	// server (a signal ends ctx, and Serve returns).
	defer sessions.ReleaseAll()
	sessions.Caps = cfg.Caps
	sessions.Allow = apps
	if *consent == "prompt" {
		sessions.Consent = security.NewConsent(consentPrompter(), *consentTimeout)
	}
	sessions.AllowDesktopKeys = *desktopKeys
	sessions.AllowClipboard = *clipboard
	sessions.ScreenshotDir = shots
	if *httpAddr != "" {
		return mcpserver.ServeHTTP(ctx, cfg, sessions, mcpserver.HTTPOptions{Addr: *httpAddr, UnsafeBind: *unsafeBind})
	}
	return mcpserver.Serve(ctx, cfg, sessions)
}

// screenshotDir is --screenshot-dir made absolute: a directory that
// exists, by default the working directory.
func screenshotDir(dir string) (string, error) {
	if dir == "" {
		return os.Getwd()
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("--screenshot-dir %s: %v", dir, err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("--screenshot-dir %s: not a directory", dir)
	}
	return abs, nil
}

// capsFlag is --allow-input: a switch alone (interact and keyboard), or
// =interact, =keyboard, =interact,keyboard.
type capsFlag struct{ caps security.Caps }

func (f *capsFlag) IsBoolFlag() bool { return true }

func (f *capsFlag) String() string {
	if f == nil || f.caps == 0 {
		return ""
	}
	return strings.Join(f.caps.Names(), ",")
}

func (f *capsFlag) Set(v string) error {
	c, err := security.ParseInput(v)
	f.caps = c
	return err
}
