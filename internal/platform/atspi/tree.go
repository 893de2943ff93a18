//go:build linux

package atspi

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/uiscope/uiscope/internal/platform"
)

// TreeOptions shape a tree read.
type TreeOptions struct {
	// MaxNodes stops the walk after this many nodes (0: 50000), so that an
	// app with a runaway tree cannot exhaust memory.
	MaxNodes int
	// MaxManagedChildren: an element that manages its descendants (tables,
	// tree views: children are created on demand, possibly millions) with
	// more children than this holds only those on screen (virtual.go).
	// 0: 200.
	MaxManagedChildren int
	// MaxChildren: any element with more children than this, which the
	// application's cache does not list, holds only those on screen.
	// 0: 2000.
	MaxChildren int
	// NoCache skips the bulk prefetch, and with Bulk the prefetch through
	// Collection (collection.go), for comparisons.
	NoCache bool
	// NoDetails skips bounds and actions.
	NoDetails bool
	// NoValues skips the controls' values (for comparisons: what values
	// cost). Fields that may hide their text are checked all the same.
	NoValues bool
	// NoShowing says the toolkit sets SHOWING on windows only (GTK 4), so
	// VISIBLE decides which elements are on screen.
	NoShowing bool
	// MenuPopups, for a toolkit that sets no SHOWING on an open menu's
	// items (GTK 2, whose menus are no top levels of their own), returns
	// the screen rectangles of the application's mapped menu windows, read
	// for this walk. A menu's VISIBLE items without SHOWING then have
	// their extents read, and keep them only when they lie inside one of
	// those windows: GTK 2 answers a closed menu's items with the extents
	// they had when it last was open.
	MenuPopups func(ctx context.Context) []platform.Rect
	// Actions reads action names too (one more call per actionable
	// element); outlines and benchmarks of the tree shape leave them out.
	Actions bool
	// WindowOrigin returns the screen origin of the native window that
	// shows a top-level element (frame, dialog, window), read for this
	// walk; ok false when that window is unknown, and the top level's
	// elements are then left without bounds (BoundsUnknown). Needed for
	// toolkits that report window-relative extents (GTK 4); nil leaves
	// them as read.
	WindowOrigin func(ctx context.Context, top *platform.Node) (x, y int, ok bool)
	// PopupOrigin, with WindowOrigin, returns the screen position of the
	// popup window that shows an element below a top level whose role a
	// popup's has (menu, popup menu, window, tool tip), its bounds still
	// as the toolkit gave them; ok false when no popup shows it. GTK 4.8
	// gives a popover's contents (a menu's items) extents that count from
	// the popover's own place in its parent, not from the popover's
	// window: the subtree is placed by the popup's position instead of
	// the top level's window, or, with no popup, left without bounds.
	PopupOrigin func(ctx context.Context, n *platform.Node) (x, y int, ok bool)
	// ScreenExtents, with WindowOrigin, asks for screen coordinates all
	// the same: on Wayland a toolkit's screen coordinates are its window's
	// (it cannot know better), and Qt 5's window coordinates there are
	// wrong (each rectangle stretched from the window's first child's
	// corner to the element's far corner).
	ScreenExtents bool
	// Bulk reads an uncached element's Accessible properties with one
	// Properties.GetAll and its children with one GetChildren, instead of
	// a call per property and per child. Only for toolkits known to answer
	// both truthfully (atk-bridge in Gecko and Chromium): Qt 5.15 crashes
	// on GetAll of its root, and GTK 4.8's GetChildren skips stack pages.
	Bulk bool
	// SilentMoves says the toolkit moves elements without telling: a
	// browser scrolling its page sends no bounds event, and the elements
	// that scroll in or out change their SHOWING state silently. A mirror
	// then reads the bounds of every element on screen again on every read,
	// and the states of the elements its cache leaves out only when
	// something moved (see mirror.go). Other states are announced.
	SilentMoves bool
	// Mirror serves whole-tree reads from a copy of the tree kept current
	// by the application's events, re-reading only what they touched (see
	// mirror.go). For long-lived connections to toolkits whose events
	// cover every change, bounds included (GTK 3). With WindowOrigin the
	// mirror holds the bounds as the toolkit gave them and places each
	// read's copy by the windows' origins read for it.
	Mirror bool

	// unplaced reads extents in the coordinates WindowOrigin calls for but
	// leaves them there: a mirror's own reads, placed by the read serving
	// them.
	unplaced bool
}

