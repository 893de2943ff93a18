package mcpserver

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
)

func (h *handlers) appsTools() []toolDef {
	return []toolDef{
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "list_apps",
			Annotations: readOnly("List applications"),
			Description: "List running desktop applications and their top-level windows: pid, process name, " +
				"toolkit, window ids and titles, and whether the app exposes an accessibility tree (accessible). " +
				"Start here to find what to connect to. An app with accessible=false has windows but no tree " +
				"(Tk, or started before accessibility was on).",
		}, h.listApps),
	}
}

type listAppsArgs struct{}

type listAppsResult struct {
	Apps  []core.AppSummary `json:"apps"`
	Count int               `json:"count"`
}

func (h *handlers) listApps(ctx context.Context, _ *mcp.CallToolRequest, _ listAppsArgs) (listAppsResult, error) {
	ctx, cancel := context.WithTimeout(ctx, core.DefaultTimeoutMs*time.Millisecond)
	defer cancel()
	apps, err := h.sessions.Apps(ctx)
	if err != nil {
		return listAppsResult{}, err
	}
	out := listAppsResult{Apps: []core.AppSummary{}}
	for _, a := range apps {
		out.Apps = append(out.Apps, core.Summarize(a))
	}
	out.Count = len(out.Apps)
	return out, nil
}
