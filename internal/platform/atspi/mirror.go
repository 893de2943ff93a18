//go:build linux

package atspi

// A mirror is one application's tree as last read, kept current by the
// application's events and checked against its cache, so that a repeated
// read costs a handful of calls and a copy rather than a walk. (libatspi
// keeps its client cache by events too, but holds no bounds and never
// checks.)
//
// Every read of a mirror:
//   - reads the application's cache afresh (Cache.GetItems, one call): the
//     cache computes states, names and child lists when asked, so any
//     element it disagrees on is read again, whether an event said so or
//     not; the states of elements the cache leaves out are read one by one;
//   - asks each top-level element for its extents (the window manager
//     moves windows without an AT-SPI event) and the root for its child
//     count (a window opened or closed); where extents are window-relative
//     (TreeOptions.WindowOrigin: every toolkit on Wayland) the mirror holds
//     them so, and each read's copy is placed by the windows' origins read
//     for it;
//   - waits, through the watchers' barrier, until every event the
//     application sent before answering has been noted;
//   - re-reads what the events named: an element's whole subtree, or the
//     subtree's bounds for a bounds change. Scrolling moves a pane's content
//     and only the scroll bar's value says so: that re-reads the scroll
//     bar's parent. An element shown or hidden has its parent's child list
//     read again (GTK 3 moves a popover it shows to the front);
//   - reads again the bounds of whatever changed in the last
//     transitionTime: toolkits animate by moving windows, without events.
//
// A mirror older than mirrorMaxAge (or three times what its whole read
// took, when that is longer), one whose event stream may have
// overflowed, and one that would re-read most of itself anyway are
// replaced by a fresh whole read.
//
// Which applications are mirrored is the caller's judgement
// (TreeOptions.Mirror; linux.Mirrorable):
//   - GTK 3: its atk-bridge announces every allocation, so bounds follow
//     events.
//   - Browsers (Firefox, Chromium and Electron apps; TreeOptions.SilentMoves):
//     they announce a page's changes but not its moves, and their caches
//     hold only the browser's own UI. So every read asks again for the
//     bounds of every element on screen instead of the states of every
//     element the cache leaves out, and the states only when one of them
//     moved (a scrolled page turns SHOWING on and off without an event);
//     when the focus moves, the elements held as focused have their states
//     read again (Gecko does not always announce the one losing it); and
//     action names are held only when a read asks for them.
//   - Every other toolkit (GTK 4, Qt) is read afresh every time: their
//     events do not cover every change of bounds. So is an application
//     whose last read found a toolkit's root pane embedded in another's
//     (embed.go), whatever its toolkit says it is: LibreOffice's gtk3
//     plugin answers as GTK 3, but VCL moves the origin it counts from
//     without an event.
//
// Tests compare mirror reads with fresh walks after every kind of change,
// and after random ones (mirror_test.go's TestMirrorRandomGTK3, e2e's
// TestBrowserMirrorRandom).

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/uiscope/uiscope/internal/platform"
)

// mirrorMaxAge is how long a mirror is trusted before it is read afresh:
// the safety net for a change no event announced. (A variable for tests.)
var mirrorMaxAge = 5 * time.Second

// mirrorIdle is how long an unread mirror is kept.
const mirrorIdle = 10 * time.Minute

// maxRects bounds the allocations remembered per application.
const maxRects = 100000

// dirt says what an event asks to re-read of an object.
type dirt uint8

const (
	dirtBounds dirt = 1 << iota // the bounds in its subtree
	dirtAll                     // its whole subtree
	dirtValue                   // its value: a scroll bar's parent's subtree, else its own
	dirtPlace                   // its place among its siblings (shown or hidden)
	dirtChoice                  // its selection: a combo box's value
)

