package core

import (
	"encoding/json"
	"slices"
	"sync"
)

// Tree changes (docs/api.md, "Live changes"). An agent that has read a tree
// once should learn what changed since without reading it whole again: a
// patch lists the elements added, removed and changed between two reads,
// matched by durable key (an element keeps its key, and so its ref, while
// it lives). The first patch of a feed is the whole tree as added events
// with snapshot set, so a client can build its copy from patches alone.

// Change event types.
const (
	ChangeAdded   = "added"
	ChangeRemoved = "removed"
	ChangeChanged = "changed"
)

// MaxPendingChanges caps the events a feed holds for its reader: past it
// the pending patch is replaced by a fresh snapshot, which costs one tree
// however many changes were missed.
const MaxPendingChanges = 10000

// Change is one event of a patch.
type Change struct {
	Type string `json:"type"` // added, removed or changed
	Key  string `json:"key"`
	Ref  string `json:"ref,omitempty"` // in the read the event comes from (the old one for removed)
	// ParentKey and Index place the element among its parent's children in
	// the view (the old place for removed); the root has neither.
	ParentKey string `json:"parentKey,omitempty"`
	Index     int    `json:"index"`
	// Path is the element's place from the root: child indexes in the view.
	Path []int `json:"path"`
	// Element is the added element (without children).
	Element *Element `json:"element,omitempty"`
	// Changes lists a changed element's fields, each {old, new}. A move
	// shows as parentKey (another parent) or index (reordered among the
	// siblings it had).
	Changes map[string]FieldChange `json:"changes,omitempty"`

	old *Element // a removed element as last read (for events.go)
}

// FieldChange is one field's old and new value.
type FieldChange struct {
	Old any `json:"old"`
	New any `json:"new"`
}

// flatNode is one element of a tree as a diff sees it.
type flatNode struct {
	el        *Element
	parentKey string
	index     int
	path      []int
	pos       int // in the tree's order
}

// flatTree is a tree in one view, by key, in pre-order.
type flatTree struct {
	order []string
	nodes map[string]*flatNode
	kids  map[string][]string // children keys by parent key, in order
}

// flatten lists the elements of t that the view keeps, keyed. Elements
// without a key, and a key seen twice, cannot be followed from one read to
// the next and are left out; their kept descendants hang from the nearest
// kept ancestor, as the view renders them.
func flatten(t *Tree, view string) *flatTree {
	f := &flatTree{nodes: map[string]*flatNode{}, kids: map[string][]string{}}
	if t == nil || t.Len() == 0 {
		return f
	}
	keep := t.keepSet(view)
	type item struct {
		id     int
		parent string
		path   []int
	}
	var walk func(it item)
	walk = func(it item) {
		n := t.nodes[it.id]
		parent, path := it.parent, it.path
		if n.Key != "" && f.nodes[n.Key] == nil {
			idx := len(f.kids[it.parent])
			p := append(slices.Clip(it.path), idx)
			if it.id == 0 {
				p = []int{}
				idx = 0
			}
			f.nodes[n.Key] = &flatNode{el: t.element(it.id), parentKey: it.parent, index: idx, path: p, pos: len(f.order)}
			f.order = append(f.order, n.Key)
			if it.id != 0 {
				f.kids[it.parent] = append(f.kids[it.parent], n.Key)
			}
			parent, path = n.Key, p
		}
		for _, c := range t.viewKids(it.id, keep) {
			walk(item{c, parent, path})
		}
	}
	walk(item{0, "", []int{}})
	return f
}

// event is the node's event of a type: where it is, and for added, what.
func (fn *flatNode) event(typ, key string) Change {
	c := Change{Type: typ, Key: key, Ref: fn.el.Ref, ParentKey: fn.parentKey, Index: fn.index, Path: fn.path}
	switch typ {
	case ChangeAdded:
		// The change's own key names the element: not again inside.
		e := *fn.el
		e.Key = ""
		c.Element = &e
	case ChangeRemoved:
		c.old = fn.el
	}
	return c
}

// snapshotOf is a whole tree as added events, parents before children.
func snapshotOf(f *flatTree) []Change {
	out := make([]Change, 0, len(f.order))
	for _, k := range f.order {
		out = append(out, f.nodes[k].event(ChangeAdded, k))
	}
	return out
}

