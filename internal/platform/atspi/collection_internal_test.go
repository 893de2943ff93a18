//go:build linux

package atspi

import (
	"testing"

	"github.com/godbus/dbus/v5"
)

// assemble keeps a parent's children only where the elements' Parent
// agrees with the preorder list the bridge walked; elsewhere the walk reads
// them live.
func TestAssembleChildren(t *testing.T) {
	ref := func(p string) objRef { return objRef{":1.1", dbus.ObjectPath("/o/" + p)} }
	top := ref("top")
	el := func(name, parent string, cc int) matched {
		m := matched{ref: ref(name), parent: ref(parent), childCount: cc, props: true, state: true, itfs: true}
		if parent == "top" {
			m.parent = top
		}
		return m
	}
	cases := []struct {
		name  string
		els   []matched
		whole map[string][]string // parents whose children are kept, and them
	}{
		{"agree", []matched{el("a", "top", 2), el("b", "a", 0), el("c", "a", 1), el("d", "c", 0), el("e", "top", 0)},
			map[string][]string{"a": {"b", "c"}, "c": {"d"}}},
		// d says its parent is a: a then has three children for a count
		// of two, and c none for a count of one.
		{"disagree", []matched{el("a", "top", 2), el("b", "a", 0), el("c", "a", 1), el("d", "a", 0), el("e", "top", 0)},
			map[string][]string{}},
		// x lies between a's children in preorder but says its parent is
		// the top: c does not follow b's subtree.
		{"interleaved", []matched{el("a", "top", 2), el("b", "a", 0), el("x", "top", 0), el("c", "a", 0)},
			map[string][]string{}},
		// A failed call leaves the element out, and its parent's children
		// are no longer whole.
		{"failed", []matched{el("a", "top", 2), el("b", "a", 0), {ref: ref("c")}, el("d", "c", 0), el("e", "top", 0)},
			map[string][]string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pos := map[objRef]int{}
			for i, e := range tc.els {
				pos[e.ref] = i
			}
			w := &walker{opts: TreeOptions{MaxChildren: 2000}}
			out := w.assemble(tc.els, pos)
			for _, e := range tc.els {
				ci, ok := out[e.ref]
				if !ok {
					continue
				}
				name := string(e.ref.Path[len("/o/"):])
				want, keep := tc.whole[name]
				kids, whole := ci.kids(ci.node.ChildCount)
				if ci.node.ChildCount == 0 {
					continue
				}
				if whole != keep {
					t.Errorf("%s: children whole %v, want %v", name, whole, keep)
					continue
				}
				for i, k := range kids {
					if k != ref(want[i]) {
						t.Errorf("%s: child %d is %v, want %s", name, i, k, want[i])
					}
				}
			}
		})
	}
}
