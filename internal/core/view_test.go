package core

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
)

func TestRenderViews(t *testing.T) {
	tr := NewTree(sampleTree(), KindA11y)
	tests := []struct {
		name  string
		opts  ViewOptions
		shape string
		stats RenderStats
	}{
		{"raw default", ViewOptions{Depth: -1}, "e0(e1(e2(e3(e4 e5) e6) e7(e8) e9(e10)))", RenderStats{Nodes: 11}},
		{"raw explicit", ViewOptions{View: "raw", Depth: -1}, "e0(e1(e2(e3(e4 e5) e6) e7(e8) e9(e10)))", RenderStats{Nodes: 11}},
		{"control hoists", ViewOptions{View: "control", Depth: -1}, "e0(e1(e4 e5 e6 e8 e9(e10)))", RenderStats{Nodes: 8}},
		{"content", ViewOptions{View: "content", Depth: -1}, "e0(e1(e4 e5 e6 e9(e10)))", RenderStats{Nodes: 7}},
		{"scope on dropped node is shown", ViewOptions{View: "control", Depth: -1, Scope: 2}, "e2(e4 e5 e6)", RenderStats{Nodes: 4}},
		{"scope raw", ViewOptions{Depth: -1, Scope: 9}, "e9(e10)", RenderStats{Nodes: 2}},
		{"content scope without content", ViewOptions{View: "content", Depth: -1, Scope: 7}, "e7", RenderStats{Nodes: 1}},
		{"depth 0", ViewOptions{Depth: 0}, "e0+1", RenderStats{Nodes: 1, Omitted: 10}},
		{"depth 1", ViewOptions{Depth: 1}, "e0(e1+3)", RenderStats{Nodes: 2, Omitted: 9}},
		{"depth 2", ViewOptions{Depth: 2}, "e0(e1(e2+2 e7+1 e9+1))", RenderStats{Nodes: 5, Omitted: 6}},
		{"depth counts view levels", ViewOptions{View: "control", Depth: 2}, "e0(e1(e4 e5 e6 e8 e9+1))", RenderStats{Nodes: 7, Omitted: 1}},
		{"depth 0 with scope", ViewOptions{Depth: 0, Scope: 1}, "e1+3", RenderStats{Nodes: 1, Omitted: 9}},
		{"budget 1", ViewOptions{Depth: -1, MaxNodes: 1}, "e0+1", RenderStats{Nodes: 1, Omitted: 10, BudgetHit: true}},
		{"budget cuts breadth-first", ViewOptions{Depth: -1, MaxNodes: 5}, "e0(e1(e2+2 e7+1 e9+1))", RenderStats{Nodes: 5, Omitted: 6, BudgetHit: true}},
		{"budget cuts within a level", ViewOptions{Depth: -1, MaxNodes: 4}, "e0(e1+1(e2+2 e7+1))", RenderStats{Nodes: 4, Omitted: 7, BudgetHit: true}},
		{"budget exact fit", ViewOptions{Depth: -1, MaxNodes: 11}, "e0(e1(e2(e3(e4 e5) e6) e7(e8) e9(e10)))", RenderStats{Nodes: 11}},
		{"budget and view", ViewOptions{View: "control", Depth: -1, MaxNodes: 4}, "e0(e1+3(e4 e5))", RenderStats{Nodes: 4, Omitted: 4, BudgetHit: true}},
		{"budget and depth", ViewOptions{Depth: 2, MaxNodes: 3}, "e0(e1+2(e2+2))", RenderStats{Nodes: 3, Omitted: 8, BudgetHit: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, st, err := tr.Render(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := shape(e); got != tc.shape {
				t.Errorf("shape\n got %s\nwant %s", got, tc.shape)
			}
			if st.Cuts = nil; !reflect.DeepEqual(st, tc.stats) {
				t.Errorf("stats = %+v want %+v", st, tc.stats)
			}
			// Omitted + emitted is the size of the view under the scope,
			// whatever the depth and budget.
			full, fst, _ := tr.Render(ViewOptions{View: tc.opts.View, Depth: -1, Scope: tc.opts.Scope, MaxNodes: MaxMaxNodes})
			if st.Nodes+st.Omitted != fst.Nodes || fst.Omitted != 0 || count(full) != fst.Nodes {
				t.Errorf("nodes+omitted = %d, full view has %d", st.Nodes+st.Omitted, fst.Nodes)
			}
			if count(e) != st.Nodes {
				t.Errorf("emitted %d elements, stats say %d", count(e), st.Nodes)
			}
		})
	}
}

func count(e *Element) int {
	n := 1
	for _, c := range e.Children {
		n += count(c)
	}
	return n
}

func TestRenderDeterministic(t *testing.T) {
	tr := NewTree(bigTree(200), KindA11y)
	for _, view := range []string{"raw", "control", "content"} {
		a, _, _ := tr.Render(ViewOptions{View: view, Depth: -1, MaxNodes: 57})
		for range 5 {
			b, _, _ := tr.Render(ViewOptions{View: view, Depth: -1, MaxNodes: 57})
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("%s: renders differ", view)
			}
		}
	}
}

