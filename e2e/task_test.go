//go:build linux

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// The task tests run whole tasks through real applications the way an
// agent would: one tool call after another, each answer taken at its word,
// the next call sent at once. They check the outcome where a user would —
// on disk, in the page — never through the tool's own answer.

// freshHome returns env(1) arguments that give an application a home and
// XDG directories of its own, so that no state of an earlier run (recent
// files, a restored session, a remembered folder) changes what it shows.
func freshHome(t testing.TB) []string {
	t.Helper()
	home := t.TempDir()
	return []string{"/usr/bin/env", "HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state")}
}

// fileHolds waits until path exists with exactly want in it.
func fileHolds(t testing.TB, path, want string) {
	t.Helper()
	until(t, "file "+filepath.Base(path)+" saved", func(ctx context.Context) (bool, string) {
		b, err := os.ReadFile(path)
		if err != nil {
			return false, err.Error()
		}
		return string(b) == want, fmt.Sprintf("%q", b)
	})
}

// afterText is the text an action's result says the element holds.
func afterText(out map[string]any) (string, bool) {
	after, _ := out["after"].(map[string]any)
	s, ok := after["text"].(string)
	return s, ok
}

// saveAs runs the Save As dialog as a new user would: wait for it, type
// the path into its name field, press Enter. withElement sends Enter to
// the field; without it, to wherever the app's focus is.
func saveAs(t *testing.T, s *mcpServer, sess, path string, withElement bool) {
	t.Helper()
	chooser := appears(t, s, sess, "the Save As dialog", map[string]any{"name": "Save As", "nameMatch": "exact", "role": "file chooser"})
	name := findOne(t, s, sess, map[string]any{"within": chooser.Ref, "role": "text", "states": []string{"editable", "focused"}})
	set := s.ok(t, "set_value", map[string]any{"session": sess, "element": name.Ref, "value": path})
	if text, ok := afterText(set); !ok || text != path {
		t.Errorf("set_value's after shows %q (present %v); want the settled %q", text, ok, path)
	}
	enter := map[string]any{"session": sess, "keys": "Enter"}
	if withElement {
		enter["element"] = name.Ref
	}
	s.ok(t, "press_key", enter)
}

// saveIn saves through a file dialog that has a Save button: path into
// its name field, then a click on Save. The name field is the editable
// text that has the focus when there is one: GTK 4's file chooser also
// holds its Other Locations page's server address, which comes first in
// its tree on Wayland, where the name field is in the header bar.
func saveIn(t *testing.T, s *mcpServer, sess string, dialog elem, path string) {
	t.Helper()
	out := s.ok(t, "find_elements", map[string]any{"session": sess, "within": dialog.Ref, "role": "text", "states": []string{"editable"}})
	texts := decode[[]elem](t, out["elements"])
	if len(texts) == 0 {
		t.Fatalf("no editable text in the dialog %s: %v", dialog.Ref, out)
	}
	name := texts[0]
	if i := slices.IndexFunc(texts, func(e elem) bool { return slices.Contains(e.States, "focused") }); i >= 0 {
		name = texts[i]
	}
	s.ok(t, "set_value", map[string]any{"session": sess, "element": name.Ref, "value": path})
	save := findOne(t, s, sess, map[string]any{"within": dialog.Ref, "name": "Save", "nameMatch": "exact", "role": "push button"})
	s.ok(t, "click", map[string]any{"session": sess, "element": save.Ref})
}

// TestTaskMousepadSaveAs: type two lines into mousepad, save them through
// its own Save As dialog twice (Enter to the name field, then Enter to
// wherever the focus is), and find exactly those lines on disk each time.
func TestTaskMousepadSaveAs(t *testing.T) { testdesk.ForEach(t, testTaskMousepadSaveAs) }

