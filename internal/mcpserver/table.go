package mcpserver

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
)

func (h *handlers) tableTools() []toolDef {
	return []toolDef{
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "read_table",
			Annotations: readOnly(),
			Description: "A table's cells by row and column, off screen too (a tree read has what is on screen).",
		}, read(tableArgs.request, h.sessions.ReadTable, tableAnswer)),
	}
}

type tableArgs struct {
	sessionField
	Element   string `json:"element"`
	Rows      []int  `json:"rows" jsonschema:"[first, last], 0-based"`
	Columns   []int  `json:"columns,omitempty" jsonschema:"[first, last]; default all"`
	TimeoutMs *int   `json:"timeoutMs,omitempty"`
}

type tableResult struct {
	Session string `json:"session"`
	*core.TableRead
}

func (in tableArgs) request() (core.TableRequest, error) {
	return core.TableRequest{Element: in.Element, Rows: in.Rows, Columns: in.Columns, TimeoutMs: in.TimeoutMs}, nil
}

func tableAnswer(in tableArgs, r *core.TableRead) tableResult {
	return tableResult{Session: in.Session, TableRead: r}
}