func TestRenderKeepsIDsAcrossViews(t *testing.T) {
	tr := NewTree(sampleTree(), KindA11y)
	e, _, _ := tr.Render(ViewOptions{View: "content", Depth: -1})
	save := e.Children[0].Children[0]
	if save.ID != "e4" || save.Ref != "a11y:e4" || save.Name != "Save" || save.ChildCount != 0 {
		t.Fatalf("content view changed ids: %+v", save)
	}
	// childCount stays the reported count even when the view hoists.
	if f := e.Children[0]; f.ChildCount != 3 || len(f.Children) != 4 {
		t.Fatalf("frame: childCount %d, %d children", f.ChildCount, len(f.Children))
	}
}

func TestStructureOnlyRule(t *testing.T) {
	// Each case: a structure-role container under a frame, holding a label.
	// It is dropped (label hoisted) only when nothing marks it as meaningful.
	tests := []struct {
		name    string
		node    *platform.Node
		dropped bool
	}{
		{"bare filler", fake.Node("filler", ""), true},
		{"bare panel", fake.Node("panel", ""), true},
		{"bare section", fake.Node("section", ""), true},
		{"bare grouping", fake.Node("grouping", ""), true},
		{"bare redundant object", fake.Node("redundant object", ""), true},
		{"bare unknown", fake.Node("unknown", ""), true},
		{"bare invalid", fake.Node("invalid", ""), true},
		{"bare viewport", fake.Node("viewport", ""), true},
		{"bare layered pane", fake.Node("layered pane", ""), true},
		{"bare glass pane", fake.Node("glass pane", ""), true},
		{"bare root pane", fake.Node("root pane", ""), true},
		{"whitespace name", fake.Node("panel", "  "), true},
		{"accessible id alone", fake.With(fake.Node("panel", ""), func(n *platform.Node) { n.AccessibleID = "MainWindow.central" }), true},
		{"component interface", fake.With(fake.Node("panel", ""), fake.Ifaces("accessible", "component")), true},
		{"named panel", fake.Node("panel", "Options"), false},
		{"described panel", fake.With(fake.Node("panel", ""), fake.Desc("Options")), false},
		{"panel with action", fake.With(fake.Node("panel", ""), fake.Actions("click")), false},
		{"focusable panel", fake.With(fake.Node("panel", ""), fake.AddStates("focusable")), false},
		{"panel with text", fake.With(fake.Node("panel", ""), fake.Ifaces("text")), false},
		{"panel with editabletext", fake.With(fake.Node("panel", ""), fake.Ifaces("EditableText")), false},
		{"panel with value", fake.With(fake.Node("panel", ""), fake.Ifaces("value")), false},
		{"panel with selection", fake.With(fake.Node("panel", ""), fake.Ifaces("selection")), false},
		{"panel with table", fake.With(fake.Node("panel", ""), fake.Ifaces("table")), false},
		{"panel with error", fake.With(fake.Node("panel", ""), func(n *platform.Node) { n.Err = "timeout" }), false},
		{"panel with unfetched children", fake.With(fake.Node("panel", ""), func(n *platform.Node) { n.ChildCount = 5 }), false},
		{"bare separator (not a structure role)", fake.Node("separator", ""), false},
		{"bare scroll pane (not a structure role)", fake.Node("scroll pane", ""), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.node
			c.Children = append(c.Children, fake.Node("label", "x"))
			c.ChildCount = max(c.ChildCount, 1)
			tr := NewTree(fake.Node("frame", "f", c), KindA11y)
			e, _, err := tr.Render(ViewOptions{View: "control", Depth: -1})
			if err != nil {
				t.Fatal(err)
			}
			want := "e0(e1(e2))"
			if tc.dropped {
				want = "e0(e2)"
			}
			if got := shape(e); got != want {
				t.Errorf("control: got %s want %s", got, want)
			}
		})
	}
}