type mirror struct {
	bus  string
	used atomic.Int64 // when it was last read, in Unix nanoseconds

	mu    sync.Mutex // guards dirty, stale, last and rects; taken under watchers.mu
	dirty map[dbus.ObjectPath]dirt
	stale bool                         // everything must be read again
	focus bool                         // the focus moved: read the states of what held it
	last  time.Time                    // when the last change was noted
	rects map[dbus.ObjectPath][4]int32 // the last allocation announced

	// The tree, guarded by the application's lock.
	root   *platform.Node
	nodes  map[dbus.ObjectPath]*platform.Node
	parent map[dbus.ObjectPath]*platform.Node
	opts   TreeOptions // what the tree was read with
	readAt time.Time
	took   time.Duration // what the last whole read cost
	// Subtrees read again because of a change, which may still be moving:
	// toolkits animate by moving windows, without events (GTK 3 slides
	// popovers in and stack pages across). Their bounds are read again on
	// every read until one comes transitionTime after the change.
	settling map[dbus.ObjectPath]time.Time
	// For toolkits that move elements silently (SilentMoves): when an
	// element on screen was last seen to move, and when the states were
	// last read again. A browser moves elements before it turns their
	// SHOWING state off or on, so a read can see them moved but not yet
	// hidden; the states are read again on every read until one reads
	// them transitionTime after the last move.
	movedAt, statesAt time.Time
}

// transitionTime is how long after a change its elements may still move
// without telling: GTK 3's transitions take 150 to 250 ms by default.
const transitionTime = time.Second

// note records what an event from the application asks to re-read.
func (m *mirror) note(sig *dbus.Signal) {
	member := sig.Name[strings.LastIndexByte(sig.Name, '.')+1:]
	detail := ""
	if len(sig.Body) > 0 {
		detail, _ = sig.Body[0].(string)
	}
	var d dirt
	switch member {
	case "TextCaretMoved", "TextSelectionChanged", "TextAttributesChanged":
		return // the caret and the text selection are not in the tree
	case "SelectionChanged":
		// Only a combo box holds its selection as a value; the items of
		// other containers announce their own state changes.
		d = dirtChoice
	case "BoundsChanged":
		d = dirtBounds
		// It carries the element's allocation, relative to its toolkit
		// window. The same allocation again moved nothing: elements with
		// windows of their own announce their moves themselves, and
		// windows moving are checked on every read. (GTK 3 announces
		// every frame of a spinner this way.)
		if r, ok := eventRect(sig); ok {
			m.mu.Lock()
			last, seen := m.rects[sig.Path]
			same := seen && last == r
			if len(m.rects) >= maxRects {
				clear(m.rects) // forgetting only costs a re-read
			}
			m.rects[sig.Path] = r
			m.mu.Unlock()
			if same {
				return
			}
		}
	case "PropertyChange":
		d = dirtAll
		if detail == "accessible-value" {
			d = dirtValue
		}
	case "StateChanged":
		d = dirtAll
		if detail == "focused" {
			// Gecko announces the element that gains the focus, not
			// always the one that loses it.
			m.mu.Lock()
			m.focus = true
			m.mu.Unlock()
		}
		if detail == "showing" || detail == "visible" {
			// GTK 3 moves a popover it shows to the front of its
			// window's children, and says nothing else about it.
			d |= dirtPlace
		}
	default:
		d = dirtAll
	}
	m.mu.Lock()
	m.dirty[sig.Path] |= d
	m.last = time.Now()
	m.mu.Unlock()
}

// eventRect is the rectangle an event carries in its any_data, (iiii).
func eventRect(sig *dbus.Signal) ([4]int32, bool) {
	var r [4]int32
	if len(sig.Body) < 4 {
		return r, false
	}
	v, ok := sig.Body[3].(dbus.Variant)
	if !ok {
		return r, false
	}
	f, ok := v.Value().([]any)
	if !ok || len(f) != 4 {
		return r, false
	}
	for i, x := range f {
		if r[i], ok = x.(int32); !ok {
			return r, false
		}
	}
	return r, true
}

// invalidate makes the next read a whole one.
func (m *mirror) invalidate() {
	m.mu.Lock()
	m.stale = true
	m.mu.Unlock()
}

// take returns and clears what was noted since the last read: the
// elements to read again, whether everything must be, and whether the
// focus moved.
func (m *mirror) take() (map[dbus.ObjectPath]dirt, bool, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, stale, focus := m.dirty, m.stale, m.focus
	m.dirty, m.stale, m.focus = map[dbus.ObjectPath]dirt{}, false, false
	return d, stale, focus
}

