// Package core holds sessions, refs and keys, the tree model and its views,
// matching (find), hit testing, element properties and actions: everything
// between the front ends (MCP tool handlers, CLI) and the platform backends
// that depends on neither.
//
// The desktop: core receives one [platform.Desktop] and reaches the system
// only through its parts (docs/platform.md); a test (layers_test.go) keeps
// procinfo, D-Bus, X and MCP out of its dependencies. A part the backend
// lacks makes what needs it answer notSupported. A session pins its
// application at connect (pid, start time and executable from the
// Processes part, the owner of its accessibility connection) and checks
// them again on every call: a replaced application is ownershipLost, never
// read in its place (docs/api.md). Actions (act.go) pass the input gate
// ([Sessions.Caps]) and check where input would land before sending
// it; safety_test.go shows both against the fake desktop.
//
// The tree model: a backend fetches a tree of [platform.Node]; [NewTree]
// numbers it (positional ids e0, e1, … in pre-order over the whole fetched
// tree), indexes it by id and by durable key, and redacts password fields;
// a session then gives it ids unique for the server's run ([IDs]), and the
// API's positions (Scope, Within, ByKey) stay positions.
// [Tree.Render] and [Tree.Outline] shape it for output (views, depth, scope,
// node budget), [Tree.Find] searches it, and [ParseRef] / [Tree.Lookup] turn
// the refs agents send back ("a11y:e12") into nodes.
package core

import (
	"context"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/uiscope/uiscope/internal/platform"
)

// Tree kinds: the tree a session speaks, and the prefix of its refs.
const (
	KindA11y   = "a11y"
	KindVisual = "visual"
)

// Tree is one fetched tree, indexed for refs. Ids are positions in a
// pre-order depth-first walk of the whole fetched tree (e0 is the root), so an
// id names the same element whatever view, scope or depth a later render
// asks for, until the tree is fetched again.
//
// NewTree redacts password fields in place; after that the tree is never
// modified by this package, and concurrent reads are safe. Set Truncated
// before sharing the tree.
type Tree struct {
	// Truncated is set by the caller when the walk was cut short (deadline,
	// node cap, errors): nodes may be missing, and a negative find is not
	// proof of absence.
	Truncated bool

	kind   string
	nodes  []*platform.Node // by id
	parent []int            // by id; -1 for the root
	end    []int            // by id; ids of the subtree of i are [i, end[i])
	kids   [][]int          // by id; children ids, in order
	byKey  map[string]int
	byNode map[*platform.Node]int
	ext    []int                    // shown id by position; nil: ids are positions
	byExt  map[int]int              // position by shown id
	native []*platform.NativeWindow // visual trees: the window behind each position (visual.go)
}

// NewTree numbers and indexes the tree under root. kind is the tree kind and
// ref prefix ([KindA11y] or [KindVisual]).
//
// Password redaction is enforced here too, whatever the backend did: a node
// with role "password text" (or one the backend already marked Redacted,
// such as a GTK 4 entry that hides its text) has its Name and Description
// cleared and Redacted set. This modifies the nodes in place.
//
// Nil children are skipped, and a node reached a second time (a backend bug,
// or a cycle) is numbered once, at its first position; later occurrences are
// left out of the tree.
func NewTree(root *platform.Node, kind string) *Tree {
	t := &Tree{
		kind:   kind,
		byKey:  map[string]int{},
		byNode: map[*platform.Node]int{},
	}
	if root == nil {
		return t
	}
	type frame struct {
		n      *platform.Node
		parent int
	}
	stack := []frame{{root, -1}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if _, seen := t.byNode[f.n]; seen {
			continue
		}
		id := len(t.nodes)
		n := f.n
		if n.IsPassword() || n.Redacted {
			n.Name, n.Description = "", ""
			n.Value, n.ValueTruncated = nil, false
			n.Redacted = true
		}
		t.nodes = append(t.nodes, n)
		t.parent = append(t.parent, f.parent)
		t.end = append(t.end, 0)
		t.kids = append(t.kids, nil)
		t.byNode[n] = id
		if n.Key != "" {
			if _, dup := t.byKey[n.Key]; !dup {
				t.byKey[n.Key] = id
			}
		}
		if f.parent >= 0 {
			t.kids[f.parent] = append(t.kids[f.parent], id)
		}
		for i := len(n.Children) - 1; i >= 0; i-- {
			if c := n.Children[i]; c != nil {
				stack = append(stack, frame{c, id})
			}
		}
	}
	// Subtree ends: in pre-order a node's subtree ends where the next node
	// that is not its descendant begins. Walk backwards, folding each
	// subtree's end into its parent.
	for i := len(t.nodes) - 1; i >= 0; i-- {
		if t.end[i] == 0 {
			t.end[i] = i + 1
		}
		if p := t.parent[i]; p >= 0 && t.end[i] > t.end[p] {
			t.end[p] = t.end[i]
		}
	}
	return t
}