func (o TreeOptions) coord() uint32 { return coordType(o.WindowOrigin != nil && !o.ScreenExtents) }

// coordType is what GetExtents is asked for: window coordinates (1) when
// the extents will be shifted by a window origin anyway, which also spares
// GTK 4 a warning it logs for every screen-coordinate request.
func coordType(windowRelative bool) uint32 {
	if windowRelative {
		return 1
	}
	return 0
}

// TreeStats describes how a tree was read.
type TreeStats = platform.TreeStats

type objRef struct {
	Bus  string
	Path dbus.ObjectPath
}

func (r objRef) key() string { return "atspi:" + r.Bus + string(r.Path) }

func (r objRef) null() bool { return r.Bus == "" || r.Path == nullPath || r.Path == "" }

// ParseKey splits a durable key back into bus name and object path.
func ParseKey(key string) (bus string, path dbus.ObjectPath, err error) {
	rest, ok := strings.CutPrefix(key, "atspi:")
	i := strings.IndexByte(rest, '/')
	if !ok || i <= 0 {
		return "", "", fmt.Errorf("not an AT-SPI element key: %q", key)
	}
	return rest[:i], dbus.ObjectPath(rest[i:]), nil
}

// cacheItem is one entry of Cache.GetItems, current signature
// a((so)(so)(so)iiassusau).
type cacheItem struct {
	Self, App, Parent objRef
	Index, ChildCount int32
	Interfaces        []string
	Name              string
	Role              uint32
	Description       string
	States            []uint32
}

// cacheItemOld is the pre-2.30 signature that Qt still sends,
// a((so)(so)(so)a(so)assusau): children inline, no index or count.
type cacheItemOld struct {
	Self, App, Parent objRef
	Children          []objRef
	Interfaces        []string
	Name              string
	Role              uint32
	Description       string
	States            []uint32
}

// cached is what the cache says of one element.
type cached struct {
	node     platform.Node
	parent   objRef
	children map[int32]objRef // by index in parent, from the items' parent links
	inline   []objRef         // old signature: the children list itself
	old      bool
}

// readCache fetches an application's whole cache in one call, under the
// deadline the app's earlier answers earned (bulk.go). It is a bulk
// prefetch, not a snapshot: GTK 4 lists only objects it exported already, GTK
// 3 leaves out the subtrees of elements that manage their descendants, and Qt
// answers with nothing. The walk checks every element's child count against it.
func (c *Conn) readCache(ctx context.Context, bus string) (map[objRef]*cached, error) {
	call, err := c.getItems(ctx, bus)
	if err != nil {
		return nil, err
	}
	out := map[objRef]*cached{}
	var items []cacheItem
	var old []cacheItemOld
	switch {
	case call.Store(&items) == nil:
		for _, it := range items {
			out[it.Self] = &cached{node: nodeFrom(it.Self, it.Role, it.Name, it.Description, it.States, it.Interfaces, int(it.ChildCount)), parent: it.Parent}
		}
		for _, it := range items {
			if p, ok := out[it.Parent]; ok && it.Index >= 0 {
				if p.children == nil {
					p.children = map[int32]objRef{}
				}
				p.children[it.Index] = it.Self
			}
		}
	case call.Store(&old) == nil:
		for _, it := range old {
			out[it.Self] = &cached{
				node:   nodeFrom(it.Self, it.Role, it.Name, it.Description, it.States, it.Interfaces, len(it.Children)),
				inline: it.Children, old: true,
			}
		}
	default:
		return nil, fmt.Errorf("unexpected Cache.GetItems reply %s", dbus.SignatureOf(call.Body...))
	}
	return out, nil
}

func nodeFrom(r objRef, role uint32, name, desc string, states []uint32, ifaces []string, childCount int) platform.Node {
	n := platform.Node{
		Key:         r.key(),
		Role:        platform.Role(role),
		Name:        name,
		Description: desc,
		States:      platform.StateSetFromWords(states),
		Interfaces:  shortInterfaces(ifaces),
		ChildCount:  childCount,
	}
	redact(&n)
	return n
}

func shortInterfaces(ifaces []string) []string {
	out := make([]string, 0, len(ifaces))
	for _, i := range ifaces {
		s, ok := strings.CutPrefix(i, "org.a11y.atspi.")
		if !ok {
			continue
		}
		out = append(out, strings.ToLower(s))
	}
	return out
}

