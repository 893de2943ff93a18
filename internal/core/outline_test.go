package core

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
)

// bigTree builds a realistic application window of about n nodes (n >= 50):
// menus, a tool bar, a form, a list of rows and a status bar, wrapped in
// the filler/panel layers toolkits add, with AT-SPI-like keys, states,
// bounds, interfaces and actions.
func bigTree(n int) *platform.Node {
	seq := 0
	mk := func(role, name string, edits ...fake.Edit) *platform.Node {
		seq++
		x := fake.With(fake.Node(role, name), edits...)
		x.Key = fmt.Sprintf("atspi::1.%d/org/a11y/atspi/accessible/%d", 42, 1000+seq)
		x.Interfaces = append([]string{"accessible", "component"}, x.Interfaces...)
		x.Bounds = &platform.Rect{X: 10 * (seq % 50), Y: 20 * (seq % 30), Width: 80 + seq%7, Height: 24}
		return x
	}
	add := func(p *platform.Node, kids ...*platform.Node) *platform.Node {
		p.Children = append(p.Children, kids...)
		p.ChildCount = len(p.Children)
		return p
	}
	frame := mk("frame", "Untitled Document 1 - Text Editor", fake.AddStates("active", "resizable"))
	menubar := mk("menu bar", "")
	for _, m := range []string{"File", "Edit", "View", "Help"} {
		menu := mk("menu", m, fake.Actions("click"), fake.Ifaces("action", "selection"), fake.AddStates("selectable"))
		for i := range 5 {
			add(menu, mk("menu item", fmt.Sprintf("%s item %d", m, i+1), fake.Actions("click"), fake.Ifaces("action", "text"), fake.AddStates("selectable")))
		}
		add(menubar, menu)
	}
	toolbar := mk("tool bar", "")
	for _, b := range []string{"New", "Open", "Save", "Undo", "Redo", "Cut", "Copy", "Paste"} {
		add(toolbar, add(mk("filler", ""), mk("push button", b, fake.Actions("click"), fake.Ifaces("action", "image"), fake.AddStates("focusable"))))
	}
	form := mk("panel", "")
	for _, f := range []string{"Title", "Author", "Tags"} {
		add(form,
			mk("label", f+":", fake.Ifaces("text")),
			mk("text", "", fake.Ifaces("text", "editabletext"), fake.AddStates("editable", "focusable", "single-line")),
		)
	}
	add(form, mk("password text", "secret", fake.Ifaces("text", "editabletext"), fake.AddStates("editable", "focusable")))
	add(form, mk("check box", "Remember me", fake.Actions("click"), fake.Ifaces("action"), fake.AddStates("checkable", "focusable")))
	list := mk("list", "Recent files", fake.Ifaces("selection", "table"), fake.AddStates("focusable", "manages-descendants"))
	status := mk("status bar", "", fake.Ifaces("text"))
	add(status, mk("label", "Ln 1, Col 1", fake.Ifaces("text")))
	body := add(mk("filler", ""), add(mk("panel", ""), toolbar, form), add(mk("scroll pane", ""), list), status)
	add(frame, menubar, body)
	app := add(mk("application", "gedit"), frame)
	for i := 0; seq < n; i++ {
		add(list, mk("list item", fmt.Sprintf("document-%03d.txt", i), fake.Actions("activate"), fake.Ifaces("action", "text"), fake.AddStates("selectable", "focusable")))
	}
	return app
}

func TestOutlineFormat(t *testing.T) {
	tr := NewTree(sampleTree(), KindA11y)
	got, st, err := tr.Outline(ViewOptions{Depth: -1})
	if err != nil {
		t.Fatal(err)
	}
	want := `application "demo" [a11y:e0]
  frame "Main" [a11y:e1] @0,0 640x480
    filler [a11y:e2]
      panel [a11y:e3]
        push button "Save" [a11y:e4] focused @10,20 80x30
        password text (redacted) [a11y:e5] editable
      label "Status" [a11y:e6]
    panel [a11y:e7]
      separator [a11y:e8]
    menu bar [a11y:e9]
      menu "File" [a11y:e10]
`
	if got != want {
		t.Fatalf("outline\n got:\n%s\nwant:\n%s", got, want)
	}
	if st.Nodes != 11 || st.Omitted != 0 {
		t.Fatalf("stats %+v", st)
	}

	got, _, _ = tr.Outline(ViewOptions{View: "control", Depth: 1})
	want = `application "demo" [a11y:e0]
  frame "Main" [a11y:e1] @0,0 640x480
    … 5 more
`
	if got != want {
		t.Fatalf("outline depth 1\n got:\n%s\nwant:\n%s", got, want)
	}

	got, _, _ = tr.Outline(ViewOptions{Depth: -1, MaxNodes: 3})
	want = `application "demo" [a11y:e0]
  frame "Main" [a11y:e1] @0,0 640x480
    filler [a11y:e2]
      … 2 more
    … 2 more
`
	if got != want {
		t.Fatalf("outline budget\n got:\n%s\nwant:\n%s", got, want)
	}
}

