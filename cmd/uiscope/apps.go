//go:build linux

package main

import (
	"context"
	"fmt"
	"time"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/linux"
)

func init() {
	register(command{name: "apps", summary: "list applications and their top-level windows", run: runApps})
}

func runApps(ctx context.Context, c *cli, args []string) error {
	fs := newFlags(c, "apps", "[--json] [--timeout-ms N]")
	asJSON := fs.Bool("json", false, "print JSON")
	timeoutMs := fs.Int("timeout-ms", 5000, "deadline for the whole listing")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(*timeoutMs)*time.Millisecond)
	defer cancel()
	d, err := linux.Open(ctx)
	if err != nil {
		return cliError(c, "apps", fmt.Errorf("%w: %v", platform.ErrNoBus, err))
	}
	defer d.Close()
	apps, err := d.Apps(ctx)
	if err != nil {
		return cliError(c, "apps", err)
	}
	out := struct {
		Apps []core.AppSummary `json:"apps"`
	}{Apps: []core.AppSummary{}}
	for _, a := range apps {
		out.Apps = append(out.Apps, core.Summarize(a))
	}
	if *asJSON {
		return writeJSON(c.stdout, out)
	}
	if d.A11y == nil {
		fmt.Fprintf(c.stderr, "warning: no accessibility bus (%v); only X11 windows are listed\n", d.A11yErr)
	}
	for _, a := range out.Apps {
		if a.WindowsUnknown != "" {
			fmt.Fprintf(c.stderr, "warning: %s\n", a.WindowsUnknown)
			break
		}
	}
	fmt.Fprintf(c.stdout, "%-8s %-26s %-12s %-4s %s\n", "PID", "NAME", "TOOLKIT", "A11Y", "WINDOWS")
	for _, a := range out.Apps {
		tk := a.Toolkit
		if a.ToolkitVersion != "" {
			tk += " " + a.ToolkitVersion
		}
		acc := "yes"
		if !a.Accessible {
			acc = "no"
		}
		fmt.Fprintf(c.stdout, "%-8d %-26s %-12s %-4s", a.Pid, a.Name, tk, acc)
		for i, w := range a.Windows {
			if i > 0 {
				fmt.Fprintf(c.stdout, "\n%-53s", "")
			}
			if w.BoundsUnknown {
				fmt.Fprintf(c.stdout, " %s %q (place unknown)", w.Window, w.Title)
				continue
			}
			fmt.Fprintf(c.stdout, " %s %q %dx%d+%d+%d", w.Window, w.Title, w.Bounds.Width, w.Bounds.Height, w.Bounds.X, w.Bounds.Y)
		}
		if a.WindowsUnknown != "" {
			fmt.Fprint(c.stdout, " (unknown)")
		}
		fmt.Fprintln(c.stdout)
	}
	return nil
}
