//go:build linux

package atspi

import (
	"fmt"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
)

func role(t *testing.T, name string) platform.Role {
	t.Helper()
	r, ok := platform.RoleByName(name)
	if !ok {
		t.Fatalf("no role %q", name)
	}
	return r
}

// at is a node with bounds (as the toolkit gave them).
func at(path string, r platform.Role, x, y, w, h int, kids ...*platform.Node) *platform.Node {
	n := node(path, r, kids...)
	n.Bounds = &platform.Rect{X: x, Y: y, Width: w, Height: h}
	return n
}

// writerTree is LibreOffice Writer's tree as its gtk3 plugin gives it on
// X11: VCL's root pane in GTK's widget below the menu bar, counted from the
// window's top; inside it VCL's host of a native GTK box, which counts from
// the screen again.
func writerTree(t *testing.T) *platform.Node {
	panel, filler := role(t, "panel"), role(t, "filler")
	return node(string(rootPath), platform.RoleApplication,
		at("/frame", platform.RoleFrame, 0, 0, 1920, 1080,
			at("/content", panel, 0, 19, 1920, 1061,
				at("/menubar", panel, 0, 19, 1920, 25),
				at("/embed", panel, 0, 44, 1920, 1036,
					at("/rootpane", role(t, "root pane"), 0, 19, 1920, 1036,
						at("/toolbar", role(t, "tool bar"), 0, 58, 1410, 39,
							at("/bold", role(t, "toggle button"), 591, 60, 33, 35),
							at("/fontname", panel, 267, 60, 207, 34,
								at("/host", panel, 267, 60, 207, 34,
									at("/gtkbox", panel, 267, 85, 207, 34,
										at("/gtkfiller", filler, 267, 85, 207, 34,
											at("/entry", role(t, "text"), 270, 88, 170, 28)))))),
						node("/nobounds", panel,
							at("/status", role(t, "status bar"), 0, 1033, 1920, 22)))))))
}

func bounds(root *platform.Node) map[string]platform.Rect {
	out := map[string]platform.Rect{}
	var visit func(n *platform.Node)
	visit = func(n *platform.Node) {
		if n.Bounds != nil {
			_, p, _ := ParseKey(n.Key)
			out[string(p)] = *n.Bounds
		}
		for _, k := range n.Children {
			visit(k)
		}
	}
	visit(root)
	return out
}

func rect(x, y, w, h int) platform.Rect { return platform.Rect{X: x, Y: y, Width: w, Height: h} }

// TestUnembedWriter: the root pane and everything VCL draws inside it move
// onto GTK's widget, 25 px down; the native box VCL hosts, which counts
// from the screen, stays where it is, and so does what lies outside.
func TestUnembedWriter(t *testing.T) {
	root := writerTree(t)
	if !unembed(root) {
		t.Fatal("unembed found no embedded subtree")
	}
	want := map[string]platform.Rect{
		"/frame":     rect(0, 0, 1920, 1080),
		"/content":   rect(0, 19, 1920, 1061),
		"/menubar":   rect(0, 19, 1920, 25),
		"/embed":     rect(0, 44, 1920, 1036),
		"/rootpane":  rect(0, 44, 1920, 1036),
		"/toolbar":   rect(0, 83, 1410, 39),
		"/bold":      rect(591, 85, 33, 35),
		"/fontname":  rect(267, 85, 207, 34),
		"/host":      rect(267, 85, 207, 34),
		"/gtkbox":    rect(267, 85, 207, 34),
		"/gtkfiller": rect(267, 85, 207, 34),
		"/entry":     rect(270, 88, 170, 28),
		"/status":    rect(0, 1058, 1920, 22),
	}
	got := bounds(root)
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s: %+v, want %+v", p, got[p], w)
		}
	}
}

// TestUnembedChainAgrees: an element's bounds corrected from its chain of
// ancestors alone (a single-element read) are the whole tree's.
func TestUnembedChainAgrees(t *testing.T) {
	whole := writerTree(t)
	unembed(whole)
	want := bounds(whole)
	raw := writerTree(t)
	var visit func(n *platform.Node, chain []*platform.Node)
	visit = func(n *platform.Node, chain []*platform.Node) {
		if n.Bounds != nil {
			c := make([]*platform.Node, len(chain)+1)
			for i, a := range append(chain, n) {
				cp := *a
				if a.Bounds != nil {
					b := *a.Bounds
					cp.Bounds = &b
				}
				c[i] = &cp
			}
			d := unembedChain(c)
			_, p, _ := ParseKey(n.Key)
			got := rect(n.Bounds.X+d.x, n.Bounds.Y+d.y, n.Bounds.Width, n.Bounds.Height)
			if got != want[string(p)] || *c[len(c)-1].Bounds != got {
				t.Errorf("%s from its chain: %+v (%+v), the tree's %+v", p, got, *c[len(c)-1].Bounds, want[string(p)])
			}
		}
		for _, k := range n.Children {
			visit(k, append(chain[:len(chain):len(chain)], n))
		}
	}
	for _, top := range raw.Children {
		visit(top, nil)
	}
}