// diff lists what changed from old to cur: removed elements (in the old
// pre-order), then added and changed ones (in the new pre-order, so a new
// parent comes before its children).
func diff(old, cur *flatTree) []Change {
	var out []Change
	for _, k := range old.order {
		if cur.nodes[k] == nil {
			out = append(out, old.nodes[k].event(ChangeRemoved, k))
		}
	}
	reordered := reorders(old, cur)
	for _, k := range cur.order {
		n := cur.nodes[k]
		o := old.nodes[k]
		if o == nil {
			out = append(out, n.event(ChangeAdded, k))
			continue
		}
		fields := fieldChanges(o.el, n.el)
		if o.parentKey != n.parentKey {
			fields = put(fields, "parentKey", o.parentKey, n.parentKey)
			fields = put(fields, "index", o.index, n.index)
		} else if reordered[k] {
			fields = put(fields, "index", o.index, n.index)
		}
		if len(fields) > 0 {
			c := n.event(ChangeChanged, k)
			c.Changes = fields
			out = append(out, c)
		}
	}
	return out
}

func put(m map[string]FieldChange, field string, old, cur any) map[string]FieldChange {
	if m == nil {
		m = map[string]FieldChange{}
	}
	m[field] = FieldChange{Old: old, New: cur}
	return m
}

// reorders finds the elements that changed places among siblings they
// kept: for each parent, the children in both reads form a sequence, and
// those outside its longest run kept in order moved. An element inserted
// or removed beside others shifts their indexes without moving them, and
// is not reported as their change.
func reorders(old, cur *flatTree) map[string]bool {
	moved := map[string]bool{}
	for parent, kids := range cur.kids {
		oldKids := old.kids[parent]
		if len(oldKids) == 0 {
			continue
		}
		pos := make(map[string]int, len(oldKids))
		for i, k := range oldKids {
			pos[k] = i
		}
		var seq []string
		for _, k := range kids {
			if _, ok := pos[k]; ok && old.nodes[k].parentKey == parent {
				seq = append(seq, k)
			}
		}
		keep := increasing(seq, pos)
		for _, k := range seq {
			if !keep[k] {
				moved[k] = true
			}
		}
	}
	return moved
}

// increasing returns the keys of a longest subsequence of seq whose old
// positions increase (patience sorting, O(n log n)).
func increasing(seq []string, pos map[string]int) map[string]bool {
	var tails []int // index into seq of the smallest tail of each length
	prev := make([]int, len(seq))
	for i, k := range seq {
		p := pos[k]
		j, _ := slices.BinarySearchFunc(tails, p, func(t, v int) int { return pos[seq[t]] - v })
		if j > 0 {
			prev[i] = tails[j-1]
		} else {
			prev[i] = -1
		}
		if j == len(tails) {
			tails = append(tails, i)
		} else {
			tails[j] = i
		}
	}
	keep := map[string]bool{}
	if len(tails) == 0 {
		return keep
	}
	for i := tails[len(tails)-1]; i >= 0; i = prev[i] {
		keep[seq[i]] = true
	}
	return keep
}

// fieldChanges compares the fields of one element in two reads. Its ref
// and id are the same while its key is (ids.go); its child count shows in
// the children's own added and removed events.
func fieldChanges(o, n *Element) map[string]FieldChange {
	var m map[string]FieldChange
	str := func(field, a, b string) {
		if a != b {
			m = put(m, field, a, b)
		}
	}
	list := func(field string, a, b []string) {
		if !slices.Equal(a, b) {
			m = put(m, field, nonNil(a), nonNil(b))
		}
	}
	str("role", o.Role, n.Role)
	str("name", o.Name, n.Name)
	str("description", o.Description, n.Description)
	str("accessibleId", o.AccessibleID, n.AccessibleID)
	str("error", o.Error, n.Error)
	list("states", o.States, n.States)
	list("interfaces", o.Interfaces, n.Interfaces)
	list("actions", o.Actions, n.Actions)
	if o.Redacted != n.Redacted {
		m = put(m, "redacted", o.Redacted, n.Redacted)
	}
	// What a control holds: an entry typed into, a slider moved, another
	// item chosen. nil (no value) is reported as null.
	if !sameValue(o.Value, n.Value) {
		m = put(m, "value", valueOf(o.Value), valueOf(n.Value))
	}
	if o.ValueTruncated != n.ValueTruncated {
		m = put(m, "valueTruncated", o.ValueTruncated, n.ValueTruncated)
	}
	switch {
	case o.Bounds == nil && n.Bounds == nil:
	case o.Bounds == nil || n.Bounds == nil || *o.Bounds != *n.Bounds:
		m = put(m, "bounds", o.Bounds, n.Bounds)
	}
	return m
}

