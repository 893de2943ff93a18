//go:build linux

package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/linux"
	"github.com/uiscope/uiscope/internal/platform/wayland"
	"github.com/uiscope/uiscope/internal/sandbox"
)

func init() {
	register(command{name: "demo", summary: "a first look: sandbox desktop + sample app + a scripted agent session", run: runDemo})
}

// Demo limits: the sample app must be readable within demoAppTimeout of its
// launch; each tree read gets demoReadTimeout.
const (
	demoAppTimeout   = 60 * time.Second
	demoReadTimeout  = 20 * time.Second
	demoOutlineNodes = 80
	demoFindName     = "Page 2"
)

func runDemo(ctx context.Context, c *cli, args []string) error {
	fs := newFlags(c, "demo", "[--app CMD] [--desktop x11|sway [--xwayland]] [--verbose]")
	appCmd := fs.String("app", "gtk3-widget-factory", "sample application `CMD` to start in the desktop (split into words like a shell, no shell runs)")
	desktop := fs.String("desktop", sandbox.DesktopX11, "the sandbox desktop: x11 (Xvfb and openbox) or sway (headless sway, Wayland)")
	xwayland := fs.Bool("xwayland", false, "with --desktop sway: run Xwayland too (the sample app stays a Wayland client unless it has no Wayland backend)")
	verbose := fs.Bool("verbose", false, "show the desktop's start-up and teardown on stderr")
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		if fs.NArg() > 0 { // the flag package has not said why
			fmt.Fprintf(c.stderr, "uiscope demo: %v\n", err)
		}
		return exitError{2}
	}
	argv, err := splitWords(*appCmd)
	if err == nil && len(argv) == 0 {
		err = errors.New("empty command")
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "uiscope demo: --app %q: %v\n", *appCmd, err)
		return exitError{2}
	}

	var logw io.Writer = io.Discard
	if *verbose {
		logw = c.stderr
	}
	err = demo(ctx, c, sandbox.Options{Desktop: *desktop, Xwayland: *xwayland, Log: logw, Seat: wayland.HoldDevices}, argv)
	if err != nil && ctx.Err() != nil {
		// Ctrl-C or SIGTERM: whatever failed, the cause is the signal.
		return errors.New("interrupted; the desktop was torn down")
	}
	return err
}

