package mcpserver

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
)

func (h *handlers) sessionTools() []toolDef {
	return []toolDef{
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "connect",
			Annotations: readOnlySession("Connect to an application"),
			Description: "Open a session on one application, named by exactly one of pid, name (process name), " +
				"title (window title substring) or window (X window id like 0x1a00003). Returns the session id " +
				"every other tool takes. A name or title matching several windows fails with errorCode " +
				"\"ambiguous\" and lists candidates; connect again by pid or window. mode \"a11y\" (default) reads " +
				"the accessibility tree; mode \"visual\" the native window tree (get_visual_tree), for apps without " +
				"an accessibility tree (Tk) or what it hides. A session speaks one tree; two sessions (one per " +
				"mode) on the same app are fine.",
		}, h.connect),
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "disconnect",
			Annotations: readOnlySession("Close a session"),
			Description: "Close a session opened by connect. The application is not affected.",
		}, h.disconnect),
	}
}

type connectArgs struct {
	Pid    int    `json:"pid,omitempty" jsonschema:"process id of the application"`
	Name   string `json:"name,omitempty" jsonschema:"process name, e.g. gtk3-widget-factory or app.py"`
	Title  string `json:"title,omitempty" jsonschema:"substring of a window title (case-insensitive)"`
	Window string `json:"window,omitempty" jsonschema:"X window id, e.g. 0x1a00003"`
	Mode   string `json:"mode,omitempty" jsonschema:"a11y (default): the accessibility tree; visual: the native window tree"`
}

type connectResult struct {
	Session        string               `json:"session"`
	Mode           string               `json:"mode"`
	Pid            int                  `json:"pid"`
	Name           string               `json:"name"`
	Executable     string               `json:"executable"`
	Toolkit        string               `json:"toolkit"`
	ToolkitVersion string               `json:"toolkitVersion"`
	Window         string               `json:"window,omitempty"` // when connected by window or title
	Windows        []core.WindowSummary `json:"windows"`
	Frameworks     []core.Framework     `json:"frameworks"`
}

func (h *handlers) connect(ctx context.Context, _ *mcp.CallToolRequest, in connectArgs) (connectResult, error) {
	limit := core.DefaultTimeoutMs * time.Millisecond
	if c := h.sessions.Consent; c != nil {
		limit += c.Timeout // the user may be asked
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	s, err := h.sessions.Connect(ctx, core.AppSpec{Pid: in.Pid, Name: in.Name, Title: in.Title, Window: in.Window}, in.Mode)
	if err != nil {
		return connectResult{}, err
	}
	fws, _ := h.sessions.Frameworks(ctx, s.ID) // what could be read; the session is open either way
	h.res.opened(s)
	return connectResult{Session: s.ID, Mode: s.Mode, Pid: s.App.Pid, Name: s.App.Name, Executable: s.App.Executable,
		Toolkit: s.App.Toolkit, ToolkitVersion: s.App.ToolkitVersion, Window: s.Identity.Window,
		Windows: core.Summarize(s.App).Windows, Frameworks: fws}, nil
}

type sessionArgs struct {
	Session string `json:"session" jsonschema:"session id from connect"`
}

type sessionResult struct {
	Session string `json:"session"`
}

func (h *handlers) disconnect(ctx context.Context, _ *mcp.CallToolRequest, in sessionArgs) (sessionResult, error) {
	if err := h.sessions.Disconnect(ctx, in.Session); err != nil {
		return sessionResult{}, err
	}
	h.res.closed(in.Session)
	return sessionResult(in), nil
}
