//go:build linux

package e2e

import (
	"path/filepath"
	"testing"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// TestTaskGeditSaveAndSaveChanges: in gedit 44 (GTK 3), type two lines,
// save them through its own Save As dialog and find them on disk; then
// type a third, close the document, answer its "Save changes?" question
// with Save, and find all three on disk.
func TestTaskGeditSaveAndSaveChanges(t *testing.T) {
	testdesk.ForEach(t, testTaskGeditSaveAndSaveChanges)
}

func testTaskGeditSaveAndSaveChanges(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, append(freshHome(t), "gedit", "--new-window")...)
	s := startMCP(t, d, "", "--allow-input")
	defer s.logCost(t, "gedit")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	doc := findOne(t, s, sess, map[string]any{"role": "text", "states": []string{"editable", "focused"}})
	const lines = "gedit's first line\nits second line"
	s.ok(t, "type_text", map[string]any{"session": sess, "element": doc.Ref, "text": lines})
	path := filepath.Join(t.TempDir(), "gedit.txt")
	s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Ctrl+S"})
	saveAs(t, s, sess, path, true)
	// gedit ends a file with a newline it does not show.
	fileHolds(t, path, lines+"\n")

	const more = "\nand a third"
	s.ok(t, "type_text", map[string]any{"session": sess, "element": doc.Ref, "text": more})
	s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Ctrl+W"})
	alert := appears(t, s, sess, "the Save changes question", map[string]any{"role": "alert"})
	save := findOne(t, s, sess, map[string]any{"within": alert.Ref, "name": "Save", "nameMatch": "exact", "role": "push button"})
	s.ok(t, "click", map[string]any{"session": sess, "element": save.Ref})
	fileHolds(t, path, lines+more+"\n")
}
