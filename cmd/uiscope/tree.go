package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/uiscope/uiscope/internal/core"
)

func init() {
	register(command{name: "tree", summary: "print one application's accessibility tree", run: runTree})
}

// treeOutput is `uiscope tree --format json`, as docs/api.md fixes it.
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
	fs := newFlags(c, "tree", "TARGET [--visual] [--format json|outline] [--view raw|control|content|visible] [--depth N] [--element REF] [--max-nodes N] [--max-bytes N] [--timeout-ms N] [--fields key]")
	t := appSpecFlags(fs, true)
	format := fs.String("format", core.FormatOutline, "json or outline")
	view := fs.String("view", core.ViewRaw, "raw, control, content or visible (on screen only)")
	depth := fs.Int("depth", -1, "levels below the start element (-1: all)")
	element := fs.String("element", "", "start at this element ref (a11y:eN)")
	maxNodes := fs.Int("max-nodes", core.DefaultMaxNodes, "most nodes to print")
	maxBytes := fs.Int("max-bytes", core.DefaultMaxBytes, fmt.Sprintf("most bytes of the answer, as get_a11y_tree sends it (compact JSON; the outline's text is never more); %d to %d", core.MinMaxBytes, core.MaxMaxBytes))
	timeoutMs := fs.Int("timeout-ms", core.DefaultTimeoutMs, "deadline for reading the tree")
	fields := fieldsFlag(fs)
	visual := fs.Bool("visual", false, "print the native window tree (X11 windows, refs visual:eN) instead")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *visual {
		return runTreeVisual(ctx, c, t, visualFlags{format: *format, view: *view, depth: *depth, element: *element, maxNodes: *maxNodes, timeoutMs: *timeoutMs})
	}
	req := core.TreeRequest{Element: *element, View: *view, Format: *format, MaxNodes: maxNodes, MaxBytes: maxBytes, TimeoutMs: timeoutMs, Fresh: true, Fields: *fields}
	if *depth != -1 {
		req.Depth = depth
	}
	if err := req.Validate(); err != nil {
		return cliError(c, "tree", err)
	}
	sessions, s, done, err := openSession(ctx, t)
	if err != nil {
		return cliError(c, "tree", err)
	}
	defer done()
	r, err := sessions.ReadTree(ctx, s.ID, req)
	if err != nil {
		return cliError(c, "tree", err)
	}
	st, rs := r.Stats, r.Render
	if st.Truncated {
		fmt.Fprintf(c.stderr, "warning: the tree is incomplete (%s after %d ms); elements may be missing\n", st.Reason, st.Elapsed.Milliseconds())
	}
	if note := r.ReadOnNote(true); note != "" {
		fmt.Fprintf(c.stderr, "# %s\n", note)
	}
	if req.Format == core.FormatOutline {
		fmt.Fprint(c.stdout, r.Outline)
		if !strings.HasSuffix(r.Outline, "\n") {
			fmt.Fprintln(c.stdout)
		}
		fmt.Fprintf(c.stderr, "# %d nodes (%d shown), %s, %d calls, %d ms\n", r.Tree.Len(), rs.Nodes, st.Strategy, st.Calls, st.Elapsed.Milliseconds())
		return partial(st.Truncated)
	}
	err = writeJSON(c.stdout, treeOutput{
		Target: core.Summarize(s.App), Root: r.Root, NodeCount: r.Tree.Len(), Shown: rs.Nodes,
		Truncated: st.Truncated || r.CutBy() != "", Reason: truncReason(st.Reason, r.CutBy()),
		Fetch: fetchInfo{Strategy: st.Strategy, Ms: st.Elapsed.Milliseconds(), Calls: st.Calls, CacheItems: st.CacheItems},
	})
	if err != nil {
		return err
	}
	return partial(st.Truncated)
}

// fieldsFlag is --fields: the optional element fields of a JSON answer
// (core.Fields), comma-separated.
func fieldsFlag(fs *flag.FlagSet) *core.Fields {
	var f core.Fields
	fs.Func("fields", "extra element fields in JSON, comma-separated: key (the durable key, which --element of 'uiscope props' takes)", func(s string) error {
		f = append(f, strings.Split(s, ",")...)
		return nil
	})
	return &f
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

// truncReason is why a printed tree is incomplete: the walk's reason, or
// the budget that cut it ("maxNodes", "maxBytes").
func truncReason(walk, budget string) string {
	if walk != "" {
		return walk
	}
	return budget
}
