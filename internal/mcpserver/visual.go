package mcpserver

import (
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
)

// visualTools are the tools of visual sessions (the native window tree).
func (h *handlers) visualTools() []toolDef {
	return []toolDef{
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "get_visual_tree",
			Annotations: readOnly(),
			Description: "A visual session's window tree: visual:eN refs acting tools use by geometry.",
		}, read(visualTreeArgs.request, h.sessions.ReadVisual, visualTreeAnswer)),
	}
}

type visualTreeArgs struct {
	Session     string `json:"session"`
	Element     string `json:"element,omitempty"`
	Depth       *int   `json:"depth,omitempty"`
	Format      string `json:"format,omitempty" jsonschema:"outline (default) or json"`
	MaxNodes    *int   `json:"maxNodes,omitempty"`
	Correlate   bool   `json:"correlate,omitempty" jsonschema:"add the windows' a11y refs"`
	A11ySession string `json:"a11ySession,omitempty" jsonschema:"whose refs correlate uses"`
	TimeoutMs   *int   `json:"timeoutMs,omitempty"`
}

type visualTreeResult struct {
	Session   string              `json:"session"`
	Format    string              `json:"format"`
	Outline   string              `json:"outline,omitempty"` // format outline
	Root      *core.VisualElement `json:"root,omitempty"`    // format json
	NodeCount int                 `json:"nodeCount"`
	Shown     int                 `json:"shown"`
	Omitted   int                 `json:"omitted"`
	Truncated bool                `json:"truncated"`
	// TruncatedReason says why the read stopped early (maxWindows, depth,
	// deadline).
	TruncatedReason string `json:"truncatedReason,omitempty"`
	// A11ySession is the session whose refs the a11yRef fields are.
	A11ySession       string      `json:"a11ySession,omitempty"`
	CorrelationFailed bool        `json:"correlationFailed,omitempty"`
	CorrelationError  *core.Error `json:"correlationError,omitempty"`
	Note              string      `json:"note,omitempty"`
	Fetch             fetchInfo   `json:"fetch"`
}

// session: the session argument of get_visual_tree, described apart.
func (in visualTreeArgs) session() string { return in.Session }

func (in visualTreeArgs) request() (core.VisualRequest, error) {
	req := core.VisualRequest{Element: in.Element, Depth: -1, Correlate: in.Correlate, A11ySession: in.A11ySession}
	if f := in.Format; f != "" && f != core.FormatOutline && f != core.FormatJSON {
		return req, core.Errorf(core.CodeInvalidArgument, "format must be \"outline\" or \"json\", not %s", core.Quote(in.Format))
	}
	if in.Depth != nil {
		if *in.Depth < 0 {
			return req, core.Errorf(core.CodeInvalidArgument, "depth must be 0 or more (omit it for the whole tree), not %d", *in.Depth)
		}
		req.Depth = *in.Depth
	}
	if in.MaxNodes != nil {
		if *in.MaxNodes <= 0 || *in.MaxNodes > core.MaxMaxNodes {
			return req, core.Errorf(core.CodeInvalidArgument, "maxNodes must be between 1 and %d, not %d", core.MaxMaxNodes, *in.MaxNodes)
		}
		req.MaxNodes = *in.MaxNodes
	}
	limit, err := core.Timeout(in.TimeoutMs)
	req.Timeout = limit
	return req, err
}

func visualTreeAnswer(in visualTreeArgs, r *core.VisualRead) visualTreeResult {
	format := in.Format
	if format == "" {
		format = core.FormatOutline
	}
	out := visualTreeResult{Session: in.Session, Format: format, NodeCount: r.Tree.Len(), Shown: r.Render.Nodes, Omitted: r.Render.Omitted,
		Truncated: r.Stats.Truncated, TruncatedReason: r.Stats.Reason,
		Fetch: fetchInfo{Strategy: r.Stats.Strategy, Ms: r.Stats.Elapsed.Milliseconds()}}
	if format == core.FormatJSON {
		out.Root = r.Root
	} else {
		out.Outline = core.VisualOutline(r.Root)
	}
	if c := r.Correlation; c != nil {
		out.A11ySession = c.A11ySession
		if c.Err != nil {
			out.CorrelationFailed, out.CorrelationError = true, c.Err
		}
	}
	switch {
	case r.Stats.Truncated:
		out.Note = fmt.Sprintf("the window tree read was cut short (%s): windows may be missing", r.Stats.Reason)
	case r.Render.BudgetHit:
		out.Note = fmt.Sprintf("%d windows left out by maxNodes; narrow with element/depth or raise maxNodes", r.Render.Omitted)
	}
	return out
}
