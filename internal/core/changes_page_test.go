package core

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
)

// randomKeyedTree is a tree of n keyed elements, each hung from an
// earlier one at random, with names of varied length (some far longer
// than others, as labels and documents are).
func randomKeyedTree(r *rand.Rand, n int) *platform.Node {
	nodes := []*platform.Node{fake.Keyed("test:n0", "frame", "root")}
	for i := 1; i < n; i++ {
		name := strings.Repeat("x", r.IntN(3)*r.IntN(200))
		node := fake.Keyed(fmt.Sprint("test:n", i), "panel", name)
		parent := nodes[r.IntN(len(nodes))]
		parent.Children = append(parent.Children, node)
		nodes = append(nodes, node)
	}
	return nodes[0]
}

// preorder lists root and its descendants, parents first.
func preorder(root *platform.Node) []*platform.Node {
	all := []*platform.Node{root}
	for _, c := range root.Children {
		all = append(all, preorder(c)...)
	}
	return all
}

// mutate changes a copy of root at random: renames, removals, additions
// and moves.
func mutate(r *rand.Rand, root *platform.Node, fresh *int) *platform.Node {
	root = cloneNode(root)
	all := preorder(root)
	for range 1 + r.IntN(8) {
		n := all[r.IntN(len(all))]
		switch r.IntN(4) {
		case 0:
			n.Name = fmt.Sprint("renamed ", r.IntN(1000))
		case 1:
			if len(n.Children) > 0 {
				i := r.IntN(len(n.Children))
				n.Children = slices.Delete(n.Children, i, i+1)
			}
		case 2:
			*fresh++
			n.Children = append(n.Children, fake.Keyed(fmt.Sprint("test:new", *fresh), "label", strings.Repeat("y", r.IntN(300))))
		case 3:
			if len(n.Children) > 1 {
				n.Children[0], n.Children[len(n.Children)-1] = n.Children[len(n.Children)-1], n.Children[0]
			}
		}
	}
	return root
}

func cloneNode(n *platform.Node) *platform.Node {
	c := *n
	c.Children = nil
	for _, k := range n.Children {
		c.Children = append(c.Children, cloneNode(k))
	}
	return &c
}

// sameEvents reports whether two lists of events are the same to a reader:
// the same JSON, event by event (eventsJSON). Equal values encode alike,
// so only lists that reflect.DeepEqual tells apart are encoded.
func sameEvents(t *testing.T, a, b []Change) bool {
	t.Helper()
	return reflect.DeepEqual(a, b) || slices.Equal(eventsJSON(t, a), eventsJSON(t, b))
}