// Kind is the tree kind: "a11y" or "visual".
func (t *Tree) Kind() string { return t.kind }

// Len is the number of nodes in the tree.
func (t *Tree) Len() int { return len(t.nodes) }

// Root is the root node, or nil for an empty tree.
func (t *Tree) Root() *platform.Node {
	if len(t.nodes) == 0 {
		return nil
	}
	return t.nodes[0]
}

// Node returns the node with the given id.
func (t *Tree) Node(id int) (*platform.Node, bool) {
	if id < 0 || id >= len(t.nodes) {
		return nil, false
	}
	return t.nodes[id], true
}

// ByKey returns the position of the node with the given durable key (the
// first one in pre-order, should a backend report a key twice): what
// ViewOptions.Scope and Query.Within take.
func (t *Tree) ByKey(key string) (int, bool) {
	id, ok := t.byKey[key]
	return id, ok
}

// ID returns the id of n in this tree, or -1 when n is not in it.
func (t *Tree) ID(n *platform.Node) int {
	if id, ok := t.byNode[n]; ok {
		return id
	}
	return -1
}

// Parent returns the id of the parent of id; false for the root or an id not
// in the tree.
func (t *Tree) Parent(id int) (int, bool) {
	if id < 0 || id >= len(t.nodes) || t.parent[id] < 0 {
		return 0, false
	}
	return t.parent[id], true
}

// Ancestors lists the ids of the ancestors of id, nearest first (parent,
// grandparent, …, root). It is empty for the root and for ids not in the tree.
func (t *Tree) Ancestors(id int) []int {
	out := []int{}
	if id < 0 || id >= len(t.nodes) {
		return out
	}
	for p := t.parent[id]; p >= 0; p = t.parent[p] {
		out = append(out, p)
	}
	return out
}

// Children lists the ids of the children of id, in order.
func (t *Tree) Children(id int) []int {
	if id < 0 || id >= len(t.nodes) {
		return nil
	}
	return slices.Clone(t.kids[id])
}

// RefString is the ref of id in this tree ("a11y:e12").
func (t *Tree) RefString(id int) string {
	return Ref{Tree: t.kind, ID: t.extID(id)}.String()
}

