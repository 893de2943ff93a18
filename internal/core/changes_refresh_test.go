package core

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
)

// fullNode is a node with every field set, none to its zero value.
func fullNode() *platform.Node {
	v, one, two := "typed", 1, 2
	return &platform.Node{
		Key: "test:full", Role: fake.Role("push button"), Name: "Save", Description: "saves", AccessibleID: "save",
		States: platform.StateSet(1<<platform.StateFocusable | 1<<platform.StateEnabled), Bounds: &platform.Rect{X: 1, Y: 2, Width: 3, Height: 4},
		BoundsUnknown: true, Interfaces: []string{"component", "Accessible", "action", "accessible"}, Actions: []string{"click", "press"},
		ChildCount: 2, Redacted: false, Err: "partly read", Value: &v, ValueTruncated: true, ChildrenPartial: true,
		ChildrenRange: &platform.ChildRange{Rows: &[2]int{0, 1}, Columns: &[2]int{0, 2}, RowCount: &two, ColumnCount: &one, First: &one, Count: &two, MoreBefore: true, MoreAfter: true},
	}
}

// variants lists values of v's type that differ from v: zero, changed,
// and for structs, slices and pointers each part changed in turn.
func variants(v reflect.Value) []reflect.Value {
	var out []reflect.Value
	with := func(f func(reflect.Value)) {
		c := reflect.New(v.Type()).Elem()
		c.Set(v)
		f(c)
		out = append(out, c)
	}
	switch v.Kind() {
	case reflect.String:
		with(func(c reflect.Value) { c.SetString("") })
		with(func(c reflect.Value) { c.SetString(v.String() + "x") })
		with(func(c reflect.Value) { c.SetString("accessible") })
	case reflect.Bool:
		with(func(c reflect.Value) { c.SetBool(!v.Bool()) })
	case reflect.Int:
		with(func(c reflect.Value) { c.SetInt(0) })
		with(func(c reflect.Value) { c.SetInt(v.Int() + 1) })
	case reflect.Uint32, reflect.Uint64:
		with(func(c reflect.Value) { c.SetUint(0) })
		with(func(c reflect.Value) { c.SetUint(v.Uint() + 1) })
		with(func(c reflect.Value) { c.SetUint(v.Uint() ^ 1<<40) })
	case reflect.Pointer:
		with(func(c reflect.Value) { c.SetZero() })
		if !v.IsNil() {
			with(func(c reflect.Value) { c.Set(reflect.New(v.Type().Elem())) })
			for _, e := range variants(v.Elem()) {
				p := reflect.New(v.Type().Elem())
				p.Elem().Set(e)
				out = append(out, p)
			}
		}
	case reflect.Slice:
		with(func(c reflect.Value) { c.SetZero() })
		with(func(c reflect.Value) { c.Set(reflect.MakeSlice(v.Type(), 0, 0)) })
		with(func(c reflect.Value) { c.Set(reflect.Append(v, reflect.ValueOf("Accessible"))) })
		for i := range v.Len() {
			with(func(c reflect.Value) {
				c.Set(reflect.AppendSlice(reflect.AppendSlice(reflect.MakeSlice(v.Type(), 0, v.Len()), v.Slice(0, i)), v.Slice(i+1, v.Len())))
			})
			for _, e := range variants(v.Index(i)) {
				with(func(c reflect.Value) {
					c.Set(reflect.AppendSlice(reflect.MakeSlice(v.Type(), 0, v.Len()), v))
					c.Index(i).Set(e)
				})
			}
		}
	case reflect.Array, reflect.Struct:
		n := v.Len
		if v.Kind() == reflect.Struct {
			n = v.NumField
		}
		for i := range n() {
			part := func(c reflect.Value) reflect.Value {
				if c.Kind() == reflect.Struct {
					return c.Field(i)
				}
				return c.Index(i)
			}
			for _, e := range variants(part(v)) {
				with(func(c reflect.Value) { part(c).Set(e) })
			}
		}
	default:
		panic(fmt.Sprintf("variants: no variants of a %s", v.Type()))
	}
	return out
}

