//go:build linux

package e2e

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// valueCase is a form fixture and the values its tree must carry, by role
// and name.
type valueCase struct {
	fixture string
	want    []wantValue
	// secrets are held by fields that hide their text: no output may
	// show them, and those fields carry no value.
	secrets []string
}

type wantValue struct {
	role, name, value string
}

var valueCases = []valueCase{
	{"gtk3_fixture.py", []wantValue{
		{"text", "Name", "Ada Lovelace"},
		{"text", "Notes", "first line\nsecond line"},
		{"spin button", "Count", "5"},
		{"slider", "Volume", "30"},
		{"combo box", "Color", "Red"},
		{"table cell", "Fruits", "Fruits"},
	}, []string{"hunter2-gtk-secret"}},
	// GTK 4.8 answers GetText(0, -1) with "" for every field; its
	// single-line fields are valued from what they show (the hidden "PIN"
	// entry is redacted).
	{"gtk4_fixture.py", []wantValue{
		{"text", "Name", "Ada Lovelace"},
		{"text", "Notes", "first line\nsecond line"},
		{"spin button", "Count", "5"},
		{"slider", "Volume", "30"},
		{"combo box", "Color", "Green"},
	}, []string{"hunter2-gtk4-secret", "gtk4-hidden-entry-secret"}},
	// Qt 5 answers a GetText whose end is past the character count with
	// "": the text area must read in full. Qt names a combo box after its
	// current item.
	{"qt5_fixture.py", []wantValue{
		{"text", "Name", "Ada Lovelace"},
		{"text", "Notes", "12*7\n= 84\n"},
		{"spin button", "Count", "5"},
		{"slider", "Volume", "30"},
		{"combo box", "Green", "Green"},
	}, []string{"hunter2-qt-secret"}},
}

// TestValuesInTree reads a GTK 3, a GTK 4 and a Qt 5 form through a real
// `uiscope mcp`: one get_a11y_tree carries what each control holds (an
// entry's and a text area's text, a spin button's and a slider's number,
// a combo box's chosen item, a table cell's text), in JSON and in the
// outline; get_element_properties reads the text area in full (Qt); no
// redacted field has a value, and no secret shows anywhere.
func TestValuesInTree(t *testing.T) { testdesk.ForEach(t, testValuesInTree) }

