package core

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
)

const (
	sheetPid = 6161
	// planted in a password cell of the sheet: it must never come out.
	tableSecret = "hunter2-table-secret"
)

// sheetText is the text of the fake sheet's cell at row, column: every
// cell of its 2^31-1 rows has one, made on demand.
func sheetText(row, col int) string { return fmt.Sprintf("r%dc%d", row, col) }

// sheetDesk is a desktop with one app holding a spreadsheet-like table of
// 2^31-1 rows and 4 columns (column 2 of row 7 a password field, column 3
// of row 8 a 300-character text), a 16384-column sheet, a small list with
// headers and a button.
func sheetDesk(t *testing.T) (*fake.Desktop, *Sessions, *Session, *Tree) {
	t.Helper()
	shown := fake.States("enabled", "showing", "visible")
	cellRole, textRole := fake.Role("table cell"), fake.Role("password text")
	sheet := &platform.Node{Key: "sheet", Role: fake.Role("table"), Name: "Sheet1", States: shown | fake.States("manages-descendants"),
		ChildCount: maxTableIndex, Interfaces: []string{"component", "table"}}
	wide := &platform.Node{Key: "wide", Role: fake.Role("table"), Name: "Wide", States: shown, Interfaces: []string{"table"}}
	list := &platform.Node{Key: "list", Role: fake.Role("tree table"), Name: "Files", States: shown, Interfaces: []string{"table"}}
	button := &platform.Node{Key: "ok", Role: fake.Role("push button"), Name: "OK", States: shown, Interfaces: []string{"action"}}
	frame := &platform.Node{Key: "frame", Role: fake.Role("frame"), Name: "Book", States: shown,
		Children: []*platform.Node{sheet, wide, list, button}, ChildCount: 4}
	d := fake.New()
	d.AddApp(fake.App{Pid: sheetPid, Name: "calc", Tree: &platform.Node{Key: "root", Role: platform.RoleApplication, Name: "calc",
		ChildCount: 1, Children: []*platform.Node{frame}},
		Tables: map[string]*fake.Table{
			"sheet": {Rows: maxTableIndex, Columns: 4, Cell: func(r, c int) *platform.Node {
				switch {
				case r == 7 && c == 2:
					return &platform.Node{Role: textRole, Name: tableSecret}
				case r == 8 && c == 3:
					return &platform.Node{Role: cellRole, Name: strings.Repeat("é", 300)}
				}
				return &platform.Node{Role: cellRole, Name: sheetText(r, c)}
			}},
			"wide": {Rows: 1048576, Columns: 16384, Cell: func(r, c int) *platform.Node {
				return &platform.Node{Role: cellRole, Name: sheetText(r, c)}
			}},
			"list": {Rows: 3, Columns: 2, ColumnHeaders: []string{"Name", "Size"}, Cell: func(r, c int) *platform.Node {
				return &platform.Node{Role: cellRole, Name: sheetText(r, c)}
			}},
		}})
	d.AddWindow(sheetPid, "Book", platform.Rect{Width: 800, Height: 600})
	m := NewSessions(d.Platform())
	s, err := m.Connect(context.Background(), AppSpec{Pid: sheetPid}, "")
	if err != nil {
		t.Fatal(err)
	}
	tr, _, err := m.Fetch(context.Background(), s, 5*time.Second, platform.TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d, m, s, tr
}

func readTable(t *testing.T, m *Sessions, s *Session, req TableRequest) (*TableRead, error) {
	t.Helper()
	if err := req.Validate(); err != nil {
		return nil, err
	}
	return m.ReadTable(context.Background(), s.ID, req)
}

// TestReadTableBeyondTheScreen: cells a million rows down are read, and a
// range larger than one call reads comes in pieces that, followed by next,
// add up to the range exactly.
func TestReadTableBeyondTheScreen(t *testing.T) {
	_, m, s, tr := sheetDesk(t)
	sheet := refOf(t, tr, "Sheet1")
	r, err := readTable(t, m, s, TableRequest{Element: sheet, Rows: []int{1000000, 1000002}, Columns: []int{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if r.RowCount != maxTableIndex || r.ColumnCount != 4 || !r.Complete || r.Next != nil || r.Element != sheet {
		t.Errorf("size, completeness: %+v", r)
	}
	if len(r.Cells) != 3 || *r.Cells[2][1] != sheetText(1000002, 2) || *r.Cells[0][0] != sheetText(1000000, 1) {
		t.Errorf("cells: %v", r.Cells)
	}

	// 1000 rows of 4 columns: two calls of 500 rows.
	req := TableRequest{Element: sheet, Rows: []int{10, 1009}}
	var got [][]*string
	for calls := 0; ; calls++ {
		if calls > 5 {
			t.Fatal("next never ends")
		}
		r, err := readTable(t, m, s, req)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(r.Cells) * len(r.Cells[0]); n > MaxTableCells {
			t.Fatalf("a call read %d cells", n)
		}
		if r.Range.Rows[0] != req.Rows[0] || r.Range.Rows[1] != req.Rows[0]+len(r.Cells)-1 || r.Range.Columns != [2]int{0, 3} {
			t.Fatalf("range %+v for %d rows asked from %v", r.Range, len(r.Cells), req.Rows)
		}
		got = append(got, r.Cells...)
		if r.Complete {
			break
		}
		if r.Next == nil || !strings.Contains(r.Note, fmt.Sprintf("rows [%d, 1009]", r.Next.Rows[0])) {
			t.Fatalf("incomplete without next or a note saying it: %+v %q", r.Next, r.Note)
		}
		req.Rows, req.Columns = r.Next.Rows[:], r.Next.Columns[:]
	}
	if len(got) != 1000 {
		t.Fatalf("%d rows read, want 1000", len(got))
	}
	for i, row := range got {
		for c, cell := range row {
			if cell == nil || *cell != sheetText(10+i, c) {
				t.Fatalf("row %d column %d: %v", 10+i, c, cell)
			}
		}
	}
}

// TestReadTableRedactsAndCaps: a password cell gives no text (and its text
// is nowhere in the answer); a long cell is cut at MaxValueRunes and says
// so.
func TestReadTableRedactsAndCaps(t *testing.T) {
	_, m, s, tr := sheetDesk(t)
	r, err := readTable(t, m, s, TableRequest{Element: refOf(t, tr, "Sheet1"), Rows: []int{6, 9}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(r)
	if strings.Contains(string(b), tableSecret) {
		t.Fatalf("the password cell's text is in the answer: %s", b)
	}
	if r.Cells[1][2] != nil || len(r.Redacted) != 1 || r.Redacted[0] != (TableCellRef{Row: 7, Column: 2}) {
		t.Errorf("password cell: %v, redacted %+v", r.Cells[1][2], r.Redacted)
	}
	if c := r.Cells[2][3]; c == nil || *c != strings.Repeat("é", platform.MaxValueRunes) || len(r.Truncated) != 1 || r.Truncated[0] != (TableCellRef{Row: 8, Column: 3}) {
		t.Errorf("long cell: %d runes, truncated %+v", len([]rune(*c)), r.Truncated)
	}
}

// TestReadTableEdges: a range past the table's end stops at it and says so;
// headers come with the columns read; a range starting past the end, a
// table too wide to read whole, and an element without Table are refused
// with what to do; a frozen app fails by the deadline; another session's
// ref is refused.
func TestReadTableEdges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d, m, s, tr := sheetDesk(t)
		r, err := readTable(t, m, s, TableRequest{Element: refOf(t, tr, "Files"), Rows: []int{1, 1 << 40}, Columns: []int{1, 5}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Range.Rows != [2]int{1, 2} || r.Range.Columns != [2]int{1, 1} || !r.Complete ||
			len(r.ColumnHeaders) != 1 || r.ColumnHeaders[0] != "Size" || !strings.Contains(r.Note, "ends at row 2") {
			t.Errorf("clamped read: %+v", r)
		}
		refused := []struct {
			name string
			req  TableRequest
			code string
			says string
		}{
			{"rows past the end", TableRequest{Element: refOf(t, tr, "Files"), Rows: []int{3, 9}}, CodeInvalidArgument, "[0, 2]"},
			{"columns past the end", TableRequest{Element: refOf(t, tr, "Files"), Rows: []int{0, 1}, Columns: []int{2, 2}}, CodeInvalidArgument, "[0, 1]"},
			{"too wide", TableRequest{Element: refOf(t, tr, "Wide"), Rows: []int{0, 0}}, CodeInvalidArgument, "pass columns"},
			{"no table", TableRequest{Element: refOf(t, tr, "OK"), Rows: []int{0, 0}}, CodeNotSupported, `interface "table"`},
			{"unknown ref", TableRequest{Element: "a11y:e999999", Rows: []int{0, 0}}, CodeUnknownRef, ""},
		}
		for _, c := range refused {
			_, err := readTable(t, m, s, c.req)
			if e := AsError(err); e == nil || e.Code != c.code || !strings.Contains(e.Msg, c.says) {
				t.Errorf("%s: %v, want %s saying %q", c.name, err, c.code, c.says)
			}
		}

		// A ref of another session is refused, never read.
		s2, err := m.Connect(context.Background(), AppSpec{Pid: sheetPid}, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := m.Fetch(context.Background(), s2, 5*time.Second, platform.TreeOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := readTable(t, m, s2, TableRequest{Element: refOf(t, tr, "Sheet1"), Rows: []int{0, 0}}); AsError(err).Code != CodeUnknownRef {
			t.Errorf("session 1's ref in session 2: %v, want unknownRef", err)
		}

		d.Freeze(sheetPid, true)
		ms := 150
		start := time.Now()
		_, err = readTable(t, m, s, TableRequest{Element: refOf(t, tr, "Sheet1"), Rows: []int{0, 9}, TimeoutMs: &ms})
		if e := AsError(err); e == nil || e.Code != CodeTimeout || !e.Retryable {
			t.Errorf("frozen app: %v, want a retryable timeout", err)
		}
		if el := time.Since(start); el > 5*time.Second {
			t.Errorf("a 150 ms read of a frozen app took %v", el)
		}
	})
}

// TestReadTableTextBudget: rows of long cells stop at the text budget, and
// next reads on from there.
func TestReadTableTextBudget(t *testing.T) {
	long := strings.Repeat("x", platform.MaxValueRunes)
	d := fake.New()
	d.AddApp(fake.App{Pid: sheetPid, Name: "calc", Tree: &platform.Node{Key: "root", Role: platform.RoleApplication, ChildCount: 1,
		Children: []*platform.Node{{Key: "t", Role: fake.Role("table"), Name: "T", Interfaces: []string{"table"}}}},
		Tables: map[string]*fake.Table{"t": {Rows: 1000, Columns: 10, Cell: func(int, int) *platform.Node {
			return &platform.Node{Role: fake.Role("table cell"), Name: long}
		}}}})
	m := NewSessions(d.Platform())
	s, err := m.Connect(context.Background(), AppSpec{Pid: sheetPid}, "")
	if err != nil {
		t.Fatal(err)
	}
	tr, _, err := m.Fetch(context.Background(), s, 5*time.Second, platform.TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := readTable(t, m, s, TableRequest{Element: refOf(t, tr, "T"), Rows: []int{0, 999}})
	if err != nil {
		t.Fatal(err)
	}
	want := maxTableTextBytes / (10 * len(long))
	if len(r.Cells) != want || r.Complete || r.Next == nil || r.Next.Rows != [2]int{want, 999} {
		t.Errorf("%d rows, complete %v, next %+v; want %d rows and next from there", len(r.Cells), r.Complete, r.Next, want)
	}
}

// TestReadTableConcurrent: two sessions reading the same table at once
// each get their own range, whole.
func TestReadTableConcurrent(t *testing.T) {
	_, m, s, tr := sheetDesk(t)
	s2, err := m.Connect(context.Background(), AppSpec{Pid: sheetPid}, "")
	if err != nil {
		t.Fatal(err)
	}
	tr2, _, err := m.Fetch(context.Background(), s2, 5*time.Second, platform.TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i, c := range []struct {
		s  *Session
		tr *Tree
	}{{s, tr}, {s2, tr2}, {s, tr}, {s2, tr2}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			first := 100 * i
			r, err := readTable(t, m, c.s, TableRequest{Element: refOf(t, c.tr, "Sheet1"), Rows: []int{first, first + 49}})
			if err != nil {
				t.Error(err)
				return
			}
			if len(r.Cells) != 50 || *r.Cells[49][3] != sheetText(first+49, 3) {
				t.Errorf("reader %d: %d rows", i, len(r.Cells))
			}
		}()
	}
	wg.Wait()
}

// TestTableRequestValidate: malformed ranges are invalidArgument saying
// what a range is.
func TestTableRequestValidate(t *testing.T) {
	for _, c := range []struct {
		rows, cols []int
		says       string
	}{
		{nil, nil, "rows is required"},
		{[]int{}, nil, "two integers"},
		{[]int{1}, nil, "two integers"},
		{[]int{1, 2, 3}, nil, "two integers"},
		{[]int{5, 2}, nil, "first <= last"},
		{[]int{-1, 2}, nil, "0 or more"},
		{[]int{0, 2}, []int{0, 2000}, "at most 2000 cells"},
		{[]int{1 << 40, 1 << 41}, nil, "past any table's end"},
	} {
		req := TableRequest{Element: "a11y:e1", Rows: c.rows, Columns: c.cols}
		if e := AsError(req.Validate()); e == nil || e.Code != CodeInvalidArgument || !strings.Contains(e.Msg, c.says) {
			t.Errorf("rows %v columns %v: %v, want invalidArgument saying %q", c.rows, c.cols, e, c.says)
		}
	}
	if e := AsError((&TableRequest{Rows: []int{0, 1}}).Validate()); e == nil || e.Code != CodeInvalidArgument {
		t.Errorf("no element: %v", e)
	}
	if e := AsError((&TableRequest{Element: "e1x", Rows: []int{0, 1}}).Validate()); e == nil || e.Code != CodeMalformedRef {
		t.Errorf("malformed ref: %v", e)
	}
	if err := (&TableRequest{Element: "atspi::1.2/x", Rows: []int{0, 1}, Fresh: true}).Validate(); err != nil {
		t.Errorf("a key with Fresh: %v", err)
	}
}

func TestParseRange(t *testing.T) {
	for in, want := range map[string][2]int{"0:99": {0, 99}, "5": {5, 5}, " 3 : 4 ": {3, 4}, "7:": {7, maxTableIndex}, ":9": {0, 9}} {
		got, err := ParseRange(in)
		if err != nil || len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Errorf("ParseRange(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", ":", "a:b", "-1:3", "+1:3", "3:1", "1:2:3", "99999999999999999999:1", "1:-0", "0x10"} {
		if _, err := ParseRange(in); AsError(err) == nil || AsError(err).Code != CodeInvalidArgument {
			t.Errorf("ParseRange(%q): %v, want invalidArgument", in, err)
		}
	}
}
