//go:build linux

package atspi

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"

	"github.com/uiscope/uiscope/internal/platform"
)

const testBus = ":1.7"

func event(path, member, detail string, rect ...int32) *dbus.Signal {
	body := []any{detail, int32(0), int32(0), dbus.MakeVariant(int32(0)), map[string]dbus.Variant{}}
	if len(rect) == 4 {
		body[3] = dbus.MakeVariant([]any{rect[0], rect[1], rect[2], rect[3]})
	}
	return &dbus.Signal{Sender: testBus, Path: dbus.ObjectPath(path), Name: "org.a11y.atspi.Event.Object." + member, Body: body}
}

func node(path string, role platform.Role, kids ...*platform.Node) *platform.Node {
	return &platform.Node{Key: objRef{testBus, dbus.ObjectPath(path)}.key(), Role: role, ChildCount: len(kids), Children: kids}
}

// testMirror is a mirror of: root > frame > (pane > (list > a, b), bar), button.
func testMirror() *mirror {
	m := &mirror{bus: testBus, dirty: map[dbus.ObjectPath]dirt{}, rects: map[dbus.ObjectPath][4]int32{}}
	root := node(string(rootPath), platform.RoleApplication,
		node("/f", platform.RoleFrame,
			node("/pane", 51,
				node("/list", 49, node("/a", 0), node("/b", 0)),
				node("/bar", platform.RoleScrollBar)),
			node("/button", 43)))
	m.root, m.nodes, m.parent = root, map[dbus.ObjectPath]*platform.Node{}, map[dbus.ObjectPath]*platform.Node{}
	m.add(root, nil)
	return m
}

func plan(m *mirror, sigs ...*dbus.Signal) (walks, bounds []string) {
	for _, s := range sigs {
		m.note(s)
	}
	d, _, _ := m.take()
	w, b := m.plan(d)
	for _, p := range w {
		walks = append(walks, string(p))
	}
	for _, p := range b {
		bounds = append(bounds, string(p))
	}
	slices.Sort(walks)
	slices.Sort(bounds)
	return walks, bounds
}

func TestMirrorPlan(t *testing.T) {
	for _, c := range []struct {
		name          string
		sigs          []*dbus.Signal
		walks, bounds []string
	}{
		{"nothing", nil, nil, nil},
		{"caret moves are not in the tree", []*dbus.Signal{event("/a", "TextCaretMoved", "")}, nil, nil},
		{"a state change re-reads the element", []*dbus.Signal{event("/a", "StateChanged", "checked")}, []string{"/a"}, nil},
		{"a bounds change re-reads the subtree's bounds", []*dbus.Signal{event("/list", "BoundsChanged", "", 0, 0, 10, 10)}, nil, []string{"/list"}},
		{"inner changes fold into outer ones", []*dbus.Signal{
			event("/a", "StateChanged", "focused"), event("/list", "ChildrenChanged", "add"),
			event("/b", "BoundsChanged", "", 1, 2, 3, 4), event("/pane", "BoundsChanged", "", 1, 2, 3, 4),
		}, []string{"/list"}, []string{"/pane"}},
		{"a scroll bar's value re-reads its pane", []*dbus.Signal{event("/bar", "PropertyChange", "accessible-value")}, []string{"/pane"}, nil},
		{"another value re-reads the element", []*dbus.Signal{event("/button", "PropertyChange", "accessible-value")}, []string{"/button"}, nil},
		{"unknown elements are left to their parent's events", []*dbus.Signal{event("/gone", "StateChanged", "defunct")}, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			walks, bounds := plan(testMirror(), c.sigs...)
			if !slices.Equal(walks, c.walks) || !slices.Equal(bounds, c.bounds) {
				t.Errorf("walks %v bounds %v, want %v and %v", walks, bounds, c.walks, c.bounds)
			}
		})
	}
}

func TestMirrorSameAllocationIsNoChange(t *testing.T) {
	m := testMirror()
	if _, b := plan(m, event("/a", "BoundsChanged", "", 5, 5, 20, 20)); len(b) != 1 {
		t.Fatalf("the first allocation announced must be read: %v", b)
	}
	if _, b := plan(m, event("/a", "BoundsChanged", "", 5, 5, 20, 20)); len(b) != 0 {
		t.Fatalf("the same allocation again re-read %v", b)
	}
	if _, b := plan(m, event("/a", "BoundsChanged", "", 6, 5, 20, 20)); len(b) != 1 {
		t.Fatalf("a new allocation must be read: %v", b)
	}
	if _, b := plan(m, event("/a", "BoundsChanged", "")); len(b) != 1 {
		t.Fatalf("a bounds change without a rectangle must be read: %v", b)
	}
}