func hasInterface(n *platform.Node, iface string) bool {
	for _, i := range n.Interfaces {
		if i == iface {
			return true
		}
	}
	return false
}

// trustCount reports whether a cached item's child count can be believed.
// Application roots report 0 in GTK 4's cache, atk-bridge reports -1 for
// children it will not enumerate (combo box menus), and elements that manage
// their descendants report what happened to be created; all are read live.
func trustCount(n *platform.Node, r objRef) bool {
	return r.Path != rootPath && n.ChildCount >= 0 && !n.States.Has(platform.StateManagesDescendants)
}

// walkNode is a node under construction.
type walkNode struct {
	parent   *walkNode
	depth    int
	hidden   bool // inside an element laid out at 0x0 (GTK 4)
	recount  bool // cached, but the child count must be read live
	ref      objRef
	node     *platform.Node
	detailed bool // role/name/states/interfaces known
	top      *walkNode
}

// Tree reads the whole accessible tree of the application on bus. On a
// deadline or node limit it returns what it has, with Truncated set; the
// error is non-nil only when not even the root could be read.
func (c *Conn) Tree(ctx context.Context, bus string, opts TreeOptions) (*platform.Node, TreeStats, error) {
	return c.SubTree(ctx, objRef{bus, rootPath}.key(), opts)
}

// SubTree reads the tree under the element with the given key. A whole
// application's tree (the root's key) has the bounds of subtrees that an
// embedded toolkit places by another origin corrected (embed.go); a
// subtree below the root has its bounds as the toolkit gives them.
func (c *Conn) SubTree(ctx context.Context, key string, opts TreeOptions) (*platform.Node, TreeStats, error) {
	if opts.MaxNodes <= 0 {
		opts.MaxNodes = 50000
	}
	if opts.MaxManagedChildren <= 0 {
		opts.MaxManagedChildren = defaultMaxManagedChildren
	}
	if opts.MaxChildren <= 0 {
		opts.MaxChildren = defaultMaxChildren
	}
	bus, path, err := ParseKey(key)
	if err != nil {
		return nil, TreeStats{}, err
	}
	unlock, err := c.lockApp(ctx, bus)
	if err != nil {
		return nil, TreeStats{}, err
	}
	defer unlock()
	if path != rootPath {
		return c.read(ctx, bus, path, opts)
	}
	if opts.Mirror && c.embeds.has(bus) {
		// An embedded toolkit moves its elements without an event: VCL
		// changes the origin it counts from (seen on X11: from the
		// window's top to its own widget's, a while after it started),
		// all its elements at once. A mirror would hold some elements
		// placed before and some after, which no rule can set right:
		// such an application is read whole.
		opts.Mirror = false
		c.dropMirror(bus)
	}
	var root *platform.Node
	var st TreeStats
	if opts.Mirror {
		root, st, err = c.mirrorTree(ctx, bus, opts)
	} else {
		root, st, err = c.read(ctx, bus, path, opts)
	}
	switch {
	case err == nil && !opts.NoDetails:
		// The tree is the caller's own (a mirror's is a copy).
		c.embeds.learn(bus, root, unembed(root), st.Truncated)
	case errors.Is(err, platform.ErrElementGone):
		c.embeds.learn(bus, nil, false, false) // the application is gone
	}
	return root, st, err
}

