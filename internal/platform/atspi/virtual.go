//go:build linux

package atspi

// Virtual containers: elements whose children are made on demand (they
// manage their descendants) or are too many to walk. LibreOffice Calc's
// grid reports 2,147,483,647 children, running along row 1 by index; a GTK
// 3 tree view or a Qt item view with thousands of rows reports them all.
// Walking the first N by index shows the wrong part as if it were the
// whole, so such a container holds the children on screen, in order, and
// says which (platform.Node.ChildrenPartial, ChildrenRange):
//
//   - the visible area is the container's extents clipped by its
//     ancestors' (a scrolled pane shows part of what it holds);
//   - it is hit-tested (Component.GetAccessibleAtPoint) along lines across
//     that area, edges included, densely enough that no row or column of
//     usual size falls between two points;
//   - a table (Table interface) maps each hit to its row and column and
//     reads the cells of the rows and columns seen, row by row, through
//     Table.GetAccessibleAt, after the visible columns' headers; anything
//     else maps each hit to its index in the container and reads the
//     children from the first index seen to the last.
//
// Every step is one pipelined round of calls, a handful in all, whatever
// the container's size.
//
// Some applications make the container virtual themselves: LibreOffice
// Writer's document holds the paragraphs on screen and no others, and
// links the first and the last to the paragraphs before and after them
// (FLOWS_FROM, FLOWS_TO). Such a container, walked whole, is partial too,
// and its range says that more comes before or after (flowsBeyond).

import (
	"slices"

	"github.com/godbus/dbus/v5"

	"github.com/uiscope/uiscope/internal/platform"
)

const (
	ifaceTable = "org.a11y.atspi.Table"

	// AtspiRelationType numbers.
	relationFlowsTo   = 10
	relationFlowsFrom = 11

	// defaultMaxManagedChildren: an element that manages its descendants
	// is walked whole up to this many children (a short list is complete
	// and cheap), and read as what is on screen beyond.
	defaultMaxManagedChildren = 200
	// defaultMaxChildren: any element with more children than this, which
	// the cache does not list (walking those costs nothing more), is read
	// as what is on screen.
	defaultMaxChildren = 2000
	// maxVisibleChildren bounds the children read of one virtual
	// container (a screen of tiny cells).
	maxVisibleChildren = 2000
	// probeStep is the distance in pixels between two hit-test points:
	// less than half the height of a text row in any toolkit's default
	// theme, so that every row and column crossed is seen twice.
	probeStep = 8
	// maxProbesPerLine bounds the points of one line on a huge area.
	maxProbesPerLine = 256
	// maxParentHops is how far up a hit is followed to find the
	// container's child it lies in.
	maxParentHops = 4
)

// virtual reports whether a node's children are read as what is on
// screen.
func (w *walker) virtual(n *platform.Node) bool {
	if n.ChildCount > w.opts.MaxChildren {
		return true
	}
	return n.States.Has(platform.StateManagesDescendants) && n.ChildCount > w.opts.MaxManagedChildren
}

// visibleArea returns the part of the container's extents that its
// ancestors show, in the coordinates the walk asks for; ok is false when
// nothing of it is on screen or its extents cannot be read.
func (w *walker) visibleArea(wn *walkNode) (platform.Rect, bool) {
	b := w.c.newBatch(w.ctx)
	defer b.close()
	var chain []*walkNode
	for a := wn; a != nil; a = a.parent {
		if a.detailed && hasInterface(a.node, "component") {
			chain = append(chain, a)
		}
	}
	rects := make([]*platform.Rect, len(chain))
	for i, a := range chain {
		b.extents(a.ref.Bus, a.ref.Path, w.opts.coord(), func(r *platform.Rect) { rects[i] = r })
		w.stats.Calls++
	}
	b.wait()
	if len(rects) == 0 || rects[0] == nil || chain[0] != wn {
		return platform.Rect{}, false
	}
	// Inside a toolkit embedded in another, the ancestors count from two
	// origins (embed.go): clipped where they are drawn, the area is taken
	// back to the container's own coordinates, which hit tests use.
	d := unembedAncestors(wn, chain, rects)
	area := *rects[0]
	for _, r := range rects[1:] {
		if r == nil || r.Empty() {
			continue // no extents of its own (a filler): it clips nothing
		}
		area = area.Intersect(*r)
	}
	area.X -= d.x
	area.Y -= d.y
	return area, !area.Empty()
}

