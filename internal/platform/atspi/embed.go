//go:build linux

package atspi

// A toolkit inside another toolkit's widget. LibreOffice's gtk3 plugin puts
// VCL's whole frame (its "root pane": toolbars, sidebar, document) inside
// a GTK widget below GTK's own menu bar, and VCL counts its extents from
// the top of the window, not from that widget: every VCL-drawn element is
// reported the menu bar's height (25 px on X11, 26 on sway) above where
// it is drawn. Native GTK widgets that VCL hosts in turn (the toolbars'
// font name and size boxes) report where they are drawn, inside VCL
// elements reported 25 px too high. The tree shows it:
//
//	panel @0,44 1920x1036                  <- GTK's widget that embeds VCL
//	  root pane @0,19 1920x1036            <- VCL's frame: its size, the window's top
//	    ... toggle button "Bold" @591,60   <- drawn at y 85
//	    panel "Font Name" @267,60 207x34
//	      panel @267,60 207x34             <- VCL's host of a GTK widget
//	        panel @267,85 207x34           <- the GTK widget, drawn there
//
// The rule (embedded), for the sole child of a plain container (panel,
// filler) that has exactly its container's size but another place:
//   - a root pane (a toolkit's window root: VCL's, Swing's) is drawn
//     where its container is, and its subtree moves with it: it was
//     embedded whole, and counts from an origin of its own toolkit's —
//     which need not be anything seen above it: on X11 VCL counts from the
//     top of the window's content (the root pane's 0,19), on sway it adds
//     a window position of its own to its screen coordinates (seen: 0,0,
//     and 9,27 for the same window a while later: Bold 9 px right of
//     where it is drawn and 1 px low);
//   - inside a moved subtree, a child whose place as given is its
//     container's place as drawn counts from the screen already (a native
//     widget that the embedded toolkit hosts in turn): its subtree is not
//     moved.
//
// Why so narrow: a container's only child laid out by the container has
// its place (GTK's bins, boxes and grids with one child, VCL's hosts).
// Same size at another place also happens where the child really is drawn
// elsewhere, and moving it would aim clicks at the wrong pixels: content
// scrolled inside a container (a GTK 3 GtkLayout is a panel), a page
// sliding in, a web page's div translated off its wrapper (Chromium's
// generic containers are panels). None of those is a root pane: entering
// another origin takes a toolkit's root. Viewports and scroll panes are
// never containers here (scrolling is what they do); a child that shares
// its size with siblings around it is not alone (a stack's other pages, a
// scrolled window's scroll bars). Only elements with bounds take part:
// bounds are read for elements on screen.
//
// Where it applies: every whole-tree read (Tree, mirror reads included:
// the mirror holds the extents as given, each read's copy is corrected),
// so trees, find, hit tests and screenshot marks agree with the screen;
// a single element's read (Element), which applications with such a
// subtree (learned from their last whole-tree read on this connection)
// pay with one round of calls reading its ancestors' extents, states,
// roles and child counts live, and checking the links that lead there
// (embeds); the climbs to an element's top level (topLevel, placing),
// which follow those links too; and the visible area of a virtual
// container (virtual.go), whose ancestors' extents it is clipped by.

import (
	"context"
	"errors"
	"sync"

	"github.com/godbus/dbus/v5"

	"github.com/uiscope/uiscope/internal/platform"
)

// maxEmbedLinks bounds the links remembered per application.
const maxEmbedLinks = 100000

// embedContainer reports the roles of containers that lay out their only
// child at their own place and draw nothing of their own.
func embedContainer(r platform.Role) bool {
	switch r.String() {
	case "panel", "filler":
		return true
	}
	return false
}

type point struct{ x, y int }

func origin(r platform.Rect) point { return point{r.X, r.Y} }

// embedded applies the rule to one child: parent is the child's parent,
// drawn where its bounds now say (corrected); child the child, its bounds
// (raw) as the toolkit gave them, d the shift it inherits from above. It
// returns the shift of the child's subtree.
func embedded(parent *platform.Node, child platform.Role, raw platform.Rect, d point) (point, bool) {
	if parent.Bounds == nil || parent.ChildCount != 1 || !embedContainer(parent.Role) {
		return d, false
	}
	p := *parent.Bounds
	if p.Empty() || raw.Width != p.Width || raw.Height != p.Height {
		return d, false
	}
	if (point{raw.X + d.x, raw.Y + d.y}) == origin(p) {
		return d, false // drawn where its parent is already
	}
	// A toolkit's root, or a child counting from the screen (which differs
	// from d only inside a moved subtree).
	if child.String() != "root pane" && origin(raw) != origin(p) {
		return d, false
	}
	return point{p.X - raw.X, p.Y - raw.Y}, true
}