// read walks the tree under one element; the caller holds the app lock.
func (c *Conn) read(ctx context.Context, bus string, path dbus.ObjectPath, opts TreeOptions) (*platform.Node, TreeStats, error) {
	start := time.Now()
	key := objRef{bus, path}.key()
	st := TreeStats{Strategy: "walk"}
	var cache map[objRef]*cached
	cerr := errors.New("cache not asked for")
	if !opts.NoCache {
		cache, cerr = c.readCache(ctx, bus)
		st.Calls++
	}
	if cerr == nil {
		st.CacheItems = len(cache)
		st.Strategy = "cache+walk"
	} else if errors.Is(cerr, platform.ErrElementGone) {
		return nil, st, cerr
	} else if errors.Is(cerr, platform.ErrTimeout) {
		// A frozen app: the walk would wait the same way. Say what was read:
		// nothing but the root's key.
		st.Truncated, st.Reason = true, "deadline: the application did not answer"
		st.Nodes, st.Elapsed = 1, time.Since(start)
		return &platform.Node{Key: key, Err: "not read: the application did not answer in time"}, st, nil
	}
	w := &walker{c: c, ctx: ctx, cache: cache, opts: opts, stats: &st}
	if opts.Bulk && !opts.NoCache {
		if pre := w.prefetch(objRef{bus, path}); pre != nil {
			if w.cache == nil {
				w.cache = make(map[objRef]*cached, len(pre))
			}
			for r, ci := range pre {
				w.cache[r] = ci
			}
			st.Strategy = "collection+walk"
			if w.direct {
				st.Strategy = "direct+collection+walk"
			}
		}
	}
	root := w.make(objRef{bus, path}, nil)
	if err := w.walk(root); err != nil {
		if errors.Is(err, platform.ErrTimeout) {
			st.Truncated, st.Reason = true, "deadline: the application did not answer"
			st.Nodes, st.Elapsed = 1, time.Since(start)
			return root.node, st, nil
		}
		return nil, st, err
	}
	// Before anything else, whatever the options: a field that hides its
	// text is never passed on with its name.
	done := w.hideHiddenFields(bus)
	if !opts.NoValues {
		w.readValues(done)
	}
	if !opts.NoDetails && ctx.Err() == nil {
		w.details(root)
	}
	if !opts.NoValues {
		w.shownChoices()
		w.rendererCells()
	}
	if ctx.Err() != nil && !st.Truncated {
		st.Truncated, st.Reason = true, "deadline"
	}
	st.Nodes = len(w.all)
	st.Elapsed = time.Since(start)
	return root.node, st, nil
}

type walker struct {
	c     *Conn
	ctx   context.Context
	cache map[objRef]*cached
	opts  TreeOptions
	stats *TreeStats
	all   []*walkNode
	// direct: the prefetch read the elements over a direct connection
	// to the application (collection.go).
	direct bool
}

func (w *walker) make(r objRef, parent *walkNode) *walkNode {
	wn := &walkNode{ref: r, parent: parent}
	if parent != nil {
		wn.depth = parent.depth + 1
	}
	if ci, ok := w.cache[r]; ok {
		n := ci.node
		wn.node, wn.detailed, wn.recount = &n, true, !trustCount(&n, r)
		w.stats.CacheUsed++
	} else {
		wn.node = &platform.Node{Key: r.key()}
	}
	if parent != nil {
		wn.top = parent.top
		if parent.top == nil && parent.ref.Path == rootPath {
			wn.top = wn
		}
	}
	w.all = append(w.all, wn)
	return wn
}

type childList struct {
	parent *walkNode
	kids   []objRef
}

// walk reads the structure breadth first. Each level costs at most two
// pipelined rounds: details of the nodes the cache missed, then the child
// lists the cache could not vouch for.
func (w *walker) walk(root *walkNode) error {
	level := []*walkNode{root}
	for len(level) > 0 {
		if w.ctx.Err() != nil {
			w.truncate("deadline")
			return w.rootErr(root)
		}
		w.fetchDetails(level)
		if !root.detailed {
			return w.rootErr(root)
		}
		var next []*walkNode
		var lists []*childList
		b := w.c.newBatch(w.ctx)
		for _, wn := range level {
			if !wn.detailed || wn.node.ChildCount <= 0 {
				continue
			}
			// Children the cache lists cost nothing more to walk, however
			// many: only those it does not are virtual.
			if kids, ok := w.cachedChildren(wn); ok {
				for _, k := range kids {
					next = w.addChild(wn, k, next)
				}
				continue
			}
			if w.virtual(wn.node) {
				kids, rng := w.visibleChildren(wn)
				wn.node.ChildrenPartial, wn.node.ChildrenRange = true, rng
				for _, k := range kids {
					next = w.addChild(wn, k, next)
				}
				continue
			}
			// GetChildAtIndex, not GetChildren: GTK 4.8's GetChildren skips
			// stack pages and answers with their children, while
			// GetChildAtIndex agrees with Parent and ChildCount (and is what
			// libatspi clients walk).
			n := wn.node.ChildCount
			if w.opts.Bulk && !wn.node.States.Has(platform.StateManagesDescendants) && n <= w.opts.MaxNodes {
				l := &childList{parent: wn}
				b.add(wn.ref.Bus, wn.ref.Path, ifaceAccessible+".GetChildren", func(call *dbus.Call) {
					if call.Err != nil || call.Store(&l.kids) != nil {
						wn.node.Err = "children not read: " + errText(call.Err)
					}
				})
				w.stats.Calls++
				lists = append(lists, l)
				continue
			}
			if n > w.opts.MaxNodes {
				n = w.opts.MaxNodes
			}
			kids := make([]objRef, n)
			for i := range kids {
				b.add(wn.ref.Bus, wn.ref.Path, ifaceAccessible+".GetChildAtIndex", func(call *dbus.Call) {
					if call.Err != nil || call.Store(&kids[i]) != nil {
						wn.node.Err = "children not read: " + errText(call.Err)
					}
				}, int32(i))
			}
			w.stats.Calls += n
			lists = append(lists, &childList{wn, kids})
		}
		b.wait()
		b.close()
		w.flowsBeyond(lists)
		for _, m := range lists {
			if w.opts.Bulk && m.parent.node.Err == "" {
				// GetChildren's list is the count: a child added since
				// ChildCount was read is in it.
				m.parent.node.ChildCount = len(m.kids)
			}
			for _, k := range m.kids {
				if !k.null() {
					next = w.addChild(m.parent, k, next)
				}
			}
		}
		if len(w.all) >= w.opts.MaxNodes {
			w.truncate("node limit")
			break
		}
		level = next
	}
	return nil
}

