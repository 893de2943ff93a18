//go:build linux

package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// TestTaskKWriteSaveAs: in KWrite 22.12 (Qt 5, KDE Frameworks), start a
// document, type two lines, and save them through File ▸ Save As…, whose
// dialog Qt runs in a nested loop (QDialog::exec): Qt answers the menu
// item's action only once the dialog closes, so the click is answered by
// its effect (the dialog opened), not a timeout an agent would retry. One
// dialog opens; the file on disk holds exactly the lines.
func TestTaskKWriteSaveAs(t *testing.T) { testdesk.ForEach(t, testTaskKWriteSaveAs) }

func testTaskKWriteSaveAs(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, append(freshHome(t), "kwrite")...)
	s := startMCP(t, d, "", "--allow-input")
	defer s.logCost(t, "kwrite")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	// A fresh KWrite shows its welcome page: a new document first.
	s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Ctrl+N"})
	doc := appears(t, s, sess, "the new document", map[string]any{"role": "text", "states": []string{"editable", "focused"}})
	const lines = "kwrite's first line\nits second line"
	s.ok(t, "type_text", map[string]any{"session": sess, "element": doc.Ref, "text": lines})

	// Qt's menu bar holds menu items, not menus.
	bar := findOne(t, s, sess, map[string]any{"role": "menu bar"})
	file := findOne(t, s, sess, map[string]any{"within": bar.Ref, "name": "File", "nameMatch": "exact", "role": "menu item"})
	s.ok(t, "click", map[string]any{"session": sess, "element": file.Ref})
	item := findOne(t, s, sess, map[string]any{"name": "Save As...", "nameMatch": "exact", "role": "menu item"})
	out := s.ok(t, "click", map[string]any{"session": sess, "element": item.Ref})
	effects, _ := out["effects"].(map[string]any)
	if opened, _ := effects["windowsOpened"].([]any); len(opened) == 0 {
		t.Errorf("the click on Save As... does not say the dialog opened: %v", out)
	}
	got := s.ok(t, "wait_for", map[string]any{"session": sess, "name": "Save File", "nameMatch": "exact",
		"role": "dialog", "until": "appears", "timeoutMs": 30000})
	dialog := decode[[]elem](t, got["elements"])
	if len(dialog) != 1 {
		t.Fatalf("wait_for one Save File dialog: %v", got)
	}
	path := filepath.Join(t.TempDir(), "kwrite.txt")
	name := findOne(t, s, sess, map[string]any{"within": dialog[0].Ref, "role": "text", "states": []string{"editable", "focused"}})
	s.ok(t, "set_value", map[string]any{"session": sess, "element": name.Ref, "value": path})
	s.ok(t, "press_key", map[string]any{"session": sess, "element": name.Ref, "keys": "Enter"})
	fileHolds(t, path, lines+"\n")
	until(t, "KWrite's title names the file", func(ctx context.Context) (bool, string) {
		titles := pidTitles(t, ctx, d, app.Pid)
		for _, title := range titles {
			if title == "Save File" {
				return false, fmt.Sprintf("a Save File window is still open: %q", titles)
			}
		}
		for _, title := range titles {
			if len(title) >= 10 && title[:10] == "kwrite.txt" {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%q", titles)
	})
}