func testValuesInTree(t *testing.T, d *testdesk.Desk) {
	for _, tc := range valueCases {
		t.Run(tc.fixture, func(t *testing.T) {
			app := d.Launch(t, testdesk.Python, testdesk.Fixture(tc.fixture), "--form", "--title", "values "+tc.fixture)
			s := startMCP(t, d, "")
			sess := s.connect(t, map[string]any{"pid": app.Pid})
			var outs []string
			keep := func(what string, v any) {
				raw, err := json.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				outs = append(outs, what+": "+string(raw))
			}

			tree := s.ok(t, "get_a11y_tree", map[string]any{"session": sess, "format": "json", "maxNodes": 100000, "maxBytes": 100000000})
			keep("tree json", tree)
			root := decode[*elem](t, tree["root"])
			byName := map[[2]string]*elem{}
			redacted := 0
			root.walk(func(e, _ *elem) {
				if e.Redacted {
					redacted++
					if e.Value != nil {
						t.Errorf("redacted %s (%s) has a value: %q", e.Ref, e.Role, *e.Value)
					}
				}
				if _, seen := byName[[2]string{e.Role, e.Name}]; !seen {
					byName[[2]string{e.Role, e.Name}] = e
				}
			})
			if redacted != len(tc.secrets) {
				t.Errorf("%d redacted fields, want %d", redacted, len(tc.secrets))
			}
			for _, w := range tc.want {
				e := byName[[2]string{w.role, w.name}]
				switch {
				case e == nil:
					t.Errorf("no %s %q in the tree", w.role, w.name)
				case e.Value == nil:
					t.Errorf("%s %q (%s) has no value, want %q", w.role, w.name, e.Ref, w.value)
				case *e.Value != w.value || e.ValueTruncated:
					t.Errorf("%s %q (%s) has value %q (truncated %v), want %q", w.role, w.name, e.Ref, *e.Value, e.ValueTruncated, w.value)
				}
			}

			for _, view := range []string{"raw", "control"} {
				out := s.ok(t, "get_a11y_tree", map[string]any{"session": sess, "format": "outline", "view": view, "maxNodes": 100000, "maxBytes": 100000000})
				keep("outline "+view, out)
				outline, _ := out["outline"].(string)
				for _, w := range tc.want {
					line := w.role + " " + strconv.Quote(w.name) + " = " + strconv.Quote(w.value) + " ["
					if w.role == "table cell" && w.name == w.value {
						// A cell named by its text prints it once.
						line = w.role + " " + strconv.Quote(w.name) + " ["
					}
					if !strings.Contains(outline, line) {
						t.Errorf("outline %s: no line with %s", view, line)
					}
				}
			}

			// The text areas' text, read live: in full, up to the count.
			notes := byName[[2]string{"text", "Notes"}]
			if notes == nil {
				t.Fatal("no text area Notes")
			}
			props := s.ok(t, "get_element_properties", map[string]any{"session": sess, "element": notes.Ref})
			keep("properties", props)
			p, _ := props["properties"].(map[string]any)
			text, _ := p["text"].(map[string]any)
			want := tc.want[1].value
			if text == nil || text["text"] != want || text["length"] != float64(len([]rune(want))) {
				t.Errorf("properties of the text area: text %v, want %q", text, want)
			}

			keep("find", s.ok(t, "find_elements", map[string]any{"session": sess, "limit": 1000}))
			for _, o := range outs {
				for _, sec := range tc.secrets {
					if strings.Contains(o, sec) {
						t.Errorf("a hidden field's text is in the output of %.1000s", o)
					}
				}
			}
		})
	}
}

