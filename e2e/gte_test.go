//go:build linux

package e2e

import (
	"path/filepath"
	"testing"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// TestTaskTextEditorSaveAs: in GNOME Text Editor 43 (GTK 4.8), type two
// lines, save them through its own Save As dialog (a window opened after
// connect, with its own origin: GTK 4 gives window-relative extents), and
// find exactly them on disk. The dialog's button is named "_Save Save"
// (GTK 4.8 doubles mnemonic labels); a search for "Save" finds it.
func TestTaskTextEditorSaveAs(t *testing.T) {
	d := testdesk.Shared(t)
	app := d.Launch(t, append(freshHome(t), "gnome-text-editor", "--standalone")...)
	s := startMCP(t, d, "", "--allow-input")
	defer s.logCost(t, "gnome-text-editor")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	doc := findOne(t, s, sess, map[string]any{"role": "text", "states": []string{"editable"}})
	const lines = "text editor's first line\nits second line"
	s.ok(t, "type_text", map[string]any{"session": sess, "element": doc.Ref, "text": lines})
	s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Ctrl+Shift+S"})
	got := s.ok(t, "wait_for", map[string]any{"session": sess, "name": "Save As", "nameMatch": "exact",
		"until": "appears", "timeoutMs": 30000})
	dialog := decode[[]elem](t, got["elements"])
	if len(dialog) == 0 {
		t.Fatalf("wait_for the Save As dialog: %v", got)
	}
	path := filepath.Join(t.TempDir(), "gte.txt")
	name := findOne(t, s, sess, map[string]any{"within": dialog[0].Ref, "role": "text", "states": []string{"editable"}})
	s.ok(t, "set_value", map[string]any{"session": sess, "element": name.Ref, "value": path})
	save := findOne(t, s, sess, map[string]any{"within": dialog[0].Ref, "name": "Save", "nameMatch": "exact", "role": "push button"})
	s.ok(t, "click", map[string]any{"session": sess, "element": save.Ref})
	fileHolds(t, path, lines+"\n")
}
