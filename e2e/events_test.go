//go:build linux

package e2e

import (
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// event is one get_events event as these tests read it.
type event struct {
	Seq   int64  `json:"seq"`
	Type  string `json:"type"`
	Ref   string `json:"ref"`
	Role  string `json:"role"`
	Name  string `json:"name"`
	State string `json:"state"`
}

// structure are the roles of layout containers whose state changes of an
// unnamed one get_events leaves out by default (core's structureRoles).
var structure = []string{"filler", "panel", "section", "grouping", "redundant object", "unknown", "invalid",
	"viewport", "layered pane", "glass pane", "root pane"}

func isChurn(e event) bool {
	return e.Type == "stateChanged" && e.Name == "" && slices.Contains(structure, e.Role)
}

// TestEventsFromConnectGedit: in gedit 44 (GTK 3), the Save As dialog that
// Ctrl+Shift+S opens right after connect is in the first get_events
// answer (the queue starts at connect); types keeps only the types named;
// the state churn of the hamburger menu's unnamed containers is left out
// and counted unless churn is asked for.
func TestEventsFromConnectGedit(t *testing.T) { testdesk.ForEach(t, testEventsFromConnectGedit) }

func testEventsFromConnectGedit(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, append(freshHome(t), "gedit", "--new-window")...)
	s := startMCP(t, d, "", "--allow-input")
	defer s.logCost(t, "gedit events")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Ctrl+Shift+S"})
	first := s.ok(t, "get_events", map[string]any{"session": sess, "types": []string{"windowOpened", "windowClosed"}})
	evs := decode[[]event](t, first["events"])
	var opened *event
	for i, e := range evs {
		if e.Type != "windowOpened" && e.Type != "windowClosed" {
			t.Errorf("types [windowOpened windowClosed] answered a %s: %+v", e.Type, e)
		}
		if e.Type == "windowOpened" && e.Name == "Save As" {
			opened = &evs[i]
		}
	}
	if opened == nil || first["note"] != nil {
		t.Fatalf("the first get_events after Ctrl+Shift+S lacks the Save As dialog's windowOpened: %v", first)
	}
	// The event's ref names the dialog before any tree read.
	props := s.ok(t, "get_element_properties", map[string]any{"session": sess, "element": opened.Ref})
	if p := props["properties"].(map[string]any); p["name"] != "Save As" {
		t.Errorf("the windowOpened ref %s is %v", opened.Ref, p)
	}
	// Read again from the start: the filter above passed over the other
	// events (the focus moved into the dialog).
	all := decode[[]event](t, s.ok(t, "get_events", map[string]any{"session": sess, "since": 0, "limit": 1000, "churn": true})["events"])
	if !slices.ContainsFunc(all, func(e event) bool { return e.Type == "focusMoved" }) {
		t.Errorf("since 0: no focusMoved among %d events", len(all))
	}
	s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Escape"})
	closed := decode[[]event](t, s.ok(t, "get_events", map[string]any{"session": sess, "types": []string{"windowClosed"}})["events"])
	if len(closed) != 1 || closed[0].Name != "Save As" {
		t.Errorf("after Escape, types [windowClosed]: %+v", closed)
	}
	bad := s.fail(t, "get_events", map[string]any{"session": sess, "types": []string{"clicked"}}, "invalidArgument")
	if msg, _ := bad["error"].(string); !strings.Contains(msg, "windowOpened") {
		t.Errorf("an unknown type: %q", msg)
	}

	// The hamburger menu, a GTK 3 popover: its containers turn showing
	// on as it opens.
	mark := s.ok(t, "get_events", map[string]any{"session": sess})["next"].(float64)
	s.ok(t, "press_key", map[string]any{"session": sess, "keys": "F10"})
	plain := s.ok(t, "get_events", map[string]any{"session": sess, "limit": 1000})
	for _, e := range decode[[]event](t, plain["events"]) {
		if isChurn(e) {
			t.Errorf("churn in the default answer: %+v", e)
		}
	}
	left, _ := plain["churnLeftOut"].(float64)
	churned := decode[[]event](t, s.ok(t, "get_events", map[string]any{"session": sess, "since": mark, "limit": 1000, "churn": true})["events"])
	n := 0
	for _, e := range churned {
		if isChurn(e) {
			n++
		}
	}
	if left == 0 || n != int(left) {
		t.Errorf("the menu's churn: %v left out by default, %d with churn: true (of %d events)", left, n, len(churned))
	}
	t.Logf("the menu opening: %d events, %d of them churn", len(churned), n)
	s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Escape"})
}

// TestEventsAndTextFrozen: on a frozen (SIGSTOP) app, get_events answers
// within its deadline with what the queue holds and says the app did not
// answer, and a text search holds its timeoutMs.
func TestEventsAndTextFrozen(t *testing.T) { testdesk.ForEach(t, testEventsAndTextFrozen) }

func testEventsAndTextFrozen(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "events frozen")
	s := startMCP(t, d, "")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	s.ok(t, "get_events", map[string]any{"session": sess})
	if err := syscall.Kill(app.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(app.Pid, syscall.SIGCONT)
	start := time.Now()
	out := s.ok(t, "get_events", map[string]any{"session": sess})
	if took := time.Since(start); took > 10*time.Second+10*time.Second {
		t.Errorf("get_events on a frozen app took %v", took)
	}
	if note, _ := out["note"].(string); !strings.Contains(note, "did not answer") {
		t.Errorf("get_events on a frozen app does not say so: %v", out)
	}
	start = time.Now()
	found := s.call(t, "find_elements", map[string]any{"session": sess, "text": "submit", "timeoutMs": 1500})
	if took := time.Since(start); took > 1500*time.Millisecond+10*time.Second {
		t.Errorf("find_elements {text} with timeoutMs 1500 on a frozen app took %v", took)
	}
	if found["ok"] == true && found["truncated"] != true {
		t.Errorf("a text search of a frozen app claims a complete answer: %.500v", found)
	}
	if err := syscall.Kill(app.Pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if out := s.ok(t, "get_events", map[string]any{"session": sess}); out["note"] != nil {
		t.Errorf("get_events after SIGCONT: %v", out)
	}
}
