//go:build linux

package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// The "no desktop chords" rule through a real `uiscope mcp --allow-input`
// on openbox and on sway: every spelling of Super, the modifiers held with
// key_down, and text typed while they are held. What the window manager
// did is read outside uiscope (deskState, focusedID): on X11 by xprop,
// _NET_SHOWING_DESKTOP (openbox's Super+D) and _NET_ACTIVE_WINDOW
// (Alt+Tab); on sway by swaymsg, its focused workspace and window (the
// sandbox's sway binds the same chords to a workspace switch and a tab
// switch, so that one reaching it shows).

// rootProp is a root window property as xprop prints its value.
func rootProp(t *testing.T, d *testdesk.Desk, name string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "xprop", "-root", name)
	cmd.Env = d.Env()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("xprop -root %s: %v", name, err)
	}
	_, v, ok := strings.Cut(strings.TrimSpace(string(out)), "=")
	if !ok {
		_, v, ok = strings.Cut(strings.TrimSpace(string(out)), "#")
	}
	if !ok {
		t.Fatalf("xprop -root %s printed %q", name, out)
	}
	return strings.TrimSpace(v)
}

// desktopNotShown ends openbox's show-desktop mode if a test put it in it
// (on code with the bug), so that the tests after it find their windows.
func desktopNotShown(t *testing.T, d *testdesk.Desk, win uint32) {
	if rootProp(t, d, "_NET_SHOWING_DESKTOP") == "0" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := d.X.ActivateWindow(ctx, win); err != nil {
		t.Errorf("ending show-desktop: %v", err)
	}
}

// superSpellings are the names of Super and its kin, with and without other
// modifiers and in any case: every one is refused, as desktop chords or as
// unknown keys, and none presses anything.
var superSpellings = []string{
	"Super", "super", "SUPER", "Win", "win", "Meta", "meta", "Super_L", "Super_R", "super_r",
	"Ctrl+Super", "Shift+Win", "Alt+Meta", "Ctrl+Shift+super", "Meta+Shift",
	"Hyper", "Hyper_L", "Hyper_R", "Meta_L", "Meta_R", "Mod4", "Cmd", "Command", "Ctrl+Hyper",
}

// TestDesktopKeysSuperSpellings: press_key and key_down refuse Super under
// every name; no key is down after (on sway the app got no key at all),
// and the window manager did not move the desktop.
func TestDesktopKeysSuperSpellings(t *testing.T) { testdesk.ForEach(t, testDesktopKeysSuperSpellings) }

func testDesktopKeysSuperSpellings(t *testing.T, d *testdesk.Desk) {
	log := newFixtureLog(t)
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "desktop keys super", "--input-log", log.path)
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	desk := deskState(t, d)
	restoreDeskAfter(t, d)
	for _, keys := range superSpellings {
		s.fail(t, "press_key", map[string]any{"session": sess, "keys": keys}, "invalidArgument")
		if !strings.Contains(keys, "+") {
			s.fail(t, "key_down", map[string]any{"session": sess, "key": keys}, "invalidArgument")
		}
	}
	untilNothingHeld(t, d, log, "after the refusals")
	if d.Sway != nil {
		for _, l := range log.lines() {
			if strings.HasPrefix(l, "key-") {
				t.Errorf("a refused key reached the app: %q", log.lines())
				break
			}
		}
	}
	if got := deskState(t, d); got != desk {
		t.Errorf("the desktop is at %s after the refusals, was at %s", got, desk)
	}
}

// TestDesktopKeysHeldMeta: key_down Meta held Super_L (recorded as Alt),
// and press_key d then sent Super+D, openbox's show-desktop. Meta is Super
// now: holding it is refused, nothing stays down, and the d that follows
// is a plain d.
func TestDesktopKeysHeldMeta(t *testing.T) { testdesk.ForEach(t, testDesktopKeysHeldMeta) }

func testDesktopKeysHeldMeta(t *testing.T, d *testdesk.Desk) {
	log := newFixtureLog(t)
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "desktop keys meta", "--input-log", log.path)
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	desk := deskState(t, d)
	restoreDeskAfter(t, d)
	if d.X != nil && rootProp(t, d, "_NET_SHOWING_DESKTOP") != "0" {
		t.Fatalf("openbox shows the desktop before the test")
	}
	out := s.call(t, "key_down", map[string]any{"session": sess, "key": "Meta"})
	if out["ok"] != false || out["errorCode"] != "invalidArgument" {
		t.Errorf("key_down Meta: %v, want refused with invalidArgument", out)
		defer s.call(t, "key_up", map[string]any{"session": sess, "key": "Meta"})
	}
	untilNothingHeld(t, d, log, "after key_down Meta")
	out = s.call(t, "press_key", map[string]any{"session": sess, "keys": "d"})
	t.Logf("press_key d: %v", out)
	if got := deskState(t, d); got != desk {
		t.Errorf("the desktop is at %s after key_down Meta and press_key d, was at %s: Super+D reached the window manager", got, desk)
	}
}

