package main

import (
	"context"
	"fmt"
	"time"

	"github.com/uiscope/uiscope/internal/core"
)

// visualFlags are the tree flags 'uiscope tree --visual' uses.
type visualFlags struct {
	format, view, element string
	depth, maxNodes       int
	timeoutMs             int
}

// visualTreeOutput is `uiscope tree --visual --format json`.
type visualTreeOutput struct {
	Target    core.AppSummary     `json:"target"`
	Root      *core.VisualElement `json:"root"`
	NodeCount int                 `json:"nodeCount"`
	Shown     int                 `json:"shown"`
	Truncated bool                `json:"truncated"`
	Reason    string              `json:"truncatedReason,omitempty"`
	Fetch     fetchInfo           `json:"fetch"`
}

// runTreeVisual prints the target's native window tree (docs/api.md, "The
// visual tree"): an outline, one window a line, or JSON as get_visual_tree
// gives it.
func runTreeVisual(ctx context.Context, c *cli, t *core.AppSpec, f visualFlags) error {
	switch {
	case f.format != core.FormatOutline && f.format != core.FormatJSON:
		return cliError(c, "tree", core.Errorf(core.CodeInvalidArgument, "format must be outline or json, not %s", core.Quote(f.format)))
	case f.view != core.ViewRaw:
		return cliError(c, "tree", core.Errorf(core.CodeInvalidArgument, "--view applies to the accessibility tree; the visual tree shows every window"))
	case f.timeoutMs <= 0 || f.timeoutMs > core.MaxTimeoutMs:
		return cliError(c, "tree", core.Errorf(core.CodeInvalidArgument, "--timeout-ms must be between 1 and %d", core.MaxTimeoutMs))
	}
	sessions, s, done, err := openSessionMode(ctx, t, core.ModeVisual)
	if err != nil {
		return cliError(c, "tree", err)
	}
	defer done()
	r, err := sessions.ReadVisual(ctx, s.ID, core.VisualRequest{Element: f.element, Depth: f.depth, MaxNodes: f.maxNodes,
		Timeout: time.Duration(f.timeoutMs) * time.Millisecond, Fresh: true})
	if err != nil {
		return cliError(c, "tree", err)
	}
	st := r.Stats
	if st.Truncated {
		fmt.Fprintf(c.stderr, "warning: the window tree is incomplete (%s); windows may be missing\n", st.Reason)
	}
	if f.format == core.FormatOutline {
		fmt.Fprint(c.stdout, core.VisualOutline(r.Root))
		fmt.Fprintf(c.stderr, "# %d windows (%d shown), %s, %d ms\n", r.Tree.Len()-1, r.Render.Nodes, st.Strategy, st.Elapsed.Milliseconds())
		return partial(st.Truncated)
	}
	budget := ""
	if r.Render.BudgetHit {
		budget = "maxNodes"
	}
	if err := writeJSON(c.stdout, visualTreeOutput{Target: core.Summarize(s.App), Root: r.Root, NodeCount: r.Tree.Len(),
		Shown: r.Render.Nodes, Truncated: st.Truncated || budget != "", Reason: truncReason(st.Reason, budget),
		Fetch: fetchInfo{Strategy: st.Strategy, Ms: st.Elapsed.Milliseconds()}}); err != nil {
		return err
	}
	return partial(st.Truncated)
}
