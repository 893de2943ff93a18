package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/uiscope/uiscope/internal/core"
)

// appSpecFlags adds --pid/--name/--process/--title/--window to a flag set.
// `find` uses --name for the element's name, as docs/api.md has it, so there
// the process name is given with --process only.
func appSpecFlags(fs *flag.FlagSet, withName bool) *core.AppSpec {
	t := &core.AppSpec{}
	fs.IntVar(&t.Pid, "pid", 0, "target process id")
	if withName {
		fs.StringVar(&t.Name, "name", "", "target process name (e.g. gtk3-widget-factory, app.py)")
	}
	fs.StringVar(&t.Name, "process", "", "target process name (same as --name; the only form in 'find')")
	fs.StringVar(&t.Title, "title", "", "substring of the target's window title")
	fs.StringVar(&t.Window, "window", "", "target X window id (0x...)")
	return t
}

// parseFlags parses args and refuses stray positional arguments.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return exitError{2} // the flag package has printed what was wrong
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return exitError{2}
	}
	return nil
}

// listTimeout bounds connecting and listing applications.
const listTimeout = 10 * time.Second

// desktopOpener opens the desktop a command reads: openDesktop, or a fake
// in tests.
var desktopOpener = openDesktop

// openSession connects to the desktop and opens a core session on the
// target application, with the identity checks every MCP session has. The
// caller closes the desktop with done; on error nothing is left open.
func openSession(ctx context.Context, t *core.AppSpec) (sessions *core.Sessions, s *core.Session, done func(), err error) {
	return openSessionMode(ctx, t, core.ModeA11y)
}

// openSessionMode is openSession in a given mode (core.ModeVisual for the
// window tree).
func openSessionMode(ctx context.Context, t *core.AppSpec, mode string) (sessions *core.Sessions, s *core.Session, done func(), err error) {
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	d, done, err := desktopOpener(ctx)
	if err != nil {
		return nil, nil, nil, core.AsError(err)
	}
	sessions = core.NewSessions(d)
	s, err = sessions.Connect(ctx, *t, mode)
	if err != nil {
		done()
		return nil, nil, nil, err
	}
	return sessions, s, done, nil
}

// cliError prints an agent-actionable error the CLI way and returns exit 1.
func cliError(c *cli, name string, err error) error {
	e := core.AsError(err)
	fmt.Fprintf(c.stderr, "uiscope %s: %s [%s]\n", name, e.Msg, e.Code)
	for _, cand := range e.Candidates {
		fmt.Fprintf(c.stderr, "  pid %d  %s  %s  %q\n", cand.Pid, cand.Name, cand.Window, cand.Title)
	}
	return exitError{1}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
