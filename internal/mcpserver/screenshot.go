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
	ann := readOnly("Take a screenshot")
	if h.cfg.Caps.Has(security.Interact) {
		ann.ReadOnlyHint, ann.IdempotentHint = false, false
	}
	d := newTool(ToolsetInspect, &mcp.Tool{
		Name:        "screenshot",
		Annotations: ann,
		Description: "Capture the connected app's window (another of its windows by window id, or one element by ref, " +
			"in the window it shows in: a dialog, a popup menu) as a PNG image, inline as an " +
			"image block: what the user sees, even where another window covers it. Elements an agent may act on " +
			"are boxed and labelled with their ids (e12 is ref a11y:e12, from the tree this call reads, so the " +
			"labels are refs the session resolves; in a visual session they are windows, visual:eN, and idsFrom " +
			"says which); annotations lists them with their boxes in image pixels. " +
			"annotate false gives a clean image. Every password or hidden field is covered by a grey bar. " +
			"maxWidth scales a large window down to spare context. path also writes the PNG to that absolute " +
			"file name (needs --allow-input; never replaces a file). A minimized window fails with " +
			"windowHidden; a frozen app with timeout (its fields could not be located, so no image is given).",
	}, read(screenshotArgs.request, h.sessions.Screenshot, screenshotAnswer))
	d.InputArgs = []string{"path"}
	return []toolDef{d}
}

type screenshotArgs struct {
	sessionField
	Element   string `json:"element,omitempty" jsonschema:"ref of one element to capture alone, e.g. a11y:e12, in the window it shows in (a dialog, a popup menu); default the whole window"`
	Window    string `json:"window,omitempty" jsonschema:"id of one of the app's windows to capture, e.g. 0x1a00007 (a dialog, a popup menu; ids from connect or list_apps); default the session's window"`
	Path      string `json:"path,omitempty" jsonschema:"absolute file name ending in .png to write the image to as well (needs --allow-input; an existing file is never replaced)"`
	Annotate  *bool  `json:"annotate,omitempty" jsonschema:"label elements with their ids (default true); false for a clean image"`
	MaxWidth  *int   `json:"maxWidth,omitempty" jsonschema:"scale the image down to at most this many pixels wide (64 to 10000)"`
	TimeoutMs *int   `json:"timeoutMs,omitempty" jsonschema:"deadline for reading the tree and capturing in ms (default 10000)"`
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
