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
			Annotations: readOnly(),
			Description: "Running apps, their windows and whether each has a tree (accessible). Start here.",
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
