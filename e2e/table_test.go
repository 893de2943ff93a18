//go:build linux

package e2e

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// tableAnswer is read_table's answer.
type tableAnswer struct {
	RowCount      int         `json:"rowCount"`
	ColumnCount   int         `json:"columnCount"`
	Range         *tableRange `json:"range"`
	ColumnHeaders []string    `json:"columnHeaders"`
	Cells         [][]*string `json:"cells"`
	Complete      bool        `json:"complete"`
	Next          *tableRange `json:"next"`
	Note          string      `json:"note"`
}

type tableRange struct {
	Rows    [2]int `json:"rows"`
	Columns [2]int `json:"columns"`
}

// readAll reads rows and columns with read_table, following next until the
// answer is complete, and returns the rows read.
func readAll(t *testing.T, s *mcpServer, session, table string, rows, columns [2]int) ([][]*string, int) {
	t.Helper()
	var got [][]*string
	calls := 0
	for {
		calls++
		if calls > 20 {
			t.Fatalf("read_table's next never ends")
		}
		start := time.Now()
		out := s.ok(t, "read_table", map[string]any{"session": session, "element": table, "rows": rows, "columns": columns, "timeoutMs": 60000})
		a := decode[tableAnswer](t, out)
		t.Logf("read_table rows %v columns %v: %d rows in %v", rows, columns, len(a.Cells), time.Since(start))
		if a.Range == nil || a.Range.Rows[0] != rows[0] || a.Range.Columns != columns || a.Range.Rows[1]-a.Range.Rows[0]+1 != len(a.Cells) {
			t.Fatalf("read_table rows %v columns %v answered range %+v with %d rows", rows, columns, a.Range, len(a.Cells))
		}
		got = append(got, a.Cells...)
		if a.Complete {
			return got, calls
		}
		if a.Next == nil || a.Next.Rows[0] != a.Range.Rows[1]+1 || a.Next.Columns != columns || a.Note == "" {
			t.Fatalf("an incomplete answer without next from where it stopped, or a note: next %+v, range %+v, note %q", a.Next, a.Range, a.Note)
		}
		rows = a.Next.Rows
	}
}

// TestReadTableCalc: in a generated sheet of 300 rows, read_table reads a
// range that runs far below the screen, in calls of at most 2,000 cells
// that follow next, and it equals the sheet's data cell for cell; the CLI
// prints rows off screen. The review lens: an element without Table, bad
// and huge arguments are refused as data; a ref from another session is
// refused; two sessions read at once; a SIGSTOPped Calc is answered by the
// deadline, and reads again once continued.
func TestReadTableCalc(t *testing.T) { testdesk.ForEach(t, testReadTableCalc) }