// TestUnembedLeaves: what the rule must not move.
func TestUnembedLeaves(t *testing.T) {
	panel := role(t, "panel")
	for _, tc := range []struct {
		name string
		tree *platform.Node
	}{
		// A same-size child beside another (a stack's pages, a scrolled
		// window's content beside its scroll bars).
		{"not alone", at("/frame", platform.RoleFrame, 0, 0, 800, 600,
			at("/p", panel, 0, 40, 800, 560,
				at("/c", role(t, "root pane"), 0, 0, 800, 560),
				at("/other", panel, 0, 40, 10, 10)))},
		// Content scrolled inside a container (GtkLayout is a panel), a
		// page sliding in, a web page's div translated off its wrapper
		// (Chromium's divs are panels): drawn where it says, even where
		// that is a place seen above it.
		{"scrolled", at("/frame", platform.RoleFrame, 0, 0, 800, 600,
			at("/p", panel, 0, 40, 800, 560,
				at("/c", panel, 0, -13, 800, 560, at("/k", panel, 5, -10, 20, 20))))},
		{"translated", at("/frame", platform.RoleFrame, 0, 0, 800, 600,
			at("/p", panel, 100, 0, 700, 600,
				at("/c", panel, 0, 0, 700, 600)))},
		// A root pane as its frame's child (Swing): a frame is no plain
		// container.
		{"frame's root pane", at("/frame", platform.RoleFrame, 0, 0, 800, 600,
			at("/c", role(t, "root pane"), 0, 19, 800, 600))},
		// Scrolling is what a viewport does, wherever its content lies.
		{"viewport", at("/frame", platform.RoleFrame, 0, 0, 800, 600,
			at("/p", role(t, "viewport"), 0, 40, 800, 560,
				at("/c", role(t, "root pane"), 0, 0, 800, 560)))},
		// Another size: no embedding.
		{"other size", at("/frame", platform.RoleFrame, 0, 0, 800, 600,
			at("/p", panel, 0, 40, 800, 560,
				at("/c", role(t, "root pane"), 0, 0, 800, 561)))},
		// One child read of several (a partial container).
		{"partial", func() *platform.Node {
			n := at("/frame", platform.RoleFrame, 0, 0, 800, 600,
				at("/p", panel, 0, 40, 800, 560,
					at("/c", role(t, "root pane"), 0, 0, 800, 560)))
			n.Children[0].ChildCount = 3
			return n
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := bounds(tc.tree)
			if unembed(node(string(rootPath), platform.RoleApplication, tc.tree)) {
				t.Error("unembed says it moved something")
			}
			if after := bounds(tc.tree); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Errorf("bounds changed:\n%v\nwant\n%v", after, before)
			}
		})
	}
}

// TestUnembedSway: on sway VCL adds a window position of its own to its
// screen coordinates (9,27 here, for a window whose elements count from
// 0,0): the root pane, which counts from no place seen above it, is moved
// all the same, and the GTK box it hosts is placed right.
func TestUnembedSway(t *testing.T) {
	panel := role(t, "panel")
	tree := node(string(rootPath), platform.RoleApplication,
		at("/frame", platform.RoleFrame, 0, 0, 1916, 1053,
			at("/embed", panel, 0, 26, 1916, 1027,
				at("/rootpane", role(t, "root pane"), 9, 27, 1916, 1027,
					at("/bold", role(t, "toggle button"), 673, 68, 33, 35),
					at("/host", panel, 310, 68, 242, 34,
						at("/gtkbox", panel, 301, 67, 242, 34))))))
	if !unembed(tree) {
		t.Fatal("nothing moved")
	}
	got := bounds(tree)
	for p, w := range map[string]platform.Rect{
		"/rootpane": rect(0, 26, 1916, 1027),
		"/bold":     rect(664, 67, 33, 35),
		"/host":     rect(301, 67, 242, 34),
		"/gtkbox":   rect(301, 67, 242, 34),
	} {
		if got[p] != w {
			t.Errorf("%s: %+v, want %+v", p, got[p], w)
		}
	}
}

