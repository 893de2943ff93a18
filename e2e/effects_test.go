//go:build linux

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// The effects tests check the three outcomes of an action (docs/api.md):
// verified, delivered but different (ok with verified false and what it
// caused in effects), failed. Each end state is checked outside uiscope:
// the fixture's own log of what ran, and xdotool's view of the windows.

// effectWindow is one window of an answer's effects or window field.
type effectWindow struct {
	Window string `json:"window"`
	Title  string `json:"title"`
	Role   string `json:"role"`
}

// actEffects is an acting tool's answer, as far as these tests look.
type actEffects struct {
	Verified *bool `json:"verified"`
	Effects  *struct {
		WindowsOpened []effectWindow `json:"windowsOpened"`
		WindowsClosed []effectWindow `json:"windowsClosed"`
		Focus         *elem
		Gone          bool `json:"gone"`
	} `json:"effects"`
	Window  *effectWindow `json:"window"`
	Changes *[]struct {
		Type    string `json:"type"`
		Ref     string `json:"ref"`
		Element *elem  `json:"element"`
	} `json:"changes"`
	After *struct {
		Text *string `json:"text"`
	} `json:"after"`
}

// acted decodes an acting tool's success and checks that it says whether
// it was verified and what it caused.
func acted(t *testing.T, what string, out map[string]any) actEffects {
	t.Helper()
	a := decode[actEffects](t, out)
	if a.Verified == nil || a.Effects == nil {
		t.Fatalf("%s: a success without verified or effects: %v", what, out)
	}
	return a
}

// opened finds the window titled title among windows.
func findWindow(ws []effectWindow, title string) (effectWindow, bool) {
	for _, w := range ws {
		if w.Title == title {
			return w, true
		}
	}
	return effectWindow{}, false
}

// logCount counts the lines of the fixture's log that are exactly line.
func logCount(t *testing.T, path, line string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	n := 0
	for _, l := range strings.Split(string(b), "\n") {
		if l == line {
			n++
		}
	}
	return n
}

// visibleWindows lists, through xdotool, the visible windows of pid whose
// title is exactly title.
func visibleWindows(t *testing.T, d *testdesk.Desk, pid int, title string) []string {
	t.Helper()
	cmd := exec.Command("xdotool", "search", "--all", "--onlyvisible", "--pid", strconv.Itoa(pid), "--name", "^"+title+"$")
	cmd.Env = d.Env()
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
			return nil // none found
		}
		t.Fatalf("xdotool search: %v", err)
	}
	return strings.Fields(string(out))
}

// oneDialog waits until exactly one visible window of pid is titled title
// and the fixture's log says its exec() began exactly n times.
func oneDialog(t *testing.T, d *testdesk.Desk, pid int, log, title string, n int) {
	t.Helper()
	until(t, fmt.Sprintf("one %q dialog, exec'd %d times", title, n), func(context.Context) (bool, string) {
		wins, execs := shownWindows(t, d, pid, regexp.QuoteMeta(title)), logCount(t, log, "exec "+title)
		return len(wins) == 1 && execs == n, fmt.Sprintf("%d windows %v, exec'd %d times", len(wins), wins, execs)
	})
	if got := logCount(t, log, "exec "+title); got != n {
		t.Fatalf("the %q dialog was opened %d times; want %d", title, got, n)
	}
}

// TestEffectsQtModalDialogs: a Qt menu item whose slot runs
// QDialog::exec() is answered by Qt only when the dialog closes (KWrite's
// File ▸ Save As…). click and invoke on it answer ok, unverified, naming
// the dialog that opened, and the dialog opened once; a button that runs
// exec() after its reply is verified. Keys without an element name the
// dialog they went to.
func TestEffectsQtModalDialogs(t *testing.T) { testdesk.ForEach(t, testEffectsQtModalDialogs) }

