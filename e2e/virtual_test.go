//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// partialView is what a partial container held in one read: its range and
// its children's "role name" lines, in order.
type partialView struct {
	Range    childrenRange
	Children []string
}

func (v partialView) String() string {
	b, _ := json.Marshal(v.Range)
	return fmt.Sprintf("range %s, %d children %v", b, len(v.Children), v.Children)
}

func viewOf(t *testing.T, root *elem, role, name string) partialView {
	t.Helper()
	n := root.find(func(n *elem) bool { return n.Role == role && n.Name == name })
	if n == nil {
		t.Fatalf("no %s %q in the tree", role, name)
	}
	if !n.ChildrenPartial || n.ChildrenRange == nil {
		t.Fatalf("%s %q (childCount %d, %d children read) is not marked partial", role, name, n.ChildCount, len(n.Children))
	}
	v := partialView{Range: *n.ChildrenRange}
	for _, k := range n.Children {
		v.Children = append(v.Children, k.Role+" "+strconv.Quote(k.Name))
	}
	return v
}

// wholeTree reads the session's whole tree as JSON (for a mirrored
// toolkit, from the session's mirror after the first read), within no
// size budget. On a loaded machine a big application's bulk cache read can
// outlast its per-call deadline (the read says it was truncated): it is
// read again.
func wholeTree(t *testing.T, s *mcpServer, session string) map[string]any {
	t.Helper()
	var out map[string]any
	for range 3 {
		out = s.ok(t, "get_a11y_tree", map[string]any{"session": session, "format": "json", "maxNodes": 100000, "maxBytes": 100000000, "timeoutMs": 60000, "fields": []string{"key"}})
		if out["truncated"] != true {
			return out
		}
		t.Logf("tree read truncated (%v); reading again", out["truncatedReason"])
	}
	t.Fatalf("tree read truncated three times: %v", out["truncatedReason"])
	return nil
}

// mcpTree is wholeTree's root.
func mcpTree(t *testing.T, s *mcpServer, session string) *elem {
	t.Helper()
	return decode[*elem](t, wholeTree(t, s, session)["root"])
}

