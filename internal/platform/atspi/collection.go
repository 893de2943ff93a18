//go:build linux

package atspi

import (
	"context"

	"github.com/godbus/dbus/v5"

	"github.com/uiscope/uiscope/internal/dbusx"
)

// A browser's tree through Collection.GetMatches (atk-bridge implements it
// on every object): one call lists every descendant of an element in
// preorder, and eight more give each one's role, one bit of it per call.
// What is left per element is Properties.GetAll (name, description,
// parent, child count), GetState and GetInterfaces: three calls where the
// walk makes four, plus a GetChildren per parent. GetInterfaces stays
// because Collection cannot match Hyperlink or TableCell, and which
// elements carry them follows no role (measured on Firefox and Chromium:
// Chromium leaves Hyperlink off most of its static texts but not all, and
// Firefox off what is not inside hypertext).
//
// Those per-element calls go over a direct connection to the application
// where it offers one (Application.GetApplicationBusAddress, as libatspi
// uses), past the bus daemon.
//
// Only for toolkits whose bridge answers it truthfully (Bulk): the
// bridge's walk does not stop at elements that manage their descendants,
// and LibreOffice's grid manages two billion of them.

// matchRule is Collection's MatchRule, (aiia{ss}iaiiasib): states and their
// match type, attributes and theirs, roles (a bit set) and theirs,
// interface names and theirs, and invert (which atk-bridge ignores).
type matchRule struct {
	States         []int32
	StateMatch     int32
	Attributes     map[string]string
	AttributeMatch int32
	Roles          []int32
	RoleMatch      int32
	Interfaces     []string
	InterfaceMatch int32
	Invert         bool
}

const ifaceCollection = "org.a11y.atspi.Collection"

const (
	// sortCanonical is preorder. 0 is INVALID, to which atk-bridge
	// answers an empty list.
	sortCanonical = uint32(1)
	matchAll      = int32(1)
	// matchAny is the only role match that compares AT-SPI roles: the ALL
	// path compares the toolkit's own (ATK) role numbers.
	matchAny = int32(2)
	// roleBits covers the AT-SPI roles, all below 256.
	roleBits = 8
	// minMatches: below this many elements the nine GetMatches calls save
	// less than they cost.
	minMatches = 32
)

// everything matches every element: empty sets with ALL are true.
func everything() matchRule {
	return matchRule{StateMatch: matchAll, Attributes: map[string]string{}, AttributeMatch: matchAll,
		RoleMatch: matchAll, InterfaceMatch: matchAll}
}

// rolesWithBit matches the elements whose role has bit k set.
func rolesWithBit(k int) matchRule {
	r := everything()
	r.Roles = make([]int32, 256/32)
	for role := range 256 {
		if role&(1<<k) != 0 {
			r.Roles[role/32] |= int32(uint32(1) << (role % 32))
		}
	}
	r.RoleMatch = matchAny
	return r
}

// matched is what the prefetch learns of one element.
type matched struct {
	ref                objRef
	role               uint32
	name, desc         string
	parent             objRef
	childCount         int
	states             []uint32
	ifaces             []string
	props, state, itfs bool    // which calls answered
	cached             *cached // what the application's cache said, if it had it
}

// matches lists the descendants of r in preorder, at most limit of them;
// ok is false when the call failed or the list was cut.
func (w *walker) matches(r objRef, limit int) ([]objRef, bool) {
	ctx, cancel := withCallTimeout(w.ctx)
	defer cancel()
	var out []objRef
	w.stats.Calls++
	err := w.c.bus.Object(r.Bus, r.Path).CallWithContext(ctx, ifaceCollection+".GetMatches", dbus.FlagNoAutoStart,
		everything(), sortCanonical, int32(limit+1), true).Store(&out)
	if err != nil || len(out) > limit {
		return nil, false
	}
	return out, true
}