// mirrorFor returns the application's mirror, creating it (and starting to
// listen to bounds changes, which uiscope asks for only here) on first use.
func (c *Conn) mirrorFor(ctx context.Context, bus string) (*mirror, error) {
	w := &c.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	if m := w.mirrors[bus]; m != nil {
		return m, nil
	}
	if err := w.start(ctx, c); err != nil {
		return nil, err
	}
	if !c.boundsEvents {
		// The registry tells the applications before it answers, and an
		// application handles that before any later call of ours.
		// Selection changes say when a combo box's value changed (GTK 3
		// announces nothing else when its name is fixed).
		for _, ev := range []string{"object:bounds-changed", "object:selection-changed"} {
			if err := c.registerEvent(ctx, ev); err != nil {
				return nil, err
			}
		}
		c.boundsEvents = true
	}
	if w.mirrors == nil {
		w.mirrors = map[string]*mirror{}
	}
	// Mirrors nobody read for a while (their apps may be long gone) are
	// dropped; reading one again costs a whole read.
	for b, old := range w.mirrors {
		if time.Since(time.Unix(0, old.used.Load())) > mirrorIdle {
			delete(w.mirrors, b)
		}
	}
	m := &mirror{bus: bus, dirty: map[dbus.ObjectPath]dirt{}, stale: true, rects: map[dbus.ObjectPath][4]int32{}}
	m.used.Store(time.Now().UnixNano())
	w.mirrors[bus] = m
	return m, nil
}

// dropMirror forgets an application's mirror (the application is gone).
func (c *Conn) dropMirror(bus string) {
	c.watch.mu.Lock()
	delete(c.watch.mirrors, bus)
	c.watch.mu.Unlock()
}

// mirrorTree serves a whole-tree read from the application's mirror; the
// caller holds the application's lock.
func (c *Conn) mirrorTree(ctx context.Context, bus string, opts TreeOptions) (*platform.Node, TreeStats, error) {
	start := time.Now()
	opts.Mirror = false
	m, err := c.mirrorFor(ctx, bus)
	if err != nil {
		return c.read(ctx, bus, rootPath, opts)
	}
	m.used.Store(time.Now().UnixNano())
	// The mirror always holds action names, so that reads with and without
	// them share it; but not in a browser, where nearly every element of a
	// page has actions and they would add a call a node to a read that
	// does not ask for them (one that does reads the tree whole again).
	mopts := opts
	mopts.Actions = opts.Actions || !opts.SilentMoves
	// Window-relative bounds are held as the toolkit gave them, and each
	// read's copy placed by the windows' origins now: a window moves
	// without an accessibility event.
	mopts.unplaced = opts.WindowOrigin != nil
	root, st, err := c.refresh(ctx, m, mopts)
	if err != nil {
		if errors.Is(err, platform.ErrElementGone) {
			c.dropMirror(bus)
		}
		return nil, st, err
	}
	out := copyTree(root, opts.Actions)
	if opts.WindowOrigin != nil {
		place(ctx, out, opts)
	}
	st.Elapsed = time.Since(start)
	return out, st, nil
}