func TestContentRule(t *testing.T) {
	// Each case: a leaf under a frame. Kept in content view when it carries
	// content.
	tests := []struct {
		name string
		node *platform.Node
		kept bool
	}{
		{"named label", fake.Node("label", "Hello"), true},
		{"described image", fake.With(fake.Node("image", ""), fake.Desc("logo")), true},
		{"text interface", fake.With(fake.Node("text", ""), fake.Ifaces("text")), true},
		{"editable", fake.With(fake.Node("entry", ""), fake.Ifaces("editabletext")), true},
		{"value", fake.With(fake.Node("slider", ""), fake.Ifaces("value")), true},
		{"action", fake.With(fake.Node("push button", ""), fake.Actions("click")), true},
		{"password", fake.Node("password text", "x"), true},
		{"error", fake.With(fake.Node("separator", ""), func(n *platform.Node) { n.Err = "gone" }), true},
		{"unfetched children", fake.With(fake.Node("list", ""), func(n *platform.Node) { n.ChildCount = 1000 }), true},
		{"bare separator", fake.Node("separator", ""), false},
		{"bare image", fake.Node("image", ""), false},
		{"whitespace label", fake.Node("label", " \t"), false},
		{"focusable only", fake.With(fake.Node("canvas", ""), fake.AddStates("focusable")), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTree(fake.Node("frame", "", tc.node), KindA11y)
			e, _, err := tr.Render(ViewOptions{View: "content", Depth: -1})
			if err != nil {
				t.Fatal(err)
			}
			want := "e0"
			if tc.kept {
				want = "e0(e1)"
			}
			if got := shape(e); got != want {
				t.Errorf("content: got %s want %s", got, want)
			}
		})
	}
	// Ancestors needed to reach content are kept (unless structure-only).
	tr := NewTree(fake.Node("frame", "",
		fake.Node("list", "", fake.Node("panel", "", fake.Node("list item", "", fake.Node("label", "deep")))),
		fake.Node("list", "", fake.Node("list item", "")),
	), KindA11y)
	e, _, _ := tr.Render(ViewOptions{View: "content", Depth: -1})
	if got, want := shape(e), "e0(e1(e3(e4)))"; got != want {
		t.Errorf("content ancestors: got %s want %s", got, want)
	}
}

