package mcpserver

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/security"
)

// screenshotTools: screenshot is inspection: it reads the window and changes nothing.
// Its path argument writes a file, which needs input rights: the tool is
// registered always, the core refuses path without --allow-input, and
// with --allow-input it is not annotated read-only (it may create a file;
// it never replaces one, so it is not destructive either).
func (h *handlers) screenshotTools() []toolDef {
	ann := readOnly()
	if h.cfg.Caps.Has(security.Interact) {
		// destructiveHint defaults to true once readOnlyHint is false: say false.
		ann.ReadOnlyHint, ann.IdempotentHint, ann.DestructiveHint = false, false, ptr(false)
	}
	d := newTool(ToolsetInspect, &mcp.Tool{
		Name:        "screenshot",
		Annotations: ann,
		Description: "The app's window (or a dialog, an element) as a PNG, controls numbered (annotations: number to ref).",
	}, read(screenshotArgs.request, h.sessions.Screenshot, screenshotAnswer))
	d.InputArgs = []string{"path"}
	return []toolDef{d}
}

type screenshotArgs struct {
	sessionField
	Element   string `json:"element,omitempty"`
	Window    string `json:"window,omitempty"`
	Path      string `json:"path,omitempty" jsonschema:"absolute .png to write too (--allow-input)"`
	Annotate  *bool  `json:"annotate,omitempty" jsonschema:"false: no marks"`
	MaxWidth  *int   `json:"maxWidth,omitempty"`
	TimeoutMs *int   `json:"timeoutMs,omitempty"`
}

// acting: writing a file is an action (rate limits, the audit log).
func (a screenshotArgs) acting() bool { return a.Path != "" }

type screenshotResult struct {
	Session string `json:"session"`
	*core.Screenshot
}

func (r screenshotResult) image() *mcp.ImageContent {
	return &mcp.ImageContent{Data: r.PNG, MIMEType: "image/png"}
}

func (in screenshotArgs) request() (core.ScreenshotRequest, error) {
	return core.ScreenshotRequest{Element: in.Element, Window: in.Window, Path: in.Path, Annotate: in.Annotate, MaxWidth: in.MaxWidth, TimeoutMs: in.TimeoutMs}, nil
}

func screenshotAnswer(in screenshotArgs, shot *core.Screenshot) screenshotResult {
	return screenshotResult{Session: in.Session, Screenshot: shot}
}
