package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
)

func (h *handlers) frameworksTools() []toolDef {
	return []toolDef{
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "get_frameworks",
			Annotations: readOnly(),
			Description: "The app's UI toolkits and their versions.",
		}, h.getFrameworks),
	}
}

type frameworksResult struct {
	Session    string           `json:"session"`
	Frameworks []core.Framework `json:"frameworks"`
}

func (h *handlers) getFrameworks(ctx context.Context, _ *mcp.CallToolRequest, in sessionArgs) (frameworksResult, error) {
	fws, err := h.sessions.Frameworks(ctx, in.Session)
	if err != nil {
		return frameworksResult{}, err
	}
	return frameworksResult{Session: in.Session, Frameworks: fws}, nil
}
