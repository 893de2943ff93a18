//go:build linux

package e2e

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// The ref tests hold uiscope to its promise that a ref names one element
// for the server's whole run (docs/cli.md, "tree"): a ref from another session,
// or from before a disconnect, is unknownRef, never another element.

// flatRefs reads the session's whole tree and lists its elements in
// pre-order.
func flatRefs(t *testing.T, s *mcpServer, session string) []*elem {
	t.Helper()
	out := s.ok(t, "get_a11y_tree", map[string]any{"session": session, "format": "json", "timeoutMs": 60000, "maxNodes": 100000, "maxBytes": 100000000})
	if out["truncated"] != false {
		t.Fatalf("session %s: the tree was truncated: %v", session, out["truncatedReason"])
	}
	var flat []*elem
	decode[*elem](t, out["root"]).walk(func(e, _ *elem) { flat = append(flat, e) })
	return flat
}

// refusedEverywhere checks that none of refs resolves in session: each is
// unknownRef with a message that says to read the tree again.
func refusedEverywhere(t *testing.T, s *mcpServer, session string, refs []*elem, whose string) {
	t.Helper()
	bad := 0
	for _, e := range refs {
		out := s.call(t, "get_element_properties", map[string]any{"session": session, "element": e.Ref})
		msg, _ := out["error"].(string)
		if out["ok"] != false || out["errorCode"] != "unknownRef" || !strings.Contains(msg, "re-read") {
			if bad++; bad <= 3 {
				p, _ := out["properties"].(map[string]any)
				t.Errorf("%s ref %s (%s %q) in session %s: want unknownRef saying to re-read, got ok=%v errorCode=%v error=%q name=%v role=%v",
					whose, e.Ref, e.Role, e.Name, session, out["ok"], out["errorCode"], msg, p["name"], p["role"])
			}
		}
	}
	if bad > 3 {
		t.Errorf("... and %d more of %d %s refs resolved in session %s", bad-3, len(refs), whose, session)
	}
}

func disjoint(t *testing.T, what string, a, b []*elem) {
	t.Helper()
	seen := map[string]bool{}
	for _, e := range a {
		seen[e.Ref] = true
	}
	shared := 0
	for _, e := range b {
		if seen[e.Ref] {
			shared++
		}
	}
	if shared > 0 {
		t.Errorf("%s: %d of %d refs are handed out twice (first of one: %s)", what, shared, len(b), b[0].Ref)
	}
}

func TestRefsAcrossSessions(t *testing.T) { testdesk.ForEach(t, testRefsAcrossSessions) }