// cliTree reads the app's tree afresh in a new process: no mirror.
func cliTree(t *testing.T, d *testdesk.Desk, pid int) *elem {
	t.Helper()
	r := runCLI(t, d, 90*time.Second, "tree", "--pid", strconv.Itoa(pid), "--format", "json", "--max-nodes", "100000", "--max-bytes", "100000000", "--timeout-ms", "60000", "--fields", "key")
	if r.code != 0 {
		t.Fatalf("uiscope tree exited %d: %s", r.code, r.stderr)
	}
	var out struct {
		Root *elem `json:"root"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("tree JSON: %v", err)
	}
	return out.Root
}

// sameAsFresh checks that what the MCP session holds of a partial
// container (its mirror, for GTK 3 and LibreOffice) is what a fresh read
// finds: read the session, a fresh process, the session again, and when
// the two session reads agree (the app stood still) the fresh one must
// agree too.
func sameAsFresh(t *testing.T, d *testdesk.Desk, s *mcpServer, session string, pid int, role, name string) partialView {
	t.Helper()
	var last string
	for range 10 {
		a := viewOf(t, mcpTree(t, s, session), role, name)
		f := viewOf(t, cliTree(t, d, pid), role, name)
		b := viewOf(t, mcpTree(t, s, session), role, name)
		if a.String() != b.String() {
			last = fmt.Sprintf("the app was still moving:\n%s\n%s", a, b)
			continue
		}
		if a.String() != f.String() {
			t.Fatalf("%s %q: the session holds\n  %s\nbut a fresh read finds\n  %s", role, name, a, f)
		}
		return a
	}
	t.Fatalf("%s %q never stood still: %s", role, name, last)
	return partialView{}
}

// checkRows checks a view of a one-column list of rows named prefix+N
// (N from 1): the range's rows, a header if the toolkit has one, then one
// cell per row in order.
func checkRows(t *testing.T, v partialView, cellRole, prefix string, total int) {
	t.Helper()
	r := v.Range
	if r.Rows == nil || r.RowCount == nil || *r.RowCount != total {
		t.Fatalf("range %+v: want rows of %d", r, total)
	}
	r0, r1 := r.Rows[0], r.Rows[1]
	if r1 < r0+2 || r1-r0 > 100 {
		t.Fatalf("rows %d–%d: want a screenful", r0, r1)
	}
	var cells []string
	for _, c := range v.Children {
		if strings.HasPrefix(c, cellRole+" ") {
			cells = append(cells, c)
		}
	}
	if len(cells) != r1-r0+1 {
		t.Fatalf("%d %s children for rows %d–%d: %v", len(cells), cellRole, r0, r1, v.Children)
	}
	for i, c := range cells {
		if want := fmt.Sprintf("%s %q", cellRole, fmt.Sprintf("%s%d", prefix, r0+i+1)); c != want {
			t.Fatalf("row %d is %s, want %s", r0+i, c, want)
		}
	}
}

// TestGTK3LongListVisibleRows: a GTK 3 tree view of 3,000 rows holds the
// rows on screen with the Table range, in the JSON; after the list is
// scrolled the session's read (its mirror) holds the rows then on screen,
// as a fresh read does.
func TestGTK3LongListVisibleRows(t *testing.T) { testdesk.ForEach(t, testGTK3LongListVisibleRows) }

func testGTK3LongListVisibleRows(t *testing.T, d *testdesk.Desk) {
	const rows = 3000
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "long list", "--rows", strconv.Itoa(rows))
	s := startMCP(t, d, "", "--allow-input")
	session := s.connect(t, map[string]any{"pid": app.Pid})

	v := sameAsFresh(t, d, s, session, app.Pid, "table", "Rows")
	checkRows(t, v, "table cell", "Row ", rows)
	if v.Range.Rows[0] != 0 || v.Children[0] != `table column header "Row"` {
		t.Fatalf("before scrolling: %s; want from row 0, after the column header", v)
	}

	list := findOne(t, s, session, map[string]any{"role": "table", "name": "Rows", "nameMatch": "exact"})
	s.ok(t, "scroll", map[string]any{"session": session, "element": list.Ref, "direction": "down", "amount": 10})
	v = sameAsFresh(t, d, s, session, app.Pid, "table", "Rows")
	checkRows(t, v, "table cell", "Row ", rows)
	if v.Range.Rows[0] == 0 {
		t.Fatalf("after scrolling down 10 steps the list still holds row 0: %s", v)
	}
}

// TestQt5ItemViewsVisibleRows: a Qt 5 table and list of 3,000 rows (Qt
// marks neither as managing its descendants: the count decides) hold the
// rows on screen.
func TestQt5ItemViewsVisibleRows(t *testing.T) { testdesk.ForEach(t, testQt5ItemViewsVisibleRows) }

func testQt5ItemViewsVisibleRows(t *testing.T, d *testdesk.Desk) {
	const rows = 3000
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("qt5_fixture.py"), "--title", "long views", "--rows", strconv.Itoa(rows))
	s := startMCP(t, d, "", "--allow-input")
	session := s.connect(t, map[string]any{"pid": app.Pid})

	root := mcpTree(t, s, session)
	list := viewOf(t, root, "list", "Items")
	checkRows(t, list, "list item", "Item ", rows)
	table := viewOf(t, root, "table", "Rows")
	r := table.Range
	if r.Rows == nil || r.Columns == nil || r.Rows[0] != 0 || r.Rows[1] < 2 || r.Columns[0] != 0 || r.Columns[1] != 1 ||
		r.RowCount == nil || *r.RowCount != rows || r.ColumnCount == nil || *r.ColumnCount != 2 {
		t.Fatalf("table range %+v: want rows from 0, columns 0–1, of %d×2", r, rows)
	}
	want := []string{`table column header "Row"`, `table column header "Value"`}
	for i := r.Rows[0]; i <= r.Rows[1]; i++ {
		want = append(want, fmt.Sprintf("table cell %q", fmt.Sprintf("Row %d", i+1)), fmt.Sprintf("table cell %q", fmt.Sprintf("Value %d", i+1)))
	}
	if strings.Join(table.Children, "\n") != strings.Join(want, "\n") {
		t.Fatalf("table children:\n%s\nwant\n%s", strings.Join(table.Children, "\n"), strings.Join(want, "\n"))
	}

	// Scrolled, the list holds other rows.
	ref := findOne(t, s, session, map[string]any{"role": "list", "name": "Items", "nameMatch": "exact"})
	s.ok(t, "scroll", map[string]any{"session": session, "element": ref.Ref, "direction": "down", "amount": 10})
	var after partialView
	until(t, "the list scrolled", func(_ context.Context) (bool, string) {
		after = viewOf(t, mcpTree(t, s, session), "list", "Items")
		return after.Range.Rows[0] > 0, after.String()
	})
	checkRows(t, after, "list item", "Item ", rows)
}
