package core

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/uiscope/uiscope/internal/platform"
)

// app builds the same small app tree each time it is called (fresh nodes,
// as a new read gives), with the given keys for its three widgets; a key ""
// leaves the widget out.
func app(prefix string, keys ...string) *platform.Node {
	var kids []*platform.Node
	for _, k := range keys {
		if k != "" {
			kids = append(kids, node(prefix+k, strings.ToUpper(k)))
		}
	}
	return node(prefix+"root", "app", node(prefix+"frame", "frame", kids...))
}

// openSession opens a session on m without a desktop: what Connect does
// once the app is resolved.
func openSession(t *testing.T, m *Sessions) *Session {
	t.Helper()
	s := &Session{Mode: ModeA11y}
	if err := m.add(s); err != nil {
		t.Fatal(err)
	}
	return s
}

func read(s *Session, root *platform.Node, truncated bool) *Tree {
	t := NewTree(root, KindA11y)
	t.Truncated = truncated
	s.adopt(t)
	return t
}

// refOf is the ref of the element named name in t.
func refOf(t *testing.T, tr *Tree, name string) string {
	t.Helper()
	for i, n := range tr.nodes {
		if n.Name == name {
			return tr.RefString(i)
		}
	}
	t.Fatalf("no %q in the tree", name)
	return ""
}

// TestRefsUniqueAcrossSessions: two sessions on apps of the same shape, and
// a session opened after another closed, never hand out the same ref; a
// foreign ref is unknownRef with advice to re-read.
func TestRefsUniqueAcrossSessions(t *testing.T) {
	m := NewSessions(platform.Desktop{Accessibility: nullDesktop{t}})
	s1, s2 := openSession(t, m), openSession(t, m)
	t1 := read(s1, app("A", "a", "b", "c"), false)
	t2 := read(s2, app("B", "a", "b", "c"), false)
	seen := map[string]bool{}
	for i := range t1.nodes {
		seen[t1.RefString(i)] = true
	}
	for i := range t2.nodes {
		ref := t2.RefString(i)
		if seen[ref] {
			t.Errorf("%s is handed out by both sessions", ref)
		}
		if _, _, _, err := s1.Resolve(ref); AsError(err).Code != CodeUnknownRef || !strings.Contains(err.Error(), "re-read") {
			t.Errorf("session 2's %s in session 1: %v, want unknownRef saying to re-read", ref, err)
		}
	}
	refB := refOf(t, t1, "B")
	if n, _, _, err := s2.Resolve(refB); err == nil {
		t.Errorf("session 1's %s resolved in session 2 to %q", refB, n.Name)
	}
	if err := m.Disconnect(context.Background(), s1.ID); err != nil {
		t.Fatal(err)
	}
	s3 := openSession(t, m)
	t3 := read(s3, app("A", "a", "b", "c"), false)
	for i := range t1.nodes {
		ref := t1.RefString(i)
		if n, _, _, err := s3.Resolve(ref); err == nil {
			t.Errorf("the closed session's %s resolved in the new session on the same app, to %q", ref, n.Name)
		}
	}
	if got := refOf(t, t3, "B"); got == refB {
		t.Errorf("B has the same ref %s in a session and the one after it", got)
	}
}

// TestScopeAfterEarlierElementGoes: a scope or within given as a position
// (from ByKey) works when the id equal to that position is gone: an
// element before it disappeared.
func TestScopeAfterEarlierElementGoes(t *testing.T) {
	var ids IDs
	first := NewTree(node("root", "app", node("a", "A"), node("b", "B", node("b1", "B1")), node("c", "C", node("c1", "C1"))), KindA11y)
	ids.Number(first)
	// B and its child go: C moves from position 4 to 2, and ids 2 and 3
	// (B's and B1's) are no longer in the tree.
	second := NewTree(node("root", "app", node("a", "A"), node("c", "C", node("c1", "C1"))), KindA11y)
	ids.Number(second)
	pos, ok := second.ByKey("c")
	if !ok || pos != 2 {
		t.Fatalf("ByKey(c) = %d, %v", pos, ok)
	}
	root, _, err := second.Render(ViewOptions{Scope: pos, Depth: -1})
	if err != nil || root.Name != "C" || root.Ref != refOf(t, first, "C") || len(root.Children) != 1 {
		t.Errorf("Render scoped to C: %+v, %v", root, err)
	}
	out, _, err := second.Outline(ViewOptions{Scope: pos, Depth: -1})
	if err != nil || !strings.HasPrefix(out, `push button "C" [`+refOf(t, first, "C")+`]`) {
		t.Errorf("Outline scoped to C: %q, %v", out, err)
	}
	els, st, err := second.Find(Query{Within: pos, Name: "C1"})
	if err != nil || st.Matched != 1 || els[0].Name != "C1" {
		t.Errorf("Find within C: %+v %+v, %v", els, st, err)
	}
	if _, _, err := second.Render(ViewOptions{Scope: second.Len()}); !errors.Is(err, ErrUnknownRef) {
		t.Errorf("a scope past the end: %v", err)
	}
	if _, _, err := second.Find(Query{Within: second.Len()}); !errors.Is(err, ErrUnknownRef) {
		t.Errorf("a within past the end: %v", err)
	}
}

