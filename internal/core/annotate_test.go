package core

import (
	"image"
	"image/color"
	"image/draw"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
)

func TestMarkable(t *testing.T) {
	n := func(role string, edits ...fake.Edit) *platform.Node { return fake.With(fake.Node(role, "x"), edits...) }
	chromium := fake.Actions("doDefault", "showContextMenu")
	for _, c := range []struct {
		what string
		kind string
		n    *platform.Node
		want markKind
	}{
		{"a button without actions", KindA11y, n("push button"), markOne},
		{"a check box", KindA11y, n("check box", fake.Actions("check")), markOne},
		{"a menu of a menu bar", KindA11y, n("menu"), markOne},
		{"a page's paragraph with Chromium's action", KindA11y, n("paragraph", chromium), markNone},
		{"static text with an action", KindA11y, n("static", chromium), markNone},
		{"a label", KindA11y, n("label"), markNone},
		{"a focusable panel", KindA11y, n("panel", fake.AddStates("focusable")), markNone},
		{"a focusable split pane", KindA11y, n("split pane", fake.AddStates("focusable")), markNone},
		{"a focusable page document", KindA11y, n("document web", fake.AddStates("focusable")), markNone},
		{"a table cell that acts", KindA11y, n("table cell", fake.AddStates("focusable", "selectable"), fake.Actions("activate")), markNone},
		{"a column header that sorts", KindA11y, n("table column header", fake.Actions("click")), markNone},
		{"a list item", KindA11y, n("list item", fake.AddStates("focusable", "selectable")), markNone},
		{"a tree table", KindA11y, n("tree table", fake.AddStates("focusable"), fake.Ifaces("selection")), markOne},
		{"a table", KindA11y, n("table"), markOne},
		{"a list box", KindA11y, n("list box"), markOne},
		{"a page's bulleted list", KindA11y, n("list", chromium), markNone},
		{"a list that selects", KindA11y, n("list", fake.Ifaces("selection")), markOne},
		{"an editable text view", KindA11y, n("text", fake.AddStates("focusable", "editable")), markWhole},
		{"a spreadsheet", KindA11y, n("document spreadsheet", fake.AddStates("editable")), markWhole},
		{"an editable paragraph", KindA11y, n("paragraph", fake.AddStates("editable")), markWhole},
		{"a password field", KindA11y, n("password text"), markWhole},
		{"a redacted label", KindA11y, fake.With(n("label"), func(n *platform.Node) { n.Redacted = true }), markWhole},
		{"a focusable drawing area", KindA11y, n("drawing area", fake.AddStates("focusable")), markOne},
		{"a read-only text with a value", KindA11y, n("text", fake.Ifaces("value")), markOne},
		{"a plain text", KindA11y, n("text"), markNone},
		{"a progress bar's value", KindA11y, n("progress bar", fake.Ifaces("value")), markNone},
		{"a scroll bar", KindA11y, n("scroll bar", fake.Ifaces("value")), markNone},
		{"a shown window (Tk)", KindVisual, n("window"), markOne},
		{"a hidden window", KindVisual, n("window", fake.SetStates()), markNone},
		{"a button in a window tree", KindVisual, n("push button"), markNone},
	} {
		if got := markable(c.kind, c.n); got != c.want {
			t.Errorf("%s (%s): markable %d, want %d", c.what, c.n.Role, got, c.want)
		}
	}
}

func TestPickMarks(t *testing.T) {
	a, b, c := image.Rect(0, 0, 100, 100), image.Rect(10, 10, 30, 20), image.Rect(40, 10, 60, 20)
	for _, tc := range []struct {
		what  string
		cands []markCand
		want  []int
	}{
		{"a split pane and the text view with its box: the text view",
			[]markCand{{id: 1, end: 4, box: a}, {id: 2, end: 4, box: a}, {id: 3, end: 4, box: a}}, []int{2}},
		{"the inner one takes the outer one's place in the order",
			[]markCand{{id: 1, end: 3, box: b}, {id: 2, end: 3, box: b}, {id: 3, end: 4, box: c}}, []int{1, 2}},
		{"siblings with one box: the first",
			[]markCand{{id: 1, end: 2, box: b}, {id: 2, end: 3, box: b}}, []int{0}},
		{"different boxes: all, in order",
			[]markCand{{id: 1, end: 9, box: a}, {id: 2, end: 3, box: b}, {id: 3, end: 4, box: c}}, []int{0, 1, 2}},
		{"none", nil, nil},
	} {
		got := pickMarks(tc.cands)
		if len(got) != len(tc.want) {
			t.Errorf("%s: %v, want %v", tc.what, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: %v, want %v", tc.what, got, tc.want)
				break
			}
		}
	}
}