// unembedAncestors corrects by the embedding rule the extents read of a
// walk node and its ancestors (chain, nearest first: those with a
// Component, rects their extents), in place, and returns the shift of the
// node's own.
func unembedAncestors(wn *walkNode, chain []*walkNode, rects []*platform.Rect) point {
	byNode := make(map[*walkNode]*platform.Rect, len(chain))
	for i, a := range chain {
		byNode[a] = rects[i]
	}
	var line []*platform.Node // from the top down, every ancestor
	for a := wn; a != nil && a.parent != nil; a = a.parent {
		n := &platform.Node{Role: a.node.Role, ChildCount: a.node.ChildCount, Bounds: byNode[a]}
		line = append([]*platform.Node{n}, line...)
	}
	return unembedChain(line)
}

// probePoints lays lines of points across the area: three vertical (left
// edge, middle, right edge) and three horizontal, each point probeStep
// from the next and the area's edges always included.
func probePoints(r platform.Rect) [][2]int32 {
	steps := func(from, length int) []int {
		if length <= 2 {
			return []int{from + length/2}
		}
		first, last := from+1, from+length-2
		step := probeStep
		if n := (last - first) / step; n > maxProbesPerLine {
			step = (last - first) / maxProbesPerLine
		}
		var out []int
		for v := first; v < last; v += step {
			out = append(out, v)
		}
		return append(out, last)
	}
	xs, ys := steps(r.X, r.Width), steps(r.Y, r.Height)
	cols := []int{xs[0], r.X + r.Width/2, xs[len(xs)-1]}
	rows := []int{ys[0], r.Y + r.Height/2, ys[len(ys)-1]}
	seen := map[[2]int32]bool{}
	var out [][2]int32
	add := func(x, y int) {
		p := [2]int32{int32(x), int32(y)}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, x := range cols {
		for _, y := range ys {
			add(x, y)
		}
	}
	for _, y := range rows {
		for _, x := range xs {
			add(x, y)
		}
	}
	return out
}

// hits hit-tests the container at every point and returns the distinct
// elements found, other than the container itself.
func (w *walker) hits(wn *walkNode, pts [][2]int32) []objRef {
	b := w.c.newBatch(w.ctx)
	defer b.close()
	found := make([]objRef, len(pts))
	for i, p := range pts {
		b.add(wn.ref.Bus, wn.ref.Path, ifaceComponent+".GetAccessibleAtPoint", func(call *dbus.Call) {
			if call.Err == nil {
				_ = call.Store(&found[i])
			}
		}, p[0], p[1], w.opts.coord())
		w.stats.Calls++
	}
	b.wait()
	seen := map[objRef]bool{}
	var out []objRef
	for _, r := range found {
		if r.null() || r == wn.ref || seen[r] {
			continue
		}
		seen[r] = true
		out = append(out, r)
	}
	return out
}

// childrenOf follows each hit up to the container's child it lies in (a
// toolkit may answer with a deeper element) and returns those children.
func (w *walker) childrenOf(wn *walkNode, hits []objRef) []objRef {
	var out []objRef
	seen := map[objRef]bool{}
	cur := hits
	for hop := 0; hop < maxParentHops && len(cur) > 0; hop++ {
		parents := make([]objRef, len(cur))
		b := w.c.newBatch(w.ctx)
		for i, r := range cur {
			b.get(r.Bus, r.Path, ifaceAccessible, "Parent", func(v any, err error) {
				if err != nil {
					return
				}
				if s, ok := v.([]any); ok && len(s) == 2 {
					bus, _ := s[0].(string)
					path, _ := s[1].(dbus.ObjectPath)
					parents[i] = objRef{bus, path}
				}
			})
			w.stats.Calls++
		}
		b.wait()
		b.close()
		var next []objRef
		for i, p := range parents {
			switch {
			case p.null():
			case p == wn.ref:
				if !seen[cur[i]] {
					seen[cur[i]] = true
					out = append(out, cur[i])
				}
			case p.Path != rootPath:
				next = append(next, p)
			}
		}
		cur = next
	}
	return out
}

// indexes reads each element's index in its parent (-1 when unknown).
func (w *walker) indexes(refs []objRef) []int {
	out := make([]int, len(refs))
	b := w.c.newBatch(w.ctx)
	defer b.close()
	for i, r := range refs {
		out[i] = -1
		b.add(r.Bus, r.Path, ifaceAccessible+".GetIndexInParent", func(call *dbus.Call) {
			var idx int32
			if call.Err == nil && call.Store(&idx) == nil {
				out[i] = int(idx)
			}
		})
		w.stats.Calls++
	}
	b.wait()
	return out
}

// visibleChildren returns the children of a virtual container that are on
// screen, in order, and the range they cover. A container not on screen
// holds none.
func (w *walker) visibleChildren(wn *walkNode) ([]objRef, *platform.ChildRange) {
	showing := platform.StateShowing
	if w.opts.NoShowing {
		showing = platform.StateVisible
	}
	n := wn.node
	isTable := hasInterface(n, "table")
	none := func() ([]objRef, *platform.ChildRange) {
		if isTable {
			return nil, &platform.ChildRange{}
		}
		first, count := 0, 0
		return nil, &platform.ChildRange{First: &first, Count: &count}
	}
	if !n.States.Has(showing) || !hasInterface(n, "component") {
		return none()
	}
	area, ok := w.visibleArea(wn)
	if !ok {
		return none()
	}
	if isTable && area.Width > 2 && area.Height > 2 {
		// A grid's top-left and bottom-right cells on screen bound what it
		// shows (Calc): two points instead of hundreds. Where a corner
		// holds something else (a column header, empty space below the
		// last row), the lines below find the cells.
		corners := [][2]int32{{int32(area.X + 1), int32(area.Y + 1)}, {int32(area.X + area.Width - 2), int32(area.Y + area.Height - 2)}}
		if kids := w.childrenOf(wn, w.hits(wn, corners)); len(kids) == 2 {
			if refs, rng, _, ok := w.visibleCells(wn, kids, true); ok {
				return refs, rng
			}
		}
	}
	hits := w.hits(wn, probePoints(area))
	kids := w.childrenOf(wn, hits)
	if len(kids) == 0 {
		return none()
	}
	if isTable {
		if refs, rng, hit, ok := w.visibleCells(wn, kids, false); ok {
			if more := w.columnLine(wn, area, kids, hit); len(more) > 0 {
				if refs2, rng2, _, ok := w.visibleCells(wn, append(kids, more...), false); ok {
					return refs2, rng2
				}
			}
			return refs, rng
		}
	}
	idx := w.indexes(kids)
	first, last := -1, -1
	for _, i := range idx {
		if i < 0 {
			continue
		}
		if first < 0 || i < first {
			first = i
		}
		if i > last {
			last = i
		}
	}
	if first < 0 {
		return none()
	}
	last = min(last, first+maxVisibleChildren-1, n.ChildCount-1)
	refs := w.childrenAt(wn, first, last)
	count := len(refs)
	return refs, &platform.ChildRange{First: &first, Count: &count}
}

// columnLine hit-tests a vertical line through a column of cells the
// probes found, when none of the lines already probed runs through it: a
// table whose columns end short of its view's middle (a few narrow columns
// in a wide window) is otherwise crossed top to bottom only by its row
// headers and the empty space beside the columns, and the rows between the
// horizontal lines go unseen. It returns the children hit that are not
// among kids.
func (w *walker) columnLine(wn *walkNode, area platform.Rect, kids, cells []objRef) []objRef {
	b := w.c.newBatch(w.ctx)
	rects := make([]*platform.Rect, len(cells))
	for i, k := range cells {
		b.extents(k.Bus, k.Path, w.opts.coord(), func(r *platform.Rect) { rects[i] = r })
		w.stats.Calls++
	}
	b.wait()
	b.close()
	pts := probePoints(area)
	lines := []int{int(pts[0][0]), area.X + area.Width/2, area.X + area.Width - 2}
	x := -1
	for _, r := range rects {
		if r == nil || r.Empty() {
			continue
		}
		if slices.ContainsFunc(lines, func(l int) bool { return r.X <= l && l < r.X+r.Width }) {
			return nil // a line runs through a column of cells
		}
		if c := r.X + r.Width/2; c > area.X && c < area.X+area.Width && (x < 0 || c < x) {
			x = c
		}
	}
	if x < 0 {
		return nil
	}
	var line [][2]int32
	for _, p := range pts {
		if int(p[0]) == lines[0] {
			line = append(line, [2]int32{int32(x), p[1]})
		}
	}
	var more []objRef
	for _, k := range w.childrenOf(wn, w.hits(wn, line)) {
		if !slices.Contains(kids, k) {
			more = append(more, k)
		}
	}
	return more
}

// childrenAt reads the container's children first..last by index, in
// order; children that cannot be read are left out.
func (w *walker) childrenAt(wn *walkNode, first, last int) []objRef {
	kids := make([]objRef, last-first+1)
	b := w.c.newBatch(w.ctx)
	defer b.close()
	for i := range kids {
		b.add(wn.ref.Bus, wn.ref.Path, ifaceAccessible+".GetChildAtIndex", func(call *dbus.Call) {
			if call.Err != nil || call.Store(&kids[i]) != nil {
				kids[i] = objRef{}
			}
		}, int32(first+i))
		w.stats.Calls++
	}
	b.wait()
	return nonNull(kids)
}

func nonNull(refs []objRef) []objRef {
	out := refs[:0]
	for _, r := range refs {
		if !r.null() {
			out = append(out, r)
		}
	}
	return out
}

// visibleCells maps the table cells hit to their rows and columns and
// reads every cell of the rows and columns seen, the visible columns'
// headers first; hit is the kids that are cells. ok is false when no hit
// maps to a cell, or with all when one does not.
func (w *walker) visibleCells(wn *walkNode, kids []objRef, all bool) (refs []objRef, rng *platform.ChildRange, hit []objRef, ok bool) {
	bus, path := wn.ref.Bus, wn.ref.Path
	idx := w.indexes(kids)
	rows := make([]int, len(idx))
	cols := make([]int, len(idx))
	nRows, nCols := -1, -1
	b := w.c.newBatch(w.ctx)
	for i, x := range idx {
		rows[i], cols[i] = -1, -1
		if x < 0 {
			continue
		}
		b.add(bus, path, ifaceTable+".GetRowAtIndex", func(call *dbus.Call) {
			var v int32
			if call.Err == nil && call.Store(&v) == nil {
				rows[i] = int(v)
			}
		}, int32(x))
		b.add(bus, path, ifaceTable+".GetColumnAtIndex", func(call *dbus.Call) {
			var v int32
			if call.Err == nil && call.Store(&v) == nil {
				cols[i] = int(v)
			}
		}, int32(x))
		w.stats.Calls += 2
	}
	b.get(bus, path, ifaceTable, "NRows", func(v any, err error) {
		if x, ok := v.(int32); ok {
			nRows = int(x)
		}
	})
	b.get(bus, path, ifaceTable, "NColumns", func(v any, err error) {
		if x, ok := v.(int32); ok {
			nCols = int(x)
		}
	})
	w.stats.Calls += 2
	b.wait()
	b.close()
	r0, r1, c0, c1 := -1, -1, -1, -1
	for i := range idx {
		r, c := rows[i], cols[i]
		if r < 0 || c < 0 {
			if all {
				return nil, nil, nil, false
			}
			continue // a header, or not a cell
		}
		hit = append(hit, kids[i])
		if r0 < 0 || r < r0 {
			r0 = r
		}
		if r > r1 {
			r1 = r
		}
		if c0 < 0 || c < c0 {
			c0 = c
		}
		if c > c1 {
			c1 = c
		}
	}
	if r0 < 0 {
		return nil, nil, nil, false
	}
	width := c1 - c0 + 1
	if maxRows := maxVisibleChildren / width; r1-r0+1 > maxRows {
		r1 = r0 + max(maxRows, 1) - 1
	}
	headers := make([]objRef, width)
	cells := make([]objRef, (r1-r0+1)*width)
	b = w.c.newBatch(w.ctx)
	defer b.close()
	for c := c0; c <= c1; c++ {
		b.add(bus, path, ifaceTable+".GetColumnHeader", func(call *dbus.Call) {
			if call.Err != nil || call.Store(&headers[c-c0]) != nil {
				headers[c-c0] = objRef{}
			}
		}, int32(c))
		w.stats.Calls++
	}
	for r := r0; r <= r1; r++ {
		for c := c0; c <= c1; c++ {
			i := (r-r0)*width + c - c0
			b.add(bus, path, ifaceTable+".GetAccessibleAt", func(call *dbus.Call) {
				if call.Err != nil || call.Store(&cells[i]) != nil {
					cells[i] = objRef{}
				}
			}, int32(r), int32(c))
			w.stats.Calls++
		}
	}
	b.wait()
	// A header that is not one of the container's children (Calc answers
	// with none; Qt with elements of the header view) is not listed.
	headers = nonNull(headers)
	if len(headers) > 0 {
		headers = w.childrenOf(wn, headers)
	}
	rng = &platform.ChildRange{Rows: &[2]int{r0, r1}, Columns: &[2]int{c0, c1}}
	if nRows >= 0 {
		rng.RowCount = &nRows
	}
	if nCols >= 0 {
		rng.ColumnCount = &nCols
	}
	return append(headers, nonNull(cells)...), rng, hit, true
}

// flowsBeyond checks, for containers that manage their descendants and were
// walked whole, whether their first and last children flow from and to
// elements that are not among the children: then the application holds
// only part of its content as children (a document's paragraphs on
// screen), and the container is marked partial, with what lies beyond.
func (w *walker) flowsBeyond(lists []*childList) {
	type probe struct {
		parent      *walkNode
		kids        []objRef
		before, aft bool
	}
	var probes []*probe
	b := w.c.newBatch(w.ctx)
	defer b.close()
	relation := func(r objRef, want uint32, set func()) {
		b.add(r.Bus, r.Path, ifaceAccessible+".GetRelationSet", func(call *dbus.Call) {
			var rels []struct {
				Type    uint32
				Targets []objRef
			}
			if call.Err != nil || call.Store(&rels) != nil {
				return
			}
			for _, rel := range rels {
				if rel.Type == want && len(rel.Targets) > 0 && !rel.Targets[0].null() {
					set()
				}
			}
		})
		w.stats.Calls++
	}
	for _, l := range lists {
		if !l.parent.node.States.Has(platform.StateManagesDescendants) {
			continue
		}
		kids := nonNull(append([]objRef(nil), l.kids...))
		if len(kids) == 0 {
			continue
		}
		p := &probe{parent: l.parent, kids: kids}
		probes = append(probes, p)
		relation(kids[0], relationFlowsFrom, func() { p.before = true })
		relation(kids[len(kids)-1], relationFlowsTo, func() { p.aft = true })
	}
	b.wait()
	for _, p := range probes {
		if !p.before && !p.aft {
			continue
		}
		first, count := 0, len(p.kids)
		n := p.parent.node
		n.ChildrenPartial = true
		n.ChildrenRange = &platform.ChildRange{First: &first, Count: &count, MoreBefore: p.before, MoreAfter: p.aft}
	}
}
