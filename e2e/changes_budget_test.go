//go:build linux

package e2e

import (
	"context"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// Issue 12: get_a11y_tree_changes's first answer for a big app (the
// whole tree as added events) keeps within the default maxBytes and says
// more; paged to the end it gives every element once, as the whole tree
// read at the same time shows it; a later change then comes as a small
// patch of its own.
func TestTreeChangesPagedWidgetFactory(t *testing.T) {
	d := testdesk.Shared(t)
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