func TestVisibleRule(t *testing.T) {
	// Each case: a leaf in a frame at 100,100 400x300. Kept in the visible
	// view when it is on screen.
	hidden := fake.SetStates("enabled", "sensitive")
	noShowing := fake.SetStates("enabled", "sensitive", "visible")
	tests := []struct {
		name string
		node *platform.Node
		kept bool
	}{
		{"showing inside", fake.With(fake.Node("push button", "OK"), fake.Bounds(120, 120, 80, 30)), true},
		{"showing across the edge", fake.With(fake.Node("push button", "OK"), fake.Bounds(480, 380, 80, 30)), true},
		{"showing outside the window", fake.With(fake.Node("push button", "OK"), fake.Bounds(120, 420, 80, 30)), false},
		{"scrolled far away", fake.With(fake.Node("label", "row 900"), fake.Bounds(120, 27100, 80, 30)), false},
		{"showing, no bounds", fake.Node("push button", "OK"), false},
		{"showing, empty bounds", fake.With(fake.Node("push button", "OK"), fake.Bounds(120, 120, 0, 30)), false},
		{"not showing nor visible, bounds inside", fake.With(fake.Node("push button", "OK"), fake.Bounds(120, 120, 80, 30), hidden), false},
		// GTK 2's open menu items and GTK 4's widgets: visible, no
		// SHOWING; their bounds decide.
		{"visible without showing, bounds inside", fake.With(fake.Node("menu item", "New..."), fake.Bounds(120, 150, 300, 25), noShowing), true},
		{"visible without showing, no bounds (a closed menu)", fake.With(fake.Node("menu item", "New..."), noShowing), false},
		{"visible without showing, outside", fake.With(fake.Node("menu item", "New..."), fake.Bounds(900, 150, 300, 25), noShowing), false},
		{"window unknown, showing", fake.With(fake.Node("push button", "OK"), func(n *platform.Node) { n.BoundsUnknown = true }), true},
		{"window unknown, visible only", fake.With(fake.Node("push button", "OK"), noShowing, func(n *platform.Node) { n.BoundsUnknown = true }), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTree(fake.Root("app", fake.With(fake.Node("frame", "Main", tc.node), fake.Bounds(100, 100, 400, 300))), KindA11y)
			e, _, err := tr.Render(ViewOptions{View: ViewVisible, Depth: -1})
			if err != nil {
				t.Fatal(err)
			}
			want := "e0(e1)"
			if tc.kept {
				want = "e0(e1(e2))"
			}
			if got := shape(e); got != want {
				t.Errorf("visible: got %s want %s", got, want)
			}
		})
	}

	// Ancestors of what is on screen are kept, hidden or not (a GTK 2
	// menu, whose items show in a popup window of their own); layout-only
	// containers drop as in control; a hidden top level (a closed popup)
	// drops whole, and so does the subtree of a closed menu.
	w := fake.With
	tr := NewTree(fake.Root("app",
		w(fake.Node("frame", "Main",
			fake.Node("panel", "",
				w(fake.Node("menu bar", "",
					w(fake.Node("menu", "File",
						w(fake.Node("menu item", "New..."), fake.Bounds(102, 122, 200, 25), noShowing),
						w(fake.Node("menu", "Recent",
							w(fake.Node("menu item", "a.txt"), noShowing),
						), fake.Bounds(102, 147, 200, 25), noShowing),
					), fake.Bounds(100, 100, 40, 20)),
					w(fake.Node("menu", "Edit",
						w(fake.Node("menu item", "Undo"), noShowing),
					), fake.Bounds(140, 100, 40, 20)),
				), fake.Bounds(100, 100, 400, 20)),
			),
			w(fake.Node("scroll pane", "",
				w(fake.Node("text", ""), fake.Bounds(100, 120, 400, 280), fake.Ifaces("component", "text")),
			), fake.Bounds(100, 120, 400, 280)),
		), fake.Bounds(100, 100, 400, 300)),
		w(fake.Node("window", "",
			w(fake.Node("menu", "Context", w(fake.Node("menu item", "Copy"), hidden)), hidden),
		), hidden),
	), KindA11y)
	e, _, err := tr.Render(ViewOptions{View: ViewVisible, Depth: -1})
	if err != nil {
		t.Fatal(err)
	}
	// The panel e2 (structure-only) hoists the menu bar; the menu Edit e8
	// stays (on screen in the menu bar), its item e9 goes; a.txt e7, in a
	// submenu never opened, goes; the hidden window e12 goes whole.
	if got, want := shape(e), "e0(e1(e3(e4(e5 e6) e8) e10(e11)))"; got != want {
		t.Errorf("visible: got %s want %s", got, want)
	}
}

