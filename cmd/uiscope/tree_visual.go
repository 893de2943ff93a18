package main

import (
	"context"
	"fmt"
	"io"
	"strings"
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
func runTreeVisual(ctx context.Context, c *cli, t *core.Target, f visualFlags) error {
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
	r, err := sessions.ReadVisual(ctx, s, core.VisualRequest{Element: f.element, Depth: f.depth, MaxNodes: f.maxNodes,
		Timeout: time.Duration(f.timeoutMs) * time.Millisecond, Fresh: true})
	if err != nil {
		return cliError(c, "tree", err)
	}
	st := r.Stats
	if st.Truncated {
		fmt.Fprintf(c.stderr, "warning: the window tree is incomplete (%s); windows may be missing\n", st.Reason)
	}
	if f.format == core.FormatOutline {
		writeVisualOutline(c.stdout, r.Root, 0)
		fmt.Fprintf(c.stderr, "# %d windows (%d shown), %s, %d ms\n", r.Tree.Len()-1, r.Render.Nodes, st.Strategy, st.Elapsed.Milliseconds())
		return partial(st.Truncated)
	}
	if err := writeJSON(c.stdout, visualTreeOutput{Target: core.Summarize(s.App), Root: r.Root, NodeCount: r.Tree.Len(),
		Shown: r.Render.Nodes, Truncated: st.Truncated || r.Render.BudgetHit, Reason: truncReason(st.Reason, r.Render.BudgetHit),
		Fetch: fetchInfo{Strategy: st.Strategy, Ms: st.Elapsed.Milliseconds()}}); err != nil {
		return err
	}
	return partial(st.Truncated)
}

// writeVisualOutline prints one window a line, indented by depth:
//
//	window "visual tk" [visual:e5] 0x800010 Uiscope-tk-fixture 320x160+81+100 client
func writeVisualOutline(w io.Writer, e *core.VisualElement, depth int) {
	var b strings.Builder
	b.WriteString(strings.Repeat("  ", depth))
	if e.Window == "" {
		fmt.Fprintf(&b, "application %q [%s]", e.Name, e.Ref)
	} else {
		b.WriteString("window")
		if e.Name != "" {
			fmt.Fprintf(&b, " %q", e.Name)
		}
		fmt.Fprintf(&b, " [%s] %s", e.Ref, e.Window)
		if e.Class != "" {
			fmt.Fprintf(&b, " %s", e.Class)
		}
		if bo := e.Bounds; bo != nil {
			fmt.Fprintf(&b, " %dx%d%+d%+d", bo.Width, bo.Height, bo.X, bo.Y)
		}
		if e.MapState != "viewable" {
			b.WriteString(" " + e.MapState)
		}
		for _, f := range []struct {
			on   bool
			name string
		}{{e.Frame, "frame"}, {e.Client, "client"}, {e.OverrideRedirect, "override-redirect"}, {e.InputOnly, "input-only"}} {
			if f.on {
				b.WriteString(" " + f.name)
			}
		}
	}
	if n := e.ChildrenOmitted; n > 0 {
		fmt.Fprintf(&b, " (… %d more)", n)
	}
	fmt.Fprintln(w, b.String())
	for _, k := range e.Children {
		writeVisualOutline(w, k, depth+1)
	}
}
