package core

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
)

// webDesk: a page's form as the browsers expose it. "Full name" is
// Chromium's input: editable, a Text interface, no EditableText. "Hidden"
// is an input of a page in a background tab as Firefox keeps it: not
// showing, its last extents kept, in a document that does not show.
// "Gone" is one with no extents at all.
func webDesk() (*fake.Desktop, platform.WindowID) {
	input := func(key, name string, st platform.StateSet, b *platform.Rect) *platform.Node {
		return &platform.Node{Key: key, Role: fake.Role("entry"), Name: name, Bounds: b,
			States:     st | fake.States("enabled", "sensitive", "visible", "focusable", "editable", "single-line"),
			Interfaces: []string{"component", "text"}}
	}
	front := &platform.Node{Key: "doc1", Role: fake.Role("document web"), Name: "form", States: fake.Shown,
		Bounds: &platform.Rect{Width: 800, Height: 600}, Interfaces: []string{"component"},
		Children: []*platform.Node{input("name", "Full name", fake.States("showing"), &platform.Rect{X: 10, Y: 10, Width: 100, Height: 20})}}
	back := &platform.Node{Key: "doc2", Role: fake.Role("document web"), Name: "other tab",
		States: fake.States("enabled", "sensitive", "visible"), Bounds: &platform.Rect{Width: 800, Height: 600}, Interfaces: []string{"component"},
		Children: []*platform.Node{
			input("hidden", "Hidden", 0, &platform.Rect{X: 10, Y: 50, Width: 100, Height: 20}),
			input("gone", "Gone", 0, nil),
		}}
	for _, doc := range []*platform.Node{front, back} {
		doc.ChildCount = len(doc.Children)
	}
	frame := &platform.Node{Key: "frame", Role: fake.Role("frame"), Name: "Browser", States: fake.Shown, ChildCount: 2,
		Children: []*platform.Node{front, back}, Bounds: &platform.Rect{Width: 800, Height: 600}, Interfaces: []string{"component"}}
	d := fake.New()
	d.AddApp(fake.App{Pid: editorPid, Name: "browser", Tree: fake.Root("browser", frame)})
	win := d.AddWindow(editorPid, "Browser", platform.Rect{Width: 800, Height: 600})
	d.SetActive(win)
	return d, win
}

// TestSetValueTypesWithoutEditableText: a field that says it is editable
// and has only a Text interface is set by focus, Ctrl+A and typing, and
// succeeds on the read-back; a line break is refused for a single-line
// field before any key.
func TestSetValueTypesWithoutEditableText(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d, win := webDesk()
		m, s, tr := formSession(t, d.Platform())
		ctx := context.Background()
		ref := refOf(t, tr, "Full name")
		for _, v := range []string{"Ada Lovelace", ""} {
			r, err := m.SetValue(ctx, s.ID, ref, v)
			if err != nil {
				t.Fatalf("set_value %q: %v", v, err)
			}
			if r.Method != MethodKeyboard || r.After == nil || r.After.Text == nil || *r.After.Text != v {
				t.Errorf("set_value %q: %+v (after %+v)", v, r, r.After)
			}
			if got := d.Text(editorPid, "name"); got != v {
				t.Errorf("set_value %q: the field holds %q", v, got)
			}
		}
		if keys := d.Keys(win); !slices.Contains(keys, "Ctrl+a") {
			t.Errorf("keys sent %q: no Ctrl+A to replace the text", keys)
		}
		typed := d.Typed(win)
		_, err := m.SetValue(ctx, s.ID, ref, "two\nlines")
		wantErrCode(t, "set_value with a line break", err, CodeInvalidArgument)
		if d.Typed(win) != typed {
			t.Errorf("keys were typed for a refused value: %q", d.Typed(win))
		}
	})
}