// Element is one element as tools and `uiscope tree --format json` print it.
// Field names are part of the contract (docs/api.md).
//
// Fields empty or zero are left out (a name, childCount 0), and so is the
// Accessible interface every element has: a tree answer is as lean as its
// content (docs/api.md, "The element node").
type Element struct {
	// ID is the id part of Ref ("e12"), kept in the JSON as the contract
	// (docs/api.md) shows it.
	ID  string `json:"id"`
	Ref string `json:"ref"`
	// Key is the durable key (platform.Node.Key), only when a read asks
	// for it (Fields).
	Key          string         `json:"key,omitempty"`
	Role         string         `json:"role"`
	Name         string         `json:"name,omitempty"`
	Description  string         `json:"description,omitempty"`
	AccessibleID string         `json:"accessibleId,omitempty"`
	States       []string       `json:"states"`
	Bounds       *platform.Rect `json:"bounds,omitempty"`
	// BoundsUnknown: the element's window could not be told, so where it
	// is on the screen is unknown (platform.Node.BoundsUnknown).
	BoundsUnknown bool     `json:"boundsUnknown,omitempty"`
	Interfaces    []string `json:"interfaces,omitempty"`
	Actions       []string `json:"actions,omitempty"`
	Redacted      bool     `json:"redacted,omitempty"`
	// Value is what the control holds (platform.Node.Value); never on a
	// redacted element.
	Value          *string `json:"value,omitempty"`
	ValueTruncated bool    `json:"valueTruncated,omitempty"`
	// ChildCount is the number of children the element reported, which may
	// differ from len(Children) (views, depth, budget, a cut-short walk).
	ChildCount int        `json:"childCount,omitempty"`
	Children   []*Element `json:"children,omitempty"`
	// ChildrenOmitted counts the element's children (in the rendered view)
	// that are in the fetched tree but left out of this output by depth or
	// the node budget.
	ChildrenOmitted int `json:"childrenOmitted,omitempty"`
	// ChildrenPartial and ChildrenRange: the element's children are
	// virtual and only those on screen were read (platform.Node).
	ChildrenPartial bool                 `json:"childrenPartial,omitempty"`
	ChildrenRange   *platform.ChildRange `json:"childrenRange,omitempty"`
	Error           string               `json:"error,omitempty"`
}

// Element returns the element with the given id, without children.
func (t *Tree) Element(id int) (*Element, bool) {
	if id < 0 || id >= len(t.nodes) {
		return nil, false
	}
	return t.element(id), true
}

// element builds the flat Element for id (id must be valid).
func (t *Tree) element(id int) *Element {
	n := t.nodes[id]
	e := &Element{
		ID:            "e" + strconv.Itoa(t.extID(id)),
		Ref:           t.RefString(id),
		Key:           n.Key,
		Role:          n.Role.String(),
		Name:          n.Name,
		Description:   n.Description,
		AccessibleID:  n.AccessibleID,
		States:        n.States.Names(),
		Interfaces:    listedInterfaces(n.Interfaces),
		Actions:       slices.Clone(n.Actions),
		Redacted:      n.Redacted,
		ChildCount:    n.ChildCount,
		Error:         n.Err,
		BoundsUnknown: n.BoundsUnknown,

		ChildrenPartial: n.ChildrenPartial,
		ChildrenRange:   n.ChildrenRange,
	}
	if n.Value != nil {
		v := *n.Value
		e.Value, e.ValueTruncated = &v, n.ValueTruncated
	}
	if e.Redacted || n.IsPassword() {
		e.Name, e.Description, e.Redacted = "", "", true
		e.Value, e.ValueTruncated = nil, false
	}
	if n.Bounds != nil {
		b := *n.Bounds
		e.Bounds = &b
	}
	return e
}

// shownElement is element without the key unless keys: what a read
// answers (Fields).
func (t *Tree) shownElement(id int, keys bool) *Element {
	e := t.element(id)
	if !keys {
		e.Key = ""
	}
	return e
}

