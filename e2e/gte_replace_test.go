//go:build linux

package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// TestEffectsTextEditorReplaceAll: GNOME Text Editor 43 (GTK 4.8), whose
// replace runs after the click has been answered and announces nothing on
// the AT-SPI bus. The click on Replace All answers once the document holds
// the replaced text, read outside uiscope right after the answer (on
// 218b5ae it answered in 214 ms, the old text still there).
func TestEffectsTextEditorReplaceAll(t *testing.T) {
	testdesk.ForEach(t, testEffectsTextEditorReplaceAll)
}

func testEffectsTextEditorReplaceAll(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, append(freshHome(t), "gnome-text-editor", "--standalone")...)
	s := startMCP(t, d, "", "--allow-input")
	defer s.logCost(t, "gnome-text-editor replace all")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	doc := findKeyed(t, s, sess, map[string]any{"role": "text", "states": []string{"editable"}})
	s.ok(t, "type_text", map[string]any{"session": sess, "element": doc.Ref, "text": "one two one two one"})
	s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Ctrl+h"})
	// Ctrl+H puts the focus in the search field.
	s.ok(t, "type_text", map[string]any{"session": sess, "text": "one"})
	replace := findKeyed(t, s, sess, map[string]any{"name": "GtkEntry", "role": "text", "states": []string{"editable"}})
	s.ok(t, "set_value", map[string]any{"session": sess, "element": replace.Ref, "value": "1"})
	var all elem
	until(t, "Replace All enabled", func(context.Context) (bool, string) {
		all = findKeyed(t, s, sess, map[string]any{"name": "Replace All", "nameMatch": "contains", "role": "push button"})
		return !slices.Contains(all.States, "disabled") && slices.Contains(all.States, "sensitive"), "states " + fmtStates(all.States)
	})
	s.ok(t, "click", map[string]any{"session": sess, "element": all.Ref})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if got := liveText(ctx, d, doc.Key); got != "1 two 1 two 1" {
		t.Errorf("right after the click on Replace All answered, the document holds %q; want every \"one\" replaced", got)
	}
	if got := pyProbe(t, d, app.Pid, "text", "EditorSourceView", "text"); got != "1 two 1 two 1" {
		t.Errorf("pyatspi reads the document as %q; want every \"one\" replaced", got)
	}
}

func fmtStates(st []string) string { return "[" + strings.Join(st, " ") + "]" }