// refresh brings the mirror up to date and returns its root.
func (c *Conn) refresh(ctx context.Context, m *mirror, opts TreeOptions) (*platform.Node, TreeStats, error) {
	st := TreeStats{Strategy: "mirror"}
	var moved []dbus.ObjectPath
	synced := false
	var cache map[objRef]*cached
	// Trusted for mirrorMaxAge, or three whole reads' time when that is
	// longer: on a page of thousands of nodes a whole read takes seconds,
	// and a limit it nearly fills would make every read whole.
	if m.root != nil && sameRead(m.opts, opts) && time.Since(m.readAt) < max(mirrorMaxAge, 3*m.took) {
		var err error
		cache, err = c.readCache(ctx, m.bus)
		st.Calls++
		if err == nil {
			moved, err = c.syncMirror(ctx, m, &st)
		}
		synced = err == nil
	}
	dirty, stale, focus := m.take()
	if !synced || stale {
		return c.readWhole(ctx, m, opts)
	}
	for _, p := range moved {
		dirty[p] |= dirtBounds
	}
	m.verify(cache, dirty)
	if focus {
		if err := c.checkFocus(ctx, m, dirty, &st); err != nil {
			return c.readWhole(ctx, m, opts)
		}
	}
	check := true
	if opts.SilentMoves {
		at := time.Now()
		moved, err := c.boundsMoved(ctx, m, &st)
		if err != nil {
			return c.readWhole(ctx, m, opts)
		}
		if moved {
			m.movedAt = at
		}
		check = moved || m.statesAt.Before(m.movedAt.Add(transitionTime))
	}
	if check {
		at := time.Now()
		if err := c.checkStates(ctx, m, cache, dirty, &st); err != nil {
			return c.readWhole(ctx, m, opts)
		}
		m.statesAt = at
	}
	if err := c.checkPlaces(ctx, m, dirty, &st); err != nil {
		return c.readWhole(ctx, m, opts)
	}
	walks, bounds := m.plan(dirty)
	if m.covered(walks) > len(m.nodes)/2 {
		return c.readWhole(ctx, m, opts)
	}
	// What changed now settles from now; what changed before is read
	// again until it has settled.
	now := time.Now()
	again := false
	for p, until := range m.settling {
		if m.nodes[p] == nil || now.After(until) {
			delete(m.settling, p)
		}
		if m.nodes[p] != nil {
			dirty[p] |= dirtBounds
			again = true
		}
	}
	for _, p := range append(walks, bounds...) {
		m.settling[p] = now.Add(transitionTime)
	}
	if again {
		walks, bounds = m.plan(dirty)
	}
	for _, p := range walks {
		sub := opts
		sub.NoCache = true // the bulk cache is the whole application's
		n, wst, err := c.read(ctx, m.bus, p, sub)
		st.Calls += wst.Calls
		if err != nil || wst.Truncated {
			// Gone meanwhile (its parent's change is noted by now), or
			// out of time: the whole read says which.
			return c.readWhole(ctx, m, opts)
		}
		m.replace(p, n)
		// A combo box valued from its subtree (values.go) follows what
		// was read again inside it.
		for a := m.parent[p]; a != nil; a = m.parent[m.pathOf(a.Key)] {
			choiceFromSubtree(a)
		}
	}
	if len(m.nodes) > opts.MaxNodes {
		return c.readWhole(ctx, m, opts)
	}
	if len(bounds) > 0 {
		c.rereadBounds(ctx, m, bounds, &st)
	}
	if ctx.Err() != nil {
		st.Truncated, st.Reason = true, "deadline"
		m.invalidate()
	}
	st.Nodes = len(m.nodes)
	return m.root, st, nil
}

// readWhole replaces the mirror with a fresh read of the whole tree.
func (c *Conn) readWhole(ctx context.Context, m *mirror, opts TreeOptions) (*platform.Node, TreeStats, error) {
	m.take() // what happens from here on is noted against the new read
	first := m.readAt.IsZero()
	root, st, err := c.read(ctx, m.bus, rootPath, opts)
	if err != nil {
		m.root = nil
		return nil, st, err
	}
	st.Strategy += "+mirror"
	if st.Truncated {
		m.root = nil // never serve part of a tree as the whole
		return root, st, nil
	}
	m.root, m.opts, m.readAt, m.took = root, opts, time.Now(), st.Elapsed
	m.nodes = map[dbus.ObjectPath]*platform.Node{}
	m.parent = map[dbus.ObjectPath]*platform.Node{}
	m.add(root, nil)
	// A whole read may have caught the app in the middle of a transition.
	// If it followed a recent change, or nothing is known of the time
	// before it (the first read), all bounds settle from here.
	m.settling = map[dbus.ObjectPath]time.Time{}
	m.mu.Lock()
	last := m.last
	m.mu.Unlock()
	if first || time.Since(last) < transitionTime {
		m.settling[rootPath] = m.readAt.Add(transitionTime)
	}
	// Nor is it known whether what moved silently before it has shown or
	// hidden itself yet: the states are read again as after a move.
	m.movedAt = m.readAt
	return root, st, nil
}

// syncMirror asks the application for its root's child count and each
// top-level element's extents, then waits for the events it sent before
// answering to be noted. It returns the top-level elements that moved.
func (c *Conn) syncMirror(ctx context.Context, m *mirror, st *TreeStats) ([]dbus.ObjectPath, error) {
	b := c.newBatch(ctx)
	defer b.close()
	var failed error
	count := -1
	b.get(m.bus, rootPath, ifaceAccessible, "ChildCount", func(v any, err error) {
		if cc, ok := v.(int32); ok {
			count = int(cc)
		} else if failed == nil {
			failed = fmt.Errorf("root child count: %s", errText(err))
		}
	})
	st.Calls++
	var moved []dbus.ObjectPath
	for _, top := range m.root.Children {
		if top.Bounds == nil || !hasInterface(top, "component") {
			continue
		}
		p := m.pathOf(top.Key)
		was := *top.Bounds
		b.extents(m.bus, p, m.opts.coord(), func(r *platform.Rect) {
			if r == nil || *r != was {
				moved = append(moved, p)
			}
		})
		st.Calls++
	}
	b.wait()
	if failed != nil {
		return nil, failed
	}
	if count != m.root.ChildCount {
		return nil, errors.New("the application's windows changed")
	}
	return moved, c.watch.barrier(ctx)
}