// sameElement reports whether element(id) would print as e does (the same
// JSON), without building it: a feed compares every node of each read with
// its element of the last read this way. It must follow element field by
// field (TestSameElementFollowsElement checks every field of a node).
func (t *Tree) sameElement(id int, e *Element) bool {
	n := t.nodes[id]
	var digits [20]byte
	num := strconv.AppendInt(digits[:0], int64(t.extID(id)), 10)
	if len(e.ID) != 1+len(num) || e.ID[0] != 'e' || e.ID[1:] != string(num) {
		return false
	}
	if t.kind == "" && e.Ref != e.ID || t.kind != "" && (len(e.Ref) != len(t.kind)+1+len(e.ID) ||
		!strings.HasPrefix(e.Ref, t.kind) || e.Ref[len(t.kind)] != ':' || !strings.HasSuffix(e.Ref, e.ID)) {
		return false
	}
	name, desc, value, valueTrunc, redacted := n.Name, n.Description, n.Value, n.ValueTruncated, n.Redacted
	if value == nil {
		valueTrunc = false
	}
	if redacted || n.IsPassword() {
		name, desc, value, valueTrunc, redacted = "", "", nil, false, true
	}
	if e.Key != n.Key || e.Role != n.Role.String() || e.Name != name || e.Description != desc ||
		e.AccessibleID != n.AccessibleID || e.Redacted != redacted || e.ChildCount != n.ChildCount ||
		e.Error != n.Err || e.BoundsUnknown != n.BoundsUnknown || e.ChildrenPartial != n.ChildrenPartial ||
		e.ValueTruncated != valueTrunc || !sameValue(e.Value, value) ||
		len(e.Children) != 0 || e.ChildrenOmitted != 0 {
		return false
	}
	if (e.Bounds == nil) != (n.Bounds == nil) || e.Bounds != nil && *e.Bounds != *n.Bounds {
		return false
	}
	if !reflect.DeepEqual(e.ChildrenRange, n.ChildrenRange) || !slices.Equal(e.Actions, n.Actions) {
		return false
	}
	// States as States.Names lists them.
	i := 0
	for s := platform.State(1); s < 64; s++ {
		if n.States.Has(s) {
			if i >= len(e.States) || e.States[i] != s.String() {
				return false
			}
			i++
		}
	}
	if i != len(e.States) || e.States == nil {
		return false
	}
	// Interfaces as listedInterfaces lists them: all but the first
	// Accessible.
	i, skipped := 0, false
	for _, name := range n.Interfaces {
		if !skipped && strings.EqualFold(name, "accessible") {
			skipped = true
			continue
		}
		if i >= len(e.Interfaces) || e.Interfaces[i] != name {
			return false
		}
		i++
	}
	return i == len(e.Interfaces)
}

// listedInterfaces is what an element lists of its node's interfaces: all
// but Accessible, which every element has.
func listedInterfaces(in []string) []string {
	var out []string
	for i, name := range in {
		if strings.EqualFold(name, "accessible") {
			out = make([]string, 0, len(in)-1)
			out = append(append(out, in[:i]...), in[i+1:]...)
			return out
		}
	}
	return slices.Clone(in)
}

// hasInterface reports whether n lists the interface (case-insensitive).
func hasInterface(n *platform.Node, name string) bool {
	for _, i := range n.Interfaces {
		if strings.EqualFold(i, name) {
			return true
		}
	}
	return false
}

// Formats of a tree read.
const (
	FormatOutline = "outline"
	FormatJSON    = "json"
)

// TreeRequest is one read of an application's tree: get_a11y_tree and
// 'uiscope tree'. Optional numbers are pointers: nil means the default,
// and a given value is checked, never replaced.
type TreeRequest struct {
	// Element is the ref of the element to start at; "" for the app root.
	Element string
	// Depth is how many levels below the start element to show; nil for
	// all, 0 for the element alone.
	Depth *int
	// View is raw (the default when empty), control, content or visible.
	View string
	// Format is outline (the default when empty) or json.
	Format string
	// MaxNodes bounds the elements shown: 1 to MaxMaxNodes; nil for
	// DefaultMaxNodes.
	MaxNodes *int
	// MaxBytes bounds the answer's size in bytes of its JSON text (the
	// tree and, answerReserve of it, the answer's other fields): MinMaxBytes
	// to MaxMaxBytes; nil for DefaultMaxBytes.
	MaxBytes *int
	// TimeoutMs is the deadline for reading the tree; nil for
	// DefaultTimeoutMs.
	TimeoutMs *int
	// Fresh resolves Element in the tree this call reads (read.go).
	Fresh bool
	// Fields are the optional element fields to give (FieldKey).
	Fields Fields
}