func (w *walker) rootErr(root *walkNode) error {
	if root.detailed {
		return nil
	}
	if root.node.Err != "" {
		if strings.Contains(root.node.Err, platform.ErrTimeout.Error()) || w.ctx.Err() != nil {
			return fmt.Errorf("%w: %s", platform.ErrTimeout, root.node.Err)
		}
		return fmt.Errorf("%w: %s", platform.ErrElementGone, root.node.Err)
	}
	return platform.ErrTimeout
}

func (w *walker) truncate(reason string) {
	if !w.stats.Truncated {
		w.stats.Truncated, w.stats.Reason = true, reason
	}
}

func (w *walker) addChild(parent *walkNode, r objRef, next []*walkNode) []*walkNode {
	if len(w.all) >= w.opts.MaxNodes {
		w.truncate("node limit")
		return next
	}
	k := w.make(r, parent)
	parent.node.Children = append(parent.node.Children, k.node)
	return append(next, k)
}

// cachedChildren returns a node's children from the cache when the cache
// holds all of them.
func (w *walker) cachedChildren(wn *walkNode) ([]objRef, bool) {
	ci, ok := w.cache[wn.ref]
	if !ok || wn.recount {
		return nil, false
	}
	return ci.kids(wn.node.ChildCount)
}

// kids returns the element's count children as the cache lists them, if it
// lists all of them.
func (ci *cached) kids(count int) ([]objRef, bool) {
	if ci.old {
		return ci.inline, len(ci.inline) == count
	}
	if len(ci.children) != count {
		return nil, false
	}
	kids := make([]objRef, count)
	for i := range kids {
		k, ok := ci.children[int32(i)]
		if !ok {
			return nil, false
		}
		kids[i] = k
	}
	return kids, true
}