func elementJSON(t *testing.T, e *Element) string {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSameElementFollowsElement: sameElement says a node prints as an
// element does exactly when element would build one that prints the same,
// for nodes that differ in every field in every way variants knows (a
// field added to platform.Node comes in here by itself), each compared with
// every other, and for another id or tree kind.
func TestSameElementFollowsElement(t *testing.T) {
	trees := []*Tree{NewTree(fullNode(), KindA11y)}
	nv := reflect.ValueOf(*fullNode())
	for i := range nv.NumField() {
		f := nv.Type().Field(i)
		if f.Name == "Children" {
			continue
		}
		vs := variants(nv.Field(i))
		if f.Name == "Role" {
			vs = append(vs, reflect.ValueOf(platform.RolePasswordText))
		}
		if len(vs) == 0 {
			t.Fatalf("no variants of field %s", f.Name)
		}
		for _, v := range vs {
			n := fullNode()
			reflect.ValueOf(n).Elem().Field(i).Set(v)
			trees = append(trees, NewTree(n, KindA11y))
		}
	}
	var els []*Element
	var printed []string
	for _, tr := range trees {
		els = append(els, tr.element(0))
		printed = append(printed, elementJSON(t, els[len(els)-1]))
	}
	differs := 0
	for i, tr := range trees {
		for j, e := range els {
			want := printed[i] == printed[j]
			if got := tr.sameElement(0, e); got != want {
				t.Fatalf("node %d, element %d: sameElement %v, the same JSON %v:\n%s\n%s", i, j, got, want, printed[i], printed[j])
			}
			if !want {
				differs++
			}
		}
	}
	if differs < len(trees) {
		t.Fatalf("%d of %d pairs printed differently: the test tests nothing", differs, len(trees)*len(trees))
	}
	e := els[0]
	for _, kind := range []string{KindVisual, ""} {
		if NewTree(fullNode(), kind).sameElement(0, e) {
			t.Fatalf("a node of a %q tree is the same as an a11y element", kind)
		}
	}
	var ids IDs
	ids.Counter = &Counter{}
	ids.Counter.next.Store(12)
	renumbered := NewTree(fullNode(), KindA11y)
	ids.Number(renumbered)
	if renumbered.sameElement(0, e) {
		t.Fatal("a node with another id is the same element")
	}
}

// fieldEdits changes fields of nodes of a copy of root at random, and
// nothing of its shape in the raw view.
func fieldEdits(r *rand.Rand, root *platform.Node) *platform.Node {
	root = cloneNode(root)
	all := preorder(root)
	for range r.IntN(4) {
		n := all[r.IntN(len(all))]
		switch r.IntN(7) {
		case 0:
			n.Name = fmt.Sprint("renamed ", r.IntN(5))
		case 1:
			n.States ^= 1 << (1 + r.IntN(40))
		case 2:
			v := fmt.Sprint(r.IntN(3))
			n.Value = &v
		case 3:
			n.Bounds = &platform.Rect{X: r.IntN(3), Width: 10, Height: 10}
		case 4:
			n.Interfaces = append(slices.Clip(n.Interfaces), "text")
		case 5:
			n.Actions = nil
		case 6:
			n.ChildCount++
		}
	}
	return root
}

// regroup changes parents in a copy of root and keeps the order of its
// nodes: a node becomes the last child of the sibling before it, or the
// root is wrapped in a node without a key, or unwrapped from one.
func regroup(r *rand.Rand, root *platform.Node) *platform.Node {
	root = cloneNode(root)
	switch {
	case root.Key == "":
		return root.Children[0]
	case r.IntN(4) == 0:
		return &platform.Node{Role: root.Role, Children: []*platform.Node{root}, ChildCount: 1}
	}
	var parents []*platform.Node
	var walk func(n *platform.Node)
	walk = func(n *platform.Node) {
		if len(n.Children) > 1 {
			parents = append(parents, n)
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(root)
	if len(parents) == 0 {
		return root
	}
	p := parents[r.IntN(len(parents))]
	i := 1 + r.IntN(len(p.Children)-1)
	prev, moved := p.Children[i-1], p.Children[i]
	prev.Children = append(slices.Clip(prev.Children), moved)
	p.Children = slices.Delete(slices.Clip(p.Children), i, i+1)
	return root
}

// TestRefreshIsDiff: on random trees changed at random (fields only, the
// shape, or nothing), in every view, refresh finds what diff does between
// the last read and the next, leaves the flattened tree as flatten makes
// it of the next, and says when the shape changed, so a feed's patches are
// what diffing every read whole gives.
func TestRefreshIsDiff(t *testing.T) {
	t.Parallel() // CPU-bound: the heavy tests run side by side
	taken, skipped := 0, 0
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 3))
		view := []string{ViewRaw, ViewControl, ViewContent}[seed%3]
		var ids, feedIDs IDs
		feed := NewFeed(view)
		root := randomKeyedTree(r, 20+r.IntN(100))
		fresh := 0
		prev := numbered(&ids, root)
		feed.Update(numbered(&feedIDs, root))
		feed.Take()
		for step := range 12 {
			switch r.IntN(4) {
			case 0: // the same nodes read again
			case 1:
				root = fieldEdits(r, root)
			case 2:
				root = mutate(r, root, &fresh)
			case 3:
				root = regroup(r, root)
			}
			cur := numbered(&ids, root)
			want := diff(flatten(prev, view), flatten(cur, view))
			b := flatten(prev, view)
			got, ok := b.refresh(cur, view)
			if ok {
				taken++
				if !sameEvents(t, got, want) {
					t.Fatalf("seed %d step %d (%s): refresh found\n%v\ndiff found\n%v", seed, step, view, eventsJSON(t, got), eventsJSON(t, want))
				}
				if !sameEvents(t, snapshotOf(b), snapshotOf(flatten(cur, view))) {
					t.Fatalf("seed %d step %d (%s): refreshed tree differs from the next read's", seed, step, view)
				}
			} else {
				skipped++
				if !sameEvents(t, snapshotOf(b), snapshotOf(flatten(prev, view))) {
					t.Fatalf("seed %d step %d (%s): refresh of another shape changed the tree", seed, step, view)
				}
				if fc, fp := flatten(cur, view), flatten(prev, view); slices.Equal(fc.order, fp.order) && sameParents(fc, fp) {
					t.Fatalf("seed %d step %d (%s): refresh said the shape changed, but it did not", seed, step, view)
				}
			}
			feed.Update(numbered(&feedIDs, root))
			if got := feed.Take().Events; !sameEvents(t, got, want) {
				t.Fatalf("seed %d step %d (%s): the feed's patch\n%v\nthe whole diff\n%v", seed, step, view, eventsJSON(t, got), eventsJSON(t, want))
			}
			prev = cur
		}
	}
	t.Logf("refresh matched %d reads and gave up on %d", taken, skipped)
	if taken < 60 || skipped < 60 {
		t.Fatalf("refresh matched %d reads and gave up on %d: too few of one to test it", taken, skipped)
	}
}

// sameParents reports whether each element of a has the parent and place
// it has in b.
func sameParents(a, b *flatTree) bool {
	for k, n := range a.nodes {
		o := b.nodes[k]
		if o == nil || o.parentKey != n.parentKey || !slices.Equal(o.path, n.path) {
			return false
		}
	}
	return true
}
