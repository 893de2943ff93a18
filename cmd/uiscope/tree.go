package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/platform"
)

func init() {
	register(command{name: "tree", summary: "print one application's accessibility tree", run: runTree})
}

// treeOutput is `uiscope tree --format json`, as API.md fixes it.
type treeOutput struct {
	Target    core.AppSummary `json:"target"`
	Root      *core.Element   `json:"root"`
	NodeCount int             `json:"nodeCount"`
	Shown     int             `json:"shown"`
	Truncated bool            `json:"truncated"`
	Reason    string          `json:"truncatedReason,omitempty"`
	Fetch     fetchInfo       `json:"fetch"`
}

type fetchInfo struct {
	Strategy   string `json:"strategy"`
	Ms         int64  `json:"ms"`
	Calls      int    `json:"calls"`
	CacheItems int    `json:"cacheItems"`
}

func runTree(ctx context.Context, c *cli, args []string) error {
	fs := newFlags(c, "tree", "TARGET [--format json|outline] [--view raw|control|content] [--depth N] [--element REF] [--max-nodes N] [--timeout-ms N]")
	t := targetFlags(fs, true)
	format := fs.String("format", "outline", "json or outline")
	view := fs.String("view", "raw", "raw, control or content")
	depth := fs.Int("depth", -1, "levels below the start element (-1: all)")
	element := fs.String("element", "", "start at this element ref (a11y:eN)")
	maxNodes := fs.Int("max-nodes", core.DefaultMaxNodes, "most nodes to print")
	timeoutMs := fs.Int("timeout-ms", 10000, "deadline for reading the tree")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *format != "json" && *format != "outline" {
		return cliError(c, "tree", core.Errorf(core.CodeInvalidArgument, "--format must be json or outline, not %q", *format))
	}
	if *timeoutMs <= 0 {
		return cliError(c, "tree", core.Errorf(core.CodeInvalidArgument, "--timeout-ms must be positive"))
	}
	opts := core.ViewOptions{View: *view, Depth: *depth, MaxNodes: *maxNodes}
	var scope core.Ref
	if *element != "" {
		r, err := core.ParseRef(*element)
		if err != nil {
			return cliError(c, "tree", err)
		}
		scope = r
	}
	tt, err := readTarget(ctx, t, time.Duration(*timeoutMs)*time.Millisecond, platform.TreeOptions{Actions: *format == "json"})
	if err != nil {
		return cliError(c, "tree", err)
	}
	defer tt.desk.Close()
	app, tree, st := tt.app, tt.tree, tt.st
	if *element != "" {
		_, id, err := tree.Lookup(scope)
		if err != nil {
			return cliError(c, "tree", err)
		}
		opts.Scope = id
	}
	if st.Truncated {
		fmt.Fprintf(c.stderr, "warning: the tree is incomplete (%s after %d ms); elements may be missing\n", st.Reason, st.Elapsed.Milliseconds())
	}
	if *format == "outline" {
		text, rs, err := tree.Outline(opts)
		if err != nil {
			return cliError(c, "tree", err)
		}
		fmt.Fprint(c.stdout, text)
		if !strings.HasSuffix(text, "\n") {
			fmt.Fprintln(c.stdout)
		}
		fmt.Fprintf(c.stderr, "# %d nodes (%d shown), %s, %d calls, %d ms\n", tree.Len(), rs.Nodes, st.Strategy, st.Calls, st.Elapsed.Milliseconds())
		return partial(st.Truncated)
	}
	root, rs, err := tree.Render(opts)
	if err != nil {
		return cliError(c, "tree", err)
	}
	err = writeJSON(c.stdout, treeOutput{
		Target: core.Summarize(app), Root: root, NodeCount: tree.Len(), Shown: rs.Nodes,
		Truncated: st.Truncated || rs.BudgetHit, Reason: truncReason(st.Reason, rs.BudgetHit),
		Fetch: fetchInfo{Strategy: st.Strategy, Ms: st.Elapsed.Milliseconds(), Calls: st.Calls, CacheItems: st.CacheItems},
	})
	if err != nil {
		return err
	}
	return partial(st.Truncated)
}

// exitPartial is the exit status of a command that printed an incomplete
// result (a walk cut short by its deadline or node limit).
const exitPartial = 3

func partial(truncated bool) error {
	if truncated {
		return exitError{exitPartial}
	}
	return nil
}

func truncReason(walk string, budget bool) string {
	switch {
	case walk != "":
		return walk
	case budget:
		return "maxNodes"
	}
	return ""
}