// demo runs the demo proper; the desktop is closed when it returns.
func demo(ctx context.Context, c *cli, opts sandbox.Options, argv []string) error {
	desktop := opts.Desktop
	parts := "Xvfb, D-Bus, AT-SPI, openbox"
	if desktop == sandbox.DesktopSway {
		parts = "headless sway, D-Bus, AT-SPI"
		if opts.Xwayland {
			parts = "headless sway with Xwayland, D-Bus, AT-SPI"
		}
	}
	fmt.Fprintf(c.stdout, "uiscope demo: a private virtual desktop (%s), one sample\n", parts)
	fmt.Fprintln(c.stdout, "application, and what uiscope reads from it. Everything is torn down at the end.")
	fmt.Fprintln(c.stdout)

	started := time.Now()
	d, err := sandbox.Start(ctx, opts)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := d.Close(); cerr != nil {
			fmt.Fprintf(c.stderr, "uiscope demo: teardown: %v\n", cerr)
		}
	}()
	fmt.Fprintf(c.stdout, "desktop %s up in %d ms\n", d.Where(), time.Since(started).Milliseconds())

	// This process is the desktop's client: linux.Open finds the display
	// and the accessibility bus the way 'uiscope apps' does inside it.
	useSandbox(d)

	p, err := d.Launch(argv)
	if err != nil {
		return err
	}
	launched := time.Now()
	app, dt, err := demoWaitApp(ctx, p)
	if err != nil {
		// The log lives in the state dir, which the teardown removes.
		return fmt.Errorf("%s: %w%s", argv[0], err, logTail(p.LogPath))
	}
	defer dt.Close()
	fmt.Fprintf(c.stdout, "launched %s (pid %d), on the accessibility bus with a window after %d ms\n",
		strings.Join(argv, " "), p.Pid(), time.Since(launched).Milliseconds())

	heading(c.stdout, "1. Applications on the desktop", "uiscope apps")
	if err := runApps(ctx, c, nil); err != nil {
		return err
	}

	// The first read makes the toolkit create its accessible objects; read
	// until two reads agree so the tree shown is the settled one.
	tree, reads, err := demoSettledTree(ctx, dt, app)
	if err != nil {
		return err
	}

	pidArg := strconv.Itoa(app.Pid)
	heading(c.stdout, "2. Its accessibility tree, control view (first 80 nodes)",
		"uiscope tree --pid "+pidArg+" --view control --max-nodes 80")
	text, rs, err := tree.Outline(core.ViewOptions{View: core.ViewControl, Depth: -1, MaxNodes: demoOutlineNodes})
	if err != nil {
		return err
	}
	fmt.Fprint(c.stdout, text)
	if rs.Omitted > 0 {
		fmt.Fprintf(c.stdout, "(%d of the control view's %d nodes shown, %d more not; the raw tree has %d nodes)\n",
			rs.Nodes, rs.Nodes+rs.Omitted, rs.Omitted, tree.Len())
	}

	heading(c.stdout, "3. How the tree was read", "")
	for i, st := range reads {
		label := "first read (cold):"
		if i > 0 {
			label = "next read (warm): "
		}
		fmt.Fprintf(c.stdout, "%s %d nodes, strategy %s, %d calls, %d ms\n", label, st.Nodes, st.Strategy, st.Calls, st.Elapsed.Milliseconds())
	}

	heading(c.stdout, "4. A scripted agent session", "")
	fmt.Fprintf(c.stdout, "find_elements {name: %q, nameMatch: \"exact\"}   (uiscope find --pid %s --name %q --match exact)\n", demoFindName, pidArg, demoFindName)
	els, _, err := tree.Find(core.Query{Name: demoFindName, NameMatch: core.MatchExact})
	if err != nil {
		return err
	}
	if len(els) == 0 {
		fmt.Fprintf(c.stdout, "  no element named %q in this app's tree\n", demoFindName)
	} else {
		_, id, err := tree.LookupString(els[0].Ref)
		if err != nil {
			return err
		}
		line, _ := tree.OutlineLine(id)
		fmt.Fprintf(c.stdout, "  -> %s\n", line)
		if len(els) > 1 {
			fmt.Fprintf(c.stdout, "  (and %d more)\n", len(els)-1)
		}
		fmt.Fprintf(c.stdout, "get_element_properties {element: %q}   (uiscope props --pid %s --element %s)\n", els[0].Ref, pidArg, els[0].Ref)
		n, _ := tree.Node(id)
		pctx, cancel := context.WithTimeout(ctx, demoReadTimeout)
		det, err := dt.Element(pctx, app, n.Key)
		cancel()
		if err != nil {
			return fmt.Errorf("reading %s: %w", els[0].Ref, err)
		}
		props := core.Properties(els[0].Ref, det)
		for _, k := range core.PropertyOrder(props) {
			fmt.Fprintf(c.stdout, "  %-14s %s\n", k+":", strings.TrimSpace(core.FormatValue(props[k])))
		}
	}
	fmt.Fprintln(c.stdout)
	if _, ok := commands["mcp"]; ok {
		flag := ""
		if desktop != sandbox.DesktopX11 {
			flag = " --desktop " + desktop
		}
		if opts.Xwayland {
			flag += " --xwayland"
		}
		fmt.Fprintln(c.stdout, "Over MCP, an agent makes the same steps as tool calls; 'uiscope mcp --sandbox"+flag+" --launch "+argv[0]+"'")
		fmt.Fprintln(c.stdout, "serves this very setup over stdio:")
	} else {
		fmt.Fprintln(c.stdout, "Over MCP (the 'uiscope mcp' server is not in this build yet), an agent will make the same steps as tool calls:")
	}
	fmt.Fprintln(c.stdout, "  list_apps -> connect -> get_a11y_tree -> find_elements -> disconnect")
	fmt.Fprintln(c.stdout)
	fmt.Fprintln(c.stdout, "Next: 'uiscope sandbox -- bash' for a shell in a desktop of your own, 'uiscope help' for every command.")
	return nil
}