// fetchDetails reads role, name, states and interfaces of the nodes the
// cache did not have, four pipelined calls each.
func (w *walker) fetchDetails(level []*walkNode) {
	b := w.c.newBatch(w.ctx)
	defer b.close()
	for _, wn := range level {
		if wn.recount {
			n := wn.node
			b.get(wn.ref.Bus, wn.ref.Path, ifaceAccessible, "ChildCount", func(v any, err error) {
				if cc, ok := v.(int32); ok {
					n.ChildCount = int(cc)
				} else {
					n.ChildCount, n.Err = 0, "children not read: "+errText(err)
				}
			})
			w.stats.Calls++
			continue
		}
		if wn.detailed {
			continue
		}
		wn := wn
		n := wn.node
		var failed error
		note := func(err error) {
			if err != nil && failed == nil {
				failed = err
			}
		}
		fail := func(call *dbus.Call) bool {
			note(call.Err)
			return call.Err != nil
		}
		if w.opts.Bulk {
			b.add(wn.ref.Bus, wn.ref.Path, ifaceProps+".GetAll", func(call *dbus.Call) {
				var props map[string]dbus.Variant
				if fail(call) || call.Store(&props) != nil {
					note(errors.New("unexpected GetAll reply"))
					return
				}
				n.Name, _ = props["Name"].Value().(string)
				n.Description, _ = props["Description"].Value().(string)
				cc, ok := props["ChildCount"].Value().(int32)
				if !ok {
					note(errors.New("no ChildCount in GetAll"))
				}
				n.ChildCount = int(cc)
			}, ifaceAccessible)
			w.stats.Calls -= 2
		} else {
			b.get(wn.ref.Bus, wn.ref.Path, ifaceAccessible, "Name", func(v any, err error) {
				note(err)
				n.Name, _ = v.(string)
			})
			b.get(wn.ref.Bus, wn.ref.Path, ifaceAccessible, "Description", func(v any, err error) {
				n.Description, _ = v.(string)
			})
			b.get(wn.ref.Bus, wn.ref.Path, ifaceAccessible, "ChildCount", func(v any, err error) {
				note(err)
				if cc, ok := v.(int32); ok {
					n.ChildCount = int(cc)
				}
			})
		}
		b.add(wn.ref.Bus, wn.ref.Path, ifaceAccessible+".GetRole", func(call *dbus.Call) {
			var role uint32
			if !fail(call) && call.Store(&role) == nil {
				n.Role = platform.Role(role)
			}
		})
		b.add(wn.ref.Bus, wn.ref.Path, ifaceAccessible+".GetState", func(call *dbus.Call) {
			var words []uint32
			if !fail(call) && call.Store(&words) == nil {
				n.States = platform.StateSetFromWords(words)
			}
		})
		b.add(wn.ref.Bus, wn.ref.Path, ifaceAccessible+".GetInterfaces", func(call *dbus.Call) {
			var ifaces []string
			if !fail(call) && call.Store(&ifaces) == nil {
				n.Interfaces = shortInterfaces(ifaces)
			}
			if failed != nil {
				n.Err = "not read: " + errText(failed)
				return
			}
			wn.detailed = true
			redact(n)
		})
		w.stats.Calls += 6
	}
	b.wait()
}

// details reads bounds and action names of every node, pipelined, and
// corrects window-relative extents.
func (w *walker) details(root *walkNode) {
	// Bounds are read for elements on screen only: hidden ones (other
	// stack pages, closed menus) report stale or made-up extents that an
	// agent would act on. GTK 4 sets SHOWING on windows only; there VISIBLE
	// is the best there is, and hidden stack pages stay VISIBLE — but they
	// are laid out at 0x0, and so is everything inside them. So for GTK 4
	// bounds are read level by level, and the subtree of an element that
	// came back empty is not asked (on gtk4-widget-factory that spares two
	// thirds of the calls).
	showing := platform.StateShowing
	if w.opts.NoShowing {
		showing = platform.StateVisible
	}
	b := w.c.newBatch(w.ctx)
	defer b.close()
	if w.opts.Actions {
		for _, wn := range w.all {
			if wn.detailed && hasInterface(wn.node, "action") {
				n := wn.node
				b.add(wn.ref.Bus, wn.ref.Path, ifaceAction+".GetActions", func(call *dbus.Call) {
					var acts []struct{ Name, Desc, Key string }
					if call.Err == nil && call.Store(&acts) == nil {
						for _, a := range acts {
							n.Actions = append(n.Actions, a.Name)
						}
					}
				})
				w.stats.Calls++
			}
		}
	}
	extents := func(wn *walkNode) {
		n := wn.node
		if !wn.detailed || wn.hidden || !n.States.Has(showing) || !hasInterface(n, "component") {
			return
		}
		b.extents(wn.ref.Bus, wn.ref.Path, w.opts.coord(), func(r *platform.Rect) { n.Bounds = r })
		w.stats.Calls++
	}
	if !w.opts.NoShowing {
		for _, wn := range w.all {
			extents(wn)
		}
	} else {
		// w.all is in breadth-first order: one round trip per level.
		for i := 0; i < len(w.all); {
			j := i
			for j < len(w.all) && w.all[j].depth == w.all[i].depth {
				wn := w.all[j]
				wn.hidden = wn.parent != nil && (wn.parent.hidden || wn.parent.node.Bounds != nil && wn.parent.node.Bounds.Empty())
				extents(wn)
				j++
			}
			b.wait()
			i = j
		}
	}
	b.wait()
	if w.opts.MenuPopups != nil {
		w.openMenuItems(b)
	}
	if w.ctx.Err() != nil {
		w.truncate("deadline")
	}
	// Toolkits with window-relative extents: placed on screen, unless
	// the caller places them itself (a mirror, on every read).
	if w.opts.WindowOrigin != nil && !w.opts.unplaced && root.ref.Path == rootPath {
		place(w.ctx, root.node, w.opts)
	}
}

