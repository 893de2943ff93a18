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
			Annotations: readOnlySession(),
			Description: "Open a session on one app by pid, name, title or window; mode visual if accessible is false.",
		}, h.connect),
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "disconnect",
			Annotations: readOnlySession(),
			Description: "Close a session; the app stays.",
		}, h.disconnect),
	}
}

type connectArgs struct {
	Pid    int    `json:"pid,omitempty"`
	Name   string `json:"name,omitempty" jsonschema:"process name"`
	Title  string `json:"title,omitempty" jsonschema:"window title substring"`
	Window string `json:"window,omitempty"`
	Mode   string `json:"mode,omitempty"`
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
	// Focus is the element that has the keyboard focus, where typed keys go.
	Focus *core.FocusRef `json:"focus,omitempty"`
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
	// get_events reports what happens from here on.
	h.sessions.KeepEvents(ctx, s)
	h.res.opened(s)
	return connectResult{Session: s.ID, Mode: s.Mode, Pid: s.App.Pid, Name: s.App.Name, Executable: s.App.Executable,
		Toolkit: s.App.Toolkit, ToolkitVersion: s.App.ToolkitVersion, Window: s.Identity.Window,
		Windows: core.Summarize(s.App).Windows, Frameworks: fws, Focus: h.sessions.FocusOf(ctx, s)}, nil
}

type sessionArgs struct {
	Session string `json:"session"`
}

func (a sessionArgs) session() string { return a.Session }

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