// TestUnembedNested: a toolkit's root embedded inside an embedded
// toolkit's subtree moves onto its container as drawn.
func TestUnembedNested(t *testing.T) {
	panel, rootPane := role(t, "panel"), role(t, "root pane")
	tree := node(string(rootPath), platform.RoleApplication,
		at("/frame", platform.RoleFrame, 0, 0, 800, 600,
			at("/embed", panel, 0, 30, 800, 570,
				at("/outer", rootPane, 0, 0, 800, 570,
					at("/box", panel, 10, 100, 300, 200,
						at("/inner", rootPane, 0, 0, 300, 200,
							at("/button", role(t, "push button"), 5, 5, 50, 20)))))))
	if !unembed(tree) {
		t.Fatal("nothing moved")
	}
	got := bounds(tree)
	want := map[string]platform.Rect{
		"/outer":  rect(0, 30, 800, 570),
		"/box":    rect(10, 130, 300, 200),
		"/inner":  rect(10, 130, 300, 200),
		"/button": rect(15, 135, 50, 20),
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s: %+v, want %+v", p, got[p], w)
		}
	}
}

// TestUnembedAncestors: a virtual container's visible area is its extents
// clipped by its ancestors', where they are drawn: Calc's grid inside
// VCL's root pane, which GTK's widget below the menu bar holds.
func TestUnembedAncestors(t *testing.T) {
	panel := role(t, "panel")
	mk := func(parent *walkNode, r platform.Role, kids int) *walkNode {
		wn := &walkNode{parent: parent, node: &platform.Node{Role: r, ChildCount: kids}, detailed: true}
		return wn
	}
	root := mk(nil, platform.RoleApplication, 1)
	frame := mk(root, platform.RoleFrame, 1)
	embed := mk(frame, panel, 1)
	pane := mk(embed, role(t, "root pane"), 1)
	filler := mk(pane, role(t, "filler"), 1) // no Component
	grid := mk(filler, role(t, "table"), 1<<30)
	chain := []*walkNode{grid, pane, embed, frame}
	r := func(x, y, w, h int) *platform.Rect { return &platform.Rect{X: x, Y: y, Width: w, Height: h} }
	rects := []*platform.Rect{r(0, 150, 1900, 905), r(0, 19, 1920, 1036), r(0, 44, 1920, 1036), r(0, 0, 1920, 1080)}
	d := unembedAncestors(grid, chain, rects)
	if d != (point{0, 25}) || *rects[0] != *r(0, 175, 1900, 905) || *rects[1] != *r(0, 44, 1920, 1036) {
		t.Errorf("shift %+v, grid %+v, root pane %+v; want 0,25, the grid at 0,175, the root pane at 0,44", d, *rects[0], *rects[1])
	}
}

// TestEmbedsLearn: what a connection keeps of an application's tree reads:
// its links while its last read found an embedded subtree (a read cut
// short that found none changes nothing), none once a whole read finds
// none or the application is gone; a partial container's children keep no
// index.
func TestEmbedsLearn(t *testing.T) {
	var e embeds
	tree := writerTree(t)
	tree.Children[0].ChildrenPartial = true // the frame
	e.learn(testBus, tree, true, false)
	if !e.has(testBus) {
		t.Fatal("an application with an embedded subtree is not remembered")
	}
	if l, ok := e.parent(testBus, "/rootpane"); !ok || l != (embedLink{"/embed", 0}) {
		t.Errorf("the root pane's link %+v %v, want /embed at 0", l, ok)
	}
	if l, _ := e.parent(testBus, "/content"); l != (embedLink{"/frame", -1}) {
		t.Errorf("a partial container's child's link %+v, want /frame without index", l)
	}
	if got := e.treeParent(testBus, "/rootpane", objRef{testBus, "/vclframe"}); got != (objRef{testBus, "/embed"}) {
		t.Errorf("treeParent of the root pane: %+v, want the tree's /embed", got)
	}
	if got := e.treeParent(testBus, "/unknown", objRef{testBus, "/p"}); got != (objRef{testBus, "/p"}) {
		t.Errorf("treeParent of an element not in the tree: %+v, want its Parent /p", got)
	}
	e.learn(testBus, tree, false, true)
	if !e.has(testBus) {
		t.Error("a read cut short that found nothing forgot the application")
	}
	e.learn(testBus, nil, false, false)
	if e.has(testBus) {
		t.Error("a whole read that found nothing (or the application gone) left it remembered")
	}
}
