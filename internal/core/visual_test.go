package core

import (
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
)

func rect(x, y, w, h int) *platform.Rect { return &platform.Rect{X: x, Y: y, Width: w, Height: h} }

func win(key string, pid int, b *platform.Rect, kids ...*platform.NativeWindow) *platform.NativeWindow {
	return &platform.NativeWindow{Key: key, Pid: pid, Bounds: *b, MapState: platform.MapViewable, ChildCount: len(kids), Children: kids}
}

func elem(name string, b *platform.Rect, kids ...*platform.Node) *platform.Node {
	return &platform.Node{Key: "k:" + name, Name: name, Bounds: b, States: 1 << platform.StateShowing, Children: kids, ChildCount: len(kids)}
}

// TestCorrelationJoin: a window's own counterpart is the element showing
// exactly it, never the one it sits in; nested equal bounds give the
// outermost; unrelated equal bounds give none.
func TestCorrelationJoin(t *testing.T) {
	const pid = 7
	button := elem("button", rect(10, 10, 20, 20), elem("label", rect(10, 10, 20, 20)))
	twinA, twinB := elem("twin a", rect(60, 10, 20, 20)), elem("twin b", rect(60, 10, 20, 20))
	panel := elem("panel", rect(0, 0, 100, 100), button, twinA, twinB)
	frame := elem("frame", rect(0, 0, 100, 100), panel)
	frame.Name = "Title"
	// A dialog whose toolkit reports the window manager's frame as its
	// extents (GTK 3 with server-side decorations).
	dialog := elem("dialog", rect(200, 0, 50, 60))
	at := NewTree(elem("app", nil, frame, dialog), KindA11y)

	inner := win("inner", pid, rect(12, 12, 5, 5))
	buttonWin := win("buttonwin", pid, rect(10, 10, 20, 20), inner)
	twinWin := win("twinwin", pid, rect(60, 10, 20, 20))
	loose := win("loose", pid, rect(50, 50, 30, 30))
	client := win("client", pid, rect(0, 0, 100, 100), buttonWin, twinWin, loose)
	client.Client, client.Name = true, "Title"
	wmFrame := win("wmframe", 99, rect(-1, -20, 102, 121), client)
	wmFrame.Frame = true
	dialogWin := win("dialogwin", pid, rect(201, 20, 48, 40))
	dialogWin.Client = true
	dialogFrame := win("dialogframe", 99, rect(200, 0, 50, 60), dialogWin)
	dialogFrame.Frame = true
	s := &Session{Identity: Identity{Pid: pid}}
	vt := newVisualTree(s, &platform.NativeTree{Roots: []*platform.NativeWindow{wmFrame, dialogFrame}})

	c := &Correlation{own: map[int]string{}, ancestor: map[int]string{}}
	c.join(vt, at, pid)
	ref := func(n *platform.Node) string {
		if n == nil {
			return ""
		}
		return at.RefString(at.ID(n))
	}
	for _, tc := range []struct {
		win           string
		own, ancestor *platform.Node
	}{
		{"wmframe", nil, nil},
		{"client", frame, nil},
		{"buttonwin", button, frame},
		{"inner", nil, button.Children[0]},
		{"twinwin", nil, panel},
		{"loose", nil, panel},
		{"dialogframe", nil, nil},
		{"dialogwin", dialog, nil},
	} {
		pos, ok := vt.ByKey(tc.win)
		if !ok {
			t.Fatalf("window %s not in the visual tree", tc.win)
		}
		if got, want := c.own[pos], ref(tc.own); got != want {
			t.Errorf("window %s: a11yRef %q, want %q", tc.win, got, want)
		}
		if got, want := c.ancestor[pos], ref(tc.ancestor); got != want {
			t.Errorf("window %s: a11yAncestorRef %q, want %q", tc.win, got, want)
		}
	}
	// The rendered elements carry the same refs, and the window's facts.
	r, _, err := vt.RenderVisual(ViewOptions{Depth: -1}, c)
	if err != nil {
		t.Fatal(err)
	}
	cl := r.Children[0].Children[0]
	if cl.Key != "client" || cl.A11yRef != ref(frame) || !cl.Client || cl.Name != "Title" || cl.Pid != pid || cl.MapState != platform.MapViewable {
		t.Errorf("rendered client: %+v", cl)
	}
	if r.Ref != vt.RefString(0) || r.Window != "" || r.Name != "" && r.Name != s.App.Name {
		t.Errorf("rendered root: %+v", r)
	}
}

// TestVisualTreeRefs: a visual tree's refs are visual:eN, an a11y ref in a
// visual session is refused as from the other tree, and ids are kept by
// key across reads.
func TestVisualTreeRefs(t *testing.T) {
	s := &Session{Mode: ModeVisual, ID: "s1", Identity: Identity{Pid: 3}}
	read := func() *Tree {
		t := newVisualTree(s, &platform.NativeTree{Roots: []*platform.NativeWindow{win("x11:0x1@3.1", 3, rect(0, 0, 10, 10))}})
		s.adopt(t)
		return t
	}
	first := read()
	if got := first.RefString(1); got[:8] != "visual:e" {
		t.Fatalf("ref %s", got)
	}
	second := read()
	if first.RefString(1) != second.RefString(1) || first.RefString(0) != second.RefString(0) {
		t.Errorf("refs changed across reads: %s %s, then %s %s", first.RefString(0), first.RefString(1), second.RefString(0), second.RefString(1))
	}
	if _, _, _, err := s.Resolve(second.RefString(1)); err != nil {
		t.Errorf("resolving %s: %v", second.RefString(1), err)
	}
	_, _, _, err := s.Resolve("a11y:e1")
	if e := AsError(err); e == nil || e.Code != CodeWrongTree {
		t.Errorf("an a11y ref in a visual session: %v, want wrongTree", err)
	}
	if w := second.Window(1); w == nil || w.Key != "x11:0x1@3.1" {
		t.Errorf("window behind e1: %+v", w)
	}
}