// inked is a busy function for placeLabel over ink: the share of r the
// rectangles in ink cover (text drawn there).
func inked(ink ...image.Rectangle) func(image.Rectangle) float64 {
	return func(r image.Rectangle) float64 {
		if r.Empty() {
			return 0
		}
		n := 0
		for _, k := range ink {
			in := k.Intersect(r)
			n += in.Dx() * in.Dy()
		}
		return float64(n) / float64(r.Dx()*r.Dy())
	}
}

func TestPlaceLabel(t *testing.T) {
	img := image.Rect(0, 0, 400, 300)
	size := image.Pt(20, 15)
	button := image.Rect(100, 100, 160, 124)
	text := image.Rect(110, 105, 150, 119) // the button's own text
	clear := func(what string, r image.Rectangle, boxes ...image.Rectangle) {
		t.Helper()
		if r.Size() != size || !r.In(img) {
			t.Errorf("%s: label at %v, want %v inside %v", what, r, size, img)
		}
		for _, b := range boxes {
			if r.Overlaps(b) {
				t.Errorf("%s: label at %v covers %v", what, r, b)
			}
		}
	}
	// Free space all round: above the box, at its left end.
	r := placeLabel(button, size, img, []image.Rectangle{button}, nil, inked(text))
	clear("free space", r, button)
	if r.Max.Y > button.Min.Y || r.Min.X != button.Min.X {
		t.Errorf("free space: label at %v, want above %v at its left end", r, button)
	}
	// Static text above it (the "1 of 3 done" line over a list): not
	// covered when there is room elsewhere.
	status := image.Rect(90, 80, 200, 98)
	r = placeLabel(button, size, img, []image.Rectangle{button}, nil, inked(text, status))
	clear("text above", r, button, status)
	// At the image's top edge, with neighbours on both sides (a tool
	// bar): below it.
	top := image.Rect(100, 0, 140, 30)
	left, right := image.Rect(60, 0, 100, 30), image.Rect(140, 0, 180, 30)
	boxes := []image.Rectangle{left, top, right}
	r = placeLabel(top, size, img, boxes, nil, inked())
	clear("a tool bar at the top", r, left, top, right)
	// Beside the labels placed already, never on them.
	placed := []image.Rectangle{image.Rect(100, 83, 120, 98)}
	r = placeLabel(button, size, img, []image.Rectangle{button}, placed, inked(text))
	clear("another label above", r, button, placed[0].Inset(-1))
	// A box that fills the image: inside it, in a corner its text leaves
	// plain.
	whole := image.Rect(0, 0, 400, 300)
	words := image.Rect(0, 0, 200, 40) // text along its top-left
	r = placeLabel(whole, size, img, []image.Rectangle{whole}, nil, inked(words))
	clear("a box as large as the image", r, words)
	// With no place clear of the other labels, still inside the image.
	var all []image.Rectangle
	for y := 0; y < 300; y += 10 {
		all = append(all, image.Rect(0, y, 400, y+5))
	}
	r = placeLabel(button, size, img, []image.Rectangle{button}, all, inked())
	if r.Size() != size || !r.In(img) {
		t.Errorf("no free place: label at %v, want %v inside %v", r, size, img)
	}
}