// Validate checks the request and fills in the empty Format and View.
// Errors are invalidArgument, or malformedRef for an Element that is no
// ref, and say what would be accepted.
func (r *TreeRequest) Validate() error {
	if r.Format == "" {
		r.Format = FormatOutline
	}
	if r.Format != FormatOutline && r.Format != FormatJSON {
		return Errorf(CodeInvalidArgument, "format must be \"outline\" or \"json\", not %s", Quote(r.Format))
	}
	if r.View == "" {
		r.View = ViewRaw
	}
	if err := ValidateView(r.View); err != nil {
		return AsError(err)
	}
	if r.Depth != nil && *r.Depth < 0 {
		return Errorf(CodeInvalidArgument, "depth must be 0 or more (omit it for the whole tree), not %d", *r.Depth)
	}
	if r.MaxNodes != nil && (*r.MaxNodes <= 0 || *r.MaxNodes > MaxMaxNodes) {
		return Errorf(CodeInvalidArgument, "maxNodes must be between 1 and %d, not %d", MaxMaxNodes, *r.MaxNodes)
	}
	if r.MaxBytes != nil && (*r.MaxBytes < MinMaxBytes || *r.MaxBytes > MaxMaxBytes) {
		return Errorf(CodeInvalidArgument, "maxBytes must be between %d and %d, not %d", MinMaxBytes, MaxMaxBytes, *r.MaxBytes)
	}
	if _, err := Timeout(r.TimeoutMs); err != nil {
		return err
	}
	if err := r.Fields.Validate(); err != nil {
		return err
	}
	return validRef(r.Element)
}

// viewOptions is the render the request asks for, at position scope.
func (r *TreeRequest) viewOptions(scope int) ViewOptions {
	opts := ViewOptions{View: r.View, Depth: -1, Scope: scope, Keys: r.Fields.Key()}
	if r.Depth != nil {
		opts.Depth = *r.Depth
	}
	if r.MaxNodes != nil {
		opts.MaxNodes = *r.MaxNodes
	}
	opts.MaxBytes = DefaultMaxBytes - answerReserve
	if r.MaxBytes != nil {
		opts.MaxBytes = *r.MaxBytes - answerReserve
	}
	return opts
}

// TreeRead is a tree read and shaped as a TreeRequest asked.
type TreeRead struct {
	Tree  *Tree
	Stats platform.TreeStats
	// Outline (format outline) or Root (format json) is the output.
	Outline string
	Root    *Element
	Render  RenderStats
	// Format, View and MaxBytes are the request's, defaults filled in.
	Format   string
	View     string
	MaxBytes int
}

// ReadTree reads the session's application's tree afresh (it becomes the
// session's last read) and shapes it as req asks, once req is valid
// (TreeRequest.Validate) and the session's identity checked (Get).
func (m *Sessions) ReadTree(ctx context.Context, sessionID string, req TreeRequest) (*TreeRead, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	s, err := m.Get(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if s.Mode == ModeVisual {
		return nil, Errorf(CodeWrongTree, "session %s reads the visual (native window) tree: use get_visual_tree, or connect with mode \"a11y\" for the accessibility tree", s.ID)
	}
	limit, err := Timeout(req.TimeoutMs)
	if err != nil {
		return nil, err
	}
	t, st, scope, err := m.fetchAt(ctx, s, req.Element, req.Fresh, limit, platform.TreeOptions{Actions: req.Format == FormatJSON})
	if err != nil {
		return nil, err
	}
	out := &TreeRead{Tree: t, Stats: st, Format: req.Format, View: req.View, MaxBytes: DefaultMaxBytes}
	if req.MaxBytes != nil {
		out.MaxBytes = *req.MaxBytes
	}
	opts := req.viewOptions(scope)
	if req.Format == FormatOutline {
		out.Outline, out.Render, err = t.Outline(opts)
	} else {
		out.Root, out.Render, err = t.Render(opts)
	}
	if err != nil {
		return nil, AsError(err)
	}
	return out, nil
}