// checkStates reads again the states of the elements the cache leaves out
// (GTK 3: the children of elements that manage their descendants, such as
// list rows). States are what toolkits compute from other widgets without
// telling anyone (a GTK 3 list row's "selectable" follows its list's
// selection mode); names and children changes are announced. An element
// whose states changed is marked to be read again.
func (c *Conn) checkStates(ctx context.Context, m *mirror, cache map[objRef]*cached, dirty map[dbus.ObjectPath]dirt, st *TreeStats) error {
	b := c.newBatch(ctx)
	defer b.close()
	var failed error
	for p, n := range m.nodes {
		if p == rootPath || cache[objRef{m.bus, p}] != nil || n.Err != "" {
			continue
		}
		b.states(m.bus, p, func(now platform.StateSet, err error) {
			if err != nil {
				failed = cmp.Or(failed, fmt.Errorf("states: %s", errText(err)))
				return
			}
			if now != n.States {
				dirty[p] |= dirtAll
			}
		})
		st.Calls++
	}
	b.wait()
	return failed
}

// checkFocus reads again the states of the elements the mirror holds as
// focused, once the focus moved: an element that lost it without an event
// loses the state in place; any other change marks it to be read again.
func (c *Conn) checkFocus(ctx context.Context, m *mirror, dirty map[dbus.ObjectPath]dirt, st *TreeStats) error {
	b := c.newBatch(ctx)
	defer b.close()
	var failed error
	for p, n := range m.nodes {
		if !n.States.Has(platform.StateFocused) {
			continue
		}
		b.states(m.bus, p, func(now platform.StateSet, err error) {
			if err != nil {
				failed = cmp.Or(failed, fmt.Errorf("states: %s", errText(err)))
				return
			}
			was := n.States
			was &^= 1 << platform.StateFocused
			switch {
			case now == n.States:
			case now == was:
				n.States = now
			default:
				dirty[p] |= dirtAll
			}
		})
		st.Calls++
	}
	b.wait()
	return failed
}

// boundsMoved reads again the bounds of every element on screen, in place,
// and reports whether any moved. For toolkits that move elements silently
// (SilentMoves: a browser scrolling its page): an element scrolled into or
// out of view changes its SHOWING state without an event, but whatever
// scrolled moved some element on screen (the one scrolled away, or its
// neighbours), so the states need reading again only when something moved.
func (c *Conn) boundsMoved(ctx context.Context, m *mirror, st *TreeStats) (bool, error) {
	b := c.newBatch(ctx)
	defer b.close()
	moved := false
	for p, n := range m.nodes {
		if n.Bounds == nil {
			continue
		}
		was := *n.Bounds
		b.extents(m.bus, p, m.opts.coord(), func(r *platform.Rect) {
			if r == nil || *r != was {
				n.Bounds, moved = r, true
			}
		})
		st.Calls++
	}
	b.wait()
	return moved, ctx.Err()
}

