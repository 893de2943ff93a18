//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// sweepCase is an app with a password field, and the secret it holds
// before the sweep (planted by the fixture, or set first).
type sweepCase struct {
	name   string
	launch func(t *testing.T, d *testdesk.Desk) *testdesk.App
	// planted is the secret in the password field when the app starts;
	// empty when the sweep sets one first (a browser form starts empty).
	planted []string
	// ready waits until the field is there (a page loads after its window).
	ready func(t *testing.T, s *mcpServer, sess string)
}

func fixtureCase(fixture string, secrets ...string) sweepCase {
	return sweepCase{
		name: fixture,
		launch: func(t *testing.T, d *testdesk.Desk) *testdesk.App {
			return d.Launch(t, testdesk.Python, testdesk.Fixture(fixture), "--title", "sweep "+fixture)
		},
		planted: secrets,
	}
}

var sweepCases = []sweepCase{
	fixtureCase("gtk3_fixture.py", "hunter2-gtk-secret"),
	fixtureCase("gtk4_fixture.py", "hunter2-gtk4-secret", "gtk4-hidden-entry-secret", "pin-placeholder-hint"),
	fixtureCase("qt5_fixture.py", "hunter2-qt-secret"),
	browserCase(browsers[0]),
	browserCase(browsers[1]),
}

// browserCase is the sign-in form in a browser (form.html: its password
// input starts empty, so the sweep plants a secret first).
func browserCase(b browser) sweepCase {
	return sweepCase{
		name: b.name + " form.html",
		launch: func(t *testing.T, d *testdesk.Desk) *testdesk.App {
			return b.launch(t, d, "file://"+testdesk.Fixture("form.html"))
		},
		ready: func(t *testing.T, s *mcpServer, sess string) {
			s.ok(t, "wait_for", map[string]any{"session": sess, "role": "password text", "until": "appears", "timeoutMs": 60000})
		},
	}
}

// TestRedactionEveryTool calls every tool the server lists — reads,
// actions on the password field itself, the visual tree, changes, events,
// the session resource and screenshots — and sweeps every answer for the
// password field's secrets: the one it held, one set with set_value and
// one typed with type_text. A tool the sweep does not call fails the test,
// so a new tool joins it.
func TestRedactionEveryTool(t *testing.T) { testdesk.ForEach(t, testRedactionEveryTool) }

