package mcpserver

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
)

func (h *handlers) frameworksTools() []toolDef {
	return []toolDef{
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "get_frameworks",
			Annotations: readOnly(),
			Description: "The app's UI toolkits and their versions.",
		}, readSession(h.sessions.Frameworks, frameworksAnswer)),
	}
}

type frameworksResult struct {
	Session    string           `json:"session"`
	Frameworks []core.Framework `json:"frameworks"`
}

func frameworksAnswer(in sessionArgs, fws []core.Framework) frameworksResult {
	return frameworksResult{Session: in.Session, Frameworks: fws}
}