// eventsJSON is events as a reader compares them.
func eventsJSON(t *testing.T, evs []Change) []string {
	t.Helper()
	out := []string{}
	for _, e := range evs {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

// pageAll takes from f until More is false, checking every page keeps to
// the budget (or is one event over it, said so), and returns the pages'
// events concatenated and whether the first page began a snapshot.
func pageAll(t *testing.T, f *Feed, budget int) (evs []Change, snapshot bool, pages int) {
	t.Helper()
	for {
		p := f.TakeBytes(budget)
		if pages == 0 {
			snapshot = p.Snapshot
		} else if p.Snapshot {
			t.Fatalf("page %d says snapshot: only a snapshot's first page does", pages)
		}
		pages++
		size := 0
		for _, e := range p.Events {
			size += EventBytes(e) + 1
		}
		switch {
		case p.Oversized && (len(p.Events) != 1 || size <= budget):
			t.Fatalf("page %d: oversized with %d events of %d bytes (budget %d)", pages, len(p.Events), size, budget)
		case !p.Oversized && size > budget:
			t.Fatalf("page %d: %d events, %d bytes, over the budget of %d", pages, len(p.Events), size, budget)
		case p.More && len(p.Events) == 0:
			t.Fatalf("page %d: no events yet more", pages)
		}
		evs = append(evs, p.Events...)
		if !p.More {
			return evs, snapshot, pages
		}
		if pages > 100000 {
			t.Fatal("paging never ends")
		}
	}
}

// TestFeedPagesEqualWhole: a feed taken in pages of a byte budget hands
// out exactly the events an unpaged feed does, in the same order, for
// random trees and random changes, each page within the budget.
func TestFeedPagesEqualWhole(t *testing.T) {
	t.Parallel() // CPU-bound: the heavy tests run side by side
	synctest.Test(t, func(t *testing.T) {
		for seed := range uint64(30) {
			r := rand.New(rand.NewPCG(seed, 7))
			var idsA, idsB IDs
			whole, paged := NewFeed(""), NewFeed("")
			budget := 200 + r.IntN(4000)
			root := randomKeyedTree(r, 50+r.IntN(400))
			fresh := 0
			sawPages := false
			for step := range 6 {
				whole.Update(numbered(&idsA, root))
				paged.Update(numbered(&idsB, root))
				want := whole.Take()
				got, snap, pages := pageAll(t, paged, budget)
				if snap != want.Snapshot {
					t.Fatalf("seed %d step %d: snapshot %v, want %v", seed, step, snap, want.Snapshot)
				}
				if !sameEvents(t, got, want.Events) {
					t.Fatalf("seed %d step %d: %d paged events differ from the %d of the whole patch", seed, step, len(got), len(want.Events))
				}
				sawPages = sawPages || pages > 1
				root = mutate(r, root, &fresh)
			}
			if !sawPages && seed == 0 {
				t.Fatalf("seed %d: the budget never split a patch: the test tests nothing", seed)
			}
		}
	})
}

// TestFeedPagesWithChangesBetween: changes made while a reader pages come
// after the held-back events, so the pages are the first tree's snapshot
// and then the patch to the second, nothing lost, nothing twice.
func TestFeedPagesWithChangesBetween(t *testing.T) {
	t.Parallel() // CPU-bound: the heavy tests run side by side
	synctest.Test(t, func(t *testing.T) {
		for seed := range uint64(30) {
			r := rand.New(rand.NewPCG(seed, 11))
			var idsA, idsB IDs
			whole, paged := NewFeed(""), NewFeed("")
			budget := 300 + r.IntN(2000)
			root := randomKeyedTree(r, 100+r.IntN(300))
			fresh := 0
			var want []Change
			whole.Update(numbered(&idsA, root))
			want = append(want, whole.Take().Events...)
			paged.Update(numbered(&idsB, root))
			first := paged.TakeBytes(budget)
			if !first.Snapshot || !first.More {
				t.Fatalf("seed %d: first page snapshot=%v more=%v, want a snapshot with more", seed, first.Snapshot, first.More)
			}
			got := slices.Clone(first.Events)
			for range 3 {
				root = mutate(r, root, &fresh)
				whole.Update(numbered(&idsA, root))
				want = append(want, whole.Take().Events...)
				paged.Update(numbered(&idsB, root))
				p := paged.TakeBytes(budget)
				if p.Snapshot {
					t.Fatalf("seed %d: a later page says snapshot", seed)
				}
				got = append(got, p.Events...)
				if !p.More {
					break
				}
			}
			rest, _, _ := pageAll(t, paged, budget)
			got = append(got, rest...)
			if !sameEvents(t, got, want) {
				t.Fatalf("seed %d: %d paged events differ from the %d taken whole", seed, len(got), len(want))
			}
		}
	})
}

// TestFeedOversizedEventComesAlone: an event larger than the budget is
// handed out by itself and said so; the events around it page as usual.
func TestFeedOversizedEventComesAlone(t *testing.T) {
	var ids IDs
	f := NewFeed("")
	f.Update(numbered(&ids, appTree("Tick 0", fake.Keyed("test:big", "label", strings.Repeat("z", 5000)))))
	var keys []string
	sawBig := false
	for {
		p := f.TakeBytes(1000)
		for _, e := range p.Events {
			keys = append(keys, e.Key)
		}
		if p.Oversized {
			if len(p.Events) != 1 || p.Events[0].Key != "test:big" {
				t.Fatalf("oversized page holds %v, want the big label alone", summaries(p.Events))
			}
			sawBig = true
		}
		if !p.More {
			break
		}
	}
	want := []string{"test:app", "test:frame", "test:panel", "test:ok", "test:label", "test:big"}
	if !sawBig || !slices.Equal(keys, want) {
		t.Fatalf("pages gave %v (oversized seen: %v), want %v", keys, sawBig, want)
	}
}

// TestFeedCapWhilePaging: the rest of a snapshot being paged does not
// count against MaxPendingChanges, and changes past the cap still turn
// the queue into a fresh snapshot.
func TestFeedCapWhilePaging(t *testing.T) {
	t.Parallel() // CPU-bound: the heavy tests run side by side
	synctest.Test(t, func(t *testing.T) {
		var ids IDs
		f := NewFeed("")
		f.Update(numbered(&ids, appTree("Tick 0")))
		if p := f.TakeBytes(MinMaxBytes / 10); !p.Snapshot || !p.More {
			t.Fatalf("first page snapshot=%v more=%v, want a snapshot page with more", p.Snapshot, p.More)
		}
		many := func(prefix string, n int) []*platform.Node {
			var out []*platform.Node
			for i := range n {
				out = append(out, fake.Keyed("test:"+fmt.Sprint(prefix, i), "label", ""))
			}
			return out
		}
		f.Update(numbered(&ids, appTree("Tick 1", many("a", MaxPendingChanges/2)...)))
		if f.Overflows() != 0 {
			t.Fatal("half the cap overflowed")
		}
		f.Update(numbered(&ids, appTree("Tick 2", many("b", MaxPendingChanges)...)))
		if f.Overflows() != 1 {
			t.Fatalf("overflows %d after more changes than the cap, want 1", f.Overflows())
		}
		p := f.TakeBytes(MaxMaxBytes)
		if !p.Snapshot || p.More || len(p.Events) != MaxPendingChanges+5 {
			t.Fatalf("after the cap: snapshot=%v more=%v events=%d, want a whole snapshot of %d", p.Snapshot, p.More, len(p.Events), MaxPendingChanges+5)
		}
	})
}