func testRefsAcrossSessions(t *testing.T, d *testdesk.Desk) {
	// Two instances of one fixture: the same tree shape, so that a number
	// reused by position would name the same kind of element in the other.
	appA := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "refs A")
	appB := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "refs B", "--x", "700")
	s := startMCP(t, d, "", "--allow-input")

	s1 := s.connect(t, map[string]any{"pid": appA.Pid})
	l1 := flatRefs(t, s, s1)
	s2 := s.connect(t, map[string]any{"pid": appB.Pid})
	l2 := flatRefs(t, s, s2)
	disjoint(t, "sessions on two apps", l1, l2)

	t.Run("foreign refs are unknownRef", func(t *testing.T) {
		refusedEverywhere(t, s, s2, l1, "session 1's")
		refusedEverywhere(t, s, s1, l2, "session 2's")
		s.fail(t, "find_elements", map[string]any{"session": s2, "within": l1[0].Ref, "timeoutMs": 60000}, "unknownRef")
		s.fail(t, "get_a11y_tree", map[string]any{"session": s2, "element": l1[0].Ref, "timeoutMs": 60000}, "unknownRef")
	})

	t.Run("a foreign ref is not clicked", func(t *testing.T) {
		// Session 1's ref at the place Submit has in session 2's tree: the
		// ref that named app B's Submit when every session numbered from e0.
		k := -1
		for i, e := range l2 {
			if e.Name == "Submit" && e.Role == "push button" {
				k = i
			}
		}
		if k < 0 || k >= len(l1) {
			t.Fatalf("no Submit in session 2's tree at a place session 1's tree has (index %d of %d)", k, len(l1))
		}
		foreign := l1[k]
		s.fail(t, "click", map[string]any{"session": s2, "element": foreign.Ref}, "unknownRef")
		// Nothing was sent: both status labels still say Ready. A click
		// that had gone through would have renamed one by now (click
		// answers once its effect shows).
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		for _, app := range []*testdesk.App{appA, appB} {
			if !liveNamed(ctx, d, app.Bus, "Ready") || liveNamed(ctx, d, app.Bus, "Submitted: ") {
				t.Errorf("pid %d: the status label is no longer Ready after a refused click", app.Pid)
			}
		}
	})

	t.Run("refs from before a disconnect are unknownRef", func(t *testing.T) {
		s.ok(t, "disconnect", map[string]any{"session": s1})
		s3 := s.connect(t, map[string]any{"pid": appA.Pid})
		l3 := flatRefs(t, s, s3)
		if len(l3) != len(l1) {
			t.Logf("app A's tree changed between reads: %d then %d elements", len(l1), len(l3))
		}
		disjoint(t, "a session and the one before it on the same app", l1, l3)
		disjoint(t, "sessions on two apps (after a reconnect)", l2, l3)
		refusedEverywhere(t, s, s3, l1, "the closed session's")
	})
}

// TestRefsScopedAfterEarlierElementGoes: a scoped read (find_elements
// within, get_a11y_tree element) of an element still there succeeds after
// an element before it in the tree disappeared.
func TestRefsScopedAfterEarlierElementGoes(t *testing.T) {
	testdesk.ForEach(t, testRefsScopedAfterEarlierElementGoes)
}

func testRefsScopedAfterEarlierElementGoes(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "refs scoped", "--removable-label")
	s := startMCP(t, d, "")
	session := s.connect(t, map[string]any{"pid": app.Pid})
	tree := findOne(t, s, session, map[string]any{"name": "Tree", "nameMatch": "exact", "role": "tree table", "timeoutMs": 60000})
	findOne(t, s, session, map[string]any{"name": "Removable", "nameMatch": "exact", "timeoutMs": 60000})

	if err := syscall.Kill(app.Pid, syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	until(t, "the Removable label is gone", func(context.Context) (bool, string) {
		out := s.ok(t, "find_elements", map[string]any{"session": session, "name": "Removable", "nameMatch": "exact", "timeoutMs": 60000})
		return out["matched"] == float64(0), fmt.Sprintf("matched %v", out["matched"])
	})

	found := s.ok(t, "find_elements", map[string]any{"session": session, "within": tree.Ref, "name": "Vegetables", "nameMatch": "exact", "timeoutMs": 60000})
	els := decode[[]*elem](t, found["elements"])
	if len(els) != 1 || els[0].Name != "Vegetables" {
		t.Errorf("find_elements within %s (Tree) for Vegetables: %v", tree.Ref, found)
	}
	sub := s.ok(t, "get_a11y_tree", map[string]any{"session": session, "element": tree.Ref, "format": "json", "timeoutMs": 60000})
	root := decode[*elem](t, sub["root"])
	if root == nil || root.Ref != tree.Ref || root.Name != "Tree" {
		t.Errorf("get_a11y_tree element %s (Tree): root %+v", tree.Ref, root)
	}
	outline := s.ok(t, "get_a11y_tree", map[string]any{"session": session, "element": tree.Ref, "timeoutMs": 60000})
	if text, _ := outline["outline"].(string); !strings.Contains(text, `"Tree"`) || !strings.Contains(text, "["+tree.Ref+"]") {
		t.Errorf("get_a11y_tree element %s (Tree), outline:\n%.2000s", tree.Ref, text)
	}
}