func testReadTableCalc(t *testing.T, d *testdesk.Desk) {
	data := sheetData(300)
	app := launchCalc(t, d, data)
	s := startMCP(t, d, "")
	session := s.connect(t, map[string]any{"pid": app.Pid})
	grid, _ := calcGrid(t, s, session)
	if grid.ChildrenRange == nil || grid.ChildrenRange.Rows == nil || grid.ChildrenRange.Rows[1] >= 250 {
		t.Fatalf("the screen shows rows %+v: the test needs rows 250 on off screen", grid.ChildrenRange)
	}
	sheet := grid.Ref

	t.Run("beyond the screen", func(t *testing.T) {
		// 10 columns of 300 rows: 3,000 cells, more than one call reads.
		got, calls := readAll(t, s, session, sheet, [2]int{0, 299}, [2]int{0, 9})
		if calls < 2 || len(got) != 300 {
			t.Fatalf("%d rows in %d calls, want 300 rows in at least 2 calls", len(got), calls)
		}
		for r, row := range got {
			for c, cell := range row {
				want := ""
				if c < len(data[r]) {
					want = data[r][c]
				}
				if cell == nil || *cell != want {
					t.Fatalf("%s: %v, want %q", cellName(r, c), cell, want)
				}
			}
		}
		// Past the data, inside the sheet: empty cells, read as such.
		out := decode[tableAnswer](t, s.ok(t, "read_table", map[string]any{"session": session, "element": sheet, "rows": []int{299, 300}, "columns": []int{3, 3}}))
		if out.RowCount < 1000 || out.ColumnCount < 100 || len(out.Cells) != 2 || out.Cells[0][0] == nil || *out.Cells[0][0] != data[299][3] ||
			out.Cells[1][0] == nil || *out.Cells[1][0] != "" {
			t.Errorf("the last row and the one after: %+v", out)
		}
	})

	t.Run("cli", func(t *testing.T) {
		key := findKeyed(t, s, session, map[string]any{"role": "table", "name": "Sheet", "nameMatch": "contains"}).Key
		r := runCLI(t, d, 120*time.Second, "table", "--pid", strconv.Itoa(app.Pid), "--element", key, "--rows", "250:252", "--columns", "0:3")
		if r.code != 0 {
			t.Fatalf("uiscope table: exit %d\n%s", r.code, r.stderr)
		}
		for i := 250; i <= 252; i++ {
			if want := strconv.Itoa(i) + "\t" + strings.Join(data[i], "\t") + "\n"; !strings.Contains(r.stdout, want) {
				t.Errorf("uiscope table lacks row %d %q:\n%s", i, want, r.stdout)
			}
		}
		r = runCLI(t, d, 120*time.Second, "table", "--pid", strconv.Itoa(app.Pid), "--element", key, "--rows", "0:999", "--columns", "0:3")
		if r.code != 3 || !strings.Contains(r.stderr, "--rows 500:999 --columns 0:3") {
			t.Errorf("a range of two calls: exit %d, stderr %q; want 3 and the --rows to read on", r.code, r.stderr)
		}
	})

	t.Run("refused as data", func(t *testing.T) {
		frame := findKeyed(t, s, session, map[string]any{"role": "frame"}).Ref
		out := s.fail(t, "read_table", map[string]any{"session": session, "element": frame, "rows": []int{0, 0}}, "notSupported")
		if msg, _ := out["error"].(string); !strings.Contains(msg, "find_elements") {
			t.Errorf("notSupported without what to do: %q", msg)
		}
		many := make([]int, 100000)
		for _, args := range []map[string]any{
			{"rows": []int{5, 2}, "columns": []int{0, 3}},
			{"rows": "1:5", "columns": []int{0, 3}},
			{"rows": []any{0.5, 3}, "columns": []int{0, 3}},
			{"rows": []int{2000000, 2000001}, "columns": []int{0, 3}},
			{"rows": []int{0, 10}},
			{"rows": []int{0, 0}, "columns": []int{0, 16383}},
			{"rows": many, "columns": []int{0, 3}},
			{"rows": []int{0, 1}, "columns": []int{0, 3}, "timeoutMs": 1e12},
		} {
			args["session"], args["element"] = session, sheet
			_, res, err := s.callRaw(t, "read_table", args)
			if err != nil {
				t.Fatalf("protocol error for %.80v: %v", args, err)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			if !res.IsError || !strings.Contains(text, `"invalidArgument"`) || len(text) > 1000 {
				t.Errorf("rows %.40v columns %v: want a short invalidArgument, got %.300s", args["rows"], args["columns"], text)
			}
		}
	})

	t.Run("two sessions", func(t *testing.T) {
		other := s.connect(t, map[string]any{"pid": app.Pid})
		// Before and after the other session reads its own tree, this
		// session's ref is not one of its refs.
		s.fail(t, "read_table", map[string]any{"session": other, "element": sheet, "rows": []int{0, 0}, "columns": []int{0, 0}}, "unknownRef")
		otherGrid, _ := calcGrid(t, s, other)
		s.fail(t, "read_table", map[string]any{"session": other, "element": sheet, "rows": []int{0, 0}, "columns": []int{0, 0}}, "unknownRef")

		var wg sync.WaitGroup
		for i, c := range []struct{ session, table string }{{session, sheet}, {other, otherGrid.Ref}} {
			wg.Go(func() {
				first := 150 * i
				ctx, cancel := context.WithTimeout(context.Background(), mcpCallLimit)
				defer cancel()
				res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_table", Arguments: map[string]any{
					"session": c.session, "element": c.table, "rows": []int{first, first + 149}, "columns": []int{0, 3}, "timeoutMs": 60000}})
				if err != nil {
					t.Errorf("session %s: %v", c.session, err)
					return
				}
				a := decode[tableAnswer](t, res.StructuredContent)
				if res.IsError || len(a.Cells) != 150 {
					t.Errorf("session %s: %d rows: %.300v", c.session, len(a.Cells), res.StructuredContent)
					return
				}
				for r, row := range a.Cells {
					if got := fmt.Sprint(deref(row)); got != fmt.Sprint(data[first+r]) {
						t.Errorf("session %s row %d: %s, want %v", c.session, first+r, got, data[first+r])
						return
					}
				}
			})
		}
		wg.Wait()
	})

	t.Run("stopped app", func(t *testing.T) {
		if err := syscall.Kill(app.Pid, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		defer syscall.Kill(app.Pid, syscall.SIGCONT)
		start := time.Now()
		out := s.fail(t, "read_table", map[string]any{"session": session, "element": sheet, "rows": []int{0, 99}, "columns": []int{0, 3}, "timeoutMs": 1500}, "timeout")
		if took := time.Since(start); took > 1500*time.Millisecond+10*time.Second {
			t.Errorf("read_table with timeoutMs 1500 on a stopped Calc took %v", took)
		}
		if out["retryable"] != true {
			t.Errorf("a timeout that is not retryable: %v", out)
		}
		s.ok(t, "list_apps", nil)
		if err := syscall.Kill(app.Pid, syscall.SIGCONT); err != nil {
			t.Fatal(err)
		}
		a := decode[tableAnswer](t, s.ok(t, "read_table", map[string]any{"session": session, "element": sheet, "rows": []int{260, 260}, "columns": []int{0, 3}, "timeoutMs": 60000}))
		if len(a.Cells) != 1 || fmt.Sprint(deref(a.Cells[0])) != fmt.Sprint(data[260]) {
			t.Errorf("after SIGCONT: %+v", a)
		}
	})
}