func TestMirrorReplace(t *testing.T) {
	m := testMirror()
	m.replace("/list", node("/list", 49, node("/c", 0)))
	if m.nodes["/a"] != nil || m.nodes["/c"] == nil || m.parent["/c"] != m.nodes["/list"] {
		t.Fatalf("index not updated: %v", m.nodes)
	}
	if got := m.nodes["/pane"].Children[0]; got != m.nodes["/list"] {
		t.Fatalf("the parent still holds the old subtree")
	}
	c := copyTree(m.root, false)
	c.Children[0].Name = "changed"
	if m.root.Children[0].Name == "changed" {
		t.Fatal("a copy shares nodes with the mirror")
	}
}

// TestDispatch: watchers are woken by changes but not by bounds changes,
// which go to the mirror; a barrier returns once what came before it is
// noted.
func TestDispatch(t *testing.T) {
	m := testMirror()
	ping := make(chan struct{}, 1)
	w := &watchers{subs: map[string]map[chan struct{}]bool{testBus: {ping: true}}, mirrors: map[string]*mirror{testBus: m}}
	w.sigs = make(chan *dbus.Signal, 16)
	go w.dispatch(w.sigs)
	defer close(w.sigs)
	ctx := context.Background()

	w.sigs <- event("/a", "BoundsChanged", "", 1, 2, 3, 4)
	if err := w.barrier(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ping:
		t.Fatal("a bounds change woke a watcher")
	default:
	}
	if d, _, _ := m.take(); d["/a"] != dirtBounds {
		t.Fatalf("the mirror did not note the bounds change: %v", d)
	}

	w.sigs <- event("/a", "StateChanged", "checked")
	if err := w.barrier(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ping:
	default:
		t.Fatal("a state change did not wake the watcher")
	}
	if d, _, _ := m.take(); d["/a"] != dirtAll {
		t.Fatalf("the mirror did not note the state change: %v", d)
	}
}

func TestMirrorVerify(t *testing.T) {
	m := testMirror()
	item := func(path string, role platform.Role, kids ...string) *cached {
		ci := &cached{node: *node(path, role), children: map[int32]objRef{}}
		ci.node.ChildCount = len(kids)
		for i, k := range kids {
			ci.children[int32(i)] = objRef{testBus, dbus.ObjectPath(k)}
		}
		return ci
	}
	cache := map[objRef]*cached{}
	for _, ci := range []*cached{
		item("/f", platform.RoleFrame, "/pane", "/button"),
		item("/pane", 51, "/bar", "/list"), // reordered
		item("/list", 49, "/a", "/b"),
		item("/a", 0), item("/b", 0), item("/bar", platform.RoleScrollBar),
		item("/button", 43),
	} {
		cache[objRef{testBus, dbus.ObjectPath(strings.TrimPrefix(ci.node.Key, "atspi:"+testBus))}] = ci
	}
	cache[objRef{testBus, "/b"}].node.States = platform.StateSetFromWords([]uint32{1 << platform.StateChecked})
	dirty := map[dbus.ObjectPath]dirt{}
	m.verify(cache, dirty)
	if len(dirty) != 1 || dirty["/b"] != dirtAll {
		t.Errorf("dirty %v, want /b only (its states changed)", dirty)
	}
	if got := m.nodes["/pane"].Children[0].Key; !strings.HasSuffix(got, "/bar") {
		t.Errorf("the pane's children were not reordered as the cache lists them: first %s", got)
	}

	cache[objRef{testBus, "/list"}] = item("/list", 49, "/a", "/c")
	dirty = map[dbus.ObjectPath]dirt{}
	m.verify(cache, dirty)
	if dirty["/list"] != dirtAll {
		t.Errorf("a list with another child is not read again: %v", dirty)
	}
}

// TestMirrorNotesFocus: a focus event says the focus moved, so that the
// element the mirror holds as focused is read again (Gecko announces the
// element that gains the focus, not always the one that loses it); other
// state changes do not.
func TestMirrorNotesFocus(t *testing.T) {
	m := testMirror()
	m.note(event("/a", "StateChanged", "checked"))
	if _, _, focus := m.take(); focus {
		t.Fatal("a checked change noted as a focus move")
	}
	m.note(event("/b", "StateChanged", "focused"))
	d, _, focus := m.take()
	if !focus || d["/b"] != dirtAll {
		t.Fatalf("a focus change: focus %v, dirt %v", focus, d)
	}
	if _, _, focus := m.take(); focus {
		t.Fatal("take did not clear the focus move")
	}
}
