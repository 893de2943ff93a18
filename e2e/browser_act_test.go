//go:build linux

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// formPage is a form of every common kind of control. Its script writes
// what the form holds into the page's title on every change, so a test
// checks the page itself through the window's title, read from X11 or
// sway: an account independent of AT-SPI and of the tool's answers.
const formPage = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>form ready</title></head>
<body>
<form id="f" onsubmit="return false">
  <p><label for="name">Full name</label> <input id="name" type="text"></p>
  <p><label for="notes">Notes</label> <textarea id="notes" rows="3" cols="30"></textarea></p>
  <p><input id="news" type="checkbox"> <label for="news">Newsletter</label></p>
  <p><input id="small" name="size" type="radio" value="small" checked> <label for="small">Small</label>
     <input id="large" name="size" type="radio" value="large"> <label for="large">Large</label></p>
  <p><label for="colour">Colour</label> <select id="colour">
     <option value="red">Red</option><option value="green">Green</option><option value="blue">Blue</option></select></p>
  <p><label for="pin">PIN</label> <input id="pin" type="password"></p>
  <p><button id="go" type="button">Go</button></p>
</form>
<script>
var presses = 0;
function show() {
  var f = document.getElementById("f");
  document.title = "name=" + f.name.value + "|notes=" + f.notes.value.replace(/\n/g, "/") +
    "|news=" + (f.news.checked ? "on" : "off") + "|size=" + f.querySelector("input[name=size]:checked").value +
    "|colour=" + f.colour.value + "|pin=" + f.pin.value.length + "|go=" + presses;
}
document.getElementById("f").addEventListener("input", show);
document.getElementById("f").addEventListener("change", show);
document.getElementById("go").addEventListener("click", function () { presses++; show(); });
</script>
</body>
</html>
`

// TestBrowserFormTask fills a web form in Firefox ESR and Chromium as an
// agent would — set_value on a text input, type_text into a text area,
// toggle a check box, click a radio button, select an option of a select,
// set_value on a password input, click a button — and checks every
// success against the page: each control read back through
// get_element_properties and the tree, and the page's own account of
// its form in its title. Between steps the address bar takes the keys
// (Ctrl+L), as after a user's visit there: keys sent next must still
// reach the page's field, not the address bar.
func TestBrowserFormTask(t *testing.T) { testdesk.ForEach(t, testBrowserFormTask) }

func testBrowserFormTask(t *testing.T, d *testdesk.Desk) {
	for _, b := range browsers {
		t.Run(b.name, func(t *testing.T) {
			app := openPage(t, d, b, "form ready", formPage)
			s := startMCP(t, d, "", "--allow-input")
			sess := s.connect(t, map[string]any{"pid": app.Pid})
			find := func(args map[string]any) elem { return findKeyed(t, s, sess, args) }
			name := find(map[string]any{"name": "Full name", "nameMatch": "exact", "role": "entry"})
			notes := find(map[string]any{"name": "Notes", "nameMatch": "exact", "role": "entry"})
			news := find(map[string]any{"name": "Newsletter", "nameMatch": "exact", "role": "check box"})
			large := find(map[string]any{"name": "Large", "nameMatch": "exact", "role": "radio button"})
			green := find(map[string]any{"name": "Green", "nameMatch": "exact", "role": "menu item"})
			pin := find(map[string]any{"role": "password text"})
			goButton := find(map[string]any{"name": "Go", "nameMatch": "exact", "role": "push button"})

			// page waits until the page's title shows what the form holds.
			page := func(want string) {
				t.Helper()
				until(t, "the page's title "+want, func(ctx context.Context) (bool, string) {
					got := windowTitle(ctx, d, app.Pid)
					return strings.HasPrefix(got, want+" "), fmt.Sprintf("%q", got)
				})
			}
			text := func(el elem) string {
				t.Helper()
				p, _ := s.ok(t, "get_element_properties", map[string]any{"session": sess, "element": el.Ref})["properties"].(map[string]any)
				tx, _ := p["text"].(map[string]any)
				got, _ := tx["text"].(string)
				return got
			}
			addressBar := func() { s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Ctrl+l"}) }

			addressBar()
			const full = "Ada Lovelace"
			set := s.ok(t, "set_value", map[string]any{"session": sess, "element": name.Ref, "value": full})
			if got, ok := afterText(set); !ok || got != full {
				t.Errorf("set_value answered ok with after.text %q (present %v); want %q", got, ok, full)
			}
			page("name=" + full + "|notes=|news=off|size=small|colour=red|pin=0|go=0")

			addressBar()
			typed := s.ok(t, "type_text", map[string]any{"session": sess, "element": name.Ref, "text": ", Countess"})
			if got, ok := afterText(typed); !ok || got != full+", Countess" {
				t.Errorf("type_text answered ok with after.text %q (present %v); want %q", got, ok, full+", Countess")
			}
			s.ok(t, "set_value", map[string]any{"session": sess, "element": notes.Ref, "value": "first line\nsecond"})
			addressBar()
			s.ok(t, "type_text", map[string]any{"session": sess, "element": notes.Ref, "text": "\nZoë, 東京"})
			page("name=" + full + ", Countess|notes=first line/second/Zoë, 東京|news=off|size=small|colour=red|pin=0|go=0")
			if got := text(name); got != full+", Countess" {
				t.Errorf("get_element_properties: the name holds %q", got)
			}
			if got := text(notes); got != "first line\nsecond\nZoë, 東京" {
				t.Errorf("get_element_properties: the notes hold %q", got)
			}

			s.ok(t, "toggle", map[string]any{"session": sess, "element": news.Ref})
			s.ok(t, "click", map[string]any{"session": sess, "element": large.Ref})
			began := time.Now()
			sel := s.ok(t, "select", map[string]any{"session": sess, "element": green.Ref})
			// Not asserted (timing never is): how long the option took, and how.
			t.Logf("select took %v: method %v, detail %q", time.Since(began).Round(time.Millisecond), sel["method"], sel["detail"])
			if after, _ := sel["after"].(map[string]any); !strings.Contains(fmt.Sprint(after["states"]), "selected") {
				t.Errorf("select answered ok; after %v", after)
			}
			const secret = "pin-4071"
			pw := s.ok(t, "set_value", map[string]any{"session": sess, "element": pin.Ref, "value": secret})
			if raw := fmt.Sprint(pw); strings.Contains(raw, secret) {
				t.Errorf("set_value on a password field echoes it: %s", raw)
			}
			s.ok(t, "click", map[string]any{"session": sess, "element": goButton.Ref})
			page(fmt.Sprintf("name=%s, Countess|notes=first line/second/Zoë, 東京|news=on|size=large|colour=green|pin=%d|go=1", full, len(secret)))

			// The tree, read afresh, says the same.
			tree := s.ok(t, "get_a11y_tree", map[string]any{"session": sess, "format": "json", "view": "raw", "maxNodes": 100000, "maxBytes": 100000000})
			root := decode[*elem](t, tree["root"])
			want := map[string][2]string{ // name -> role, state it must have
				"Newsletter": {"check box", "checked"},
				"Large":      {"radio button", "checked"},
				"Green":      {"menu item", "selected"},
			}
			// What the controls hold, in the tree as values.
			values := map[string]string{
				"entry Full name":  full + ", Countess",
				"entry Notes":      "first line\nsecond\nZoë, 東京",
				"combo box Colour": "Green",
			}
			show := func(v *string) string {
				if v == nil {
					return "none"
				}
				return fmt.Sprintf("%q", *v)
			}
			seen := map[string]bool{}
			root.walk(func(e, _ *elem) {
				if v, ok := values[e.Role+" "+e.Name]; ok {
					seen[e.Role+" "+e.Name] = true
					if e.Value == nil || *e.Value != v {
						t.Errorf("the tree's %s %q has the value %s, want %q", e.Role, e.Name, show(e.Value), v)
					}
				}
				if e.Role == "password text" && e.Value != nil {
					t.Errorf("the tree's password field has a value")
				}
				if w, ok := want[e.Name]; ok && e.Role == w[0] {
					seen[e.Name] = true
					if !e.has(w[1]) {
						t.Errorf("the tree's %s %q is not %s: %v", e.Role, e.Name, w[1], e.States)
					}
				}
				if e.Role == "radio button" && e.Name == "Small" && e.has("checked") {
					t.Errorf("the tree's radio button Small is still checked")
				}
			})
			for n := range want {
				if !seen[n] {
					t.Errorf("the tree has no %s %q", want[n][0], n)
				}
			}
			for n := range values {
				if !seen[n] {
					t.Errorf("the tree has no %s", n)
				}
			}
			if raw := fmt.Sprint(tree); strings.Contains(raw, secret) {
				t.Errorf("the tree holds the password")
			}
		})
	}
}

// TestBrowserBackgroundTab: once a new tab is in front (Ctrl+T here; a
// first start's welcome tab does the same), the form's page is in the
// background, its elements still in the tree. Typing into one of them
// must fail without sending a key or a click: they would land in the tab
// in front — its address bar, its page at the field's old place — not in
// the field.
func TestBrowserBackgroundTab(t *testing.T) { testdesk.ForEach(t, testBrowserBackgroundTab) }

func testBrowserBackgroundTab(t *testing.T, d *testdesk.Desk) {
	for _, b := range browsers {
		t.Run(b.name, func(t *testing.T) {
			app := openPage(t, d, b, "form ready", formPage)
			s := startMCP(t, d, "", "--allow-input")
			sess := s.connect(t, map[string]any{"pid": app.Pid})
			name := findKeyed(t, s, sess, map[string]any{"name": "Full name", "nameMatch": "exact", "role": "entry"})
			s.ok(t, "set_value", map[string]any{"session": sess, "element": name.Ref, "value": "first"})
			s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Ctrl+t"})
			until(t, "a new tab in front", func(ctx context.Context) (bool, string) {
				got := windowTitle(ctx, d, app.Pid)
				return !strings.HasPrefix(got, "name=first"), fmt.Sprintf("%q", got)
			})
			for _, call := range []struct{ tool, arg, text string }{
				{"set_value", "value", "second-typed"},
				{"type_text", "text", "third-typed"},
			} {
				out := s.call(t, call.tool, map[string]any{"session": sess, "element": name.Ref, call.arg: call.text})
				// Refused before any input: the element is not showing
				// (Firefox), or gone with its page's tree (Chromium). A
				// noEffect would mean keys or a click were sent and missed.
				if code, _ := out["errorCode"].(string); out["ok"] == true || code != "offscreen" && code != "elementGone" {
					t.Errorf("%s into the background tab's field: %v; want a refusal before any input (offscreen or elementGone)", call.tool, out)
				}
			}
			bar := findKeyed(t, s, sess, b.addressBar)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if got := liveText(ctx, d, bar.Key); strings.Contains(got, "typed") {
				t.Errorf("the keys meant for the background tab's field went to the address bar in front: it holds %q", got)
			}
			if got := windowTitle(ctx, d, app.Pid); strings.Contains(got, "typed") {
				t.Errorf("the keys meant for the background tab's field went to the tab in front: its title is %q", got)
			}
		})
	}
}

// TestBrowserTypesEveryASCII types every printable ASCII character and
// characters of other scripts into a page's field in Firefox and
// Chromium, each checked by the page itself: its script puts the field's
// text into its title, read from X11 or sway. Browsers read a key's code
// as well as its keysym (Chromium on Wayland gave a ')' typed on
// Backspace's keycode Backspace's meaning, and dropped a key whose code
// is no key's).
func TestBrowserTypesEveryASCII(t *testing.T) { testdesk.ForEach(t, testBrowserTypesEveryASCII) }

func testBrowserTypesEveryASCII(t *testing.T, d *testdesk.Desk) {
	const page = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>typing page</title></head><body>
<input id="f" aria-label="typed here" size="120">
<script>document.getElementById("f").addEventListener("input", function (e) { document.title = "[" + e.target.value + "]"; });</script>
</body></html>`
	var ascii strings.Builder
	for r := rune(0x20); r <= 0x7e; r++ {
		ascii.WriteRune(r)
	}
	for _, b := range browsers {
		t.Run(b.name, func(t *testing.T) {
			app := openPage(t, d, b, "typing page", page)
			s := startMCP(t, d, "", "--allow-input")
			sess := s.connect(t, map[string]any{"pid": app.Pid})
			field := findKeyed(t, s, sess, map[string]any{"name": "typed here", "nameMatch": "exact", "role": "entry"})
			for _, text := range []string{ascii.String(), "Zoë, 東京: Ωß€ é"} {
				out := s.ok(t, "set_value", map[string]any{"session": sess, "element": field.Ref, "value": text})
				if got, ok := afterText(out); !ok || got != text {
					t.Errorf("set_value %q answered ok with after.text %q (present %v)", text, got, ok)
				}
				until(t, "the page's title shows "+text, func(ctx context.Context) (bool, string) {
					got := windowTitle(ctx, d, app.Pid)
					return strings.HasPrefix(got, "["+text+"] "), fmt.Sprintf("%q", got)
				})
			}
		})
	}
}