// place makes the window-relative bounds of an application's tree
// screen-absolute (TreeOptions.WindowOrigin): each top level's subtree is
// shifted by its window's screen origin, read once per top level, and a
// popup's subtree (TreeOptions.PopupOrigin) by the popup's own place. A
// top level whose window is unknown leaves its elements without bounds:
// never another window's origin.
func place(ctx context.Context, root *platform.Node, opts TreeOptions) {
	type origin struct {
		x, y int
		ok   bool
	}
	for _, top := range root.Children {
		var win origin
		seen := false
		// inBar: n is a menu bar's child.
		var visit func(n *platform.Node, popup *origin, inBar bool)
		visit = func(n *platform.Node, popup *origin, inBar bool) {
			kids := popup
			if n.Bounds != nil {
				if opts.PopupOrigin != nil && n != top && PopupRole(n.Role) {
					x, y, ok := opts.PopupOrigin(ctx, n)
					kids = &origin{x - n.Bounds.X, y - n.Bounds.Y, ok}
					if !inBar {
						// A menu bar's menu is drawn in the bar, in the
						// top level's window; its items, in the popup.
						popup = kids
					}
				}
				o := popup
				if o == nil {
					if !seen {
						win.x, win.y, win.ok = opts.WindowOrigin(ctx, top)
						seen = true
					}
					o = &win
				}
				if o.ok {
					n.Bounds.X += o.x
					n.Bounds.Y += o.y
				} else {
					n.Bounds, n.BoundsUnknown = nil, true
				}
			}
			for _, k := range n.Children {
				visit(k, kids, n.Role.String() == "menu bar")
			}
		}
		visit(top, nil, false)
	}
}

// openMenuItems reads the bounds of the items of open menus, for a
// toolkit that leaves SHOWING off them (TreeOptions.MenuPopups): none
// when the application has no menu window mapped; else, in a first round,
// the first such item of each menu, and in a second the others of the
// menus whose first item lies inside a menu window. Closed menus cost a
// call each, not one per item.
func (w *walker) openMenuItems(b *batch) {
	items := map[*walkNode][]*walkNode{} // by menu, in order
	var menus []*walkNode
	for _, wn := range w.all {
		n, p := wn.node, wn.parent
		if p == nil || p.node.Role != platform.RoleMenu || !wn.detailed || n.Bounds != nil ||
			n.States.Has(platform.StateShowing) || !n.States.Has(platform.StateVisible) || !hasInterface(n, "component") {
			continue
		}
		if items[p] == nil {
			menus = append(menus, p)
		}
		items[p] = append(items[p], wn)
	}
	if len(menus) == 0 {
		return
	}
	popups := w.opts.MenuPopups(w.ctx)
	if len(popups) == 0 {
		return
	}
	inside := func(r *platform.Rect) bool {
		for _, p := range popups {
			if r != nil && !r.Empty() && p.Intersect(*r) == *r {
				return true
			}
		}
		return false
	}
	read := func(wn *walkNode) {
		b.extents(wn.ref.Bus, wn.ref.Path, coordType(false), func(r *platform.Rect) {
			if inside(r) {
				wn.node.Bounds = r
			}
		})
		w.stats.Calls++
	}
	for _, m := range menus {
		read(items[m][0])
	}
	b.wait()
	for _, m := range menus {
		if items[m][0].node.Bounds == nil {
			continue
		}
		for _, wn := range items[m][1:] {
			read(wn)
		}
	}
	b.wait()
}

// PopupRole reports the roles a popup's own element has: GTK's and Qt's
// menus, GTK 4's popover menus, tooltips.
func PopupRole(r platform.Role) bool {
	switch r.String() {
	case "menu", "popup menu", "window", "tool tip":
		return true
	}
	return false
}

func errText(err error) string {
	if err == nil {
		return "unexpected reply"
	}
	return mapErr(err).Error()
}