// unembed corrects the bounds of a tree, top down, by the rule, and reports
// whether any subtree was moved.
func unembed(root *platform.Node) bool {
	found := false
	var visit func(n *platform.Node, d point)
	visit = func(n *platform.Node, d point) {
		if n.Bounds != nil {
			n.Bounds.X += d.x
			n.Bounds.Y += d.y
		}
		for _, k := range n.Children {
			kd := d
			if n.Bounds != nil && k.Bounds != nil && len(n.Children) == 1 {
				var ok bool
				if kd, ok = embedded(n, k.Role, *k.Bounds, d); ok {
					found = true
				}
			}
			visit(k, kd)
		}
	}
	visit(root, point{})
	return found
}

// unembedChain corrects, by the rule, the bounds of a chain of elements,
// each the parent of the next (from a top level down to an element; the
// bounds as the toolkit gave them, nil where unknown), and returns the
// shift of the last one's bounds.
func unembedChain(chain []*platform.Node) point {
	var d point
	for i, n := range chain {
		if n.Bounds == nil {
			continue
		}
		if i > 0 && chain[i-1].Bounds != nil {
			d, _ = embedded(chain[i-1], n.Role, *n.Bounds, d)
		}
		n.Bounds.X += d.x
		n.Bounds.Y += d.y
	}
	return d
}

// embeds is what a connection remembers of the applications with embedded
// subtrees: by bus name, how their elements hang together, from their last
// whole-tree read and from climbs since. An application is absent when its
// last whole-tree read moved nothing.
//
// The links are the tree's, not the Parent properties': an embedded
// toolkit may not know where it is embedded (VCL's root pane names as its
// parent a frame of VCL's own that no one lists as a child, whose own
// parent is none), so a climb by Parent alone can miss the very container
// that decides where the subtree is drawn.
type embeds struct {
	mu    sync.Mutex
	links map[string]map[dbus.ObjectPath]embedLink
}

// embedLink is an element's parent and its index there (-1: learned from
// the element's Parent property, not from the parent's children).
type embedLink struct {
	parent dbus.ObjectPath
	index  int
}

// learn records what a whole-tree read of the application found: with found
// how its elements hang together, else that it has no embedded subtree.
// A read cut short that found none says nothing.
func (e *embeds) learn(bus string, root *platform.Node, found, truncated bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !found {
		if !truncated {
			delete(e.links, bus)
		}
		return
	}
	links := map[dbus.ObjectPath]embedLink{}
	var visit func(n *platform.Node)
	visit = func(n *platform.Node) {
		_, p, err := ParseKey(n.Key)
		if err != nil {
			return
		}
		for i, k := range n.Children {
			if n.ChildrenPartial {
				i = -1 // the children on screen, not from index 0
			}
			if _, kp, err := ParseKey(k.Key); err == nil && len(links) < maxEmbedLinks {
				links[kp] = embedLink{p, i}
			}
			visit(k)
		}
	}
	visit(root)
	if e.links == nil {
		e.links = map[string]map[dbus.ObjectPath]embedLink{}
	}
	e.links[bus] = links
}

// has reports whether the application's last whole-tree read found an
// embedded subtree.
func (e *embeds) has(bus string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.links[bus] != nil
}

func (e *embeds) parent(bus string, p dbus.ObjectPath) (embedLink, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	l, ok := e.links[bus][p]
	return l, ok
}

// treeParent is the element's parent as the application's last whole-tree
// read found it, where remembered; else parent (its Parent property). For
// climbs to the top level: VCL's elements name no parent that reaches the
// application's root.
func (e *embeds) treeParent(bus string, p dbus.ObjectPath, parent objRef) objRef {
	if l, ok := e.parent(bus, p); ok {
		return objRef{bus, l.parent}
	}
	return parent
}

func (e *embeds) link(bus string, p dbus.ObjectPath, l embedLink) {
	e.mu.Lock()
	defer e.mu.Unlock()
	links := e.links[bus]
	if links == nil {
		return // forgotten meanwhile
	}
	if len(links) >= maxEmbedLinks {
		clear(links) // forgetting only costs a climb
	}
	links[p] = l
}

func (e *embeds) forget(bus string, paths []dbus.ObjectPath) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, p := range paths {
		delete(e.links[bus], p)
	}
}

