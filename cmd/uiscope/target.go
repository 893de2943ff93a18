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
	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/linux"
)

// targetFlags adds --pid/--name/--process/--title/--window to a flag set.
// `find` uses --name for the element's name, as API.md has it, so there
// the process name is given with --process only.
func targetFlags(fs *flag.FlagSet, withName bool) *core.Target {
	t := &core.Target{}
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

// openTarget connects to the desktop and resolves the target application.
func openTarget(ctx context.Context, t *core.Target) (*linux.Desktop, platform.App, error) {
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	d, err := linux.Open(ctx)
	if err != nil {
		return nil, platform.App{}, core.AsError(fmt.Errorf("%w: %v", platform.ErrNoBus, err))
	}
	apps, err := d.Apps(ctx)
	if err != nil {
		d.Close()
		return nil, platform.App{}, core.AsError(err)
	}
	app, _, err := core.Resolve(apps, *t)
	if err != nil {
		d.Close()
		return nil, platform.App{}, err
	}
	return d, app, nil
}

// targetTree is what tree, find and props share: the desktop (the caller
// closes it), the target application and its tree, read within timeout.
type targetTree struct {
	desk *linux.Desktop
	app  platform.App
	tree *core.Tree
	st   platform.TreeStats
}

// readTarget connects, resolves the target and reads its tree. On error
// nothing is left open.
func readTarget(ctx context.Context, t *core.Target, timeout time.Duration, opts platform.TreeOptions) (*targetTree, error) {
	d, app, err := openTarget(ctx, t)
	if err != nil {
		return nil, err
	}
	tree, st, err := fetchTree(ctx, d, app, timeout, opts)
	if err != nil {
		d.Close()
		return nil, err
	}
	return &targetTree{desk: d, app: app, tree: tree, st: st}, nil
}

// fetchTree reads the target's tree within timeout.
func fetchTree(ctx context.Context, d *linux.Desktop, app platform.App, timeout time.Duration, opts platform.TreeOptions) (*core.Tree, platform.TreeStats, error) {
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	root, st, err := d.Tree(tctx, app, opts)
	if err != nil {
		return nil, st, core.AsError(err)
	}
	t := core.NewTree(root, "a11y")
	t.Truncated = st.Truncated
	return t, st, nil
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