// checkPlaces reads again the child lists of the parents of elements shown
// or hidden (the cache may not list all their children). A list that is
// the old one reordered is reordered in the mirror; any other change marks
// the parent to be walked again.
func (c *Conn) checkPlaces(ctx context.Context, m *mirror, dirty map[dbus.ObjectPath]dirt, st *TreeStats) error {
	parents := map[dbus.ObjectPath]*platform.Node{}
	for p, d := range dirty {
		if d&dirtPlace == 0 || m.nodes[p] == nil || m.parent[p] == nil {
			continue
		}
		parent := m.parent[p]
		pp := m.pathOf(parent.Key)
		if parent.States.Has(platform.StateManagesDescendants) {
			dirty[pp] |= dirtAll // children made on demand, maybe thousands
			continue
		}
		parents[pp] = parent
	}
	if len(parents) == 0 {
		return nil
	}
	b := c.newBatch(ctx)
	defer b.close()
	var failed error
	fail := func(what string, err error) {
		if failed == nil {
			failed = fmt.Errorf("%s: %s", what, errText(err))
		}
	}
	counts := map[dbus.ObjectPath]int{}
	for pp := range parents {
		b.get(m.bus, pp, ifaceAccessible, "ChildCount", func(v any, err error) {
			if cc, ok := v.(int32); ok {
				counts[pp] = int(cc)
			} else {
				fail("child count", err)
			}
		})
		st.Calls++
	}
	b.wait()
	if failed != nil {
		return failed
	}
	kids := map[dbus.ObjectPath][]objRef{}
	for pp, parent := range parents {
		if counts[pp] != len(parent.Children) {
			dirty[pp] |= dirtAll
			continue
		}
		list := make([]objRef, counts[pp])
		kids[pp] = list
		for i := range list {
			b.add(m.bus, pp, ifaceAccessible+".GetChildAtIndex", func(call *dbus.Call) {
				if call.Err != nil || call.Store(&list[i]) != nil {
					fail("child", call.Err)
				}
			}, int32(i))
			st.Calls++
		}
	}
	b.wait()
	if failed != nil {
		return failed
	}
	for pp, list := range kids {
		if !m.reorder(parents[pp], list) {
			dirty[pp] |= dirtAll
		}
	}
	return nil
}

// verify holds the mirror against the application's cache, read afresh.
// The cache computes states, names and child lists when asked, so it shows
// what changed without an event: GTK 3 computes a list row's "selectable"
// from its list's selection mode and tells no one when that changes, and
// moves a popover it shows to the front of its window's children. Elements
// it disagrees on are marked to be read again; a parent whose children were
// only reordered is reordered.
func (m *mirror) verify(cache map[objRef]*cached, dirty map[dbus.ObjectPath]dirt) {
	for r, ci := range cache {
		if r.Bus != m.bus || r.Path == rootPath {
			continue
		}
		n := m.nodes[r.Path]
		if n == nil {
			// Not in the tree: a new child shows in its parent's count.
			// (The cache also keeps elements that are no one's child,
			// such as GTK 3's hidden stack pages.)
			continue
		}
		c := &ci.node
		if c.Role != n.Role || c.Name != n.Name || c.Description != n.Description || c.States != n.States ||
			!slices.Equal(c.Interfaces, n.Interfaces) {
			dirty[r.Path] |= dirtAll
		}
		if !trustCount(c, r) || !trustCount(n, r) {
			continue
		}
		kids, ok := ci.kids(c.ChildCount)
		if c.ChildCount != n.ChildCount || !ok && c.ChildCount != len(n.Children) {
			dirty[r.Path] |= dirtAll
			continue
		}
		if ok && !m.reorder(n, kids) {
			dirty[r.Path] |= dirtAll
		}
	}
}

// reorder puts n's children in the given order if they are the same
// children, and reports whether they are.
func (m *mirror) reorder(n *platform.Node, kids []objRef) bool {
	if len(kids) != len(n.Children) {
		return false
	}
	byKey := make(map[string]*platform.Node, len(n.Children))
	for _, k := range n.Children {
		byKey[k.Key] = k
	}
	order := make([]*platform.Node, 0, len(kids))
	for _, r := range kids {
		k := byKey[r.key()]
		if k == nil {
			return false
		}
		delete(byKey, r.key())
		order = append(order, k)
	}
	copy(n.Children, order)
	return true
}