// errUnplaced: an element's Parent links end before its application's root
// (at VCL's own frame), through no element a tree read placed.
var errUnplaced = errors.New("its ancestors do not reach the application's root")

// ancestors returns the element's ancestors below the application root,
// nearest first, and the link to each from the element below it: the
// links remembered, else the Parent property read live (a call a level)
// up to an element whose link is remembered. The caller checks the links.
func (c *Conn) ancestors(ctx context.Context, bus string, path dbus.ObjectPath) ([]dbus.ObjectPath, []embedLink, error) {
	var up []dbus.ObjectPath
	var links []embedLink
	cur := path
	for range 256 {
		l, ok := c.embeds.parent(bus, cur)
		if !ok {
			var v dbus.Variant
			if err := c.call(ctx, bus, cur, ifaceProps+".Get", []any{ifaceAccessible, "Parent"}, &v); err != nil {
				return nil, nil, err
			}
			var r objRef
			if err := dbus.Store([]any{v.Value()}, &r); err != nil {
				return nil, nil, err
			}
			if r.null() || r.Bus != bus {
				return nil, nil, errUnplaced
			}
			l = embedLink{r.Path, -1}
			c.embeds.link(bus, cur, l)
		}
		if l.parent == rootPath {
			return up, links, nil
		}
		up = append(up, l.parent)
		links = append(links, l)
		cur = l.parent
	}
	return nil, nil, platform.ErrElementGone
}

// embedShift returns how far the element's bounds (n, read in coordinates
// coord) must move to be where it is drawn, for an application whose last
// whole-tree read found an embedded subtree; nothing for others. The
// element's ancestors are read live in one round, each link of the chain
// checked as it was learned (the parent's child at the index, or the
// child's Parent); a chain with a link gone is climbed again by Parent,
// once.
func (c *Conn) embedShift(ctx context.Context, bus string, path dbus.ObjectPath, n *platform.Node, coord uint32) (dx, dy int, err error) {
	if n.Bounds == nil || !c.embeds.has(bus) {
		return 0, 0, nil
	}
	for try := 0; ; try++ {
		up, links, err := c.ancestors(ctx, bus, path)
		if err != nil {
			return 0, 0, err
		}
		chain := make([]*platform.Node, len(up)+1)
		held := make([]bool, len(up))
		b := c.newBatch(ctx)
		for i, p := range up {
			a := &platform.Node{}
			chain[len(up)-1-i] = a
			child := path
			if i > 0 {
				child = up[i-1]
			}
			if l := links[i]; l.index >= 0 {
				b.add(bus, p, ifaceAccessible+".GetChildAtIndex", func(call *dbus.Call) {
					var r objRef
					if call.Err == nil && call.Store(&r) == nil {
						held[i] = r == objRef{bus, child}
					}
				}, int32(l.index))
			} else {
				b.get(bus, child, ifaceAccessible, "Parent", func(v any, err error) {
					var r objRef
					if err == nil && dbus.Store([]any{v}, &r) == nil {
						held[i] = r == objRef{bus, p}
					}
				})
			}
			var states platform.StateSet
			b.get(bus, p, ifaceAccessible, "ChildCount", func(v any, err error) {
				if cc, ok := v.(int32); ok {
					a.ChildCount = int(cc)
				}
			})
			b.add(bus, p, ifaceAccessible+".GetRole", func(call *dbus.Call) {
				var role uint32
				if call.Err == nil && call.Store(&role) == nil {
					a.Role = platform.Role(role)
				}
			})
			b.states(bus, p, func(s platform.StateSet, err error) { states = s })
			b.extents(bus, p, coord, func(r *platform.Rect) {
				// Handled after the states (in send order). Bounds of
				// elements on screen only, as a tree read has them
				// (VISIBLE: GTK 4 sets SHOWING on windows only).
				if states.Has(platform.StateShowing) || states.Has(platform.StateVisible) {
					a.Bounds = r
				}
			})
		}
		b.wait()
		b.close()
		if err := ctx.Err(); err != nil {
			return 0, 0, mapErr(err)
		}
		gone := false
		for _, h := range held {
			gone = gone || !h
		}
		if gone {
			if try > 0 {
				return 0, 0, platform.ErrElementGone
			}
			c.embeds.forget(bus, append(up, path))
			continue
		}
		self := *n
		r := *n.Bounds
		self.Bounds = &r
		chain[len(up)] = &self
		d := unembedChain(chain)
		return d.x, d.y, nil
	}
}
