package core

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
)

// numbered is a tree numbered by ids, as sessions number theirs.
func numbered(ids *IDs, root *platform.Node) *Tree {
	t := NewTree(root, KindA11y)
	ids.Number(t)
	return t
}

// summary is a change reduced to what tests compare.
func summary(c Change) string {
	s := fmt.Sprintf("%s %s parent=%s index=%d path=%v", c.Type, c.Key, c.ParentKey, c.Index, c.Path)
	if c.Changes != nil {
		b, _ := json.Marshal(c.Changes)
		s += " " + string(b)
	}
	return s
}

func summaries(cs []Change) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, summary(c))
	}
	return out
}

func appTree(label string, extra ...*platform.Node) *platform.Node {
	kids := []*platform.Node{fake.Keyed("test:ok", "push button", "OK"), fake.Keyed("test:label", "label", label)}
	kids = append(kids, extra...)
	return fake.Keyed("test:app", "application", "app", fake.Keyed("test:frame", "frame", "Main", fake.Keyed("test:panel", "panel", "", kids...)))
}

func TestFeedSnapshotThenChanges(t *testing.T) {
	var ids IDs
	f := NewFeed("")
	f.Update(numbered(&ids, appTree("Tick 0")))
	p := f.Take()
	if !p.Snapshot || len(p.Events) != 5 {
		t.Fatalf("first patch: snapshot=%v with %d events, want a snapshot of the 5 elements: %v", p.Snapshot, len(p.Events), summaries(p.Events))
	}
	for i, want := range []string{"test:app", "test:frame", "test:panel", "test:ok", "test:label"} {
		if e := p.Events[i]; e.Type != ChangeAdded || e.Key != want || e.Element == nil || e.Ref == "" {
			t.Errorf("snapshot event %d = %s, want added %s with its element and ref", i, summary(e), want)
		}
	}
	if got := summary(p.Events[4]); got != "added test:label parent=test:panel index=1 path=[0 0 1]" {
		t.Errorf("label's place: %s", got)
	}

	// A name changes: exactly one changed event, with old and new.
	f.Update(numbered(&ids, appTree("Tick 1")))
	p = f.Take()
	want := []string{`changed test:label parent=test:panel index=1 path=[0 0 1] {"name":{"old":"Tick 0","new":"Tick 1"}}`}
	if p.Snapshot || !reflect.DeepEqual(summaries(p.Events), want) {
		t.Fatalf("after a rename: snapshot=%v %q, want %q", p.Snapshot, summaries(p.Events), want)
	}

	// Nothing changed: an empty patch, not a snapshot.
	f.Update(numbered(&ids, appTree("Tick 1")))
	if p = f.Take(); p.Snapshot || len(p.Events) != 0 {
		t.Fatalf("no change gave snapshot=%v %q", p.Snapshot, summaries(p.Events))
	}
}

