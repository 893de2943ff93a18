package mcpserver

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
)

// TestReadTableTool: read_table answers a range as rows of text with the
// table's size and how to read on; its password cell's text is nowhere in
// the answer; arguments of the wrong type, malformed or huge ranges and
// huge refs are invalidArgument data, briefly.
func TestReadTableTool(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const secret = "hunter2-mcp-table"
		d := fake.New()
		d.AddApp(fake.App{Pid: 6262, Name: "sheet", Tree: &platform.Node{Key: "root", Role: platform.RoleApplication, ChildCount: 1,
			Children: []*platform.Node{{Key: "t", Role: fake.Role("table"), Name: "Sheet", Interfaces: []string{"table"}}}},
			Tables: map[string]*fake.Table{"t": {Rows: 1000000, Columns: 3, Cell: func(r, c int) *platform.Node {
				if r == 1 && c == 1 {
					return &platform.Node{Role: fake.Role("password text"), Name: secret}
				}
				return &platform.Node{Role: fake.Role("table cell"), Name: fmt.Sprintf("%d/%d", r, c)}
			}}}})
		cs := serve(t, New(Config{}, core.NewSessions(d.Platform())), "")
		session := mustOK(t, cs, "connect", map[string]any{"pid": 6262})["session"].(string)
		found := mustOK(t, cs, "find_elements", map[string]any{"session": session, "interface": "table"})["elements"].([]any)
		sheet, _ := found[0].(map[string]any)["ref"].(string)

		out, res := call(t, cs, "read_table", map[string]any{"session": session, "element": sheet, "rows": []int{0, 999}})
		if out["ok"] != true {
			t.Fatalf("read_table: %v", out)
		}
		if text := res.Content[0].(*mcp.TextContent).Text; strings.Contains(text, secret) {
			t.Errorf("the password cell's text is in the answer")
		}
		cells, _ := out["cells"].([]any)
		next, _ := out["next"].(map[string]any)
		if out["rowCount"] != float64(1000000) || out["columnCount"] != float64(3) || out["complete"] != false || len(cells) != core.MaxTableCells/3 ||
			fmt.Sprint(cells[2]) != "[2/0 2/1 2/2]" || fmt.Sprint(next["rows"]) != fmt.Sprintf("[%d 999]", core.MaxTableCells/3) {
			t.Errorf("read_table rows 0-999: rowCount %v columnCount %v complete %v, %d rows, row 2 %v, next %v",
				out["rowCount"], out["columnCount"], out["complete"], len(cells), cells[2], next)
		}
		if fmt.Sprint(cells[1]) != "[1/0 <nil> 1/2]" || fmt.Sprint(out["redactedCells"]) != "[map[column:1 row:1]]" {
			t.Errorf("the password cell: row 1 %v, redactedCells %v", cells[1], out["redactedCells"])
		}

		many := make([]int, 100000)
		huge := strings.Repeat("é", 1<<15)
		for _, c := range []struct {
			arg  string
			args map[string]any
		}{
			{"rows", map[string]any{"session": session, "element": sheet}},
			{"rows", map[string]any{"session": session, "element": sheet, "rows": "0:9"}},
			{"rows", map[string]any{"session": session, "element": sheet, "rows": []any{1.5, 2}}},
			{"rows", map[string]any{"session": session, "element": sheet, "rows": []any{1e30, 1e31}}},
			{"rows", map[string]any{"session": session, "element": sheet, "rows": []any{"0", "9"}}},
			{"rows", map[string]any{"session": session, "element": sheet, "rows": []int{9, 0}}},
			{"rows", map[string]any{"session": session, "element": sheet, "rows": many}},
			{"rows", map[string]any{"session": session, "element": sheet, "rows": []int{2000000, 2000001}}},
			{"columns", map[string]any{"session": session, "element": sheet, "rows": []int{0, 1}, "columns": map[string]any{"first": 0}}},
			{"columns", map[string]any{"session": session, "element": sheet, "rows": []int{0, 1}, "columns": []int{0, 1 << 40}}},
			{"columns", map[string]any{"session": session, "element": sheet, "rows": []int{0, 1}, "columns": []int{-3, 1}}},
			{"element", map[string]any{"session": session, "element": huge, "rows": []int{0, 1}}},
			{"timeoutMs", map[string]any{"session": session, "element": sheet, "rows": []int{0, 1}, "timeoutMs": -1}},
		} {
			out, res := call(t, cs, "read_table", c.args)
			msg, _ := out["error"].(string)
			if out["ok"] != false || (out["errorCode"] != core.CodeInvalidArgument && out["errorCode"] != core.CodeMalformedRef) {
				t.Errorf("%s: want invalidArgument, got %.300v", c.arg, out)
			} else if !strings.Contains(msg, c.arg) && !strings.Contains(msg, "ref") {
				t.Errorf("%s: the message should name it: %q", c.arg, msg)
			}
			if n := len(res.Content[0].(*mcp.TextContent).Text); n > 1000 {
				t.Errorf("%s: a %d-byte answer: %.300s", c.arg, n, res.Content[0].(*mcp.TextContent).Text)
			}
		}
		// The server goes on.
		mustOK(t, cs, "read_table", map[string]any{"session": session, "element": sheet, "rows": []int{5, 5}, "columns": []int{2, 2}})
	})
}
