package core

import (
	"errors"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
)

func node(key, name string, kids ...*platform.Node) *platform.Node {
	return &platform.Node{Key: key, Role: 43, Name: name, ChildCount: len(kids), Children: kids}
}

// TestSessionIDsNeverAlias: after the UI changes, an old ref either names
// the same element or is refused; it never names another one.
func TestSessionIDsNeverAlias(t *testing.T) {
	var ids IDs
	first := NewTree(node("root", "app", node("a", "A"), node("b", "B"), node("c", "C")), KindA11y)
	ids.Number(first)
	refB := first.RefString(2)
	refC := first.RefString(3)
	if refB != "a11y:e2" || refC != "a11y:e3" {
		t.Fatalf("first read is not numbered by position: %s %s", refB, refC)
	}
	// B is gone and D is new, in B's old position.
	second := NewTree(node("root", "app", node("a", "A"), node("d", "D"), node("c", "C")), KindA11y)
	ids.Number(second)
	if n, _, err := second.LookupString(refC); err != nil || n.Name != "C" {
		t.Errorf("%s after the change: %v %v, want C", refC, n, err)
	}
	if n, _, err := second.LookupString(refB); !errors.Is(err, ErrUnknownRef) {
		t.Errorf("%s (B, now gone) resolved to %v, %v; want ErrUnknownRef", refB, n, err)
	}
	_, id, err := second.LookupString("a11y:e4")
	if err != nil || second.nodes[id].Name != "D" {
		t.Errorf("the new element did not get a fresh id: %v", err)
	}
	out, _, err := second.Outline(ViewOptions{Depth: -1})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"D" [a11y:e4]`, `"C" [a11y:e3]`} {
		if !strings.Contains(out, want) {
			t.Errorf("outline lacks %s:\n%s", want, out)
		}
	}
	els, _, _ := second.Find(Query{Name: "D"})
	if len(els) != 1 || els[0].Ref != "a11y:e4" || els[0].ID != "e4" {
		t.Errorf("find gives %+v", els)
	}
}