func TestFeedAddedRemovedAndOrder(t *testing.T) {
	var ids IDs
	f := NewFeed("")
	f.Update(numbered(&ids, appTree("x", fake.Keyed("test:gone", "label", "Gone"))))
	f.Take()
	dialog := fake.Keyed("test:dlg", "dialog", "Delayed dialog", fake.Keyed("test:dlgok", "push button", "OK"))
	root := appTree("x")
	root.Children = append(root.Children, dialog)
	f.Update(numbered(&ids, root))
	got := summaries(f.Take().Events)
	want := []string{
		"removed test:gone parent=test:panel index=2 path=[0 0 2]",
		"added test:dlg parent=test:app index=1 path=[1]",
		"added test:dlgok parent=test:dlg index=0 path=[1 0]",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

func TestFeedMovesAndReorders(t *testing.T) {
	var ids IDs
	f := NewFeed("")
	a, b, c := fake.Keyed("test:a", "label", "A"), fake.Keyed("test:b", "label", "B"), fake.Keyed("test:c", "label", "C")
	f.Update(numbered(&ids, fake.Keyed("test:app", "application", "app", fake.Keyed("test:p1", "panel", "", a, b, c), fake.Keyed("test:p2", "panel", ""))))
	f.Take()

	// c moves to the front: c is reordered, a and b only shift, and an
	// insertion before them is no move of theirs.
	a, b, c = fake.Keyed("test:a", "label", "A"), fake.Keyed("test:b", "label", "B"), fake.Keyed("test:c", "label", "C")
	f.Update(numbered(&ids, fake.Keyed("test:app", "application", "app", fake.Keyed("test:p1", "panel", "", c, fake.Keyed("test:new", "label", "N"), a, b), fake.Keyed("test:p2", "panel", ""))))
	got := summaries(f.Take().Events)
	want := []string{
		`changed test:c parent=test:p1 index=0 path=[0 0] {"index":{"old":2,"new":0}}`,
		"added test:new parent=test:p1 index=1 path=[0 1]",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("reorder: got %q\nwant %q", got, want)
	}

	// b moves to another parent.
	a, b, c = fake.Keyed("test:a", "label", "A"), fake.Keyed("test:b", "label", "B"), fake.Keyed("test:c", "label", "C")
	f.Update(numbered(&ids, fake.Keyed("test:app", "application", "app", fake.Keyed("test:p1", "panel", "", c, fake.Keyed("test:new", "label", "N"), a), fake.Keyed("test:p2", "panel", "", b))))
	got = summaries(f.Take().Events)
	want = []string{`changed test:b parent=test:p2 index=0 path=[1 0] {"index":{"old":3,"new":0},"parentKey":{"old":"test:p1","new":"test:p2"}}`}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("move: got %q\nwant %q", got, want)
	}
}

func TestFeedFields(t *testing.T) {
	var ids IDs
	f := NewFeed("")
	f.Update(numbered(&ids, appTree("x")))
	f.Take()
	root := appTree("x")
	ok := root.Children[0].Children[0].Children[0]
	ok.States = fake.States("enabled", "sensitive", "showing", "visible", "focused")
	ok.Bounds = &platform.Rect{X: 1, Y: 2, Width: 3, Height: 4}
	f.Update(numbered(&ids, root))
	p := f.Take()
	if len(p.Events) != 1 {
		t.Fatalf("got %q", summaries(p.Events))
	}
	ch := p.Events[0].Changes
	if len(ch) != 2 || ch["bounds"].Old != (*platform.Rect)(nil) || ch["bounds"].New.(*platform.Rect).Width != 3 {
		t.Errorf("bounds change: %+v", ch)
	}
	if !reflect.DeepEqual(ch["states"].New, []string{"enabled", "focused", "sensitive", "showing", "visible"}) {
		t.Errorf("states change: %+v", ch["states"])
	}
}

func TestFeedRedactedNamesNeverShow(t *testing.T) {
	var ids IDs
	f := NewFeed("")
	pw := fake.Keyed("test:pw", "password text", "secret-1")
	f.Update(numbered(&ids, fake.Keyed("test:app", "application", "app", pw)))
	p := f.Take()
	pw = fake.Keyed("test:pw", "password text", "secret-2")
	f.Update(numbered(&ids, fake.Keyed("test:app", "application", "app", pw)))
	p2 := f.Take()
	b, _ := json.Marshal([]any{p.Events, p2.Events})
	if s := string(b); strings.Contains(s, "secret") {
		t.Fatalf("a password field's name leaked into a patch: %s", s)
	}
}

func TestFeedCapBecomesSnapshot(t *testing.T) {
	t.Parallel() // CPU-bound: the heavy tests run side by side
	synctest.Test(t, func(t *testing.T) {
		var ids IDs
		f := NewFeed("")
		rows := func(prefix string) *platform.Node {
			var kids []*platform.Node
			for i := range 4000 {
				kids = append(kids, fake.Keyed(fmt.Sprint("test:r", i), "label", fmt.Sprint(prefix, i)))
			}
			return fake.Keyed("test:app", "application", "app", kids...)
		}
		f.Update(numbered(&ids, rows("a")))
		f.Take()
		f.Update(numbered(&ids, rows("b"))) // 4,000 pending
		f.Update(numbered(&ids, rows("c"))) // 8,000
		if n := f.Pending(); n != 8000 {
			t.Fatalf("pending %d, want 8000", n)
		}
		f.Update(numbered(&ids, rows("d"))) // 12,000: past the cap
		p := f.Take()
		if !p.Snapshot || len(p.Events) != 4001 || f.Overflows() != 1 {
			t.Fatalf("past the cap: snapshot=%v, %d events, %d overflows; want a snapshot of the 4001 elements", p.Snapshot, len(p.Events), f.Overflows())
		}
		if e := p.Events[4000]; e.Element.Name != "d3999" {
			t.Fatalf("the snapshot is not of the latest read: %+v", e.Element)
		}
		// After the snapshot the feed goes on with changes.
		f.Update(numbered(&ids, rows("e")))
		if p := f.Take(); p.Snapshot || len(p.Events) != 4000 {
			t.Fatalf("after the snapshot: snapshot=%v, %d events", p.Snapshot, len(p.Events))
		}
	})
}

func TestFeedViewChangeAndTruncatedReads(t *testing.T) {
	var ids IDs
	f := NewFeed(ViewRaw)
	f.Update(numbered(&ids, appTree("x")))
	f.Take()
	// control drops the unnamed panel: the label hangs from the frame.
	f.SetView(ViewControl)
	f.Update(numbered(&ids, appTree("x")))
	p := f.Take()
	if !p.Snapshot {
		t.Fatal("a new view did not start with a snapshot")
	}
	for _, e := range p.Events {
		if e.Key == "test:panel" {
			t.Fatal("control view kept the structure-only panel")
		}
		if e.Key == "test:label" && e.ParentKey != "test:frame" {
			t.Fatalf("label's parent in control view: %s", e.ParentKey)
		}
	}
	// A truncated read proves nothing is gone.
	tr := numbered(&ids, fake.Keyed("test:app", "application", "app"))
	tr.Truncated = true
	if n := f.Update(tr); n != 0 {
		t.Fatalf("a truncated read made %d events", n)
	}
	if p := f.Take(); len(p.Events) != 0 {
		t.Fatalf("a truncated read made %q", summaries(p.Events))
	}
}

func TestIncreasing(t *testing.T) {
	pos := map[string]int{"a": 0, "b": 1, "c": 2, "d": 3, "e": 4}
	got := increasing([]string{"c", "a", "b", "e", "d"}, pos)
	if len(got) != 3 || !got["a"] || !got["b"] {
		t.Fatalf("got %v", got)
	}
}

// TestFeedValues: a value typed, changed or cleared is a changed field
// "value" with the old and new strings (null for none), and a password
// field's value never shows in a patch, even if a backend set one.
func TestFeedValues(t *testing.T) {
	str := func(s string) *string { return &s }
	form := func(name *string, count string, secret string) *platform.Node {
		entry := fake.Keyed("test:entry", "entry", "Name")
		entry.Value = name
		spin := fake.Keyed("test:spin", "spin button", "Count")
		spin.Value = str(count)
		pw := fake.Keyed("test:pw", "password text", "")
		pw.Value = str(secret)
		return appTree("x", entry, spin, pw)
	}
	var ids IDs
	f := NewFeed("")
	f.Update(numbered(&ids, form(nil, "5", "secret-1")))
	p0 := f.Take()
	f.Update(numbered(&ids, form(str("Ada"), "6", "secret-2")))
	p1 := f.Take()
	got := summaries(p1.Events)
	want := []string{
		`changed test:entry parent=test:panel index=2 path=[0 0 2] {"value":{"old":null,"new":"Ada"}}`,
		`changed test:spin parent=test:panel index=3 path=[0 0 3] {"value":{"old":"5","new":"6"}}`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("value changes:\n got %q\nwant %q", got, want)
	}
	f.Update(numbered(&ids, form(nil, "6", "secret-3")))
	p2 := f.Take()
	if got := summaries(p2.Events); len(got) != 1 || !strings.Contains(got[0], `{"value":{"old":"Ada","new":null}}`) {
		t.Fatalf("a value cleared: %q", got)
	}
	b, _ := json.Marshal([]any{p0.Events, p1.Events, p2.Events})
	if s := string(b); strings.Contains(s, "secret") {
		t.Fatalf("a password field's value leaked into a patch: %s", s)
	}
}