func testEffectsQtModalDialogs(t *testing.T, d *testdesk.Desk) {
	log := filepath.Join(t.TempDir(), "events.log")
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("qt5_dialogs.py"), "--log", log)
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})

	// A button: Qt answers its Press at once and runs the click after.
	// Observed, it also says what the tree gained, with refs to act on.
	btn := findKeyed(t, s, sess, map[string]any{"name": "Open Settings", "role": "push button"})
	a := acted(t, "click Open Settings", s.ok(t, "click", map[string]any{"session": sess, "element": btn.Ref, "observe": true}))
	if w, ok := findWindow(a.Effects.WindowsOpened, "Settings"); !ok || w.Role != "dialog" {
		t.Errorf("click Open Settings: effects.windowsOpened %+v; want the dialog \"Settings\"", a.Effects.WindowsOpened)
	}
	oneDialog(t, d, app.Pid, log, "Settings", 1)
	closeRef := ""
	if a.Changes == nil {
		t.Fatalf("click with observe: no changes")
	}
	for _, c := range *a.Changes {
		if c.Type == "added" && c.Element != nil && c.Element.Role == "push button" && c.Element.Name == "Close" {
			closeRef = c.Ref
		}
	}
	if closeRef == "" {
		t.Fatalf("click with observe: the changes hold no added button \"Close\" with a ref: %+v", *a.Changes)
	}
	closeBtn := elem{Ref: closeRef}
	a = acted(t, "click Close", s.ok(t, "click", map[string]any{"session": sess, "element": closeBtn.Ref}))
	if _, ok := findWindow(a.Effects.WindowsClosed, "Settings"); !ok {
		t.Errorf("click Close: effects.windowsClosed %+v; want \"Settings\"", a.Effects.WindowsClosed)
	}

	// The menu item: its reply waits for the dialog to close.
	file := findKeyed(t, s, sess, map[string]any{"name": "File", "role": "menu item"})
	s.ok(t, "click", map[string]any{"session": sess, "element": file.Ref})
	save := findKeyed(t, s, sess, map[string]any{"name": "Save As...", "role": "menu item"})
	out := s.call(t, "click", map[string]any{"session": sess, "element": save.Ref})
	if out["ok"] != true {
		t.Fatalf("click Save As...: %v (the dialog opened %d times)", out, logCount(t, log, "exec Save File"))
	}
	a = acted(t, "click Save As...", out)
	if *a.Verified {
		t.Errorf("click Save As...: verified, though Qt had not answered: %v", out)
	}
	if w, ok := findWindow(a.Effects.WindowsOpened, "Save File"); !ok || w.Role != "dialog" {
		t.Errorf("click Save As...: effects.windowsOpened %+v; want the dialog \"Save File\"", a.Effects.WindowsOpened)
	}
	oneDialog(t, d, app.Pid, log, "Save File", 1)
	// Escape without an element goes to the dialog, and says so.
	a = acted(t, "press_key Escape", s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Escape"}))
	if a.Window == nil || a.Window.Title != "Save File" || a.Window.Role != "dialog" {
		t.Errorf("press_key Escape: window %+v; want the dialog \"Save File\"", a.Window)
	}
	until(t, "the Save File dialog closed", func(context.Context) (bool, string) {
		return logCount(t, log, "done Save File") == 1, "still open"
	})

	// invoke on a menu item of the closed menu: the same.
	settings := findKeyed(t, s, sess, map[string]any{"name": "Settings...", "role": "menu item"})
	out = s.call(t, "invoke", map[string]any{"session": sess, "element": settings.Ref, "timeoutMs": 2000})
	if out["ok"] != true {
		t.Fatalf("invoke Settings...: %v (the dialog opened %d times)", out, logCount(t, log, "exec Settings"))
	}
	a = acted(t, "invoke Settings...", out)
	if w, ok := findWindow(a.Effects.WindowsOpened, "Settings"); *a.Verified || !ok || w.Role != "dialog" {
		t.Errorf("invoke Settings...: verified %v, effects.windowsOpened %+v; want unverified, the dialog \"Settings\"", *a.Verified, a.Effects.WindowsOpened)
	}
	oneDialog(t, d, app.Pid, log, "Settings", 2)
	s.fail(t, "click", map[string]any{"session": sess, "element": closeBtn.Ref, "timeoutMs": 0}, "invalidArgument")

	// Held input says what it caused too: the button's click comes with
	// the release.
	closeBtn = findKeyed(t, s, sess, map[string]any{"name": "Close", "role": "push button"})
	s.ok(t, "click", map[string]any{"session": sess, "element": closeBtn.Ref})
	until(t, "the Settings dialog closed", func(context.Context) (bool, string) {
		return logCount(t, log, "done Settings") == 2, "still open"
	})
	// A point and a held key name the window they went to.
	hist := findKeyed(t, s, sess, map[string]any{"name": "History", "role": "text"})
	at := map[string]any{"session": sess, "x": hist.Bounds.X + hist.Bounds.Width/2, "y": hist.Bounds.Y + hist.Bounds.Height/2}
	a = acted(t, "press at a point", s.ok(t, "press", at))
	if a.Window == nil || a.Window.Title != "uiscope Qt5 dialogs" || a.Window.Role != "frame" {
		t.Errorf("press at a point: window %+v; want the frame \"uiscope Qt5 dialogs\"", a.Window)
	}
	s.ok(t, "release", map[string]any{"session": sess})
	a = acted(t, "key_down Shift", s.ok(t, "key_down", map[string]any{"session": sess, "key": "Shift"}))
	if a.Window == nil || a.Window.Title != "uiscope Qt5 dialogs" {
		t.Errorf("key_down Shift: window %+v; want the frame \"uiscope Qt5 dialogs\"", a.Window)
	}
	s.ok(t, "key_up", map[string]any{"session": sess, "key": "Shift"})

	s.ok(t, "press", map[string]any{"session": sess, "element": btn.Ref})
	a = acted(t, "release", s.ok(t, "release", map[string]any{"session": sess}))
	if w, ok := findWindow(a.Effects.WindowsOpened, "Settings"); !*a.Verified || !ok || w.Role != "dialog" {
		t.Errorf("release over Open Settings: verified %v, effects.windowsOpened %+v; want verified, the dialog \"Settings\"", *a.Verified, a.Effects.WindowsOpened)
	}
	oneDialog(t, d, app.Pid, log, "Settings", 3)
}