// Patch is what a feed hands its reader: the events since the last take,
// or, with Snapshot, the whole tree as added events. A take with a byte
// budget may hand out only the first events (More): the rest stay pending,
// in order, ahead of whatever changes later, so a reader that takes until
// More is false has the whole snapshot or patch.
type Patch struct {
	// Snapshot marks the first page of a snapshot: the reader starts its
	// copy afresh from these events (later pages continue it).
	Snapshot bool
	Events   []Change
	// More says events are still pending: take again for the rest.
	More bool
	// Oversized says the one event handed out is larger than the budget
	// by itself (it is never split, and never held back for ever).
	Oversized bool
	// Tree is the read the patch brings the reader to.
	Tree *Tree
	View string
}

// Feed follows one tree in one view for one reader: it keeps the last
// tree it saw and the events its reader has not taken, in order. A new
// feed, a feed whose view changed and a feed past MaxPendingChanges owe
// their reader a snapshot. Safe for concurrent use.
type Feed struct {
	mu       sync.Mutex
	view     string
	base     *flatTree // the last tree seen; nil before the first
	tree     *Tree
	pending  []Change
	snapshot bool // the reader is owed a snapshot of base instead of pending
	// snapLeft is how many of pending's first events are what is left of
	// a snapshot handed out in pages: they do not count against
	// MaxPendingChanges, which bounds what changed, not the tree's size.
	snapLeft int
	// Overflows counts the times the cap turned the pending events into a
	// snapshot.
	overflows int
}

// NewFeed starts a feed in a view (raw when empty).
func NewFeed(view string) *Feed {
	if view == "" {
		view = ViewRaw
	}
	return &Feed{view: view, snapshot: true}
}

// View is the feed's view.
func (f *Feed) View() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.view
}

// SetView changes the view; a different one restarts the feed with a
// snapshot.
func (f *Feed) SetView(view string) {
	if view == "" {
		view = ViewRaw
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if view != f.view {
		f.view, f.base, f.tree, f.pending, f.snapshot, f.snapLeft = view, nil, nil, nil, true, 0
	}
}

// Update diffs t against the last tree the feed saw and appends the
// events; it returns how many there were (the size of the whole tree when
// the feed owes a snapshot and has never seen one). A truncated read is
// skipped: elements missing from it are not gone.
func (f *Feed) Update(t *Tree) int {
	_, n := f.update(t)
	return n
}

// update is Update that also returns the diff's events (nil when there
// was nothing to diff against).
func (f *Feed) update(t *Tree) ([]Change, int) {
	if t == nil || t.Truncated {
		return nil, 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	old := f.base
	f.tree = t
	if old == nil {
		f.base = flatten(t, f.view)
		f.snapshot, f.pending, f.snapLeft = true, nil, 0
		return nil, len(f.base.order)
	}
	// Most reads find the elements where the last one left them (a reader
	// paging through a large tree reads it again for every page): then
	// only the elements that differ are built and compared.
	evs, same := old.refresh(t, f.view)
	if !same {
		cur := flatten(t, f.view)
		evs, f.base = diff(old, cur), cur
	}
	switch {
	case f.snapshot:
		// The reader is owed a snapshot anyway: it will be of this read.
	case len(f.pending)-f.snapLeft+len(evs) > MaxPendingChanges:
		f.snapshot, f.pending, f.snapLeft = true, nil, 0
		f.overflows++
	default:
		f.pending = append(f.pending, evs...)
	}
	return evs, len(evs)
}

// refresh brings b to t when t keeps every element of b in its place in
// the view (the same keys in the same order, each under the same parent)
// and adds none: diff would then find no element added, removed or moved,
// only fields changed, and refresh finds those by comparing each node
// with its element in b (Tree.sameElement) and building only the elements
// that differ. It returns the changed events as diff would, and false,
// leaving b as it was, when t differs in shape (flatten and diff then).
func (b *flatTree) refresh(t *Tree, view string) ([]Change, bool) {
	if t.Len() == 0 {
		return nil, len(b.order) == 0
	}
	keep := t.keepSet(view)
	type fresh struct {
		node *flatNode
		el   *Element
	}
	var newer []fresh
	var evs []Change
	next := 0 // the position in b.order the walk has reached
	// walk follows flatten's walk, matching each kept node with the next
	// element of b.order.
	var walk func(id int, parent string) bool
	walk = func(id int, parent string) bool {
		if k := t.nodes[id].Key; k != "" {
			o := b.nodes[k]
			switch {
			case o == nil:
				return false // added
			case o.pos < next:
				// The key came before in this read: flatten leaves a
				// second occurrence out.
			case o.pos > next || o.parentKey != parent || (id == 0) != (len(o.path) == 0):
				return false
			default:
				next++
				parent = k
				if !t.sameElement(id, o.el) {
					el := t.element(id)
					newer = append(newer, fresh{o, el})
					if fields := fieldChanges(o.el, el); len(fields) > 0 {
						evs = append(evs, Change{Type: ChangeChanged, Key: k, Ref: el.Ref, ParentKey: o.parentKey, Index: o.index, Path: o.path, Changes: fields})
					}
				}
			}
		}
		for _, c := range t.viewKids(id, keep) {
			if !walk(c, parent) {
				return false
			}
		}
		return true
	}
	if !walk(0, "") || next != len(b.order) {
		return nil, false
	}
	for _, n := range newer {
		n.node.el = n.el
	}
	return evs, true
}

// seen reports whether the feed has seen a tree.
func (f *Feed) seen() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.base != nil
}

// Pending is how many events wait for the reader (a snapshot counts its
// elements).
func (f *Feed) Pending() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.snapshot && f.base != nil {
		return len(f.base.order)
	}
	return len(f.pending)
}