// prefetch reads every element under r (r itself excluded) through
// Collection and returns them as the cache does: each node, and the
// children of each whose children it saw whole. Nil when it could not
// (no Collection, a list longer than the node limit, a failed role call);
// the walk then reads everything live. A node it got wrong costs the walk
// a live read, never a wrong tree: the walk checks every cached child
// list against the child count.
func (w *walker) prefetch(r objRef) map[objRef]*cached {
	list, ok := w.matches(r, w.opts.MaxNodes)
	if !ok || len(list) < minMatches {
		return nil
	}
	els := make([]matched, len(list))
	pos := make(map[objRef]int, len(list))
	for i, ref := range list {
		els[i].ref = ref
		if _, dup := pos[ref]; !dup {
			pos[ref] = i
		}
	}
	b := w.c.newBatch(w.ctx)
	defer b.close()
	// The calls per element go straight to the application when it offers
	// a connection of its own: the bus daemon's routing is then spared,
	// 1.5–2 times less time a call (measured pipelining one method over
	// every element of the benchmark's page in Firefox and Chromium).
	pb := w.c.newBatch(w.ctx)
	defer pb.close()
	var asked bool
	pb.via, asked = w.c.peer(w.ctx, r.Bus)
	if asked {
		w.stats.Calls++
	}
	w.direct = pb.via != nil
	rolesOK := true
	for k := range roleBits {
		b.add(r.Bus, r.Path, ifaceCollection+".GetMatches", func(call *dbus.Call) {
			var got []objRef
			if call.Err != nil || call.Store(&got) != nil {
				rolesOK = false
				return
			}
			for _, g := range got {
				if i, ok := pos[g]; ok {
					els[i].role |= 1 << k
				}
			}
		}, rolesWithBit(k), sortCanonical, int32(len(list)+1), true)
	}
	w.stats.Calls += roleBits
	read := 0
	for i := range els {
		e := &els[i]
		// What the application's cache holds (Chromium's own windows)
		// needs no call.
		if ci, ok := w.cache[e.ref]; ok && !ci.old {
			e.cached, e.parent, e.props, e.state, e.itfs = ci, ci.parent, true, true, true
			continue
		}
		read++
		pb.add(e.ref.Bus, e.ref.Path, ifaceProps+".GetAll", func(call *dbus.Call) {
			var props map[string]dbus.Variant
			if call.Err != nil || call.Store(&props) != nil {
				return
			}
			cc, ok := props["ChildCount"].Value().(int32)
			if !ok || dbus.Store([]any{props["Parent"].Value()}, &e.parent) != nil {
				return
			}
			e.name, _ = props["Name"].Value().(string)
			e.desc, _ = props["Description"].Value().(string)
			e.childCount, e.props = int(cc), true
		}, ifaceAccessible)
		pb.add(e.ref.Bus, e.ref.Path, ifaceAccessible+".GetState", func(call *dbus.Call) {
			e.state = call.Err == nil && call.Store(&e.states) == nil
		})
		pb.add(e.ref.Bus, e.ref.Path, ifaceAccessible+".GetInterfaces", func(call *dbus.Call) {
			e.itfs = call.Err == nil && call.Store(&e.ifaces) == nil
		})
	}
	w.stats.Calls += 3 * read
	b.wait()
	pb.wait()
	if !rolesOK || w.ctx.Err() != nil {
		return nil
	}
	return w.assemble(els, pos)
}

// assemble turns the prefetched elements into cache entries. A parent's
// children are the elements whose Parent is it, in preorder; they are kept
// only where they agree with the preorder list itself (the first child
// right after its parent, each next one right after the subtree of the
// one before), so that what Parent says and what the bridge walked are the
// same tree.
func (w *walker) assemble(els []matched, pos map[objRef]int) map[objRef]*cached {
	size := make([]int, len(els))
	for i := range size {
		size[i] = 1
	}
	for i := len(els) - 1; i >= 0; i-- {
		if p, ok := pos[els[i].parent]; ok && p < i && els[i].props {
			size[p] += size[i]
		}
	}
	out := make(map[objRef]*cached, len(els))
	kids := map[objRef][]int{}
	for i := range els {
		e := &els[i]
		if pos[e.ref] != i || !e.props || !e.state || !e.itfs {
			continue
		}
		if e.cached != nil {
			out[e.ref] = e.cached
		} else {
			out[e.ref] = &cached{node: nodeFrom(e.ref, e.role, e.name, e.desc, e.states, e.ifaces, e.childCount), parent: e.parent}
		}
		kids[e.parent] = append(kids[e.parent], i)
	}
	for parent, list := range kids {
		p, ok := out[parent]
		if !ok || p.node.ChildCount > w.opts.MaxChildren {
			// Not prefetched (the read's own root), or so many children
			// that the walk reads only those on screen (virtual.go).
			continue
		}
		next := pos[parent] + 1
		whole := true
		for _, i := range list {
			if i != next {
				whole = false
				break
			}
			next = i + size[i]
		}
		if !whole {
			continue
		}
		p.children = make(map[int32]objRef, len(list))
		for n, i := range list {
			p.children[int32(n)] = els[i].ref
		}
	}
	return out
}

// peer returns a direct connection to the application on bus, made on
// first use and kept until the Conn is closed; nil when the application
// offers none (atk-bridge makes its server when asked for its address,
// and answers "" when it is itself an AT-SPI client) or it cannot be
// reached. Calls on it carry the same deadlines as on the bus. asked says
// whether it asked the application.
func (c *Conn) peer(ctx context.Context, bus string) (conn *dbus.Conn, asked bool) {
	c.mu.Lock()
	// Connections to applications that have gone are dropped here, and
	// made again for an application still on the bus.
	for b, p := range c.peers {
		if p != nil && !p.Connected() {
			delete(c.peers, b)
		}
	}
	p, known := c.peers[bus]
	c.mu.Unlock()
	if known {
		if p == nil {
			return nil, false
		}
		return p.Conn, false
	}
	cctx, cancel := withCallTimeout(ctx)
	defer cancel()
	var addr string
	if err := c.bus.Object(bus, rootPath).CallWithContext(cctx, ifaceApp+".GetApplicationBusAddress", dbus.FlagNoAutoStart).Store(&addr); err != nil {
		return nil, true
	}
	if addr != "" {
		// One that cannot be reached (another user's socket, a frozen
		// application) is not tried again on this connection: the bus
		// serves it.
		p, _ = dbusx.Peer(cctx, addr)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.peers == nil {
		c.peers = map[string]*dbusx.Conn{}
	}
	if old, ok := c.peers[bus]; ok {
		// Another read made one meanwhile.
		if p != nil {
			_ = p.Close()
		}
		p = old
	}
	c.peers[bus] = p
	if p == nil {
		return nil, true
	}
	return p.Conn, true
}
