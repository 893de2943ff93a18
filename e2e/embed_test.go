//go:build linux

package e2e

import (
	"context"
	"fmt"
	"image"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// TestEmbeddedToolkitBounds: LibreOffice's gtk3 plugin embeds VCL's frame
// (its root pane) in a GTK widget below GTK's menu bar, and VCL counts its
// extents from the window's top: read as given, every toolbar button lies
// a menu bar's height (25 px on X11, 26 on sway) above where it is drawn,
// and a click at a button's centre lands on the toolbar row above — on
// Bold's, a separator of the Standard bar. Bold's bounds, from
// find_elements and from get_element_properties, are where it is drawn:
// a pointer press and release at their centre (press aims by the bounds,
// never through the button's action) toggles Bold, and the text typed
// next is bold, both read by pyatspi in another process; hit_test there
// names Bold (a read after Bold's state changed: VCL moves the origin it
// counts from silently, a while after it started, and a mirror re-reading
// only what changed held the root pane placed before and Bold after,
// moved twice); and the pixels that Bold's checked look changes, in an X
// or grim capture, fill its bounds.
func TestEmbeddedToolkitBounds(t *testing.T) { testdesk.ForEach(t, testEmbeddedToolkitBounds) }

func testEmbeddedToolkitBounds(t *testing.T, d *testdesk.Desk) {
	app := launchWriter(t, d, nil) // one empty paragraph, the caret in it
	s := startMCP(t, d, "", "--allow-input")
	session := s.connect(t, map[string]any{"pid": app.Pid})

	found := s.ok(t, "find_elements", map[string]any{"session": session, "role": "toggle button", "name": "Bold", "nameMatch": "exact", "timeoutMs": 60000})
	var bold *elem
	for _, e := range decode[[]*elem](t, found["elements"]) {
		if bold == nil && e.Bounds != nil && !e.Bounds.Empty() {
			bold = e
		}
	}
	if bold == nil {
		t.Fatalf("find_elements: no toggle button Bold with bounds: %v", found)
	}
	b := *bold.Bounds
	// What the toolkit says, for the log: on X11 VCL counts from the
	// window's top at first (Bold 25 px high), from its own widget a while
	// later; on sway it adds a window position of its own.
	t.Logf("Bold's bounds %+v; its extents as the toolkit gives them (pyatspi, desktop coordinates): %s", b,
		strings.TrimSpace(pyProbe(t, d, app.Pid, "toggle button", "Bold", "screen")))
	props := s.ok(t, "get_element_properties", map[string]any{"session": session, "element": bold.Ref})
	p := decode[struct{ Bounds *platform.Rect }](t, props["properties"])
	if p.Bounds == nil || *p.Bounds != b {
		t.Fatalf("get_element_properties: Bold's bounds %+v, find_elements' %+v", p.Bounds, b)
	}
	if states := pyProbe(t, d, app.Pid, "toggle button", "Bold", "states"); strings.Contains(states, "checked") {
		t.Fatalf("Bold is checked before the press: %s", states)
	}

	x, y := b.X+b.Width/2, b.Y+b.Height/2
	// The screen around the bounds, read outside uiscope, before Bold is
	// checked: LibreOffice fills a checked button's box with a background.
	// The pointer rests in the document first (the caret goes to its only
	// paragraph): headless sway draws the cursor into its captures, and an
	// earlier test may have left it on the toolbar.
	docs := decode[[]*elem](t, s.ok(t, "find_elements", map[string]any{"session": session, "role": "document text", "timeoutMs": 60000})["elements"])
	if len(docs) == 0 || docs[0].Bounds == nil {
		t.Fatalf("no document text with bounds in Writer")
	}
	db := *docs[0].Bounds
	restPointer := func() {
		s.ok(t, "press", map[string]any{"session": session, "x": db.X + db.Width/2, "y": db.Y + db.Height/2})
		s.ok(t, "release", map[string]any{"session": session})
	}
	restPointer()
	around := platform.Rect{X: max(b.X-12, 0), Y: max(b.Y-12, 0), Width: b.Width + 24, Height: b.Height + 24}
	before := screenCapture(t, d, around)
	s.ok(t, "press", map[string]any{"session": session, "element": bold.Ref})
	s.ok(t, "release", map[string]any{"session": session})
	until(t, "Bold checked (pyatspi)", func(_ context.Context) (bool, string) {
		states := pyProbe(t, d, app.Pid, "toggle button", "Bold", "states")
		return strings.Contains(states, "checked"), fmt.Sprintf("Bold's states after a press at %d,%d in %+v: %s", x, y, b, states)
	})
	// Bold is drawn at x,y: a hit test there names it.
	hit := s.ok(t, "hit_test", map[string]any{"session": session, "x": x, "y": y, "timeoutMs": 60000})
	if el := decode[*elem](t, hit["element"]); el == nil || el.Role != "toggle button" || el.Name != "Bold" {
		t.Errorf("hit_test at Bold's centre (%d,%d): %+v", x, y, el)
	}
	s.ok(t, "type_text", map[string]any{"session": session, "text": "Heavy"})
	until(t, "the typed text bold (pyatspi)", func(_ context.Context) (bool, string) {
		text := pyProbe(t, d, app.Pid, "paragraph", "", "text")
		attrs := pyProbe(t, d, app.Pid, "paragraph", "", "attrs")
		// Bold is weight 600 or more (LibreOffice 7.4 says 600), regular 400.
		w := 0
		for _, a := range strings.Split(attrs, "\n") {
			if v, ok := strings.CutPrefix(a, "weight:"); ok {
				w, _ = strconv.Atoi(v)
			}
		}
		return text == "Heavy" && w >= 600, fmt.Sprintf("paragraph %q, attributes %q", text, attrs)
	})

	// The pixels that changed around the bounds are the checked button's
	// box, once the pointer has left it (its hover look and tooltip go):
	// they fill the bounds, within the box's rounded corners.
	restPointer()
	var box image.Rectangle
	until(t, "the checked box's pixels where the bounds are", func(_ context.Context) (bool, string) {
		after := screenCapture(t, d, around)
		again := screenCapture(t, d, around)
		if !slices.Equal(after.Pix, again.Pix) {
			return false, "the screen still changing"
		}
		box = changedBox(before, after).Add(image.Pt(around.X, around.Y))
		want := image.Rect(b.X, b.Y, b.X+b.Width, b.Y+b.Height)
		near := func(a, b int) bool { return a-b <= 2 && b-a <= 2 }
		return near(box.Min.X, want.Min.X) && near(box.Min.Y, want.Min.Y) && near(box.Max.X, want.Max.X) && near(box.Max.Y, want.Max.Y),
			fmt.Sprintf("pixels changed in %v, Bold's bounds %v", box, want)
	})
	t.Logf("Bold's bounds %+v; the pixels of its checked look changed in %v", b, box)
	if states := pyProbe(t, d, app.Pid, "toggle button", "Bold", "states"); !strings.Contains(states, "checked") {
		t.Fatalf("Bold is not checked after the click in the document (the box compared is not its checked look): %s", states)
	}
}

// changedBox is the smallest rectangle holding every pixel that differs
// between two captures of one area (in the captures' coordinates).
func changedBox(a, b *image.RGBA) image.Rectangle {
	var box image.Rectangle
	for y := 0; y < a.Rect.Dy(); y++ {
		for x := 0; x < a.Rect.Dx(); x++ {
			p, q := a.RGBAAt(a.Rect.Min.X+x, a.Rect.Min.Y+y), b.RGBAAt(b.Rect.Min.X+x, b.Rect.Min.Y+y)
			if p.R != q.R || p.G != q.G || p.B != q.B {
				box = box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return box
}