// plan turns what events noted into the subtrees to walk again and the
// subtrees whose bounds to read again, outermost only.
func (m *mirror) plan(dirty map[dbus.ObjectPath]dirt) (walks, bounds []dbus.ObjectPath) {
	walk := map[dbus.ObjectPath]bool{}
	bound := map[dbus.ObjectPath]bool{}
	for p, d := range dirty {
		n := m.nodes[p]
		if n == nil {
			continue // not in the tree: its parent's change says what matters
		}
		if d&dirtChoice != 0 {
			if n.Role == roleComboBox {
				d |= dirtAll
			}
			if d &^= dirtChoice; d == 0 {
				continue
			}
		}
		switch {
		case d&dirtValue != 0 && n.Role == platform.RoleScrollBar && m.parent[p] != nil:
			walk[m.pathOf(m.parent[p].Key)] = true
		case d&(dirtAll|dirtValue) != 0 && n.Role == roleTableCell && m.parent[p] != nil && isRendererCell(m.parent[p]):
			// A renderer's cell: its parent's value is made of it.
			walk[m.pathOf(m.parent[p].Key)] = true
		case d&(dirtAll|dirtValue) != 0:
			walk[p] = true
		default:
			bound[p] = true
		}
	}
	// Elements read with errors are read again.
	for p, n := range m.nodes {
		if n.Err != "" {
			walk[p] = true
		}
	}
	inside := func(p dbus.ObjectPath, set map[dbus.ObjectPath]bool) bool {
		for a := m.parent[p]; a != nil; a = m.parent[m.pathOf(a.Key)] {
			if set[m.pathOf(a.Key)] {
				return true
			}
		}
		return false
	}
	for p := range walk {
		if !inside(p, walk) {
			walks = append(walks, p)
		}
	}
	for p := range bound {
		if !walk[p] && !inside(p, walk) && !inside(p, bound) {
			bounds = append(bounds, p)
		}
	}
	return walks, bounds
}

// sameRead reports whether two reads ask for the same tree.
func sameRead(a, b TreeOptions) bool {
	return a.MaxNodes == b.MaxNodes && a.MaxManagedChildren == b.MaxManagedChildren && a.MaxChildren == b.MaxChildren &&
		a.NoCache == b.NoCache && a.NoDetails == b.NoDetails && a.NoShowing == b.NoShowing &&
		a.Actions == b.Actions && a.NoValues == b.NoValues && a.Bulk == b.Bulk && a.SilentMoves == b.SilentMoves &&
		a.coord() == b.coord() && a.unplaced == b.unplaced
}

// covered counts the nodes in the given subtrees.
func (m *mirror) covered(paths []dbus.ObjectPath) int {
	n := 0
	for _, p := range paths {
		n += size(m.nodes[p])
	}
	return n
}

func size(n *platform.Node) int {
	s := 1
	for _, c := range n.Children {
		s += size(c)
	}
	return s
}

// replace puts a freshly read subtree in place of the one at p.
func (m *mirror) replace(p dbus.ObjectPath, n *platform.Node) {
	old, parent := m.nodes[p], m.parent[p]
	m.remove(old)
	if parent == nil {
		m.root = n
	} else {
		for i, c := range parent.Children {
			if c == old {
				parent.Children[i] = n
			}
		}
	}
	m.add(n, parent)
}

func (m *mirror) add(n, parent *platform.Node) {
	p := m.pathOf(n.Key)
	m.nodes[p], m.parent[p] = n, parent
	for _, c := range n.Children {
		m.add(c, n)
	}
}

func (m *mirror) remove(n *platform.Node) {
	p := m.pathOf(n.Key)
	delete(m.nodes, p)
	delete(m.parent, p)
	for _, c := range n.Children {
		m.remove(c)
	}
}

func (m *mirror) pathOf(key string) dbus.ObjectPath {
	return dbus.ObjectPath(strings.TrimPrefix(key, "atspi:"+m.bus))
}

// rereadBounds reads the bounds of every element on screen in the given
// subtrees, as a fresh walk would.
func (c *Conn) rereadBounds(ctx context.Context, m *mirror, roots []dbus.ObjectPath, st *TreeStats) {
	b := c.newBatch(ctx)
	defer b.close()
	var visit func(n *platform.Node)
	visit = func(n *platform.Node) {
		n.Bounds = nil
		if n.States.Has(platform.StateShowing) && hasInterface(n, "component") {
			b.extents(m.bus, m.pathOf(n.Key), m.opts.coord(), func(r *platform.Rect) { n.Bounds = r })
			st.Calls++
		}
		for _, c := range n.Children {
			visit(c)
		}
	}
	for _, p := range roots {
		visit(m.nodes[p])
	}
	b.wait()
}

// copyTree copies a tree for a caller, who may keep it while the mirror
// changes. Slices other than Children are never changed in place, so they
// are shared.
func copyTree(n *platform.Node, actions bool) *platform.Node {
	c := *n
	if !actions {
		c.Actions = nil
	}
	if n.Bounds != nil {
		b := *n.Bounds
		c.Bounds = &b
	}
	if len(n.Children) > 0 {
		c.Children = make([]*platform.Node, len(n.Children))
		for i, k := range n.Children {
			c.Children[i] = copyTree(k, actions)
		}
	}
	return &c
}