// TestTruncatedReadKeepsRefs: the refs of the last complete read resolve
// after a truncated read that lacks their elements; a complete read ends
// that.
func TestTruncatedReadKeepsRefs(t *testing.T) {
	m := NewSessions(platform.Desktop{Accessibility: nullDesktop{t}})
	s := openSession(t, m)
	full := read(s, app("", "a", "b", "c"), false)
	refA, refC := refOf(t, full, "A"), refOf(t, full, "C")
	// Cut short after A: B and C are not in it, D is new.
	cut := read(s, app("", "a", "d"), true)
	refD := refOf(t, cut, "D")
	for ref, want := range map[string]string{refA: "A", refC: "C", refD: "D"} {
		n, id, tr, err := s.Resolve(ref)
		if err != nil || n.Name != want || tr.RefString(id) != ref {
			t.Errorf("after a truncated read, %s: %v %v, want %s", ref, n, err, want)
		}
	}
	// Both trees hold A: the fresher read answers.
	if _, _, tr, _ := s.Resolve(refA); tr != cut {
		t.Errorf("%s resolved in the older read", refA)
	}
	// Another truncated read without D: D's ref, from a truncated read only,
	// is gone; the complete read's still resolve.
	read(s, app("", "a"), true)
	if _, _, _, err := s.Resolve(refD); AsError(err).Code != CodeUnknownRef {
		t.Errorf("%s, only in an earlier truncated read: %v", refD, err)
	}
	if n, _, _, err := s.Resolve(refC); err != nil || n.Name != "C" {
		t.Errorf("%s after two truncated reads: %v %v", refC, n, err)
	}
	// A complete read without C: C's ref is unknownRef.
	read(s, app("", "a", "b"), false)
	if n, _, _, err := s.Resolve(refC); AsError(err).Code != CodeUnknownRef {
		t.Errorf("%s after a complete read without C: %v %v", refC, n, err)
	}
}

// TestSessionCap: connect beyond MaxSessions is refused with what to do; a
// disconnect makes room.
func TestSessionCap(t *testing.T) {
	m := NewSessions(platform.Desktop{Accessibility: nullDesktop{t}})
	var first *Session
	for i := range MaxSessions {
		s := openSession(t, m)
		if i == 0 {
			first = s
		}
	}
	err := m.add(&Session{Mode: ModeA11y})
	if e := AsError(err); e == nil || e.Code != CodeTooManySessions || !strings.Contains(e.Msg, "disconnect") {
		t.Fatalf("session %d: %v, want %s saying to disconnect one", MaxSessions+1, err, CodeTooManySessions)
	}
	if len(m.List(context.Background())) != MaxSessions {
		t.Errorf("%d sessions open after a refused connect", len(m.List(context.Background())))
	}
	if err := m.Disconnect(context.Background(), first.ID); err != nil {
		t.Fatal(err)
	}
	openSession(t, m)
}