// activeWindow is _NET_ACTIVE_WINDOW as xprop reads it.
func activeWindow(t *testing.T, d *testdesk.Desk) uint32 {
	t.Helper()
	v := rootProp(t, d, "_NET_ACTIVE_WINDOW")
	var w uint32
	for _, c := range strings.TrimPrefix(v, "0x") {
		switch {
		case c >= '0' && c <= '9':
			w = w<<4 | uint32(c-'0')
		case c >= 'a' && c <= 'f':
			w = w<<4 | uint32(c-'a'+10)
		default:
			t.Fatalf("_NET_ACTIVE_WINDOW is %q", v)
		}
	}
	return w
}

// TestDesktopKeysHeldTyping: text typed while modifiers are held makes
// chords with them. With Alt held, type_text "\t" was Alt+Tab (openbox
// switched windows on Alt's release); with Ctrl and Alt held, "t" and "T"
// were Ctrl+Alt+T. Each is refused, nothing is typed, and the active window
// stays the app's.
func TestDesktopKeysHeldTyping(t *testing.T) { testdesk.ForEach(t, testDesktopKeysHeldTyping) }

func testDesktopKeysHeldTyping(t *testing.T, d *testdesk.Desk) {
	// Another window for Alt+Tab to switch to.
	d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "desktop keys other", "--x", "500")
	log := newFixtureLog(t)
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "desktop keys typing", "--input-log", log.path)
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	entry := findKeyed(t, s, sess, map[string]any{"name": "Name", "nameMatch": "exact", "role": "text"})
	s.ok(t, "set_value", map[string]any{"session": sess, "element": entry.Ref, "value": "start"})
	s.ok(t, "key_down", map[string]any{"session": sess, "key": "Alt"})
	win, desk := focusedID(t, d), deskState(t, d)
	restoreDeskAfter(t, d)
	for _, text := range []string{"\t", "a\tb"} {
		s.fail(t, "type_text", map[string]any{"session": sess, "element": entry.Ref, "text": text}, "invalidArgument")
	}
	s.fail(t, "press_key", map[string]any{"session": sess, "keys": "Tab"}, "invalidArgument")
	s.ok(t, "key_up", map[string]any{"session": sess, "key": "Alt"})
	if got := focusedID(t, d); got != win {
		t.Errorf("the active window is %s after Alt held and a typed Tab, was %s: Alt+Tab reached the window manager", got, win)
	}

	s.ok(t, "key_down", map[string]any{"session": sess, "key": "Ctrl"})
	s.ok(t, "key_down", map[string]any{"session": sess, "key": "Alt"})
	for _, text := range []string{"t", "T", "l", "\b", "\t"} {
		s.fail(t, "type_text", map[string]any{"session": sess, "element": entry.Ref, "text": text}, "invalidArgument")
	}
	s.fail(t, "press_key", map[string]any{"session": sess, "keys": "Down"}, "invalidArgument")
	s.ok(t, "key_up", map[string]any{"session": sess, "key": "Alt"})
	s.ok(t, "key_up", map[string]any{"session": sess, "key": "Ctrl"})
	untilNothingHeld(t, d, log, "after key_up")
	if got := focusedID(t, d); got != win {
		t.Errorf("the active window is %s, was %s", got, win)
	}
	if got := deskState(t, d); got != desk {
		t.Errorf("the desktop is at %s, was at %s", got, desk)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if got := liveText(ctx, d, entry.Key); got != "start" {
		t.Errorf("the entry holds %q after the refused typing, want \"start\"", got)
	}
	// With nothing held, the same text is typed.
	s.ok(t, "type_text", map[string]any{"session": sess, "element": entry.Ref, "text": "t"})
}

// TestBrowserHeldKeysRefused: the two paths that send keys on their own
// check the keys held too. Chromium's inputs have no EditableText, so
// set_value types: with Alt held, "a\tb" would press Alt+Tab. Firefox's
// options change nothing by their action, so select presses Home and Down
// on the combo box: with Ctrl and Alt held, Ctrl+Alt+Down, openbox's
// workspace switch. Both are refused, the page still holds what it held,
// the active window and the workspace are unchanged (before the fix
// Chromium's Alt+Tab switched windows); with nothing held
// the same calls go through.
func TestBrowserHeldKeysRefused(t *testing.T) { testdesk.ForEach(t, testBrowserHeldKeysRefused) }