func TestRenderOptionErrors(t *testing.T) {
	tr := NewTree(sampleTree(), KindA11y)
	tests := []struct {
		opts ViewOptions
		is   error
		msg  string
	}{
		{ViewOptions{View: "tree"}, ErrInvalidArgument, `unknown view "tree"`},
		{ViewOptions{View: "Raw"}, ErrInvalidArgument, "raw, control, content or visible"},
		{ViewOptions{Depth: -2}, ErrInvalidArgument, "depth -2"},
		{ViewOptions{MaxNodes: -1}, ErrInvalidArgument, "maxNodes -1"},
		{ViewOptions{MaxNodes: MaxMaxNodes + 1}, ErrInvalidArgument, "maxNodes 100001"},
		{ViewOptions{Scope: 11}, ErrUnknownRef, "re-read the tree"},
		{ViewOptions{Scope: -3}, ErrUnknownRef, "position -3"},
	}
	for _, tc := range tests {
		_, _, err := tr.Render(tc.opts)
		if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Render(%+v) err = %v; want %v containing %q", tc.opts, err, tc.is, tc.msg)
		}
		_, _, err = tr.Outline(tc.opts)
		if !errors.Is(err, tc.is) {
			t.Errorf("Outline(%+v) err = %v; want %v", tc.opts, err, tc.is)
		}
	}
	// Boundaries that are fine.
	for _, o := range []ViewOptions{{Depth: -1}, {Depth: 0}, {MaxNodes: MaxMaxNodes}, {MaxNodes: 1}, {Scope: 10}} {
		if _, _, err := tr.Render(o); err != nil {
			t.Errorf("Render(%+v): %v", o, err)
		}
	}
}

func TestRenderDefaultBudget(t *testing.T) {
	// A flat list of 2500 rows: the default budget is 2000 nodes.
	rows := make([]*platform.Node, 2500)
	for i := range rows {
		rows[i] = fake.Node("list item", "row")
	}
	tr := NewTree(fake.Node("list", "rows", rows...), KindA11y)
	e, st, err := tr.Render(ViewOptions{Depth: -1})
	if err != nil {
		t.Fatal(err)
	}
	if st.Nodes != DefaultMaxNodes || st.Omitted != 2501-DefaultMaxNodes || !st.BudgetHit {
		t.Fatalf("stats = %+v", st)
	}
	if len(e.Children) != DefaultMaxNodes-1 || e.ChildrenOmitted != 2500-(DefaultMaxNodes-1) {
		t.Fatalf("children %d omitted %d", len(e.Children), e.ChildrenOmitted)
	}
}

func TestRenderDeepTree(t *testing.T) {
	t.Parallel() // CPU-bound: the heavy tests run side by side
	// A very deep chain renders without trouble (iterative walks).
	const depth = 20000
	root := fake.Node("frame", "top")
	cur := root
	for range depth {
		c := fake.Node("panel", "")
		cur.Children, cur.ChildCount = []*platform.Node{c}, 1
		cur = c
	}
	cur.Children, cur.ChildCount = []*platform.Node{fake.Node("label", "bottom")}, 1
	tr := NewTree(root, KindA11y)
	e, st, err := tr.Render(ViewOptions{View: "control", Depth: -1})
	if err != nil {
		t.Fatal(err)
	}
	if st.Nodes != 2 || len(e.Children) != 1 || e.Children[0].Name != "bottom" {
		t.Fatalf("deep control view: %+v, %s", st, shape(e))
	}
	if got := tr.Ancestors(depth + 1); len(got) != depth+1 {
		t.Fatalf("ancestors of the bottom: %d", len(got))
	}
}