func testRedactionEveryTool(t *testing.T, d *testdesk.Desk) {
	for _, tc := range sweepCases {
		t.Run(tc.name, func(t *testing.T) {
			app := tc.launch(t, d)
			shots := t.TempDir()
			s := startMCP(t, d, "", "--allow-input", "--screenshot-dir", shots)
			tag := strings.NewReplacer(" ", "", ".", "")
			setSecret := "set-secret-" + tag.Replace(tc.name)
			typedSecret := "typed-secret-" + tag.Replace(tc.name)
			secrets := append(slices.Clone(tc.planted), setSecret, typedSecret)

			// outs are the answers alone: the arguments hold the secrets.
			var outs []string
			called := map[string]bool{}
			sweep := func(name string, args map[string]any) map[string]any {
				t.Helper()
				called[name] = true
				ctx, cancel := context.WithTimeout(context.Background(), mcpCallLimit)
				defer cancel()
				res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
				if err != nil {
					t.Fatalf("%s: protocol error: %v", name, err)
				}
				var out map[string]any
				raw, _ := json.Marshal(res.StructuredContent)
				_ = json.Unmarshal(raw, &out)
				for _, c := range res.Content {
					if tc, ok := c.(*mcp.TextContent); ok {
						outs = append(outs, fmt.Sprintf("%s: %s", name, tc.Text))
					}
				}
				outs = append(outs, fmt.Sprintf("%s (structured): %s", name, raw))
				return out
			}

			conn := sweep("connect", map[string]any{"pid": app.Pid})
			sess, _ := conn["session"].(string)
			if sess == "" {
				t.Fatalf("connect: %v", conn)
			}
			if tc.ready != nil {
				tc.ready(t, s, sess)
			}
			pw := findOne(t, s, sess, map[string]any{"role": "password text"})
			if len(tc.planted) == 0 {
				// Plant one: the field starts empty.
				planted := "planted-secret-" + tag.Replace(tc.name)
				secrets = append(secrets, planted)
				// A secret that never reached the field would make the sweep
				// prove nothing: the planting must have worked.
				if out := sweep("set_value", map[string]any{"session": sess, "element": pw.Ref, "value": planted}); out["ok"] != true {
					t.Fatalf("planting the secret with set_value failed: %v", out)
				}
			}
			vconn := sweep("connect", map[string]any{"pid": app.Pid, "mode": "visual"})
			vsess, _ := vconn["session"].(string)

			reads := func() {
				sweep("list_apps", nil)
				for _, format := range []string{"json", "outline"} {
					sweep("get_a11y_tree", map[string]any{"session": sess, "format": format, "view": "raw", "maxNodes": 100000, "maxBytes": 100000000})
				}
				sweep("find_elements", map[string]any{"session": sess, "limit": 1000})
				sweep("find_elements", map[string]any{"session": sess, "role": "password text"})
				props := sweep("get_element_properties", map[string]any{"session": sess, "element": pw.Ref})
				sweep("get_editable_properties", map[string]any{"session": sess, "element": pw.Ref})
				// The field itself (no table), and every table's first rows.
				sweep("read_table", map[string]any{"session": sess, "element": pw.Ref, "rows": []int{0, 0}})
				tables := sweep("find_elements", map[string]any{"session": sess, "interface": "table", "limit": 5})
				for _, tbl := range decode[[]elem](t, tables["elements"]) {
					sweep("read_table", map[string]any{"session": sess, "element": tbl.Ref, "rows": []int{0, 99}, "columns": []int{0, 9}})
				}
				sweep("get_frameworks", map[string]any{"session": sess})
				// At the field's centre, as read now (a page lays out late).
				p, _ := props["properties"].(map[string]any)
				b := decode[*struct{ X, Y, Width, Height int }](t, p["bounds"])
				if b == nil || b.Width <= 0 {
					t.Fatalf("the password field has no bounds to hit: %v", p)
				}
				sweep("hit_test", map[string]any{"session": sess, "x": b.X + b.Width/2, "y": b.Y + b.Height/2})
				for _, prop := range []string{"text", "name"} {
					out := sweep("wait_for", map[string]any{"session": sess, "role": "password text", "until": "property",
						"property": prop, "value": secrets[0], "timeoutMs": 500})
					if out["ok"] == true {
						t.Errorf("wait_for the secret as %s held: an oracle for guesses", prop)
					}
				}
				// A text search for a secret finds nothing and says nothing of it.
				for _, secret := range secrets {
					out := sweep("find_elements", map[string]any{"session": sess, "text": secret, "limit": 1000})
					if els, _ := out["elements"].([]any); len(els) != 0 {
						t.Errorf("find_elements {text: a secret} found %d elements: an oracle for guesses", len(els))
					}
				}
				if out := sweep("wait_for", map[string]any{"session": sess, "text": secrets[0], "until": "appears", "timeoutMs": 500}); out["ok"] == true {
					t.Errorf("wait_for {text: the secret} held: an oracle for guesses")
				}
				sweep("get_a11y_tree_changes", map[string]any{"session": sess})
				sweep("get_events", map[string]any{"session": sess})
				sweep("get_events", map[string]any{"session": sess, "since": 0, "limit": 1000, "churn": true})
				sweep("get_events", map[string]any{"session": sess, "since": 0, "types": []string{"valueChanged", "nameChanged"}})
				if vsess != "" {
					sweep("get_visual_tree", map[string]any{"session": vsess, "correlate": true, "a11ySession": sess, "format": "json"})
					sweep("get_visual_tree", map[string]any{"session": vsess, "correlate": true, "a11ySession": sess, "format": "outline"})
					sweep("get_visual_tree_changes", map[string]any{"session": vsess})
				}
				sweep("screenshot", map[string]any{"session": sess})
				sweep("screenshot", map[string]any{"session": sess, "element": pw.Ref})
				for _, id := range []string{sess, vsess} {
					ctx, cancel := context.WithTimeout(context.Background(), mcpCallLimit)
					r, err := s.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "uiscope://session/" + id + "/" + map[bool]string{true: "a11y-tree", false: "visual-tree"}[id == sess]})
					cancel()
					if err != nil {
						t.Errorf("reading session %s's resource: %v", id, err)
						continue
					}
					for _, c := range r.Contents {
						outs = append(outs, "resource "+c.URI+": "+c.Text)
					}
				}
			}
			reads()

			// Actions on the password field itself.
			sweep("focus", map[string]any{"session": sess, "element": pw.Ref})
			sweep("set_value", map[string]any{"session": sess, "element": pw.Ref, "value": setSecret})
			sweep("select_text", map[string]any{"session": sess, "element": pw.Ref, "start": 0, "end": 3})
			sweep("press_key", map[string]any{"session": sess, "element": pw.Ref, "keys": "End"})
			sweep("type_text", map[string]any{"session": sess, "element": pw.Ref, "text": typedSecret})
			sweep("click", map[string]any{"session": sess, "element": pw.Ref})
			sweep("press", map[string]any{"session": sess, "element": pw.Ref})
			sweep("move", map[string]any{"session": sess, "element": pw.Ref})
			sweep("release", map[string]any{"session": sess})
			sweep("key_down", map[string]any{"session": sess, "key": "Shift"})
			sweep("key_up", map[string]any{"session": sess, "key": "Shift"})
			sweep("scroll", map[string]any{"session": sess, "element": pw.Ref, "direction": "intoView"})
			sweep("invoke", map[string]any{"session": sess, "element": pw.Ref, "action": "no-such-action"})
			sweep("toggle", map[string]any{"session": sess, "element": pw.Ref})
			sweep("set_expanded", map[string]any{"session": sess, "element": pw.Ref, "expanded": true})
			sweep("select", map[string]any{"session": sess, "element": pw.Ref})
			// The same through run_steps: each step's answer is swept as its
			// tool's, and the run's effects and changes besides.
			run := sweep("run_steps", map[string]any{"session": sess, "observe": true, "steps": []any{
				map[string]any{"tool": "get_element_properties", "arguments": map[string]any{"element": pw.Ref}},
				map[string]any{"tool": "find_elements", "arguments": map[string]any{"role": "password text"}},
				map[string]any{"tool": "set_value", "arguments": map[string]any{"element": pw.Ref, "value": setSecret}},
				map[string]any{"tool": "type_text", "arguments": map[string]any{"element": pw.Ref, "text": typedSecret}},
				map[string]any{"tool": "wait_for", "arguments": map[string]any{"role": "password text", "until": "appears"}},
			}})
			if n, _ := run["completed"].(float64); n < 3 {
				t.Errorf("run_steps stopped before its set_value: the sweep of its answers proves little: %v", run)
			}
			// connect answers where the focus is: the password field now,
			// which it names by role and ref, never by its text.
			if fconn := sweep("connect", map[string]any{"pid": app.Pid}); fconn["ok"] == true {
				sweep("disconnect", map[string]any{"session": fconn["session"]})
			}
			// Cleared, then set again, so the reads below have a secret to keep.
			textID := "none"
			for _, dd := range decode[[]propDesc](t, sweep("get_editable_properties", map[string]any{"session": sess, "element": pw.Ref})["descriptors"]) {
				if dd.Name == "text" {
					textID = dd.DescriptorID
				}
			}
			sweep("clear_property", map[string]any{"session": sess, "element": pw.Ref, "descriptorId": textID})
			sweep("set_property", map[string]any{"session": sess, "element": pw.Ref, "descriptorId": textID, "value": setSecret})
			sweep("window_action", map[string]any{"session": sess, "action": "restore"})
			sweep("screenshot", map[string]any{"session": sess, "path": filepath.Join(shots, "shot.png")})
			reads()
			sweep("disconnect", map[string]any{"session": vsess})
			sweep("disconnect", map[string]any{"session": sess})

			for tool, err := range s.cs.Tools(context.Background(), nil) {
				if err != nil {
					t.Fatal(err)
				}
				if !called[tool.Name] {
					t.Errorf("tool %s is not in the redaction sweep: add it", tool.Name)
				}
			}
			for _, o := range outs {
				for _, secret := range secrets {
					if strings.Contains(o, secret) {
						t.Errorf("the secret %q is in the output of %.1500s", secret, o)
					}
				}
			}
		})
	}
}