// TestRefsReadLockDeadline: a read queued behind another read of the same
// frozen app keeps its own deadline instead of waiting for the other's.
func TestRefsReadLockDeadline(t *testing.T) { testdesk.ForEach(t, testRefsReadLockDeadline) }

func testRefsReadLockDeadline(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "refs lock")
	s := startMCP(t, d, "")
	session := s.connect(t, map[string]any{"pid": app.Pid})
	s.ok(t, "get_a11y_tree", map[string]any{"session": session, "timeoutMs": 60000})
	if err := syscall.Kill(app.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(app.Pid, syscall.SIGCONT)

	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	// The long read holds the app's lock while the frozen app lets its
	// calls run into their deadlines (seconds: each D-Bus call is bounded
	// on its own); its own deadline is a minute.
	long := make(chan answer, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), mcpCallLimit)
		defer cancel()
		res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_a11y_tree", Arguments: map[string]any{"session": session, "timeoutMs": 60000}})
		long <- answer{res, err}
	}()
	// Short reads, one after another, until one has queued behind the long
	// read: it must give up by its own deadline, while the long read is
	// still running. (One that took the lock first meets the frozen app
	// itself and answers truncated; the next one queues.) Not a timing
	// bound: which answered first is an order, not a duration.
	var queued map[string]any
	var l *answer
	for queued == nil && l == nil {
		out := s.call(t, "get_a11y_tree", map[string]any{"session": session, "timeoutMs": 500})
		select {
		case a := <-long:
			l = &a
		default:
		}
		msg, _ := out["error"].(string)
		switch {
		case out["ok"] == false && out["errorCode"] == "timeout" && strings.Contains(msg, "another read"):
			if l == nil {
				queued = out
			} else {
				t.Errorf("a read with timeoutMs 500 gave up waiting for the lock only after the long read had answered: %v", out)
			}
		case out["ok"] == true && out["truncated"] == true:
			t.Logf("a short read took the lock itself: %v", out["truncatedReason"])
		default:
			t.Errorf("a read of a frozen app with timeoutMs 500: want errorCode timeout (or truncated), got %.500v", out)
		}
	}
	if queued == nil {
		t.Errorf("no read with timeoutMs 500 answered by its own deadline while the long read held the app's lock: they waited for it")
	}
	if l == nil {
		a := <-long
		l = &a
	}
	if l.err != nil {
		t.Fatalf("the long read: %v", l.err)
	}
	if r := s.check(t, "get_a11y_tree", l.res); r["ok"] != true && r["errorCode"] != "timeout" {
		t.Errorf("the long read: %v", r)
	}
	if err := syscall.Kill(app.Pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	s.ok(t, "get_a11y_tree", map[string]any{"session": session, "timeoutMs": 60000})
}

// TestRefsSessionCap: a real server holds at most 64 sessions; the next
// connect says what to do, and a disconnect makes room.
func TestRefsSessionCap(t *testing.T) { testdesk.ForEach(t, testRefsSessionCap) }

func testRefsSessionCap(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "refs cap")
	s := startMCP(t, d, "")
	var sessions []string
	for range 64 {
		sessions = append(sessions, s.connect(t, map[string]any{"pid": app.Pid}))
	}
	out := s.fail(t, "connect", map[string]any{"pid": app.Pid}, "tooManySessions")
	if msg, _ := out["error"].(string); !strings.Contains(msg, "disconnect") {
		t.Errorf("the refusal does not say to disconnect a session: %q", msg)
	}
	s.ok(t, "get_a11y_tree", map[string]any{"session": sessions[63], "timeoutMs": 60000})
	s.ok(t, "disconnect", map[string]any{"session": sessions[0]})
	s.ok(t, "get_a11y_tree", map[string]any{"session": s.connect(t, map[string]any{"pid": app.Pid}), "timeoutMs": 60000})
}