func testTaskMousepadSaveAs(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, append(freshHome(t), "mousepad")...)
	s := startMCP(t, d, "", "--allow-input")
	defer s.logCost(t, "mousepad")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	dir := t.TempDir()

	doc := findKeyed(t, s, sess, map[string]any{"role": "text", "states": []string{"editable", "focused"}})
	const lines = "first line of the task\nsecond line, the last"
	typed := s.ok(t, "type_text", map[string]any{"session": sess, "element": doc.Ref, "text": lines})
	if text, ok := afterText(typed); !ok || text != lines {
		t.Errorf("type_text's after shows %q (present %v); want the settled %q", text, ok, lines)
	}

	first := filepath.Join(dir, "first.txt")
	s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Ctrl+S"})
	saveAs(t, s, sess, first, true)
	fileHolds(t, first, lines)

	second := filepath.Join(dir, "second.txt")
	s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Ctrl+Shift+S"})
	saveAs(t, s, sess, second, false)
	fileHolds(t, second, lines)
}

// firefoxProfile writes a fresh profile whose preferences skip what a first
// start shows (welcome and privacy pages, the default-browser question, the
// password manager's offer) and keep the new-tab page from loading.
func firefoxProfile(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	prefs := []string{
		`user_pref("browser.shell.checkDefaultBrowser", false);`,
		`user_pref("browser.startup.homepage_override.mstone", "ignore");`,
		`user_pref("startup.homepage_welcome_url", "about:blank");`,
		`user_pref("startup.homepage_welcome_url.additional", "");`,
		`user_pref("browser.aboutwelcome.enabled", false);`,
		`user_pref("browser.startup.firstrunSkipsHomepage", true);`,
		`user_pref("datareporting.policy.dataSubmissionEnabled", false);`,
		`user_pref("datareporting.policy.firstRunURL", "");`,
		`user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);`,
		`user_pref("browser.newtab.preload", false);`,
		`user_pref("app.update.auto", false);`,
		`user_pref("signon.rememberSignons", false);`,
		`user_pref("browser.sessionstore.resume_from_crash", false);`,
		`user_pref("browser.tabs.warnOnClose", false);`,
	}
	if err := os.WriteFile(filepath.Join(dir, "user.js"), []byte(strings.Join(prefs, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestTaskFirefoxForm: fill a web form in Firefox ESR (text, password,
// check box), read it back, and check the page holds what each success
// claimed.
func TestTaskFirefoxForm(t *testing.T) { testdesk.ForEach(t, testTaskFirefoxForm) }

func testTaskFirefoxForm(t *testing.T, d *testdesk.Desk) {
	app := launchFirefox(t, d, "file://"+testdesk.Fixture("form.html"))
	s := startMCP(t, d, "", "--allow-input")
	defer s.logCost(t, "firefox-form")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	// Firefox exports the page's accessible objects after it has loaded:
	// wait for the form, not for a time.
	appears(t, s, sess, "the User name entry", map[string]any{"name": "User name", "nameMatch": "exact", "role": "entry", "timeoutMs": 60000})

	user := findKeyed(t, s, sess, map[string]any{"name": "User name", "nameMatch": "exact", "role": "entry"})
	const name = "ada.lovelace@example.org"
	set := s.ok(t, "set_value", map[string]any{"session": sess, "element": user.Ref, "value": name})
	if text, ok := afterText(set); !ok || text != name {
		t.Errorf("set_value answered ok with after.text %q (present %v); want %q", text, ok, name)
	}
	until(t, "the entry holds the name", func(ctx context.Context) (bool, string) {
		got := liveText(ctx, d, user.Key)
		return got == name, fmt.Sprintf("%q", got)
	})
	props := s.ok(t, "get_element_properties", map[string]any{"session": sess, "element": user.Ref})
	p, _ := props["properties"].(map[string]any)
	if text, _ := p["text"].(map[string]any); text["text"] != name {
		t.Errorf("get_element_properties after set_value: text %v, want %q", p["text"], name)
	}

	pass := findKeyed(t, s, sess, map[string]any{"role": "password text"})
	const secret = "correct horse battery"
	out := s.ok(t, "set_value", map[string]any{"session": sess, "element": pass.Ref, "value": secret})
	if raw := fmt.Sprint(out); strings.Contains(raw, secret) {
		t.Errorf("set_value on a password field echoes it: %s", raw)
	}

	remember := findKeyed(t, s, sess, map[string]any{"name": "Remember me", "role": "check box"})
	s.ok(t, "toggle", map[string]any{"session": sess, "element": remember.Ref})
	props = s.ok(t, "get_element_properties", map[string]any{"session": sess, "element": remember.Ref})
	if p, _ := props["properties"].(map[string]any); !strings.Contains(fmt.Sprint(p["states"]), "checked") {
		t.Errorf("the check box after toggle: %v", p["states"])
	}

	submit := findKeyed(t, s, sess, map[string]any{"name": "Sign in", "nameMatch": "exact", "role": "push button"})
	s.ok(t, "click", map[string]any{"session": sess, "element": submit.Ref})
	// The page says what it held: the name, the password's length, the box.
	status := fmt.Sprintf("Submitted: %s; password of %d characters; remember on", name, len(secret))
	s.ok(t, "wait_for", map[string]any{"session": sess, "name": status, "nameMatch": "exact",
		"until": "appears", "timeoutMs": 30000})
}

// TestTaskConcurrentTyping: two sessions of one server type into two apps
// at the same time. Each entry ends up with exactly its own text: the
// server never lets one call's keys land in the other's window.
func TestTaskConcurrentTyping(t *testing.T) { testdesk.ForEach(t, testTaskConcurrentTyping) }

func testTaskConcurrentTyping(t *testing.T, d *testdesk.Desk) {
	a := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "typing A")
	b := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "typing B")
	s := startMCP(t, d, "", "--allow-input")
	texts := map[*testdesk.App]string{
		a: strings.Repeat("alpha ", 20),
		b: strings.Repeat("BRAVO-", 20),
	}
	type job struct {
		sess string
		el   elem
		text string
	}
	var jobs []job
	for _, app := range []*testdesk.App{a, b} {
		sess := s.connect(t, map[string]any{"pid": app.Pid})
		el := findKeyed(t, s, sess, map[string]any{"name": "Name", "nameMatch": "exact", "role": "text"})
		s.ok(t, "set_value", map[string]any{"session": sess, "element": el.Ref, "value": ""})
		jobs = append(jobs, job{sess, el, texts[app]})
	}
	var wg sync.WaitGroup
	results := make([]map[string]any, len(jobs))
	for i, j := range jobs {
		wg.Go(func() {
			results[i] = s.call(t, "type_text", map[string]any{"session": j.sess, "element": j.el.Ref, "text": j.text})
		})
	}
	wg.Wait()
	for i, j := range jobs {
		if results[i]["ok"] != true {
			t.Errorf("type_text into %s: %v", j.sess, results[i])
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		got := liveText(ctx, d, j.el.Key)
		cancel()
		if got != j.text {
			t.Errorf("session %s's entry holds %q, want exactly %q", j.sess, got, j.text)
		}
	}
}

// TestTaskDesktopKeysRefused: chords the window manager acts on (lock the
// screen, switch windows, open a terminal, change the virtual terminal)
// are refused without --allow-desktop-keys, and nothing changes focus.
func TestTaskDesktopKeysRefused(t *testing.T) { testdesk.ForEach(t, testTaskDesktopKeysRefused) }

func testTaskDesktopKeysRefused(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "desktop keys")
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	for _, keys := range []string{"Super+L", "Super+e", "Alt+Tab", "Ctrl+Alt+T", "Ctrl+Alt+F2", "Ctrl+Alt+BackSpace", "Ctrl+Alt+Delete"} {
		out := s.fail(t, "press_key", map[string]any{"session": sess, "keys": keys}, "invalidArgument")
		if msg, _ := out["error"].(string); !strings.Contains(msg, "--allow-desktop-keys") {
			t.Errorf("press_key %s: the refusal does not say how to allow it: %q", keys, msg)
		}
	}
	// Ordinary chords still go through.
	s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Ctrl+a"})
	allowed := startMCP(t, d, "", "--allow-input", "--allow-desktop-keys")
	sess = allowed.connect(t, map[string]any{"pid": app.Pid})
	allowed.ok(t, "press_key", map[string]any{"session": sess, "keys": "Super+e"})
}