func TestOutlineLine(t *testing.T) {
	long := strings.Repeat("é", 100)
	tests := []struct {
		name string
		node *platform.Node
		want string
	}{
		{"plain", fake.Node("label", "Hi"), `label "Hi" [a11y:e0]`},
		{"no name", fake.Node("separator", ""), `separator [a11y:e0]`},
		{"escaping", fake.Node("label", "a \"b\"\n\tc\x00"), `label "a \"b\"\n\tc\x00" [a11y:e0]`},
		{"unicode kept", fake.Node("label", "Größe 日本"), `label "Größe 日本" [a11y:e0]`},
		{"cut at 80 runes", fake.Node("label", long), `label "` + strings.Repeat("é", 80) + `…" [a11y:e0]`},
		{"exactly 80 runes", fake.Node("label", strings.Repeat("x", 80)), `label "` + strings.Repeat("x", 80) + `" [a11y:e0]`},
		{"redacted", fake.Node("password text", "pw"), `password text (redacted) [a11y:e0]`},
		{"focused checked", fake.With(fake.Node("check box", "A"), fake.AddStates("focused", "checked")), `check box "A" [a11y:e0] focused checked`},
		{"selected", fake.With(fake.Node("list item", "A"), fake.AddStates("selected", "selectable")), `list item "A" [a11y:e0] selected`},
		{"expanded", fake.With(fake.Node("tree item", "A"), fake.AddStates("expandable", "expanded")), `tree item "A" [a11y:e0] expanded`},
		{"collapsed computed", fake.With(fake.Node("tree item", "A"), fake.AddStates("expandable")), `tree item "A" [a11y:e0] collapsed`},
		{"collapsed state set", fake.With(fake.Node("tree item", "A"), fake.AddStates("expandable", "collapsed")), `tree item "A" [a11y:e0] collapsed`},
		{"collapsed without expandable", fake.With(fake.Node("tree item", "A"), fake.AddStates("collapsed")), `tree item "A" [a11y:e0]`},
		{"pressed", fake.With(fake.Node("toggle button", "B"), fake.AddStates("pressed")), `toggle button "B" [a11y:e0] pressed`},
		{"indeterminate", fake.With(fake.Node("check box", "C"), fake.AddStates("indeterminate")), `check box "C" [a11y:e0] indeterminate`},
		{"editable", fake.With(fake.Node("text", ""), fake.AddStates("editable")), `text [a11y:e0] editable`},
		{"disabled", fake.With(fake.Node("push button", "D"), fake.SetStates("showing", "visible")), `push button "D" [a11y:e0] disabled`},
		{"gtk4 sensitive only", fake.With(fake.Node("push button", "D"), fake.SetStates("sensitive", "showing")), `push button "D" [a11y:e0]`},
		{"enabled only", fake.With(fake.Node("push button", "D"), fake.SetStates("enabled")), `push button "D" [a11y:e0]`},
		{"no states read", fake.With(fake.Node("push button", "D"), fake.SetStates()), `push button "D" [a11y:e0]`},
		{"noise states hidden", fake.With(fake.Node("push button", "D"), fake.AddStates("focusable", "showing", "visible", "active", "opaque")), `push button "D" [a11y:e0]`},
		{"all key states in order", fake.With(fake.Node("toggle button", "E"), fake.SetStates("editable", "indeterminate", "pressed", "expandable", "selected", "checked", "focused")),
			`toggle button "E" [a11y:e0] focused checked selected collapsed pressed indeterminate editable disabled`},
		{"bounds", fake.With(fake.Node("label", "L"), fake.Bounds(-5, 7, 100, 20)), `label "L" [a11y:e0] @-5,7 100x20`},
		{"empty bounds", fake.With(fake.Node("label", "L"), fake.Bounds(5, 7, 0, 20)), `label "L" [a11y:e0]`},
		{"error", fake.With(fake.Node("label", "L"), func(n *platform.Node) { n.Err = "timed out" }), `label "L" [a11y:e0] error="timed out"`},
		{"value", fake.With(fake.Node("text", "User"), value("alice")), `text "User" = "alice" [a11y:e0]`},
		{"value equal to the name", fake.With(fake.Node("text", "alice"), value("alice")), `text "alice" = "alice" [a11y:e0]`},
		{"cell named by its text", fake.With(fake.Node("table cell", "root"), value("root")), `table cell "root" [a11y:e0]`},
		{"cell with other text", fake.With(fake.Node("table cell", "A1"), value("42")), `table cell "A1" = "42" [a11y:e0]`},
		{"unnamed cell", fake.With(fake.Node("table cell", ""), value("42")), `table cell = "42" [a11y:e0]`},
		{"empty cell", fake.With(fake.Node("table cell", ""), value("")), `table cell [a11y:e0]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTree(tc.node, KindA11y)
			got, ok := tr.OutlineLine(0)
			if !ok || got != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
		})
	}
	tr := NewTree(fake.Node("label", "x"), KindVisual)
	if got, _ := tr.OutlineLine(0); got != `label "x" [visual:e0]` {
		t.Errorf("visual ref: %s", got)
	}
	if _, ok := tr.OutlineLine(1); ok {
		t.Error("OutlineLine(1) found")
	}
}

func TestOutlineMuchSmallerThanJSON(t *testing.T) {
	tr := NewTree(bigTree(200), KindA11y)
	if tr.Len() < 190 || tr.Len() > 210 {
		t.Fatalf("bigTree has %d nodes", tr.Len())
	}
	for _, view := range []string{"raw", "control", "content"} {
		opts := ViewOptions{View: view, Depth: -1}
		e, est, err := tr.Render(opts)
		if err != nil {
			t.Fatal(err)
		}
		js, _ := json.Marshal(e)
		out, ost, err := tr.Outline(opts)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(est, ost) {
			t.Errorf("%s: stats differ: %+v vs %+v", view, est, ost)
		}
		if lines := strings.Count(out, "\n"); lines != ost.Nodes {
			t.Errorf("%s: %d lines for %d nodes", view, lines, ost.Nodes)
		}
		t.Logf("%s: %d nodes, json %d bytes, outline %d bytes (%.0f%%)", view, est.Nodes, len(js), len(out), 100*float64(len(out))/float64(len(js)))
		if 2*len(out) >= len(js) {
			t.Errorf("%s: outline %d bytes is not under half of the JSON's %d", view, len(out), len(js))
		}
		if strings.Contains(out, "secret") || strings.Contains(string(js), "secret") {
			t.Errorf("%s: password leaked", view)
		}
	}
}

// A partial container's outline line says which children it holds, of how
// many.
func TestOutlinePartialContainer(t *testing.T) {
	pt := func(v int) *int { return &v }
	table := fake.Node("table", "Sheet1")
	table.ChildCount = 2147483647
	table.ChildrenPartial = true
	table.ChildrenRange = &platform.ChildRange{Rows: &[2]int{0, 24}, Columns: &[2]int{0, 7}, RowCount: pt(1048576), ColumnCount: pt(16384)}
	list := fake.Node("list", "Files")
	list.ChildCount = 5000
	list.ChildrenPartial = true
	list.ChildrenRange = &platform.ChildRange{First: pt(120), Count: pt(32)}
	hidden := fake.Node("list", "Hidden")
	hidden.ChildCount = 5000
	hidden.ChildrenPartial = true
	hidden.ChildrenRange = &platform.ChildRange{First: pt(0), Count: pt(0)}
	doc := fake.Node("document text", "Report")
	doc.ChildCount = 22
	doc.ChildrenPartial = true
	doc.ChildrenRange = &platform.ChildRange{First: pt(0), Count: pt(22), MoreBefore: true, MoreAfter: true}
	root := fake.Node("frame", "W")
	root.Children = []*platform.Node{table, list, hidden, doc}
	tr := NewTree(root, KindA11y)
	for id, want := range map[int]string{
		1: `table "Sheet1" [a11y:e1] (rows 0–24, columns 0–7 on screen of 1048576×16384)`,
		2: `list "Files" [a11y:e2] (children 120–151 on screen of 5000)`,
		3: `list "Hidden" [a11y:e3] (none on screen of 5000)`,
		4: `document text "Report" [a11y:e4] (only what is on screen; more before and after)`,
	} {
		if got, _ := tr.OutlineLine(id); got != want {
			t.Errorf("line %d:\n got %s\nwant %s", id, got, want)
		}
	}
}

// value sets the node's value (what a control holds).
func value(v string) fake.Edit { return func(n *platform.Node) { n.Value = &v } }
