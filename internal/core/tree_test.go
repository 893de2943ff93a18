package core

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
)

// sampleTree is a small GTK3-like window:
//
//	e0  application "demo"
//	e1    frame "Main"
//	e2      filler
//	e3        panel
//	e4          push button "Save"
//	e5          password text (redacted)
//	e6        label "Status"
//	e7      panel
//	e8        separator
//	e9      menu bar
//	e10       menu "File"
func sampleTree() *platform.Node {
	return fake.Node("application", "demo",
		fake.With(fake.Node("frame", "Main",
			fake.Node("filler", "",
				fake.Node("panel", "",
					fake.With(fake.Node("push button", "Save"), fake.Actions("click"), fake.Ifaces("action", "component"), fake.AddStates("focusable", "focused"), fake.Bounds(10, 20, 80, 30)),
					fake.With(fake.Node("password text", "hunter2"), fake.Ifaces("component", "text", "editabletext"), fake.AddStates("focusable", "editable"), func(n *platform.Node) { n.Key = "test:1.1/pw" }),
				),
				fake.With(fake.Node("label", "Status"), fake.Ifaces("component", "text")),
			),
			fake.Node("panel", "",
				fake.Node("separator", ""),
			),
			fake.Node("menu bar", "",
				fake.With(fake.Node("menu", "File"), fake.Actions("click"), fake.Ifaces("action", "selection")),
			),
		), fake.Bounds(0, 0, 640, 480)),
	)
}

// shape prints an Element tree compactly: ids, children in parentheses,
// +N for childrenOmitted.
func shape(e *Element) string {
	var b strings.Builder
	var walk func(e *Element)
	walk = func(e *Element) {
		b.WriteString(e.ID)
		if e.ChildrenOmitted > 0 {
			fmt.Fprintf(&b, "+%d", e.ChildrenOmitted)
		}
		if len(e.Children) > 0 {
			b.WriteByte('(')
			for i, c := range e.Children {
				if i > 0 {
					b.WriteByte(' ')
				}
				walk(c)
			}
			b.WriteByte(')')
		}
	}
	walk(e)
	return b.String()
}

// --- tests ---

func TestNewTreePreOrderIDs(t *testing.T) {
	tr := NewTree(sampleTree(), KindA11y)
	if tr.Len() != 11 {
		t.Fatalf("Len = %d, want 11", tr.Len())
	}
	want := []string{"application/demo", "frame/Main", "filler/", "panel/", "push button/Save",
		"password text/", "label/Status", "panel/", "separator/", "menu bar/", "menu/File"}
	for id, w := range want {
		n, ok := tr.Node(id)
		if !ok {
			t.Fatalf("Node(%d) missing", id)
		}
		if got := n.Role.String() + "/" + n.Name; got != w {
			t.Errorf("e%d = %s, want %s", id, got, w)
		}
		if tr.ID(n) != id {
			t.Errorf("ID(e%d) = %d", id, tr.ID(n))
		}
	}
	if _, ok := tr.Node(11); ok {
		t.Error("Node(11) found")
	}
	if _, ok := tr.Node(-1); ok {
		t.Error("Node(-1) found")
	}
	if tr.ID(&platform.Node{}) != -1 {
		t.Error("ID of a foreign node != -1")
	}
	if tr.Kind() != KindA11y || tr.Root() == nil || tr.Root().Name != "demo" {
		t.Errorf("Kind/Root wrong: %q %v", tr.Kind(), tr.Root())
	}
}

func TestNewTreeIndexes(t *testing.T) {
	tr := NewTree(sampleTree(), KindA11y)
	tests := []struct {
		id        int
		parent    int
		hasParent bool
		ancestors []int
		children  []int
	}{
		{0, 0, false, []int{}, []int{1}},
		{1, 0, true, []int{0}, []int{2, 7, 9}},
		{4, 3, true, []int{3, 2, 1, 0}, nil},
		{6, 2, true, []int{2, 1, 0}, nil},
		{10, 9, true, []int{9, 1, 0}, nil},
		{99, 0, false, []int{}, nil},
	}
	for _, tc := range tests {
		p, ok := tr.Parent(tc.id)
		if ok != tc.hasParent || (ok && p != tc.parent) {
			t.Errorf("Parent(%d) = %d,%v want %d,%v", tc.id, p, ok, tc.parent, tc.hasParent)
		}
		if got := tr.Ancestors(tc.id); !slices.Equal(got, tc.ancestors) {
			t.Errorf("Ancestors(%d) = %v want %v", tc.id, got, tc.ancestors)
		}
		if got := tr.Children(tc.id); !slices.Equal(got, tc.children) {
			t.Errorf("Children(%d) = %v want %v", tc.id, got, tc.children)
		}
	}
	id, ok := tr.ByKey("test:1.1/menu/File")
	if !ok || id != 10 {
		t.Errorf("ByKey(menu File) = %d,%v", id, ok)
	}
	if _, ok := tr.ByKey("nope"); ok {
		t.Error("ByKey(nope) found")
	}
	// Subtree ranges.
	wantEnd := []int{11, 11, 7, 6, 5, 6, 7, 9, 9, 11, 11}
	if !slices.Equal(tr.end, wantEnd) {
		t.Errorf("end = %v want %v", tr.end, wantEnd)
	}
}

