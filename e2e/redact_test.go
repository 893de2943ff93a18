//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// redactCase is a fixture with fields that hide what they hold.
type redactCase struct {
	fixture string
	// hidden are the planted secrets, one per field that hides its text,
	// by the role the field is reported with.
	hidden []hiddenField
	// never are further strings no output may show (placeholders of the
	// hidden fields: a redacted field's attributes are withheld too).
	never []string
}

type hiddenField struct {
	role, secret string
}

var redactCases = []redactCase{
	// GTK 4.8 reports its Gtk.PasswordEntry as a password field, but a
	// Gtk.Entry with visibility off as a plain "text" whose Text interface
	// answers the real characters (the "PIN" field of the fixture).
	{"gtk4_fixture.py", []hiddenField{{"password text", "hunter2-gtk4-secret"}, {"text", "gtk4-hidden-entry-secret"}}, []string{"pin-placeholder-hint"}},
	{"gtk3_fixture.py", []hiddenField{{"password text", "hunter2-gtk-secret"}}, nil},
	{"qt5_fixture.py", []hiddenField{{"password text", "hunter2-qt-secret"}}, nil},
}

// TestRedactionHolds sweeps the full output of every inspection tool of a
// real `uiscope mcp` for the secrets planted in the fixtures' hidden fields:
// the tree (JSON and outline, every view), find_elements, the properties and
// a hit test of each hidden field, and wait_for on its text, which must
// never hold for the right guess (it would be an oracle). Every hidden
// field is marked redacted in JSON; select_text on one does not tell its
// length.
func TestRedactionHolds(t *testing.T) { testdesk.ForEach(t, testRedactionHolds) }

func testRedactionHolds(t *testing.T, d *testdesk.Desk) {
	for _, tc := range redactCases {
		t.Run(tc.fixture, func(t *testing.T) {
			app := d.Launch(t, testdesk.Python, testdesk.Fixture(tc.fixture), "--form", "--title", "redact "+tc.fixture)
			s := startMCP(t, d, "", "--allow-input")
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
			var redacted []*elem
			root.walk(func(e, _ *elem) {
				if e.Redacted {
					redacted = append(redacted, e)
				}
			})
			if len(redacted) != len(tc.hidden) {
				t.Errorf("%d elements with \"redacted\": true, want %d (one per hidden field: %v)", len(redacted), len(tc.hidden), tc.hidden)
			}
			for _, view := range []string{"raw", "control", "content"} {
				for _, format := range []string{"json", "outline"} {
					out := s.ok(t, "get_a11y_tree", map[string]any{"session": sess, "format": format, "view": view, "maxNodes": 100000, "maxBytes": 100000000})
					keep("tree "+format+" "+view, out)
					if format == "outline" {
						if got := strings.Count(out["outline"].(string), "(redacted)"); got != len(tc.hidden) {
							t.Errorf("outline %s: %d (redacted), want %d", view, got, len(tc.hidden))
						}
					}
				}
			}
			keep("find all", s.ok(t, "find_elements", map[string]any{"session": sess, "limit": 1000}))
			for _, f := range tc.hidden {
				keep("find "+f.role, s.ok(t, "find_elements", map[string]any{"session": sess, "role": f.role, "limit": 1000}))
			}

			for _, e := range redacted {
				if e.Name != "" || e.Description != "" {
					t.Errorf("redacted %s (%s) has name %q, description %q", e.Ref, e.Role, e.Name, e.Description)
				}
			}
			// Every editable field, redacted or not: a hidden field the
			// tree failed to mark must not leak here either.
			var fields []*elem
			root.walk(func(e, _ *elem) {
				if slices.Contains(e.Interfaces, "editabletext") {
					fields = append(fields, e)
				}
			})
			for _, e := range fields {
				props := s.ok(t, "get_element_properties", map[string]any{"session": sess, "element": e.Ref})
				keep("properties "+e.Ref, props)
				p, _ := props["properties"].(map[string]any)
				if (p["redacted"] == true) != e.Redacted {
					t.Errorf("properties of %s: redacted %v, the tree said %v", e.Ref, p["redacted"], e.Redacted)
				}
				if e.Redacted {
					for _, k := range []string{"text", "value"} {
						if v, ok := p[k]; ok {
							t.Errorf("properties of redacted %s carry %s: %v", e.Ref, k, v)
						}
					}
				}
				if len(e.Children) > 0 {
					continue // a text area: the smallest element at its centre is its viewport
				}
				if e.Bounds == nil || e.Bounds.Width <= 0 || e.Bounds.Height <= 0 {
					t.Errorf("field %s has no bounds to hit: %+v", e.Ref, e.Bounds)
					continue
				}
				hit := s.ok(t, "hit_test", map[string]any{"session": sess,
					"x": e.Bounds.X + e.Bounds.Width/2, "y": e.Bounds.Y + e.Bounds.Height/2})
				keep("hit_test "+e.Ref, hit)
				if el := decode[*elem](t, hit["element"]); el == nil || el.Ref != e.Ref || el.Redacted != e.Redacted {
					t.Errorf("hit_test at the centre of %s: %+v, want that element, redacted %v", e.Ref, el, e.Redacted)
				}
			}

			for _, f := range tc.hidden {
				for _, prop := range []string{"text", "value", "name", "description"} {
					out := s.call(t, "wait_for", map[string]any{"session": sess, "role": f.role,
						"until": "property", "property": prop, "value": f.secret, "timeoutMs": 1000})
					keep("wait_for "+prop, out)
					if out["satisfied"] == true || out["ok"] == true {
						t.Errorf("wait_for %s %s == the planted secret held: an oracle for guesses: %v", f.role, prop, out)
					}
				}
			}

			// select_text: a range is refused as the caller's error, and
			// the refusal does not say how long the hidden text is.
			for _, e := range redacted {
				for _, end := range []int{5, 100} {
					out := s.call(t, "select_text", map[string]any{"session": sess, "element": e.Ref, "start": 0, "end": end})
					keep("select_text "+e.Ref, out)
					if out["ok"] != false || out["errorCode"] != "invalidArgument" {
						t.Errorf("select_text 0..%d on redacted %s: want errorCode invalidArgument, got %v", end, e.Ref, out)
					}
					msg, _ := out["error"].(string)
					for _, f := range tc.hidden {
						if regexp.MustCompile(fmt.Sprintf(`\b%d\b`, len(f.secret))).MatchString(msg) {
							t.Errorf("select_text on %s tells a length (%d): %q", e.Ref, len(f.secret), msg)
						}
					}
				}
			}

			for _, o := range outs {
				for _, f := range tc.hidden {
					if strings.Contains(o, f.secret) {
						t.Errorf("a hidden field's text is in the output of %.1000s", o)
					}
				}
				for _, n := range tc.never {
					if strings.Contains(o, n) {
						t.Errorf("%q (a hidden field's attribute) is in the output of %.1000s", n, o)
					}
				}
			}
		})
	}
}