// deref turns a row of cells into their text ("<nil>" for null).
func deref(row []*string) []string {
	out := make([]string, len(row))
	for i, c := range row {
		out[i] = "<nil>"
		if c != nil {
			out[i] = *c
		}
	}
	return out
}

// TestReadTableGTK3TreeView: a GTK 3 tree view of 2,500 rows is read far
// below what it shows, with its column header; the password field is no
// table, and its secret is not in the answer.
func TestReadTableGTK3TreeView(t *testing.T) { testdesk.ForEach(t, testReadTableGTK3TreeView) }

func testReadTableGTK3TreeView(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--rows", "2500", "--title", "uiscope read_table")
	s := startMCP(t, d, "")
	session := s.connect(t, map[string]any{"pid": app.Pid})
	rows := findKeyed(t, s, session, map[string]any{"name": "Rows", "nameMatch": "exact", "interface": "table"}).Ref
	got, _ := readAll(t, s, session, rows, [2]int{2400, 2499}, [2]int{0, 0})
	for i, row := range got {
		if want := fmt.Sprintf("Row %d", 2401+i); len(row) != 1 || row[0] == nil || *row[0] != want {
			t.Fatalf("row %d: %v, want %q", 2400+i, deref(row), want)
		}
	}
	a := decode[tableAnswer](t, s.ok(t, "read_table", map[string]any{"session": session, "element": rows, "rows": []int{2498, 5000}}))
	if a.RowCount != 2500 || a.ColumnCount != 1 || fmt.Sprint(a.ColumnHeaders) != "[Row]" || len(a.Cells) != 2 || !a.Complete || !strings.Contains(a.Note, "ends at row 2499") {
		t.Errorf("the list's end: %+v", a)
	}
	pw := findKeyed(t, s, session, map[string]any{"role": "password text"}).Ref
	_, res, err := s.callRaw(t, "read_table", map[string]any{"session": session, "element": pw, "rows": []int{0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.Contains(text, "notSupported") || strings.Contains(text, "hunter2-gtk-secret") {
		t.Errorf("read_table on the password field: %s", text)
	}
}

// TestReadTableQt5: a Qt 5 table of 3,000 rows is read far below what it
// shows, with its headers; a cell longer than the cap comes cut at 200
// characters and says so (Qt answers a GetText whose end is past the
// character count with "", so the end is picked from the count).
func TestReadTableQt5(t *testing.T) { testdesk.ForEach(t, testReadTableQt5) }

func testReadTableQt5(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("qt5_table.py"), "--rows", "3000")
	s := startMCP(t, d, "")
	session := s.connect(t, map[string]any{"pid": app.Pid})
	items := findKeyed(t, s, session, map[string]any{"name": "Items", "nameMatch": "exact", "interface": "table"}).Ref
	got, _ := readAll(t, s, session, items, [2]int{2900, 2999}, [2]int{0, 2})
	for i, row := range got {
		r := 2900 + i
		if want := fmt.Sprint([]string{fmt.Sprintf("item %d", r), strconv.Itoa(r * 7), fmt.Sprintf("note %d", r)}); fmt.Sprint(deref(row)) != want {
			t.Fatalf("row %d: %v, want %s", r, deref(row), want)
		}
	}
	out := s.ok(t, "read_table", map[string]any{"session": session, "element": items, "rows": []int{5, 5}})
	a := decode[tableAnswer](t, out)
	long := "long " + strings.Repeat("x", 195)
	if fmt.Sprint(a.ColumnHeaders) != "[Name Qty Note]" || len(a.Cells) != 1 || a.Cells[0][2] == nil || *a.Cells[0][2] != long ||
		fmt.Sprint(out["truncatedCells"]) != "[map[column:2 row:5]]" {
		t.Errorf("row 5: headers %v, cells %v, truncatedCells %v; want the note cut at 200 characters", a.ColumnHeaders, a.Cells, out["truncatedCells"])
	}
}

// TestReadTableBrowsers: an HTML table of 400 rows, most of them below the
// window, is read whole in Firefox and Chromium: a cell holding a link
// reads as the link's name (the browsers give its text as an embedded
// object character), and a cell holding a password field gives no text —
// the secret is nowhere in the answer. A cell mixing text and a link reads
// as a screen reader reads it: Chromium gives the cell's text leaves as
// children too (static text), which are no embedded objects.
func TestReadTableBrowsers(t *testing.T) { testdesk.ForEach(t, testReadTableBrowsers) }

func testReadTableBrowsers(t *testing.T, d *testdesk.Desk) {
	const secret = "hunter2-html-table-secret"
	var rows strings.Builder
	for i := range 400 {
		third := "x <b>bold</b> y"
		if i%2 == 1 {
			third = `x <a href="#">link</a> y`
		}
		if i == 7 {
			third = `<input type="password" aria-label="PIN" value="` + secret + `">`
		}
		fmt.Fprintf(&rows, `<tr><td>c%d</td><td><a href="#r%d">link %d</a></td><td>%s</td></tr>`, i, i, i, third)
	}
	page := `<!DOCTYPE html><html><head><title>Table page</title></head><body><table id="t">` +
		`<thead><tr><th>First</th><th>Link</th><th>Third</th></tr></thead><tbody>` + rows.String() + `</tbody></table></body></html>`
	for _, b := range browsers {
		t.Run(b.name, func(t *testing.T) {
			app := openPage(t, d, b, "Table page", page)
			s := startMCP(t, d, "")
			session := s.connect(t, map[string]any{"pid": app.Pid})
			table := findKeyed(t, s, session, map[string]any{"role": "table", "interface": "table"}).Ref
			out, res, err := s.callRaw(t, "read_table", map[string]any{"session": session, "element": table, "rows": []int{0, 500}, "timeoutMs": 60000})
			if err != nil {
				t.Fatal(err)
			}
			if text := res.Content[0].(*mcp.TextContent).Text; strings.Contains(text, secret) {
				t.Fatalf("the password field's value is in the answer")
			}
			a := decode[tableAnswer](t, out)
			if out["ok"] != true || a.ColumnCount != 3 || !a.Complete || len(a.Cells) < 400 {
				t.Fatalf("read_table: %.500v", out)
			}
			byFirst := map[string][]string{}
			for _, row := range a.Cells {
				cells := deref(row)
				byFirst[cells[0]] = cells
			}
			for i := range 400 {
				third := "x bold y"
				if i%2 == 1 {
					third = "x link y"
				}
				if i == 7 {
					third = "<nil>"
				}
				want := fmt.Sprint([]string{fmt.Sprintf("c%d", i), fmt.Sprintf("link %d", i), third})
				if got := byFirst[fmt.Sprintf("c%d", i)]; fmt.Sprint(got) != want {
					t.Fatalf("the row of c%d: %v, want %s", i, got, want)
				}
			}
			if fmt.Sprint(out["redactedCells"]) == "" || !strings.Contains(fmt.Sprint(out["redactedCells"]), "column:2") {
				t.Errorf("the password cell is not listed as redacted: %v", out["redactedCells"])
			}
		})
	}
}
