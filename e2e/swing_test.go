//go:build linux

package e2e

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// swingFixture starts testdata/apps/SwingFixture.java in Java's source-file
// mode; the sandbox switches on the ATK wrapper (JAVA_TOOL_OPTIONS).
func swingFixture(t *testing.T, d *testdesk.Desk) *testdesk.App {
	t.Helper()
	return d.Launch(t, append(freshHome(t), "java", "-Xshare:auto", testdesk.Fixture("SwingFixture.java"))...)
}

// TestSwingTable: a Swing JTable through Java's ATK wrapper. The app is
// listed by its main class, not an option's value; read_table gives each
// column its own header (the wrapper's header objects all take the name of
// the header read last); a header, which the wrapper gives a height of 0,
// can be clicked.
func TestSwingTable(t *testing.T) {
	d := testdesk.Shared(t) // X11 only: Java Swing (AWT) draws through X11, with no Wayland backend
	app := swingFixture(t, d)
	s := startMCP(t, d, "", "--allow-input")
	defer s.logCost(t, "swing-table")
	apps := decode[[]struct {
		Pid  int    `json:"pid"`
		Name string `json:"name"`
	}](t, s.ok(t, "list_apps", map[string]any{})["apps"])
	for _, a := range apps {
		if a.Pid == app.Pid && a.Name != "SwingFixture.java" {
			t.Errorf("list_apps names the Swing app %q, want its main class SwingFixture.java", a.Name)
		}
	}
	sess := s.connect(t, map[string]any{"name": "SwingFixture.java"})
	table := findOne(t, s, sess, map[string]any{"name": "Cities", "nameMatch": "exact", "interface": "table"}).Ref
	a := decode[tableAnswer](t, s.ok(t, "read_table", map[string]any{"session": sess, "element": table, "rows": []int{0, 2}}))
	if got := fmt.Sprint(a.ColumnHeaders); got != "[City Country Population]" {
		t.Errorf("column headers %s, want [City Country Population]", got)
	}
	want := [][]string{{"Lisbon", "Portugal", "545923"}, {"Oslo", "Norway", "709037"}, {"Quito", "Ecuador", "2011388"}}
	for i, row := range a.Cells {
		if i >= len(want) || fmt.Sprint(deref(row)) != fmt.Sprint(want[i]) {
			t.Errorf("row %d: %v", i, deref(row))
		}
	}
	header := findOne(t, s, sess, map[string]any{"name": "City", "nameMatch": "exact", "role": "label"})
	s.ok(t, "click", map[string]any{"session": sess, "element": header.Ref})
}

// TestTaskSwingSaveAs: type notes into a Swing text area, save them through
// the app's own JFileChooser (File ▸ Save As…), and find exactly them on
// disk.
func TestTaskSwingSaveAs(t *testing.T) {
	d := testdesk.Shared(t) // X11 only: Java Swing (AWT) draws through X11, with no Wayland backend
	app := swingFixture(t, d)
	s := startMCP(t, d, "", "--allow-input")
	defer s.logCost(t, "swing-save-as")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	notes := findOne(t, s, sess, map[string]any{"name": "Notes", "nameMatch": "exact", "role": "text"})
	const text = "swing notes, first line\nand the second"
	s.ok(t, "type_text", map[string]any{"session": sess, "element": notes.Ref, "text": text})
	menu := findOne(t, s, sess, map[string]any{"name": "File", "nameMatch": "exact", "role": "menu"})
	s.ok(t, "click", map[string]any{"session": sess, "element": menu.Ref})
	item := findOne(t, s, sess, map[string]any{"name": "Save As...", "nameMatch": "exact", "role": "menu item"})
	s.ok(t, "click", map[string]any{"session": sess, "element": item.Ref})
	dialog := appears(t, s, sess, "the Save dialog", map[string]any{"name": "Save notes", "nameMatch": "exact", "role": "dialog"})
	path := filepath.Join(t.TempDir(), "notes.txt")
	saveIn(t, s, sess, dialog, path)
	fileHolds(t, path, text)
}
