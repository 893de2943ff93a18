//go:build linux

package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// TestClipboardOutOfApps: another application (outside --apps) owns
// PRIMARY and CLIPBOARD; with --apps mousepad, every paste the server can
// tell is refused, clipboardNotAllowed, and mousepad's text stays empty:
// the middle button, the Paste menu item, Ctrl+V, Shift+Insert and a v
// typed with Ctrl held. With --allow-clipboard the middle button pastes
// the other application's PRIMARY (what the refusal keeps out).
func TestClipboardOutOfApps(t *testing.T) { testdesk.ForEach(t, testClipboardOutOfApps) }

func testClipboardOutOfApps(t *testing.T, d *testdesk.Desk) {
	const primary, clipboard = "PRIMARY-SECRET-88", "CLIPBOARD-SECRET-89"
	owner := d.Launch(t, testdesk.Python, testdesk.Fixture("clipboard_owner.py"), "--primary", primary, "--clipboard", clipboard)
	if d.Sway != nil {
		// On Wayland the owner may own a selection only with the serial
		// of an input event of its own: a user's click in it.
		v := oneView(t, d, owner.Pid)
		handClick(t, d, v.content.X+v.content.Width/2, v.content.Y+v.content.Height/2)
	}
	mp := d.Launch(t, append(freshHome(t), "mousepad")...)
	s := startMCP(t, d, "", "--allow-input", "--apps", "mousepad")
	sess := s.connect(t, map[string]any{"pid": mp.Pid})
	doc := findKeyed(t, s, sess, map[string]any{"role": "text", "states": []string{"editable", "focused"}})
	paste := findKeyed(t, s, sess, map[string]any{"name": "Paste", "nameMatch": "exact", "role": "menu item"})

	s.fail(t, "press", map[string]any{"session": sess, "element": doc.Ref, "button": 2}, "clipboardNotAllowed")
	s.fail(t, "invoke", map[string]any{"session": sess, "element": paste.Ref}, "clipboardNotAllowed")
	s.fail(t, "click", map[string]any{"session": sess, "element": paste.Ref}, "clipboardNotAllowed")
	for _, k := range []string{"Ctrl+V", "Shift+Insert", "Ctrl+Shift+V"} {
		s.fail(t, "press_key", map[string]any{"session": sess, "element": doc.Ref, "keys": k}, "clipboardNotAllowed")
	}
	s.ok(t, "key_down", map[string]any{"session": sess, "key": "Ctrl"})
	s.fail(t, "type_text", map[string]any{"session": sess, "element": doc.Ref, "text": "v"}, "clipboardNotAllowed")
	s.ok(t, "key_up", map[string]any{"session": sess, "key": "Ctrl"})
	s.ok(t, "type_text", map[string]any{"session": sess, "element": doc.Ref, "text": "typed"})
	ctx, cancel := context.WithTimeout(context.Background(), mcpCallLimit)
	defer cancel()
	if got := liveText(ctx, d, doc.Key); got != "typed" {
		t.Errorf("mousepad holds %q after the refused pastes, want only the typed text", got)
	}
	s.ok(t, "disconnect", map[string]any{"session": sess})

	// The channel the rule closes: with --allow-clipboard, the middle
	// button pastes the other application's PRIMARY.
	open := startMCP(t, d, "", "--allow-input", "--apps", "mousepad", "--allow-clipboard")
	sess = open.connect(t, map[string]any{"pid": mp.Pid})
	doc = findKeyed(t, open, sess, map[string]any{"role": "text", "states": []string{"editable"}})
	open.ok(t, "press", map[string]any{"session": sess, "element": doc.Ref, "button": 2})
	open.ok(t, "release", map[string]any{"session": sess})
	until(t, "the middle button pasted PRIMARY", func(ctx context.Context) (bool, string) {
		got := liveText(ctx, d, doc.Key)
		return strings.Contains(got, primary), got
	})
}
