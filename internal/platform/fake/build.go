package fake

import (
	"fmt"
	"strings"

	"github.com/uiscope/uiscope/internal/platform"
)

// Builders of the trees tests give a fake desktop (App.Tree, SetTree) or
// read straight into core. Names are platform's canonical role and state
// names; an unknown one panics, since it is a mistake in the test.
//
//	root := fake.Root("editor",
//		fake.Keyed("frame", "frame", "Editor",
//			fake.With(fake.Node("push button", "Save"), fake.Actions("click")),
//			fake.With(fake.Node("text", "Body"), fake.AddStates("editable"))))

// Shown is the states of an element on screen that takes input: enabled,
// sensitive, showing, visible. Node and Keyed give it.
const Shown = platform.StateSet(1)<<platform.StateEnabled | platform.StateSet(1)<<platform.StateSensitive |
	platform.StateSet(1)<<platform.StateShowing | platform.StateSet(1)<<platform.StateVisible

// Role is the role of that canonical name ("push button").
func Role(name string) platform.Role {
	r, ok := platform.RoleByName(name)
	if !ok {
		panic("fake: unknown role " + name)
	}
	return r
}

// States is the set of the named states ("focused", "editable").
func States(names ...string) platform.StateSet {
	var s platform.StateSet
	for _, n := range names {
		st, ok := platform.StateByName(n)
		if !ok {
			panic("fake: unknown state " + n)
		}
		s |= 1 << st
	}
	return s
}

// Node is an element with a role by its canonical name, a name, the
// states Shown and children kids. Its key is made of the role and the
// name ("test:1.1/push_button/Save"), so that a test can name it.
func Node(role, name string, kids ...*platform.Node) *platform.Node {
	return Keyed(fmt.Sprintf("test:1.1/%s/%s", strings.ReplaceAll(role, " ", "_"), name), role, name, kids...)
}

// Keyed is Node with the key given: an element a test renames and that
// stays the same element, or a tree whose keys the test chooses.
func Keyed(key, role, name string, kids ...*platform.Node) *platform.Node {
	return &platform.Node{Key: key, Role: Role(role), Name: name, States: Shown, ChildCount: len(kids), Children: kids}
}

// Root is an application's root element, key "root", named name, holding
// kids (as a toolkit's application element, it has no states).
func Root(name string, kids ...*platform.Node) *platform.Node {
	return &platform.Node{Key: "root", Role: platform.RoleApplication, Name: name, ChildCount: len(kids), Children: kids}
}

// An Edit changes a node With applies it to.
type Edit func(*platform.Node)

// With applies edits to n in order and returns n.
func With(n *platform.Node, edits ...Edit) *platform.Node {
	for _, e := range edits {
		e(n)
	}
	return n
}

// Actions sets the node's action names.
func Actions(a ...string) Edit { return func(n *platform.Node) { n.Actions = a } }

// Ifaces sets the node's interfaces ("component", "text", ...).
func Ifaces(i ...string) Edit { return func(n *platform.Node) { n.Interfaces = i } }

// AddStates adds the named states to the node's.
func AddStates(names ...string) Edit {
	st := States(names...)
	return func(n *platform.Node) { n.States |= st }
}

// SetStates replaces the node's states with the named ones.
func SetStates(names ...string) Edit {
	st := States(names...)
	return func(n *platform.Node) { n.States = st }
}

// Bounds sets the node's screen extents.
func Bounds(x, y, w, h int) Edit {
	return func(n *platform.Node) { n.Bounds = &platform.Rect{X: x, Y: y, Width: w, Height: h} }
}

// Desc sets the node's description.
func Desc(d string) Edit { return func(n *platform.Node) { n.Description = d } }