func TestNewTreeRedactsPasswords(t *testing.T) {
	tr := NewTree(sampleTree(), KindA11y)
	n, _ := tr.Node(5)
	if n.Name != "" || !n.Redacted {
		t.Fatalf("password node not redacted: %+v", n)
	}
	e, _ := tr.Element(5)
	if e.Name != "" || !e.Redacted || e.Role != "password text" {
		t.Fatalf("password element: %+v", e)
	}
	js, _ := json.Marshal(e)
	if strings.Contains(string(js), "hunter2") || !strings.Contains(string(js), `"redacted":true`) {
		t.Fatalf("json leaks or lacks redaction: %s", js)
	}
	// A node the backend already marked Redacted is cleared too.
	pre := &platform.Node{Role: mustRole("text"), Name: "leak", Redacted: true}
	NewTree(pre, KindA11y)
	if pre.Name != "" {
		t.Fatal("pre-redacted node kept its name")
	}
	// Non-password nodes are untouched.
	if b, _ := tr.Node(4); b.Name != "Save" || b.Redacted {
		t.Fatalf("button changed: %+v", b)
	}
}

func TestNewTreeEdgeCases(t *testing.T) {
	empty := NewTree(nil, KindA11y)
	if empty.Len() != 0 || empty.Root() != nil {
		t.Fatal("nil root tree not empty")
	}
	if _, _, err := empty.Render(ViewOptions{}); err == nil {
		t.Fatal("Render of an empty tree succeeded")
	}

	// Nil children are skipped; a node appearing twice is numbered once;
	// a cycle does not loop.
	shared := fake.Node("label", "shared")
	root := fake.Node("frame", "f", shared, nil, shared)
	root.Children = append(root.Children, root) // cycle
	tr := NewTree(root, KindA11y)
	if tr.Len() != 2 {
		t.Fatalf("Len = %d, want 2", tr.Len())
	}
	if got := tr.Children(0); !slices.Equal(got, []int{1}) {
		t.Fatalf("Children(0) = %v", got)
	}
	// Duplicate keys: the first in pre-order wins.
	a, b := fake.Node("label", "x"), fake.Node("label", "x")
	tr = NewTree(fake.Node("frame", "f", a, b), KindA11y)
	if id, _ := tr.ByKey(a.Key); id != 1 {
		t.Fatalf("ByKey dup = %d, want 1", id)
	}
}

func TestElementJSON(t *testing.T) {
	n := fake.With(fake.Node("push button", "Save"), fake.Actions("click"), fake.Ifaces("action", "component", "text"), fake.Bounds(10, 20, 80, 30), fake.Desc("Saves"))
	n.AccessibleID = "save-btn"
	n.Key = "atspi::1.42/org/a11y/atspi/accessible/123"
	tr := NewTree(fake.Node("frame", "f", n), KindA11y)
	e, ok := tr.Element(1)
	if !ok {
		t.Fatal("Element(1) missing")
	}
	got, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"e1","ref":"a11y:e1","key":"atspi::1.42/org/a11y/atspi/accessible/123","role":"push button","name":"Save","description":"Saves","accessibleId":"save-btn","states":["enabled","sensitive","showing","visible"],"bounds":{"x":10,"y":20,"width":80,"height":30},"interfaces":["action","component","text"],"actions":["click"]}`
	if string(got) != want {
		t.Fatalf("json\n got %s\nwant %s", got, want)
	}

	// Empty states are [] not null; an empty name and childCount 0 are
	// left out; error and childrenOmitted appear when set.
	bare := &platform.Node{Key: "k", Role: mustRole("filler"), Err: "timeout", ChildCount: 3}
	tr = NewTree(bare, KindVisual)
	e, _ = tr.Element(0)
	got, _ = json.Marshal(e)
	want = `{"id":"e0","ref":"visual:e0","key":"k","role":"filler","states":[],"childCount":3,"error":"timeout"}`
	if string(got) != want {
		t.Fatalf("json\n got %s\nwant %s", got, want)
	}
	// The element's slices do not alias the node's.
	e, _ = tr.Element(0)
	n2, _ := NewTree(n, KindA11y).Element(0)
	n2.Actions[0] = "changed"
	if n.Actions[0] != "click" {
		t.Fatal("Element aliases node slices")
	}
	if _, ok := tr.Element(5); ok || e == nil {
		t.Fatal("Element(5) found")
	}
}

func TestElementKeysAreContract(t *testing.T) {
	// The JSON field names are the contract of docs/api.md.
	want := []string{"id", "ref", "key", "role", "name", "description", "accessibleId", "states",
		"bounds", "boundsUnknown", "interfaces", "actions", "redacted", "value", "valueTruncated", "childCount", "children",
		"childrenOmitted", "childrenPartial", "childrenRange", "error"}
	typ := reflect.TypeFor[Element]()
	var got []string
	for i := range typ.NumField() {
		got = append(got, strings.Split(typ.Field(i).Tag.Get("json"), ",")[0])
	}
	if !slices.Equal(got, want) {
		t.Fatalf("json fields = %v\nwant %v", got, want)
	}
}
