package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
)

// get_a11y_tree_changes keeps each answer within maxBytes (the default
// when none is given): a snapshot larger than that comes in pages, more
// true until the last, and the pages hold every element once, as one
// unbounded answer does. The session resource's reads page the same way.
func TestTreeChangesWithinMaxBytes(t *testing.T) {
	t.Parallel() // CPU-bound on a large tree: the large-tree tests and their parts run side by side
	// largeTree serves the same 3000-node tree on a server of its own,
	// one per part (each in a bubble of its own), its client connected.
	largeTree := func(t *testing.T) (cs *mcp.ClientSession, connect func() string) {
		root, _ := benchTree(3000)
		desk := fakePlatform()
		desk.Accessibility = benchDesk{root: root, nodes: 3000}
		cs = serve(t, New(Config{}, core.NewSessions(desk)), "")
		return cs, func() string { return mustOK(t, cs, "connect", map[string]any{"name": fakeApp})["session"].(string) }
	}

	want := map[string]bool{}
	synctest.Test(t, func(t *testing.T) {
		cs, connect := largeTree(t)
		// A first call as a host makes it: within the default budget.
		if _, res := call(t, cs, "get_a11y_tree_changes", map[string]any{"session": connect()}); len(res.Content[0].(*mcp.TextContent).Text) > core.DefaultMaxBytes {
			t.Fatalf("first answer with the default budget: %d bytes, over %d", len(res.Content[0].(*mcp.TextContent).Text), core.DefaultMaxBytes)
		}
		whole := mustOK(t, cs, "get_a11y_tree_changes", map[string]any{"session": connect(), "maxBytes": core.MaxMaxBytes})
		if whole["more"] != nil || whole["snapshot"] != true {
			t.Fatalf("unbounded answer: more %v, snapshot %v", whole["more"], whole["snapshot"])
		}
		for _, e := range whole["events"].([]any) {
			want[e.(map[string]any)["key"].(string)] = true
		}
		if len(want) < 1000 {
			t.Fatalf("the unbounded snapshot holds %d keys: too few to test paging", len(want))
		}
	})

	// keysOnce checks that pages of events hold each key of want once.
	keysOnce := func(t *testing.T, name string, pages [][]any) {
		t.Helper()
		seen := map[string]int{}
		for _, p := range pages {
			for _, e := range p {
				seen[e.(map[string]any)["key"].(string)]++
			}
		}
		for k, n := range seen {
			if n != 1 || !want[k] {
				t.Fatalf("%s: key %s seen %d times (in the snapshot: %v)", name, k, n, want[k])
			}
		}
		if len(seen) != len(want) {
			t.Fatalf("%s: %d keys, want %d", name, len(seen), len(want))
		}
	}

	for _, maxBytes := range []int{0, 10000} {
		t.Run(fmt.Sprintf("maxBytes %d", maxBytes), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				cs, connect := largeTree(t)
				id := connect()
				args := map[string]any{"session": id}
				limit := core.DefaultMaxBytes
				if maxBytes > 0 {
					args["maxBytes"], limit = maxBytes, maxBytes
				}
				var pages [][]any
				for i := 0; ; i++ {
					out, res := call(t, cs, "get_a11y_tree_changes", args)
					text := res.Content[0].(*mcp.TextContent).Text
					if out["ok"] != true || len(text) > limit {
						t.Fatalf("maxBytes %d page %d: %d bytes, over %d (ok %v)", maxBytes, i, len(text), limit, out["ok"])
					}
					if (i == 0) != (out["snapshot"] == true) {
						t.Fatalf("maxBytes %d page %d: snapshot %v", maxBytes, i, out["snapshot"])
					}
					pages = append(pages, out["events"].([]any))
					if out["more"] != true {
						break
					}
					if note, _ := out["note"].(string); note == "" {
						t.Fatalf("maxBytes %d page %d: more without a note", maxBytes, i)
					}
					if i > 10000 {
						t.Fatal("paging never ends")
					}
				}
				if len(pages) < 2 {
					t.Fatalf("maxBytes %d: one page of %d events: nothing was paged", maxBytes, len(pages[0]))
				}
				keysOnce(t, "get_a11y_tree_changes", pages)
				// Paged to the end, the feed is where an unbounded one is: an
				// unchanged tree gives no events.
				if out := mustOK(t, cs, "get_a11y_tree_changes", args); len(out["events"].([]any)) != 0 || out["more"] != nil {
					t.Fatalf("maxBytes %d: after the last page: %v events, more %v", maxBytes, len(out["events"].([]any)), out["more"])
				}
				mustFail(t, cs, "get_a11y_tree_changes", map[string]any{"session": id, "maxBytes": core.MinMaxBytes - 1}, core.CodeInvalidArgument)
			})
		})
	}

	// The session resource, read as a client without arguments does.
	t.Run("resource", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			cs, connect := largeTree(t)
			uri := resourceURI(connect(), core.ModeA11y)
			var pages [][]any
			for i := 0; ; i++ {
				res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
				if err != nil {
					t.Fatal(err)
				}
				text := res.Contents[0].Text
				if len(text) > core.DefaultMaxBytes {
					t.Fatalf("resource read %d: %d bytes, over %d", i, len(text), core.DefaultMaxBytes)
				}
				var out struct {
					Events []core.Change `json:"events"`
					More   bool          `json:"more"`
				}
				if err := json.Unmarshal([]byte(text), &out); err != nil {
					t.Fatal(err)
				}
				pages = append(pages, nil)
				for _, e := range out.Events {
					pages[i] = append(pages[i], map[string]any{"key": e.Key})
				}
				if !out.More {
					break
				}
				if i > 10000 {
					t.Fatal("paging never ends")
				}
			}
			if len(pages) < 2 {
				t.Fatal("the resource's snapshot came in one read")
			}
			keysOnce(t, "resources/read", pages)
		})
	})
}