// Overflows is how many times the cap replaced the pending events by a
// snapshot.
func (f *Feed) Overflows() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.overflows
}

// Take hands the reader what is pending and clears it. Before the feed
// has seen a tree it returns a patch with no tree.
func (f *Feed) Take() Patch { return f.TakeBytes(0) }

// TakeBytes is Take within a budget: the pending events in order, as many
// as fit in budget bytes of their JSON (each counted with the comma that
// separates it from the next); the rest stay pending for the next take
// (More). An event larger than the budget by itself is handed out alone
// (Oversized) rather than held back for ever. A budget of 0 or less takes
// everything.
func (f *Feed) TakeBytes(budget int) Patch {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := Patch{Tree: f.tree, View: f.view}
	if f.base == nil {
		p.Snapshot, p.Events = true, []Change{}
		return p
	}
	if f.snapshot {
		// The snapshot becomes pending events, so that it pages as a patch
		// does and what changes meanwhile queues after it.
		f.pending = snapshotOf(f.base)
		f.snapshot, f.snapLeft, p.Snapshot = false, len(f.pending), true
	}
	n := len(f.pending)
	if budget > 0 {
		n = 0
		for used := 0; n < len(f.pending); n++ {
			used += EventBytes(f.pending[n]) + 1
			if used > budget {
				if n == 0 {
					n, p.Oversized = 1, true
				}
				break
			}
		}
	}
	// The page's capacity ends where the rest begins, so what is appended
	// to the rest never writes into an answer being sent.
	p.Events = f.pending[:n:n]
	f.pending = f.pending[n:]
	if len(f.pending) == 0 {
		f.pending = nil
	}
	f.snapLeft = max(0, f.snapLeft-n)
	p.More = len(f.pending) > 0
	if p.Events == nil {
		p.Events = []Change{}
	}
	return p
}

// EventBytes is the size of an event's JSON, as an answer carries it.
func EventBytes(c Change) int {
	b, err := json.Marshal(c)
	if err != nil {
		return 0
	}
	return len(b)
}

// Reset makes the feed forget its tree: the next patch is a snapshot.
func (f *Feed) Reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.base, f.tree, f.pending, f.snapshot, f.snapLeft = nil, nil, nil, true, 0
}

func sameValue(a, b *string) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// valueOf is a value as a field change carries it: the string, or nil.
func valueOf(v *string) any {
	if v == nil {
		return nil
	}
	return *v
}

// ChangesBudget is the byte budget of a changes answer's events: maxBytes
// (nil for DefaultMaxBytes, else MinMaxBytes to MaxMaxBytes) less what the
// answer holds besides them, as a tree request's budget is (budget.go).
func ChangesBudget(maxBytes *int) (int, error) {
	b := DefaultMaxBytes
	if maxBytes != nil {
		if *maxBytes < MinMaxBytes || *maxBytes > MaxMaxBytes {
			return 0, Errorf(CodeInvalidArgument, "maxBytes must be between %d and %d, not %d", MinMaxBytes, MaxMaxBytes, *maxBytes)
		}
		b = *maxBytes
	}
	return b - answerReserve, nil
}

// PatchNote says how to read on from a page of a patch, or why one event
// is over the budget; "" when the patch is whole.
func PatchNote(p Patch) string {
	switch {
	case p.Oversized && p.More:
		return "this one event is larger than maxBytes by itself, so it came alone; call again for the rest (what changes meanwhile is appended after)"
	case p.Oversized:
		return "this one event is larger than maxBytes by itself, so it came alone"
	case p.More:
		return "maxBytes held back the rest of the events: call again for the rest (what changes meanwhile is appended after); a larger maxBytes takes more at once"
	}
	return ""
}
