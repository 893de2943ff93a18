//go:build linux

package e2e

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// treeLines renders a JSON tree one element a line: what an agent reads of
// it, less the session's ids.
func treeLines(e *elem) []string {
	var out []string
	depth := map[*elem]int{}
	e.walk(func(e, p *elem) {
		if p != nil {
			depth[e] = depth[p] + 1
		}
		b := "-"
		if e.Bounds != nil {
			b = fmt.Sprint(*e.Bounds)
		}
		out = append(out, fmt.Sprintf("%s%s %q %s %v %s %v n=%d", strings.Repeat(" ", depth[e]), e.Role, e.Name, e.Key,
			e.States, b, e.Interfaces, e.ChildCount))
	})
	return out
}

// TestMCPMirrorGTK3: a session's repeated reads of a GTK 3 app come from the
// mirror, show what the agent changed, and equal what a fresh process reads.
func TestMCPMirrorGTK3(t *testing.T) { testdesk.ForEach(t, testMCPMirrorGTK3) }

func testMCPMirrorGTK3(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "mirror gtk3")
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	read := func() treeJSON {
		t.Helper()
		out := s.ok(t, "get_a11y_tree", map[string]any{"session": sess, "format": "json", "view": "raw", "maxNodes": 100000, "maxBytes": 100000000, "timeoutMs": 60000, "fields": []string{"key"}})
		return decode[treeJSON](t, out)
	}
	// held compares a mirror read with fresh processes' walks before and
	// after it (read again if the app changed in between, or if the read
	// was a whole one because the mirror had aged on a slow machine; the
	// event-driven path itself is pinned down in atspi's mirror tests).
	held := func(step string) treeJSON {
		t.Helper()
		for try := 0; ; try++ {
			before, _ := readTree(t, d, app.Pid, "--view", "raw")
			m := read()
			after, _ := readTree(t, d, app.Pid, "--view", "raw")
			b, a := strings.Join(treeLines(before.Root), "\n"), strings.Join(treeLines(after.Root), "\n")
			if b != a || m.Fetch.Strategy != "mirror" {
				if try < 10 {
					continue
				}
				t.Fatalf("%s: no repeated read served by the mirror (last %q) while the app held still", step, m.Fetch.Strategy)
			}
			if got := strings.Join(treeLines(m.Root), "\n"); got != b {
				t.Fatalf("%s: the session's tree differs from a fresh read:\n%s", step, diff(strings.Split(b, "\n"), strings.Split(got, "\n")))
			}
			return m
		}
	}

	// The first read fills the mirror, unless the session's watcher, which
	// reads the app from connect on, filled it already.
	if first := read(); !strings.HasSuffix(first.Fetch.Strategy, "mirror") {
		t.Fatalf("the first read neither fills nor uses the mirror; strategy %q", first.Fetch.Strategy)
	}
	held("unchanged")

	cb := findKeyed(t, s, sess, map[string]any{"name": "Remember me", "role": "check box"})
	was := liveStates(context.Background(), d, cb.Key).Has(platform.StateChecked)
	s.ok(t, "toggle", map[string]any{"session": sess, "element": cb.Ref})
	until(t, "check box flipped", func(ctx context.Context) (bool, string) {
		now := liveStates(ctx, d, cb.Key).Has(platform.StateChecked)
		return now != was, strconv.FormatBool(now)
	})
	var box *elem
	held("toggled").Root.walk(func(e, _ *elem) {
		if e.Key == cb.Key {
			box = e
		}
	})
	if box == nil || box.has("checked") == was {
		t.Fatalf("the session's tree does not show the toggle: %+v", box)
	}

	entry := findKeyed(t, s, sess, map[string]any{"name": "Name", "nameMatch": "exact", "role": "text"})
	s.ok(t, "set_value", map[string]any{"session": sess, "element": entry.Ref, "value": "Grace"})
	submit := findKeyed(t, s, sess, map[string]any{"name": "Submit", "role": "push button"})
	s.ok(t, "click", map[string]any{"session": sess, "element": submit.Ref})
	until(t, "status label", func(ctx context.Context) (bool, string) {
		return liveNamed(ctx, d, app.Bus, "Submitted: Grace"), "no such label"
	})
	found := false
	held("renamed").Root.walk(func(e, _ *elem) { found = found || e.Name == "Submitted: Grace" })
	if !found {
		t.Fatal("the session's tree does not show the new label")
	}
}
