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
			Annotations: readOnly("Detect UI frameworks"),
			Description: "Name the UI toolkits the connected app uses, with versions where knowable: the AT-SPI " +
				"toolkit and the libraries mapped into the process (GTK 3/4, Qt 5/6, Tk, Chromium/Electron, Java, " +
				"wxWidgets, Flutter...). Useful to know what to expect of its tree.",
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