func heading(w io.Writer, title, cmd string) {
	fmt.Fprintln(w)
	fmt.Fprintf(w, "== %s ==\n", title)
	if cmd != "" {
		fmt.Fprintf(w, "$ %s\n", cmd)
	}
}

// demoWaitApp polls until the launched program is on the accessibility bus
// and has a mapped window, within demoAppTimeout. It returns the open
// desktop connection the rest of the demo reads through.
func demoWaitApp(ctx context.Context, p *sandbox.Process) (platform.App, *linux.Desktop, error) {
	ctx, cancel := context.WithTimeout(ctx, demoAppTimeout)
	defer cancel()
	why := "the desktop did not answer"
	var dt *linux.Desktop
	for {
		if dt == nil {
			d, err := linux.Open(ctx)
			if err == nil && d.A11y == nil {
				d.Close()
				err = d.A11yErr
			}
			if err != nil {
				why = "no accessibility bus: " + err.Error()
			} else {
				dt = d
			}
		}
		if dt != nil {
			app, ok, w := demoFindApp(ctx, dt, p.Pid())
			if ok {
				return app, dt, nil
			}
			why = w
		}
		select {
		case <-p.Done():
			if dt != nil {
				dt.Close()
			}
			return platform.App{}, nil, fmt.Errorf("exited with status %d before it showed a window", p.ExitCode())
		case <-ctx.Done():
			if dt != nil {
				dt.Close()
			}
			if ctx.Err() == context.DeadlineExceeded {
				return platform.App{}, nil, fmt.Errorf("not ready after %v: %s", demoAppTimeout, why)
			}
			return platform.App{}, nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func demoFindApp(ctx context.Context, dt *linux.Desktop, pid int) (platform.App, bool, string) {
	actx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	apps, err := dt.Apps(actx)
	if err != nil {
		return platform.App{}, false, err.Error()
	}
	app, _, err := core.Resolve(apps, core.AppSpec{Pid: pid})
	switch {
	case err != nil:
		return platform.App{}, false, "neither on the accessibility bus nor showing a window yet"
	case !app.Accessible:
		return app, false, "not on the accessibility bus yet"
	}
	for _, w := range app.Windows {
		if w.Mapped {
			return app, true, ""
		}
	}
	return app, false, "no mapped window yet"
}

// demoSettledTree reads the tree until two reads in a row are whole and
// have the same node count (at most five reads), returning the last tree
// and every read's stats.
func demoSettledTree(ctx context.Context, dt *linux.Desktop, app platform.App) (*core.Tree, []platform.TreeStats, error) {
	var reads []platform.TreeStats
	var tree *core.Tree
	for i := 0; i < 5; i++ {
		tctx, cancel := context.WithTimeout(ctx, demoReadTimeout)
		root, st, err := dt.Tree(tctx, app, platform.TreeOptions{})
		cancel()
		if err != nil {
			return nil, reads, fmt.Errorf("reading the tree: %w", core.AsError(err))
		}
		reads = append(reads, st)
		tree = core.NewTree(root, core.KindA11y)
		tree.Truncated = st.Truncated
		if i > 0 && !st.Truncated && st.Nodes == reads[i-1].Nodes {
			break
		}
	}
	return tree, reads, nil
}

// logTail quotes the end of a log file for an error message.
func logTail(path string) string {
	b, err := os.ReadFile(path)
	b = bytes.TrimSpace(b)
	if err != nil || len(b) == 0 {
		return ""
	}
	if len(b) > 800 {
		b = b[len(b)-800:]
	}
	return "\n  its output ended with:\n    " + strings.ReplaceAll(string(b), "\n", "\n    ")
}
