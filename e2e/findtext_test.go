//go:build linux

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// TestFindTextBrowser: find_elements and wait_for take text, which a name
// search cannot see where the page holds it in the Text interface: the
// status line a script fills in ("1 of 3 done"), found in both browsers,
// and nothing of the browser around it.
func TestFindTextBrowser(t *testing.T) { testdesk.ForEach(t, testFindTextBrowser) }

func testFindTextBrowser(t *testing.T, d *testdesk.Desk) {
	for _, b := range browsers {
		t.Run(b.name, func(t *testing.T) {
			app := openPage(t, d, b, "Status page", statusPage)
			s := startMCP(t, d, "", "--allow-input")
			defer s.logCost(t, b.name+": find and wait by text")
			sess := s.connect(t, map[string]any{"pid": app.Pid})
			status := findOne(t, s, sess, map[string]any{"role": "status bar"})
			button := findOne(t, s, sess, map[string]any{"name": "Run step", "nameMatch": "exact", "role": "push button"})
			s.ok(t, "click", map[string]any{"session": sess, "element": button.Ref})
			got := s.ok(t, "wait_for", map[string]any{"session": sess, "text": "1 OF 3", "until": "appears", "timeoutMs": 20000})
			if els := decode[[]elem](t, got["elements"]); len(els) == 0 {
				t.Fatalf("wait_for text: %v", got)
			}
			// What a text search costs beside a name search of the same
			// page (logged, not held to a figure).
			start := time.Now()
			s.ok(t, "find_elements", map[string]any{"session": sess, "name": "done"})
			byName := time.Since(start)
			start = time.Now()
			found := s.ok(t, "find_elements", map[string]any{"session": sess, "text": "done"})
			t.Logf("find_elements on the page: by name %v, by text %v", byName, time.Since(start))
			els := decode[[]elem](t, found["elements"])
			inStatus := decode[[]elem](t, s.ok(t, "find_elements", map[string]any{"session": sess, "within": status.Ref, "text": "done"})["elements"])
			if len(els) == 0 || len(els) != len(inStatus) || found["truncated"] != false {
				t.Fatalf("find_elements {text: done}: %d found, %d of them in the status line %s: %v", len(els), len(inStatus), status.Ref, found)
			}
			// What each shows says why it was found.
			for _, e := range els {
				shown := e.Name
				if e.Value != nil {
					shown = *e.Value
				}
				if !strings.Contains(shown, "1 of 3 done") {
					t.Errorf("%s %s found by text shows %q", e.Ref, e.Role, shown)
				}
			}
		})
	}
}

// TestFindTextGTKTextView: a text search finds gedit's document (a GTK 3
// text view) by a word past the 200 characters its value holds, and
// wait_for waits for text typed at its end.
func TestFindTextGTKTextView(t *testing.T) { testdesk.ForEach(t, testFindTextGTKTextView) }

func testFindTextGTKTextView(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, append(freshHome(t), "gedit", "--new-window")...)
	s := startMCP(t, d, "", "--allow-input")
	defer s.logCost(t, "gedit: find by text")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	doc := findOne(t, s, sess, map[string]any{"role": "text", "states": []string{"editable", "focused"}})
	text := strings.Repeat("lorem ipsum ", 25) + "zebra crossing"
	s.ok(t, "set_value", map[string]any{"session": sess, "element": doc.Ref, "value": text})
	byName := decode[[]elem](t, s.ok(t, "find_elements", map[string]any{"session": sess, "name": "zebra"})["elements"])
	if len(byName) != 0 {
		t.Errorf("a name search found the document's text: %+v", byName)
	}
	start := time.Now()
	found := s.ok(t, "find_elements", map[string]any{"session": sess, "text": "ZEBRA"})
	t.Logf("find_elements {text} over gedit's whole tree: %v", time.Since(start))
	if els := decode[[]elem](t, found["elements"]); len(els) != 1 || els[0].Ref != doc.Ref {
		t.Fatalf("find_elements {text: ZEBRA}: %v", found)
	}
	s.ok(t, "type_text", map[string]any{"session": sess, "element": doc.Ref, "text": " ahead"})
	got := s.ok(t, "wait_for", map[string]any{"session": sess, "text": "crossing ahead", "role": "text", "until": "appears", "timeoutMs": 20000})
	if els := decode[[]elem](t, got["elements"]); len(els) != 1 || els[0].Ref != doc.Ref {
		t.Fatalf("wait_for {text: crossing ahead}: %v", got)
	}
}
