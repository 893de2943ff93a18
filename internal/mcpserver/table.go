package mcpserver

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
)

func (h *handlers) tableTools() []toolDef {
	return []toolDef{
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "read_table",
			Annotations: readOnly("Read a table's cells"),
			Description: "Read a table's cells by row and column, on screen or not: a spreadsheet range without " +
				"scrolling, the rows of a long list or tree view. element is the table's ref (find_elements with " +
				"interface \"table\"); rows and columns are [first, last], 0-based and inclusive (columns default to " +
				"all, refused for tables wider than 2000). Returns rowCount, columnCount, headers where the table has " +
				"them, and cells as rows of text (at most 200 characters a cell; null where a cell holds nothing " +
				"readable; never the text of password or hidden fields). At most 2000 cells a call: when complete is " +
				"false, next is the range to ask for to read on.",
		}, read(tableArgs.request, h.sessions.ReadTable, tableAnswer)),
	}
}

type tableArgs struct {
	sessionField
	Element   string `json:"element" jsonschema:"ref of a table (an element with the table interface), e.g. a11y:e12"`
	Rows      []int  `json:"rows" jsonschema:"[first, last]: rows to read, 0-based and inclusive, e.g. [0, 99]"`
	Columns   []int  `json:"columns,omitempty" jsonschema:"[first, last]: columns to read, 0-based and inclusive; default all"`
	TimeoutMs *int   `json:"timeoutMs,omitempty" jsonschema:"deadline for the read in ms (default 10000)"`
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