func testBrowserHeldKeysRefused(t *testing.T, d *testdesk.Desk) {
	// Another window for Alt+Tab to switch to.
	d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "browser keys other", "--x", "600")
	for _, b := range browsers {
		t.Run(b.name, func(t *testing.T) {
			app := openPage(t, d, b, "form ready", formPage)
			s := startMCP(t, d, "", "--allow-input")
			sess := s.connect(t, map[string]any{"pid": app.Pid})
			name := findKeyed(t, s, sess, map[string]any{"name": "Full name", "nameMatch": "exact", "role": "entry"})
			green := findKeyed(t, s, sess, map[string]any{"name": "Green", "nameMatch": "exact", "role": "menu item"})
			held, call, args := []string{"Alt"}, "set_value", map[string]any{"session": sess, "element": name.Ref, "value": "a\tb"}
			okArgs := map[string]any{"session": sess, "element": name.Ref, "value": "ab"} // a Tab typed leaves the field
			if b.name == "firefox" {
				held, call, args = []string{"Ctrl", "Alt"}, "select", map[string]any{"session": sess, "element": green.Ref}
				okArgs = args
			}
			for _, k := range held {
				s.ok(t, "key_down", map[string]any{"session": sess, "key": k})
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			// The focused window and the workspace, read outside uiscope:
			// the root's EWMH properties, or swaymsg's tree and workspaces.
			focused := func() string {
				if d.Sway != nil {
					for _, v := range swayViews(t, d, app.Pid) {
						if v.focused {
							return fmt.Sprintf("the browser's view %d", v.con)
						}
					}
					return "no view of the browser"
				}
				return fmt.Sprintf("%#x", activeWindow(t, d))
			}
			workspace := func() string {
				if d.Sway != nil {
					return swayFocusedWorkspace(t, d)
				}
				return rootProp(t, d, "_NET_CURRENT_DESKTOP")
			}
			win, desk, title := focused(), workspace(), windowTitle(ctx, d, app.Pid)
			if d.X != nil {
				active := activeWindow(t, d)
				t.Cleanup(func() { desktopNotShown(t, d, active) })
			}
			out := s.call(t, call, args)
			if out["ok"] != false || out["errorCode"] != "invalidArgument" {
				t.Errorf("%s with %v held: %v, want refused with invalidArgument", call, held, out)
			}
			for _, k := range slices.Backward(held) {
				s.ok(t, "key_up", map[string]any{"session": sess, "key": k})
			}
			if got := focused(); got != win {
				t.Errorf("the focused window is %s after %s with %v held, was %s", got, call, held, win)
			}
			if got := workspace(); got != desk {
				t.Errorf("the workspace is %s after %s with %v held, was %s", got, call, held, desk)
			}
			// The page titles itself with what the form holds once it changes.
			if got := windowTitle(ctx, d, app.Pid); got != title {
				t.Errorf("the page's title is %q after the refusal, was %q", got, title)
			}
			s.ok(t, call, okArgs)
		})
	}
}

// TestDesktopKeysHeldPointer: the window manager binds the pointer with
// Alt and Super too (openbox: Alt+wheel switches workspaces, Alt+drag
// moves a window, Alt+middle lowers it). With Alt held, the wheel and a
// held button are refused and the workspace stays (before the fix the
// wheel switched it); an action sends no pointer input and goes through;
// with Shift held (a range selection) the pointer goes through.
func TestDesktopKeysHeldPointer(t *testing.T) { testdesk.ForEach(t, testDesktopKeysHeldPointer) }

func testDesktopKeysHeldPointer(t *testing.T, d *testdesk.Desk) {
	log := newFixtureLog(t)
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "desktop keys pointer", "--rows", "30", "--input-log", log.path)
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	row := findKeyed(t, s, sess, map[string]any{"name": "Row 2", "nameMatch": "exact", "role": "table cell"})
	desk := deskState(t, d)
	restoreDeskAfter(t, d)
	s.ok(t, "key_down", map[string]any{"session": sess, "key": "Alt"})
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"scroll", map[string]any{"session": sess, "element": row.Ref, "direction": "down", "amount": 1}},
		{"press", map[string]any{"session": sess, "element": row.Ref}},
	} {
		out := s.call(t, c.tool, c.args)
		if out["ok"] != false || out["errorCode"] != "invalidArgument" {
			t.Errorf("%s with Alt held: %v, want refused with invalidArgument", c.tool, out)
		}
		if got := deskState(t, d); got != desk {
			t.Fatalf("the desktop is at %s after %s with Alt held, was at %s: Alt with the pointer reached the window manager", got, c.tool, desk)
		}
		if b := heldNow(t, d, log).buttons; len(b) != 0 {
			s.call(t, "release", map[string]any{"session": sess})
		}
	}
	// A click the element's action does sends no pointer input.
	if out := s.ok(t, "click", map[string]any{"session": sess, "element": row.Ref}); out["method"] != "action" {
		t.Errorf("click with Alt held: method %v, want action", out["method"])
	}
	s.ok(t, "key_up", map[string]any{"session": sess, "key": "Alt"})
	s.ok(t, "key_down", map[string]any{"session": sess, "key": "Shift"})
	s.ok(t, "scroll", map[string]any{"session": sess, "element": row.Ref, "direction": "down", "amount": 1})
	s.ok(t, "key_up", map[string]any{"session": sess, "key": "Shift"})
}
