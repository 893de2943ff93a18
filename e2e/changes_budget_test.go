//go:build linux

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// get_a11y_tree_changes's first answer for a big app (the
// whole tree as added events) keeps within the default maxBytes and says
// more; paged to the end it gives every element once, as the whole tree
// read at the same time shows it; a later change then comes as a small
// patch of its own.
func TestTreeChangesPagedWidgetFactory(t *testing.T) {
	testdesk.ForEach(t, testTreeChangesPagedWidgetFactory)
}

func testTreeChangesPagedWidgetFactory(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, "gtk4-widget-factory")
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	args := map[string]any{"session": sess, "timeoutMs": 60000}

	// have is the client's copy, built from the pages alone: key → ref.
	have := map[string]string{}
	pages := 0
	// take calls until more is false, applying each page to have.
	take := func(first bool) (events int) {
		t.Helper()
		for i := 0; ; i++ {
			out, res, err := s.callRaw(t, "get_a11y_tree_changes", args)
			if err != nil || out["ok"] != true {
				t.Fatalf("get_a11y_tree_changes: %v %v", err, out)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			if len(text) > 32000 {
				t.Fatalf("page %d: %d bytes, over the default maxBytes 32000", i, len(text))
			}
			if (first && i == 0) != (out["snapshot"] == true) {
				t.Fatalf("page %d (first take %v): snapshot %v", i, first, out["snapshot"])
			}
			if first && i == 0 && out["more"] != true {
				t.Fatalf("the first answer holds the whole tree (%d bytes): nothing was paged", len(text))
			}
			evs := decode[[]struct {
				Type, Key, Ref string
			}](t, out["events"])
			for _, e := range evs {
				switch e.Type {
				case "added":
					if _, dup := have[e.Key]; dup {
						t.Fatalf("page %d: %s added twice", i, e.Key)
					}
					have[e.Key] = e.Ref
				case "removed":
					if _, ok := have[e.Key]; !ok {
						t.Fatalf("page %d: %s removed, never added", i, e.Key)
					}
					delete(have, e.Key)
				}
			}
			events += len(evs)
			pages++
			if out["more"] != true {
				return events
			}
			if i > 5000 {
				t.Fatal("paging never ends")
			}
		}
	}
	snapshotEvents := take(true)
	t.Logf("snapshot: %d events in %d pages", snapshotEvents, pages)

	// The copy equals a whole read of the tree (re-taken until the app,
	// which may still be building a page, holds still).
	until(t, "the paged copy matches a whole read", func(context.Context) (bool, string) {
		all := s.ok(t, "get_a11y_tree", map[string]any{"session": sess, "format": "json", "maxNodes": 100000, "maxBytes": 100000000, "timeoutMs": 60000})
		refs := shownLevels(t, all)
		take(false)
		if len(refs) != len(have) {
			return false, fmt.Sprintf("%d elements paged, %d read", len(have), len(refs))
		}
		for _, ref := range have {
			if _, ok := refs[ref]; !ok {
				return false, "paged " + ref + " is not in the read"
			}
		}
		return true, ""
	})

	// A change: a check box toggled comes as a small patch, whole in one
	// answer.
	cb := findOne(t, s, sess, map[string]any{"role": "check box"})
	s.ok(t, "toggle", map[string]any{"session": sess, "element": cb.Ref})
	until(t, "the toggle's patch", func(context.Context) (bool, string) {
		out := s.ok(t, "get_a11y_tree_changes", args)
		if out["snapshot"] == true || out["more"] != nil {
			t.Fatalf("after a toggle: snapshot %v, more %v", out["snapshot"], out["more"])
		}
		evs := decode[[]struct{ Type, Ref string }](t, out["events"])
		for _, e := range evs {
			if e.Type == "changed" && e.Ref == cb.Ref {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d events, none a change of %s", len(evs), cb.Ref)
	})
}

// get_visual_tree_changes pages as get_a11y_tree_changes does.
// A Tk window of 80 buttons (each an X window) in a visual session: a
// snapshot over maxBytes comes in pages within it, more true until the
// last, holding each window once, as one unbounded answer does; a change
// after it (the window's title, pressed by a key) comes whole, in one
// answer.
//
// On sway, where Tk has no backend and a view has no windows inside, a
// GTK 3 app with 50 top-level windows (50 views), the first one's title
// changed by the key.
func TestVisualTreeChangesPaged(t *testing.T) { testdesk.ForEach(t, testVisualTreeChangesPaged) }

func testVisualTreeChangesPaged(t *testing.T, d *testdesk.Desk) {
	var tk *testdesk.App
	windows := 80
	if d.Sway != nil {
		windows = 50
		tk = d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_windows.py"), "--title", "visual paged gtk", "--windows", "50")
	} else {
		tk = d.LaunchX(t, testdesk.Python, testdesk.Fixture("tk_fixture.py"), "--title", "visual paged tk", "--title-follows", "--buttons", "80")
	}
	s := startMCP(t, d, "", "--allow-input")
	visual := func() string { return s.connect(t, map[string]any{"pid": tk.Pid, "mode": "visual"}) }

	// Tk makes a button's X window when it first maps it: on a loaded
	// machine the first snapshots may come before the last buttons.
	var want map[string]bool
	until(t, fmt.Sprintf("an unbounded snapshot of the %d windows", windows), func(context.Context) (bool, string) {
		vs := visual()
		defer s.ok(t, "disconnect", map[string]any{"session": vs})
		whole := s.ok(t, "get_visual_tree_changes", map[string]any{"session": vs, "maxBytes": 100000000})
		if whole["snapshot"] != true || whole["more"] != nil {
			t.Fatalf("unbounded first answer: snapshot %v, more %v", whole["snapshot"], whole["more"])
		}
		want = map[string]bool{}
		for _, e := range decode[[]liveChange](t, whole["events"]) {
			want[e.Key] = true
		}
		return len(want) >= windows, fmt.Sprintf("%d windows", len(want))
	})

	const maxBytes = 6000
	sess := visual()
	args := map[string]any{"session": sess, "maxBytes": maxBytes}
	seen := map[string]int{}
	pages := 0
	for ; ; pages++ {
		out, res, err := s.callRaw(t, "get_visual_tree_changes", args)
		if err != nil || out["ok"] != true {
			t.Fatalf("page %d: %v %v", pages, err, out)
		}
		if n := len(res.Content[0].(*mcp.TextContent).Text); n > maxBytes {
			t.Fatalf("page %d: %d bytes, over maxBytes %d", pages, n, maxBytes)
		}
		if (pages == 0) != (out["snapshot"] == true) {
			t.Fatalf("page %d: snapshot %v", pages, out["snapshot"])
		}
		for _, e := range decode[[]liveChange](t, out["events"]) {
			if e.Type != "added" {
				t.Fatalf("page %d: a %s event in the snapshot: %+v", pages, e.Type, e)
			}
			seen[e.Key]++
		}
		if out["more"] != true {
			break
		}
		if pages > 1000 {
			t.Fatal("paging never ends")
		}
	}
	if pages < 2 {
		t.Fatalf("the snapshot of %d windows came in %d page(s) within %d bytes: nothing was paged", len(want), pages+1, maxBytes)
	}
	for k, n := range seen {
		if n != 1 || !want[k] {
			t.Fatalf("window %s paged %d times (in the unbounded snapshot: %v)", k, n, want[k])
		}
	}
	if len(seen) != len(want) {
		t.Fatalf("%d windows paged, the unbounded snapshot holds %d", len(seen), len(want))
	}
	t.Logf("%d windows in %d pages of at most %d bytes", len(seen), pages+1, maxBytes)

	s.ok(t, "press_key", map[string]any{"session": sess, "keys": "p"})
	until(t, "the title's change, whole in one answer", func(context.Context) (bool, string) {
		out := s.ok(t, "get_visual_tree_changes", args)
		if out["snapshot"] == true || out["more"] != nil {
			t.Fatalf("after a key: snapshot %v, more %v", out["snapshot"], out["more"])
		}
		evs := decode[[]liveChange](t, out["events"])
		for _, e := range evs {
			if e.Type == "changed" && strings.Contains(string(e.Changes["name"]), "Pressed 1") {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d events: %+v", len(evs), evs)
	})
}
