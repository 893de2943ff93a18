//go:build linux

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// Apps nobody named in the trust issue, tried as a new user would, so that
// the mechanisms hold beyond the apps that found the defects: zenity (GTK 3
// dialogs a script opens), xterm (Xaw: no accessibility at all) and GNOME
// Calculator (GTK 4 with libadwaita).

// TestTaskZenityForm: fill a zenity form (text, password, combo box) and
// press OK; zenity prints what it got, which must be exactly what was set,
// and the password never shows in uiscope's answers.
func TestTaskZenityForm(t *testing.T) { testdesk.ForEach(t, testTaskZenityForm) }

func testTaskZenityForm(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, "zenity", "--forms", "--title", "Sign up", "--text", "Your account",
		"--add-entry", "Name", "--add-password", "Password", "--add-combo", "Plan", "--combo-values", "Free|Pro|Team")
	s := startMCP(t, d, "", "--allow-input")
	defer s.logCost(t, "zenity")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	// zenity labels its fields with labels beside them, not for them: the
	// name field is the one editable text.
	name := findKeyed(t, s, sess, map[string]any{"role": "text", "states": []string{"editable"}})
	s.ok(t, "set_value", map[string]any{"session": sess, "element": name.Ref, "value": "Ada Lovelace"})
	pass := findKeyed(t, s, sess, map[string]any{"role": "password text"})
	const secret = "zenity-secret-42"
	if out := s.ok(t, "set_value", map[string]any{"session": sess, "element": pass.Ref, "value": secret}); strings.Contains(fmt.Sprint(out), secret) {
		t.Errorf("set_value on the password echoes it: %v", out)
	}
	plan := findKeyed(t, s, sess, map[string]any{"role": "combo box"})
	pro := findKeyed(t, s, sess, map[string]any{"within": plan.Ref, "name": "Pro", "nameMatch": "exact", "role": "menu item"})
	s.ok(t, "select", map[string]any{"session": sess, "element": pro.Ref})
	for _, tool := range []string{"get_a11y_tree", "find_elements"} {
		args := map[string]any{"session": sess}
		if tool == "find_elements" {
			args["role"] = "password text"
		}
		if out := s.ok(t, tool, args); strings.Contains(fmt.Sprint(out), secret) {
			t.Errorf("%s shows the password", tool)
		}
	}
	ok := findKeyed(t, s, sess, map[string]any{"name": "OK", "nameMatch": "exact", "role": "push button"})
	s.ok(t, "click", map[string]any{"session": sess, "element": ok.Ref})
	until(t, "zenity prints the form", func(ctx context.Context) (bool, string) {
		b, _ := os.ReadFile(app.Proc.LogPath)
		return strings.Contains(string(b), "Ada Lovelace|"+secret+"|Pro\n"), fmt.Sprintf("%q", b)
	})
}

// TestTaskXtermVisual: xterm has no accessibility tree; in a visual
// session keys typed into its window run a shell command, whose file is
// the oracle.
func TestTaskXtermVisual(t *testing.T) {
	d := testdesk.Shared(t) // X11 only: xterm is an X client, with no Wayland backend
	dir := t.TempDir()
	app := d.LaunchX(t, "xterm", "-title", "uiscope xterm", "-e", "sh")
	s := startMCP(t, d, "", "--allow-input")
	defer s.logCost(t, "xterm")
	s.fail(t, "connect", map[string]any{"pid": app.Pid}, "notAccessible")
	vis := s.connect(t, map[string]any{"pid": app.Pid, "mode": "visual"})
	root, _ := visualTree(t, s, map[string]any{"session": vis})
	client := clientOf(t, root)
	path := filepath.Join(dir, "from-xterm.txt")
	s.ok(t, "type_text", map[string]any{"session": vis, "element": client.Ref, "text": "echo typed-in-xterm > " + path + "\n"})
	fileHolds(t, path, "typed-in-xterm\n")
}

// TestTaskCalculator: GNOME Calculator 43 (GTK 4, libadwaita): 12×7 by its
// buttons; its own display, read outside uiscope, shows 84.
func TestTaskCalculator(t *testing.T) { testdesk.ForEach(t, testTaskCalculator) }

func testTaskCalculator(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, append(freshHome(t), "gnome-calculator")...)
	s := startMCP(t, d, "", "--allow-input")
	defer s.logCost(t, "calculator")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	for _, b := range []string{"1", "2", "×", "7", "="} {
		button := findKeyed(t, s, sess, map[string]any{"name": b, "nameMatch": "exact", "role": "push button"})
		s.ok(t, "click", map[string]any{"session": sess, "element": button.Ref})
	}
	display := findKeyed(t, s, sess, map[string]any{"role": "text", "states": []string{"editable"}})
	until(t, "the calculator shows 84", func(ctx context.Context) (bool, string) {
		got := liveText(ctx, d, display.Key)
		return strings.TrimSpace(got) == "84", fmt.Sprintf("%q", got)
	})
	if got := pyProbe(t, d, app.Pid, "text", "GtkSourceView", "text"); strings.TrimSpace(got) != "84" {
		t.Errorf("pyatspi reads the calculator's display as %q; want 84", got)
	}
}