// TestEffectsQtSubmittingField: typing "12*7\n" into a field that Enter
// evaluates and clears (SpeedCrunch) is checked up to the Enter and then
// answered as delivered, unverified, with what the field holds: never
// noEffect, which would make an agent enter it twice.
func TestEffectsQtSubmittingField(t *testing.T) { testdesk.ForEach(t, testEffectsQtSubmittingField) }

func testEffectsQtSubmittingField(t *testing.T, d *testdesk.Desk) {
	log := filepath.Join(t.TempDir(), "events.log")
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("qt5_dialogs.py"), "--log", log)
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})

	expr := findKeyed(t, s, sess, map[string]any{"name": "Expression", "role": "text"})
	out := s.call(t, "type_text", map[string]any{"session": sess, "element": expr.Ref, "text": "12*7\n"})
	if out["ok"] != true {
		t.Fatalf("type_text 12*7 and Enter: %v (evaluated %d times)", out, logCount(t, log, "eval 12*7 = 84"))
	}
	a := acted(t, "type_text", out)
	if *a.Verified {
		t.Errorf("type_text: verified, though the field does not hold what was typed: %v", out)
	}
	if a.After == nil || a.After.Text == nil || *a.After.Text != "" {
		t.Errorf("type_text: after %+v; want the field's settled text, empty", a.After)
	}
	if n := logCount(t, log, "eval 12*7 = 84"); n != 1 {
		t.Errorf("the expression was evaluated %d times; want once", n)
	}
	// Without a line break, typing is verified.
	a = acted(t, "type_text 6*7", s.ok(t, "type_text", map[string]any{"session": sess, "element": expr.Ref, "text": "6*7"}))
	if !*a.Verified {
		t.Errorf("type_text 6*7: not verified")
	}
	if n := logCount(t, log, "eval 6*7 = 42"); n != 0 {
		t.Errorf("6*7 was evaluated %d times without an Enter", n)
	}
}

// TestEffectsGTK4Settle: GTK 4.8 announces almost nothing on the AT-SPI
// bus, so "no event for a while" comes at once after a click: an action
// there answers once what it may have changed holds still. "Replace All"
// replaces three words one after another from 150 ms after the click; the
// click's answer comes after the last, read outside uiscope.
func TestEffectsGTK4Settle(t *testing.T) { testdesk.ForEach(t, testEffectsGTK4Settle) }

func testEffectsGTK4Settle(t *testing.T, d *testdesk.Desk) {
	log := filepath.Join(t.TempDir(), "events.log")
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk4_fixture.py"), "--replace", "--log", log)
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	doc := findKeyed(t, s, sess, map[string]any{"name": "Document"})
	btn := findKeyed(t, s, sess, map[string]any{"name": "Replace All", "role": "push button"})
	s.ok(t, "click", map[string]any{"session": sess, "element": btn.Ref})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if got := liveText(ctx, d, doc.Key); got != "1 two 1 two 1 two" {
		t.Errorf("right after the click answered, the document holds %q; want all three replaced (the fixture logged %d completions)", got, logCount(t, log, "replaced all"))
	}
}
