//go:build linux

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// TestTaskSystemMonitorProcesses: read GNOME System Monitor's process table
// (GTK 3) and sort it by ID, as an agent would. Its Process Name column is
// drawn by two renderers (an icon and the name), so each cell holds two
// cells and the name is in the second: every name read must be the one the
// kernel gives the row's process (/proc/ID/comm, which the name starts
// with when comm is cut at 15 bytes), and after a click on the ID header
// the IDs read are in order.
func TestTaskSystemMonitorProcesses(t *testing.T) {
	testdesk.ForEach(t, testTaskSystemMonitorProcesses)
}

func testTaskSystemMonitorProcesses(t *testing.T, d *testdesk.Desk) {
	// The process view refreshes every 100 s, not 3: the launch waits
	// for the tree to hold still, and on a busy machine a table of
	// processes a screen high (sway's window is the output's size) changes
	// from one refresh to the next. Sorting takes no refresh.
	argv := freshHome(t)
	keyfile := filepath.Join(strings.TrimPrefix(argv[1], "HOME="), ".config", "glib-2.0", "settings", "keyfile")
	if err := os.MkdirAll(filepath.Dir(keyfile), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyfile, []byte("[org/gnome/gnome-system-monitor]\nupdate-interval=100000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	app := d.Launch(t, append(argv, "GSETTINGS_BACKEND=keyfile", "gnome-system-monitor")...)
	s := startMCP(t, d, "", "--allow-input")
	defer s.logCost(t, "system-monitor")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	table := findOne(t, s, sess, map[string]any{"role": "tree table", "interface": "table"}).Ref
	read := func() ([]string, [][]*string) {
		a := decode[tableAnswer](t, s.ok(t, "read_table", map[string]any{"session": sess, "element": table, "rows": []int{0, 29}}))
		if len(a.Cells) == 0 || !a.Complete {
			t.Fatalf("read_table: %+v", a)
		}
		return a.ColumnHeaders, a.Cells
	}
	headers, rows := read()
	name, id := slices.Index(headers, "Process Name"), slices.Index(headers, "ID")
	if name < 0 || id < 0 {
		t.Fatalf("column headers %q: no Process Name or ID", headers)
	}
	checked := 0
	procName := "" // the name of the first row whose process the kernel knows
	for i, row := range rows {
		if row[id] == nil || row[name] == nil {
			t.Fatalf("row %d: %v", i, deref(row))
		}
		comm, err := os.ReadFile("/proc/" + *row[id] + "/comm")
		if err != nil {
			continue // it exited since
		}
		want := strings.TrimSpace(string(comm))
		got := *row[name]
		if strings.HasPrefix(want, "kworker/") {
			// A kernel worker renames itself after the work queue it
			// serves (kworker/0:1-events, then kworker/0:1-mm_percpu_wq):
			// only the worker's own part is stable between two reads.
			want, _, _ = strings.Cut(want, "-")
		}
		if got == "" || !strings.HasPrefix(got, want) {
			t.Errorf("row %d (ID %s): Process Name %q; the kernel says %q", i, *row[id], got, want)
		}
		if checked == 0 {
			procName = got
		}
		checked++
	}
	if checked == 0 {
		t.Fatalf("no row's process was still running: %v", rows)
	}
	// The tree gives the Process Name cells the same value: the cell
	// that holds the renderers' cells, not only its second child. (On a
	// server of its own: its answers are no part of the task's cost.)
	tree := startMCP(t, d, "")
	tsess := tree.connect(t, map[string]any{"pid": app.Pid})
	ttable := findOne(t, tree, tsess, map[string]any{"role": "tree table", "interface": "table"}).Ref
	cells := decode[[]elem](t, tree.ok(t, "find_elements", map[string]any{"session": tsess, "within": ttable, "role": "table cell", "limit": 1000})["elements"])
	valued := map[string]bool{}
	for _, c := range cells {
		if c.ChildCount >= 2 && c.Value != nil {
			valued[*c.Value] = true
		}
	}
	if !valued[procName] {
		t.Errorf("no Process Name cell in the tree holds %q as its value (%d cells with renderers valued)", procName, len(valued))
	}

	// The order of the IDs read: 1 ascending, -1 descending, 0 neither.
	order := func() (int, string) {
		_, rows := read()
		var ids []int
		for _, row := range rows {
			n, err := strconv.Atoi(deref(row)[id])
			if err != nil {
				return 0, fmt.Sprint(deref(row))
			}
			ids = append(ids, n)
		}
		switch {
		case slices.IsSorted(ids):
			return 1, fmt.Sprint(ids)
		case slices.IsSortedFunc(ids, func(a, b int) int { return b - a }):
			return -1, fmt.Sprint(ids)
		}
		return 0, fmt.Sprint(ids)
	}
	header := findOne(t, s, sess, map[string]any{"within": table, "name": "ID", "nameMatch": "exact", "role": "table column header"})
	before, _ := order()
	// A click on the header sorts by ID; a second click reverses it.
	var first int
	s.ok(t, "click", map[string]any{"session": sess, "element": header.Ref})
	until(t, "the table sorted by ID", func(ctx context.Context) (bool, string) {
		o, ids := order()
		first = o
		return o != 0 && (before == 0 || o != before), ids
	})
	s.ok(t, "click", map[string]any{"session": sess, "element": header.Ref})
	until(t, "the table sorted by ID the other way", func(ctx context.Context) (bool, string) {
		o, ids := order()
		return o == -first, ids
	})
}