// valuesPage is a web form holding values, a table and a password.
const valuesPage = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>uiscope values</title></head>
<body>
<p><input aria-label="User name" type="text" value="Ada Lovelace"></p>
<p><textarea aria-label="Notes">12*7
= 84</textarea></p>
<p><input aria-label="Count" type="number" value="5"></p>
<p><input aria-label="Volume" type="range" value="30"></p>
<p><select aria-label="Color"><option>Red</option><option selected>Green</option><option>Blue</option></select></p>
<p><input aria-label="Password" type="password" value="hunter2-web-secret"></p>
<table><tr><th>Key</th><th>Value</th></tr><tr><td>Alpha</td><td>First cell</td></tr>
<tr><td>See <a href="#top">the top</a></td><td><input aria-label="PIN" type="password" value="hunter2-cell-secret"></td></tr></table>
</body></html>`

// TestValuesInBrowsers: the same form in Firefox and Chromium. Firefox
// answers a GetText whose end is past the character count with "", and
// marks the chosen option of a select selected, as Chromium does.
func TestValuesInBrowsers(t *testing.T) { testdesk.ForEach(t, testValuesInBrowsers) }

func testValuesInBrowsers(t *testing.T, d *testdesk.Desk) {
	for _, b := range browsers {
		t.Run(b.name, func(t *testing.T) {
			app := openPage(t, d, b, "uiscope values", valuesPage)
			s := startMCP(t, d, "")
			sess := s.connect(t, map[string]any{"pid": app.Pid})
			tree := s.ok(t, "get_a11y_tree", map[string]any{"session": sess, "format": "json", "maxNodes": 100000, "maxBytes": 100000000, "timeoutMs": 60000})
			outline := s.ok(t, "get_a11y_tree", map[string]any{"session": sess, "format": "outline", "maxNodes": 100000, "maxBytes": 100000000, "timeoutMs": 60000})
			root := decode[*elem](t, tree["root"])
			got := map[[2]string]string{}
			var cells []string
			root.walk(func(e, _ *elem) {
				if e.Redacted && e.Value != nil {
					t.Errorf("redacted %s (%s) has a value", e.Ref, e.Role)
				}
				if e.Value == nil {
					return
				}
				// Chromium ends a text area's text with one more line break.
				v := strings.TrimRight(*e.Value, "\n")
				if e.Role == "table cell" {
					cells = append(cells, v)
				}
				got[[2]string{e.Role, e.Name}] = v
			})
			for _, w := range []wantValue{
				{"entry", "User name", "Ada Lovelace"},
				{"entry", "Notes", "12*7\n= 84"},
				{"spin button", "Count", "5"},
				{"slider", "Volume", "30"},
				{"combo box", "Color", "Green"},
			} {
				if v, ok := got[[2]string{w.role, w.name}]; !ok || v != w.value {
					t.Errorf("%s %q: value %q (present %v), want %q", w.role, w.name, v, ok, w.value)
				}
			}
			// A link in a cell reads as its name; a cell holding a password
			// field has no value.
			if !slices.Contains(cells, "Alpha") || !slices.Contains(cells, "First cell") || !slices.Contains(cells, "See the top") {
				t.Errorf("table cells' values %q, want Alpha, First cell and See the top among them", cells)
			}
			for what, out := range map[string]any{"tree": tree, "outline": outline} {
				raw, _ := json.Marshal(out)
				if strings.Contains(string(raw), "hunter2") {
					t.Errorf("the password is in the %s", what)
				}
			}
		})
	}
}

// TestValueChangesGTK3: an MCP session's tree changes carry a value set
// by set_value (an entry's text, a spin button's number) as a changed
// field "value" with old and new; the password field set too never shows.
func TestValueChangesGTK3(t *testing.T) { testdesk.ForEach(t, testValueChangesGTK3) }

func testValueChangesGTK3(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--form", "--title", "value changes")
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	tree := s.ok(t, "get_a11y_tree", map[string]any{"session": sess, "format": "json"})
	root := decode[*elem](t, tree["root"])
	refs := map[string]string{}
	root.walk(func(e, _ *elem) { refs[e.Role+" "+e.Name] = e.Ref })
	entry, spin, pw := refs["text Name"], refs["spin button Count"], refs["password text "]
	if entry == "" || spin == "" || pw == "" {
		t.Fatalf("no entry, spin button or password field: %v", refs)
	}
	first := s.ok(t, "get_a11y_tree_changes", map[string]any{"session": sess})
	if first["snapshot"] != true {
		t.Fatalf("the first changes are not a snapshot: %v", first["snapshot"])
	}
	s.ok(t, "set_value", map[string]any{"session": sess, "element": entry, "value": "Grace Hopper"})
	s.ok(t, "set_value", map[string]any{"session": sess, "element": spin, "value": "42"})
	s.ok(t, "set_value", map[string]any{"session": sess, "element": pw, "value": "hunter3-other-secret"})
	want := map[string][2]any{entry: {"Ada Lovelace", "Grace Hopper"}, spin: {"5", "42"}}
	seen := map[string][2]any{}
	var outs []string
	deadline := time.Now().Add(20 * time.Second)
	for len(seen) < len(want) {
		out := s.ok(t, "get_a11y_tree_changes", map[string]any{"session": sess})
		raw, _ := json.Marshal(out)
		outs = append(outs, string(raw))
		for _, ev := range decode[[]liveChange](t, out["events"]) {
			if v, ok := ev.Changes["value"]; ok && ev.Type == "changed" {
				var fc struct{ Old, New any }
				if err := json.Unmarshal(v, &fc); err != nil {
					t.Fatalf("a value change %s: %v", v, err)
				}
				seen[ev.Ref] = [2]any{fc.Old, fc.New}
			}
		}
		if time.Now().After(deadline) {
			break
		}
	}
	for ref, w := range want {
		if seen[ref] != w {
			t.Errorf("the changes of %s: value %q, want %q (all: %.2000s)", ref, seen[ref], w, strings.Join(outs, "\n"))
		}
	}
	for _, o := range outs {
		if strings.Contains(o, "hunter") {
			t.Errorf("a password is in the changes: %.1000s", o)
		}
	}
}