// TestAnnotateMarks: on a tree such as real apps have, the marks are
// numbered from 1 and stand for the controls only: one for a table of
// cells, the text view and not the split pane around it, an editor and
// not its paragraphs (a table in it, once), no static text; no label lies over its element's
// text where the image has room.
func TestAnnotateMarks(t *testing.T) {
	el := func(role, name string, x, y, w, h int, edits ...fake.Edit) *platform.Node {
		return fake.With(fake.Node(role, name), append([]fake.Edit{fake.Bounds(x, y, w, h)}, edits...)...)
	}
	var cells []*platform.Node
	for i := range 40 {
		cells = append(cells, el("table cell", "c", 10+(i%4)*50, 200+(i/4)*20, 50, 20,
			fake.AddStates("focusable", "selectable"), fake.Actions("activate")))
	}
	table := el("tree table", "", 10, 180, 200, 220, fake.AddStates("focusable"), fake.Ifaces("selection"))
	table.Children = append([]*platform.Node{el("table column header", "Name", 10, 180, 50, 20, fake.Actions("click"))}, cells...)
	table.ChildCount = len(table.Children)
	editor := el("document text", "doc", 220, 180, 170, 220, fake.AddStates("focusable", "editable"))
	grid := el("table", "Sheet1", 230, 300, 150, 90, fake.AddStates("editable"))
	grid.Children = []*platform.Node{el("table cell", "A1", 230, 300, 50, 20, fake.AddStates("focusable", "editable"))}
	grid.ChildCount = 1
	editor.Children = []*platform.Node{el("paragraph", "", 230, 190, 150, 20, fake.AddStates("editable")), grid}
	editor.ChildCount = 2
	split := el("split pane", "", 10, 60, 380, 100, fake.AddStates("focusable"))
	split.Children = []*platform.Node{el("text", "", 10, 60, 380, 100, fake.AddStates("focusable", "editable"))}
	split.ChildCount = 1
	frame := el("frame", "Win", 0, 0, 400, 400)
	frame.Children = []*platform.Node{
		el("push button", "Open", 10, 10, 60, 30, fake.Actions("click")),
		el("paragraph", "1 of 3 done", 80, 10, 100, 20, fake.Actions("doDefault")),
		split, table, editor,
	}
	frame.ChildCount = len(frame.Children)
	tree := NewTree(fake.Root("app", frame), KindA11y)
	img := image.NewRGBA(image.Rect(0, 0, 400, 400))
	draw.Draw(img, img.Rect, image.NewUniform(color.RGBA{0xf0, 0xf0, 0xf0, 0xff}), image.Point{}, draw.Src)
	ink := image.NewUniform(color.RGBA{0, 0, 0, 0xff})
	textOf := image.Rect(20, 18, 60, 32) // "Open"
	draw.Draw(img, textOf, ink, image.Point{}, draw.Src)
	before := image.NewRGBA(img.Rect)
	copy(before.Pix, img.Pix)

	out, omitted := annotate(img, tree, 0, platform.Rect{Width: 400, Height: 400}, 1, nil)
	var got []string
	for i, a := range out {
		got = append(got, a.Role+" "+a.Name)
		if a.Label != i+1 {
			t.Errorf("annotation %d is labelled %d", i, a.Label)
		}
		if n, _ := tree.Node(mustResolve(t, tree, a.Ref)); n.Role.String() != a.Role {
			t.Errorf("annotation %d: ref %s is a %s, not %s", a.Label, a.Ref, n.Role, a.Role)
		}
	}
	want := []string{"push button Open", "text ", "tree table ", "document text doc", "table Sheet1"}
	if omitted != 0 || len(got) != len(want) {
		t.Fatalf("marks %q (omitted %d), want %q", got, omitted, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("marks %q, want %q", got, want)
		}
	}
	// The button's text is as it was: no label on it.
	for y := textOf.Min.Y; y < textOf.Max.Y; y++ {
		for x := textOf.Min.X; x < textOf.Max.X; x++ {
			if img.RGBAAt(x, y) != before.RGBAAt(x, y) {
				t.Fatalf("pixel %d,%d of the button's text changed: a label covers it", x, y)
			}
		}
	}
}

func mustResolve(t *testing.T, tree *Tree, ref string) int {
	t.Helper()
	for id := 0; id < tree.Len(); id++ {
		if tree.RefString(id) == ref {
			return id
		}
	}
	t.Fatalf("ref %s is not in the tree", ref)
	return 0
}
