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
	register(command{name: "doctor", summary: "explain what is missing when a tree is empty or partial", run: runDoctor})
}

func runDoctor(ctx context.Context, c *cli, args []string) error {
	fs := newFlags(c, "doctor", "[TARGET] [--json]")
	t := appSpecFlags(fs, true)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var findings []linux.Finding
	d, err := linux.Open(ctx)
	if err != nil {
		findings = append(findings, linux.Finding{Level: "fail", Topic: "desktop", Message: err.Error(),
			Fix: "run inside a desktop session, or start one with 'uiscope sandbox'"})
		return printFindings(c, findings, *asJSON)
	}
	defer d.Close()
	findings = d.Diagnose(ctx)
	apps, err := d.Apps(ctx)
	if err != nil {
		findings = append(findings, linux.Finding{Level: "fail", Topic: "apps", Message: err.Error()})
		return printFindings(c, findings, *asJSON)
	}
	if *t != (core.AppSpec{}) {
		app, _, err := core.Resolve(apps, *t)
		if err != nil {
			e := core.AsError(err)
			findings = append(findings, linux.Finding{Level: "fail", Topic: "target", Message: e.Msg})
			return printFindings(c, findings, *asJSON)
		}
		findings = append(findings, d.DiagnoseApp(ctx, app)...)
		if app.Accessible {
			findings = append(findings, treeFinding(ctx, d, app))
		}
		return printFindings(c, findings, *asJSON)
	}
	for _, a := range apps {
		if !a.Accessible {
			findings = append(findings, d.DiagnoseApp(ctx, a)...)
		}
	}
	return printFindings(c, findings, *asJSON)
}

// treeFinding reads the tree and says whether it looks whole.
func treeFinding(ctx context.Context, d *linux.Desktop, app platform.App) linux.Finding {
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	root, st, err := d.Tree(tctx, app, platform.TreeOptions{})
	switch {
	case err != nil:
		return linux.Finding{Level: "fail", Topic: "tree", Message: core.AsError(err).Msg}
	case st.Truncated:
		return linux.Finding{Level: "warn", Topic: "tree", Message: fmt.Sprintf("the tree read was cut short (%s) after %d nodes", st.Reason, st.Nodes),
			Fix: "the app may be busy or frozen; retry with a larger --timeout-ms"}
	case len(root.Children) == 0:
		return linux.Finding{Level: "warn", Topic: "tree", Message: "the application root has no children: the app has no windows yet, or registered its bridge without a tree",
			Fix: "wait for its window, or restart it with accessibility on"}
	}
	return linux.Finding{Level: "ok", Topic: "tree", Message: fmt.Sprintf("%d nodes read in %d ms (%s, %d cached of %d)", st.Nodes, st.Elapsed.Milliseconds(), st.Strategy, st.CacheUsed, st.Nodes)}
}

func printFindings(c *cli, fs []linux.Finding, asJSON bool) error {
	failed := false
	for _, f := range fs {
		failed = failed || f.Level == "fail"
	}
	if asJSON {
		if err := writeJSON(c.stdout, map[string]any{"ok": !failed, "findings": fs}); err != nil {
			return err
		}
	} else {
		for _, f := range fs {
			fmt.Fprintf(c.stdout, "%-4s %-18s %s\n", f.Level, f.Topic, f.Message)
			if f.Fix != "" {
				fmt.Fprintf(c.stdout, "     %-18s fix: %s\n", "", f.Fix)
			}
		}
	}
	if failed {
		return exitError{1}
	}
	return nil
}