// TestKeysForgotten: keys unseen for keyReads reads are forgotten, and the
// map never grows past maxKeys; a forgotten element's old ref is
// unknownRef, never another element, and the element gets a new ref.
func TestKeysForgotten(t *testing.T) {
	t.Parallel() // CPU-bound: the heavy tests run side by side
	synctest.Test(t, func(t *testing.T) {
		m := NewSessions(platform.Desktop{Accessibility: nullDesktop{t}})
		s := openSession(t, m)
		first := read(s, app("", "a", "b"), false)
		refB := refOf(t, first, "B")
		for range keyReads {
			read(s, app("", "a"), false)
		}
		if _, ok := s.ids.byKey["b"]; ok {
			t.Errorf("b, unseen for %d reads, is still remembered", keyReads)
		}
		// Truncated reads do not count: a ref stays while they miss it.
		mid := read(s, app("", "a", "c"), false)
		refC := refOf(t, mid, "C")
		for range 2 * keyReads {
			read(s, app("", "a"), true)
		}
		if n, _, _, err := s.Resolve(refC); err != nil || n.Name != "C" {
			t.Errorf("%s after truncated reads without C: %v %v", refC, n, err)
		}
		if again := read(s, app("", "a", "c"), false); refOf(t, again, "C") != refC {
			t.Errorf("C lost its ref to truncated reads that missed it: %s, was %s", refOf(t, again, "C"), refC)
		}
		back := read(s, app("", "a", "b"), false)
		if got := refOf(t, back, "B"); got == refB {
			t.Errorf("B came back with its forgotten ref %s", got)
		}
		if n, _, _, err := s.Resolve(refB); AsError(err).Code != CodeUnknownRef {
			t.Errorf("B's forgotten ref %s: %v %v, want unknownRef", refB, n, err)
		}

		// The size cap: reads of disjoint sets of keys, each read a fresh
		// quarter of maxKeys, within keyReads.
		var ids IDs
		quarter := maxKeys / 4
		handed := map[string]bool{}
		for r := range 6 {
			kids := make([]*platform.Node, quarter)
			for i := range kids {
				kids[i] = node(fmt.Sprintf("r%d-%d", r, i), fmt.Sprintf("N%d-%d", r, i))
			}
			tr := NewTree(node("root", "app", kids...), KindA11y)
			ids.Number(tr)
			if ids.Keys() > maxKeys {
				t.Fatalf("read %d: %d keys remembered, more than %d", r, ids.Keys(), maxKeys)
			}
			for i := 1; i < tr.Len(); i++ { // all but the root are new
				ref := tr.RefString(i)
				if handed[ref] {
					t.Fatalf("read %d: %s handed out again", r, ref)
				}
				handed[ref] = true
			}
		}
		if _, ok := ids.byKey["r5-0"]; !ok {
			t.Errorf("a key of the last read was forgotten")
		}
		if _, ok := ids.byKey["r0-0"]; ok {
			t.Errorf("the oldest keys were kept past the cap")
		}
	})
}

// TestIDsNumberFreshInOrder: a tree's new elements are numbered in
// pre-order from the run's counter, and a key twice in one tree never
// shares an id.
func TestIDsNumberFreshInOrder(t *testing.T) {
	var c Counter
	a, b := IDs{Counter: &c}, IDs{Counter: &c}
	ta := NewTree(node("root", "app", node("x", "X"), node("x", "X again"), node("", "no key")), KindA11y)
	a.Number(ta)
	tb := NewTree(node("root", "app"), KindA11y)
	b.Number(tb)
	want := []string{"a11y:e0", "a11y:e1", "a11y:e2", "a11y:e3"}
	for i, w := range want {
		if got := ta.RefString(i); got != w {
			t.Errorf("node %d: %s, want %s", i, got, w)
		}
	}
	if got := tb.RefString(0); got != "a11y:e4" {
		t.Errorf("the other session's root: %s, want a11y:e4", got)
	}
	again := NewTree(node("root", "app", node("x", "X"), node("x", "X again"), node("", "no key")), KindA11y)
	a.Number(again)
	// root and the first x keep theirs; the second x and the keyless node
	// are new each time.
	for i, w := range []string{"a11y:e0", "a11y:e1", "a11y:e5", "a11y:e6"} {
		if got := again.RefString(i); got != w {
			t.Errorf("second read, node %d: %s, want %s", i, got, w)
		}
	}
}

// BenchmarkIDsNumber: a session's repeated read of a 10,000-element tree
// (every key known), the cost numbering adds to each read.
func BenchmarkIDsNumber(b *testing.B) {
	kids := make([]*platform.Node, 10000-1)
	for i := range kids {
		kids[i] = node(fmt.Sprintf("atspi::1.42/org/a11y/atspi/accessible/%d", i), "N")
	}
	root := node("root", "app", kids...)
	var ids IDs
	ids.Number(NewTree(root, KindA11y))
	trees := make([]*Tree, b.N)
	for i := range trees {
		trees[i] = NewTree(root, KindA11y)
	}
	b.ResetTimer()
	for i := range b.N {
		ids.Number(trees[i])
	}
}