// TestRedactionHoldsCLI is the same sweep through the CLI: tree (both
// formats), find, and props of every editable field.
func TestRedactionHoldsCLI(t *testing.T) { testdesk.ForEach(t, testRedactionHoldsCLI) }

func testRedactionHoldsCLI(t *testing.T, d *testdesk.Desk) {
	for _, tc := range redactCases {
		t.Run(tc.fixture, func(t *testing.T) {
			app := d.Launch(t, testdesk.Python, testdesk.Fixture(tc.fixture), "--title", "redact cli "+tc.fixture)
			pid := strconv.Itoa(app.Pid)
			var outs []string
			run := func(args ...string) string {
				r := runCLI(t, d, 90*time.Second, args...)
				if r.code != 0 {
					t.Fatalf("uiscope %v: exit %d: %s", args, r.code, r.stderr)
				}
				outs = append(outs, fmt.Sprintf("%v: %s%s", args, r.stdout, r.stderr))
				return r.stdout
			}
			var tree struct{ Root *elem }
			if err := json.Unmarshal([]byte(run("tree", "--pid", pid, "--format", "json", "--max-nodes", "100000", "--max-bytes", "100000000", "--timeout-ms", "60000")), &tree); err != nil {
				t.Fatal(err)
			}
			redacted := 0
			tree.Root.walk(func(e, _ *elem) {
				if e.Redacted {
					redacted++
				}
				if !slices.Contains(e.Interfaces, "editabletext") {
					return
				}
				var p map[string]any
				if err := json.Unmarshal([]byte(run("props", "--pid", pid, "--element", e.Ref, "--json")), &p); err != nil {
					t.Fatal(err)
				}
				if (p["redacted"] == true) != e.Redacted {
					t.Errorf("props of %s: redacted %v, the tree said %v", e.Ref, p["redacted"], e.Redacted)
				}
				if _, ok := p["text"]; ok && e.Redacted {
					t.Errorf("props of redacted %s carry text", e.Ref)
				}
			})
			if redacted != len(tc.hidden) {
				t.Errorf("%d redacted elements, want %d", redacted, len(tc.hidden))
			}
			run("tree", "--pid", pid, "--format", "outline", "--max-nodes", "100000", "--max-bytes", "100000000", "--timeout-ms", "60000")
			for _, f := range tc.hidden {
				run("find", "--pid", pid, "--role", f.role, "--json")
			}
			for _, o := range outs {
				for _, f := range tc.hidden {
					if strings.Contains(o, f.secret) {
						t.Errorf("a hidden field's text is in the output of %.1000s", o)
					}
				}
				for _, n := range tc.never {
					if strings.Contains(o, n) {
						t.Errorf("%q (a hidden field's attribute) is in the output of %.1000s", n, o)
					}
				}
			}
		})
	}
}
