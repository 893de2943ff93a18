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
func TestTaskTextEditorSaveAs(t *testing.T) { testdesk.ForEach(t, testTaskTextEditorSaveAs) }

func testTaskTextEditorSaveAs(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, append(freshHome(t), "gnome-text-editor", "--standalone")...)
	s := startMCP(t, d, "", "--allow-input")
	defer s.logCost(t, "gnome-text-editor")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	doc := findOne(t, s, sess, map[string]any{"role": "text", "states": []string{"editable"}})
	const lines = "text editor's first line\nits second line"
	s.ok(t, "type_text", map[string]any{"session": sess, "element": doc.Ref, "text": lines})
	s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Ctrl+Shift+S"})
	dialog := appears(t, s, sess, "the Save As dialog", map[string]any{"name": "Save As", "nameMatch": "exact"})
	path := filepath.Join(t.TempDir(), "gte.txt")
	saveIn(t, s, sess, dialog, path)
	fileHolds(t, path, lines+"\n")
}
