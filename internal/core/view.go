package core

import (
	"errors"
	"fmt"
	"strings"

	"github.com/uiscope/uiscope/internal/platform"
)

// ErrInvalidArgument is wrapped by errors about arguments a caller gave:
// view options, find queries.
var ErrInvalidArgument = errors.New("invalid argument")

// Views. Each keeps a subset of the fetched tree; a node a view drops has its
// kept descendants hoisted into its nearest kept ancestor, in order. The
// element a render starts at (the scope) is always shown, whatever the view.
const (
	// ViewRaw shows every node the walk reached.
	ViewRaw = "raw"

	// ViewControl drops structure-only nodes. A node is structure-only when
	// its role is one of filler, panel, section, grouping, redundant object,
	// unknown, invalid, viewport, layered pane, glass pane, root pane (the
	// containers toolkits wrap around widgets for layout) AND it has no
	// name, no description, no actions, is not focusable, has none of the
	// text, editabletext, value, selection or table interfaces, carries no
	// error, and is not missing children the walk did not reach (reported
	// childCount above the children fetched).
	ViewControl = "control"

	// ViewContent is control, narrowed to what a reader needs: a node is
	// kept when it passes control and carries content itself — a non-empty
	// name or description, the text, editabletext or value interface, at
	// least one action, redaction (a password field), an error, or children
	// the walk did not reach — or when it passes control and has such a
	// node among its descendants (the ancestors needed to reach it).
	ViewContent = "content"

	// ViewVisible is control, narrowed to what is on screen: a node is
	// kept when it passes control and is on screen itself, or when it
	// passes control and has such a node among its descendants (the
	// ancestors that keep the outline a tree). A node is on screen when
	// it is showing, or visible without SHOWING (toolkits that leave it
	// out: GTK 4 everywhere, GTK 2 on an open menu's items, whose bounds
	// the backend reads only inside a popup window shown), and its bounds
	// are not empty and meet its window's: the bounds of its top level
	// (the root's child it is in; a top level needs bounds of its own).
	// An element whose window could not be told (BoundsUnknown) counts
	// when it is showing. Backends read bounds only for elements on
	// screen, so closed menus, hidden popovers, other stack pages and
	// what is scrolled out of a window drop out.
	ViewVisible = "visible"
)

// Budgets for Render and Outline.
const (
	DefaultMaxNodes = 2000
	MaxMaxNodes     = 100000
	// MaxDepth bounds the levels shown below the scope element whatever
	// the caller asks (depth omitted, or larger): an app that nests
	// without end must not make an answer nested past what a client's
	// JSON decoder takes (Go's refuses 10,000 levels; each level is two).
	// Real trees are far shallower; a deeper part is read by starting at
	// an element down there.
	MaxDepth = 256
)

// structureRoles are the container roles a control view may drop.
var structureRoles = func() map[platform.Role]bool {
	m := map[platform.Role]bool{}
	for _, name := range []string{
		"filler", "panel", "section", "grouping", "redundant object",
		"unknown", "invalid", "viewport", "layered pane", "glass pane", "root pane",
	} {
		m[mustRole(name)] = true
	}
	return m
}()

func mustRole(name string) platform.Role {
	r, ok := platform.RoleByName(name)
	if !ok {
		panic("core: unknown role " + name)
	}
	return r
}

func mustState(name string) platform.State {
	s, ok := platform.StateByName(name)
	if !ok {
		panic("core: unknown state " + name)
	}
	return s
}

// ViewOptions shape a render.
type ViewOptions struct {
	// View is "raw" (the default when empty), "control" or "content".
	View string
	// Depth is how many levels of the rendered (post-view) tree to show
	// below the scope element: -1 unlimited, 0 the scope element alone.
	Depth int
	// Scope is the position of the element to start at, as Lookup and
	// ByKey return it (not the id a ref shows); 0 is the root.
	Scope int
	// MaxNodes is the node budget: 0 means DefaultMaxNodes; at most
	// MaxMaxNodes.
	MaxNodes int
	// MaxBytes is the byte budget of the tree in the answer: the root
	// element's JSON (Render), or the outline's text as a JSON string holds
	// it, escapes counted (Outline), which its plain text never exceeds.
	// 0: none. The scope element is shown whatever it costs.
	MaxBytes int
	// Keys gives each element its durable key (Element.Key).
	Keys bool

	capped bool // Depth is MaxDepth, not the caller's
}

// RenderStats says how much of the view a render emitted.
type RenderStats struct {
	Nodes     int  // elements emitted
	Omitted   int  // elements of the view under the scope left out (depth, budget)
	BudgetHit bool // MaxNodes cut the output short
	BytesHit  bool // MaxBytes cut the output short
	// Bytes is what the tree costs as MaxBytes counts it (with MaxBytes),
	// or, for a JSON view the budget could not cut, a bound above that
	// (jsonBound), not measured.
	Bytes int
	// Cuts are the elements whose children a budget left out, the largest
	// cuts first (at most maxCuts).
	Cuts []Cut
	// DepthCapped: MaxDepth, not the caller's depth, left elements out.
	DepthCapped bool
}

// ValidateView checks a view name ("" means raw).
func ValidateView(view string) error {
	switch view {
	case "", ViewRaw, ViewControl, ViewContent, ViewVisible:
		return nil
	}
	return fmt.Errorf("%w: unknown view %s (want raw, control, content or visible)", ErrInvalidArgument, Quote(view))
}

// normalize checks opts against t and fills defaults.
func (t *Tree) normalize(opts ViewOptions) (ViewOptions, error) {
	if err := ValidateView(opts.View); err != nil {
		return opts, err
	}
	if opts.View == "" {
		opts.View = ViewRaw
	}
	if opts.Depth < -1 {
		return opts, fmt.Errorf("%w: depth %d (want -1 for unlimited, or 0 and up)", ErrInvalidArgument, opts.Depth)
	}
	if opts.MaxNodes < 0 || opts.MaxNodes > MaxMaxNodes {
		return opts, fmt.Errorf("%w: maxNodes %d (want 1 to %d, or 0 for the default %d)", ErrInvalidArgument, opts.MaxNodes, MaxMaxNodes, DefaultMaxNodes)
	}
	if opts.MaxNodes == 0 {
		opts.MaxNodes = DefaultMaxNodes
	}
	if opts.MaxBytes < 0 || opts.MaxBytes > MaxMaxBytes {
		return opts, fmt.Errorf("%w: maxBytes %d (want 1 to %d, or 0 for none)", ErrInvalidArgument, opts.MaxBytes, MaxMaxBytes)
	}
	if opts.Depth == -1 || opts.Depth > MaxDepth {
		opts.Depth, opts.capped = MaxDepth, true
	}
	if len(t.nodes) == 0 {
		return opts, fmt.Errorf("%w: the tree is empty", ErrUnknownRef)
	}
	if err := t.checkPos(opts.Scope, "scope"); err != nil {
		return opts, err
	}
	return opts, nil
}

// checkPos checks a position a caller scopes an operation to (what, for
// the message). Positions come from Lookup or ByKey, never from a ref
// directly: a position is not a shown id once the session numbers the tree
// (ids.go), and checking one as an id would refuse an element that is there
// whenever the id equal to its position is gone.
func (t *Tree) checkPos(pos int, what string) error {
	if pos < 0 || pos >= len(t.nodes) {
		return fmt.Errorf("%w: %s position %d is not in the tree last read (%d elements); re-read the tree and use a fresh ref", ErrUnknownRef, what, pos, len(t.nodes))
	}
	return nil
}

// incomplete reports whether the walk did not reach all of id's children, or
// could not read the node fully: signals a view must not hide.
func (t *Tree) incomplete(id int) bool {
	n := t.nodes[id]
	return n.Err != "" || n.ChildCount > len(t.kids[id])
}

// structureOnly applies ViewControl's drop rule.
func (t *Tree) structureOnly(id int) bool {
	n := t.nodes[id]
	if !structureRoles[n.Role] {
		return false
	}
	if strings.TrimSpace(n.Name) != "" || strings.TrimSpace(n.Description) != "" || n.Redacted {
		return false
	}
	if len(n.Actions) > 0 || n.States.Has(platform.StateFocusable) {
		return false
	}
	for _, i := range []string{"text", "editabletext", "value", "selection", "table"} {
		if hasInterface(n, i) {
			return false
		}
	}
	return !t.incomplete(id)
}

// hasContent applies ViewContent's "carries content itself" rule.
func (t *Tree) hasContent(id int) bool {
	n := t.nodes[id]
	if strings.TrimSpace(n.Name) != "" || strings.TrimSpace(n.Description) != "" || n.Redacted {
		return true
	}
	if len(n.Actions) > 0 || t.incomplete(id) {
		return true
	}
	for _, i := range []string{"text", "editabletext", "value"} {
		if hasInterface(n, i) {
			return true
		}
	}
	return false
}

// keepSet computes which nodes the view keeps; nil means all (raw).
func (t *Tree) keepSet(view string) []bool {
	if view == ViewRaw || view == "" {
		return nil
	}
	keep := make([]bool, len(t.nodes))
	for i := range keep {
		keep[i] = !t.structureOnly(i)
	}
	var self func(int) bool
	switch view {
	case ViewContent:
		self = t.hasContent
	case ViewVisible:
		self = t.onScreen
	}
	if self != nil {
		// Children have higher ids than their parents: one backward pass
		// knows, at each node, whether any descendant was kept.
		desc := make([]bool, len(t.nodes))
		for i := len(t.nodes) - 1; i >= 0; i-- {
			keep[i] = keep[i] && (desc[i] || self(i))
			if p := t.parent[i]; p >= 0 && (keep[i] || desc[i]) {
				desc[p] = true
			}
		}
	}
	return keep
}

// onScreen applies ViewVisible's "on screen itself" rule.
func (t *Tree) onScreen(id int) bool {
	n := t.nodes[id]
	showing := n.States.Has(platform.StateShowing)
	if !showing && !n.States.Has(platform.StateVisible) {
		return false
	}
	if n.BoundsUnknown {
		return showing
	}
	if n.Bounds == nil || n.Bounds.Empty() {
		return false
	}
	top := id
	for t.parent[top] > 0 {
		top = t.parent[top]
	}
	if top == id {
		// The root, or a top level: its bounds are its window's.
		return true
	}
	w := t.nodes[top].Bounds
	return w != nil && !n.Bounds.Intersect(*w).Empty()
}

// viewKids lists the children of id in the view: kept children, and the
// kept descendants of dropped children hoisted in their place, in order.
func (t *Tree) viewKids(id int, keep []bool) []int {
	if keep == nil {
		return t.kids[id]
	}
	var out []int
	// Depth-first over dropped nodes, with an explicit stack.
	stack := make([]int, 0, len(t.kids[id]))
	for i := len(t.kids[id]) - 1; i >= 0; i-- {
		stack = append(stack, t.kids[id][i])
	}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if keep[c] {
			out = append(out, c)
			continue
		}
		for i := len(t.kids[c]) - 1; i >= 0; i-- {
			stack = append(stack, t.kids[c][i])
		}
	}
	return out
}

// rnode is one node of a rendered tree.
type rnode struct {
	id      int
	kids    []*rnode
	omitted int // view children left out

	// What a byte budget measured, kept for the output: the element
	// (format json) or the outline line.
	el   *Element
	line string
}

// render shapes the tree per opts (already normalized), measuring the
// elements in format f when opts has a byte budget.
//
// It walks the view breadth-first from the scope, keeping elements while
// both budgets allow: the upper levels are kept whole and the cut, where
// there is one, falls across the deepest levels reached, so an answer cut
// short still shows the app's structure and says where it left children
// out (omitted). Once an element does not fit, no later one is kept,
// though a smaller might: the answer is then a prefix of the same
// breadth-first order whatever the sizes, and cutting deterministic. The
// byte count is exact for the output (nodeBytes, markerBytes), reserving
// for every kept element with children the mark of all of them left out
// until its last child is in, so the output never exceeds the budget (the
// scope element, always shown, aside), and a view that fits is shown whole.
func (t *Tree) render(opts ViewOptions, f renderFormat) (*rnode, RenderStats) {
	keep := t.keepSet(opts.View)
	total := 1 // the scope is always shown
	for i := opts.Scope + 1; i < t.end[opts.Scope]; i++ {
		if keep == nil || keep[i] {
			total++
		}
	}
	type item struct {
		r     *rnode
		depth int
		kids  []int // view children
	}
	var (
		stats   RenderStats
		scratch []byte
		full    bool // a budget stopped the walk
	)
	measure := opts.MaxBytes > 0
	if measure && f == formatJSON {
		// A view that cannot exceed the budget is not measured: its bound
		// stands for its size.
		if b := t.jsonBound(opts.Scope, keep, opts.Keys); b <= opts.MaxBytes {
			measure, stats.Bytes = false, b
		}
	}
	root := &rnode{id: opts.Scope}
	queue := []item{{root, 0, t.viewKids(opts.Scope, keep)}}
	stats.Nodes = 1
	if measure {
		stats.Bytes = t.nodeBytes(f, root, 0, opts.Keys, &scratch) + markerBytes(f, 1, len(queue[0].kids))
	}
	for head := 0; head < len(queue); head++ {
		it := queue[head]
		if it.depth >= opts.Depth {
			it.r.omitted = len(it.kids)
			stats.DepthCapped = stats.DepthCapped || (opts.capped && len(it.kids) > 0)
			continue
		}
		level := it.depth + 1
		for i, k := range it.kids {
			if !full && stats.Nodes >= opts.MaxNodes {
				full, stats.BudgetHit = true, true
			}
			if !full {
				c := &rnode{id: k}
				kids := t.viewKids(k, keep)
				if measure {
					cost := t.nodeBytes(f, c, level, opts.Keys, &scratch) + markerBytes(f, level+1, len(kids))
					if f == formatJSON {
						if i == 0 {
							cost += jsonChildrenBytes
						} else {
							cost++ // the comma
						}
					}
					if i == len(it.kids)-1 {
						// With its last child in, the parent needs no
						// mark: what was reserved for it is free.
						cost -= markerBytes(f, level, len(it.kids))
					}
					if stats.Bytes+cost > opts.MaxBytes {
						full, stats.BytesHit = true, true
					} else {
						stats.Bytes += cost
					}
				}
				if !full {
					it.r.kids = append(it.r.kids, c)
					stats.Nodes++
					queue = append(queue, item{c, level, kids})
					continue
				}
			}
			it.r.omitted = len(it.kids) - i
			stats.cut(Cut{Pos: it.r.id, Omitted: it.r.omitted})
			break
		}
	}
	stats.Omitted = total - stats.Nodes
	return root, stats
}

// cut records where a budget left children out, keeping the largest cuts
// (the first found among equals: the highest in the tree).
func (s *RenderStats) cut(c Cut) {
	i := len(s.Cuts)
	for i > 0 && s.Cuts[i-1].Omitted < c.Omitted {
		i--
	}
	if i >= maxCuts {
		return
	}
	if len(s.Cuts) < maxCuts {
		s.Cuts = append(s.Cuts, Cut{})
	}
	copy(s.Cuts[i+1:], s.Cuts[i:])
	s.Cuts[i] = c
}

// Render shapes the tree for JSON output: the view, from the scope element,
// down to the depth, within the budgets (MaxNodes, MaxBytes: the root
// Element's JSON), cut breadth-first (render). Elements left out are
// counted in Omitted, and each emitted element whose children were left
// out (by depth or a budget) carries ChildrenOmitted. The result is
// deterministic for a given tree and options.
func (t *Tree) Render(opts ViewOptions) (*Element, RenderStats, error) {
	opts, err := t.normalize(opts)
	if err != nil {
		return nil, RenderStats{}, err
	}
	r, stats := t.render(opts, formatJSON)
	return t.toElement(r, opts.Keys), stats, nil
}

func (t *Tree) toElement(r *rnode, keys bool) *Element {
	e := r.el
	if e == nil {
		e = t.shownElement(r.id, keys)
	}
	e.ChildrenOmitted = r.omitted
	if len(r.kids) > 0 {
		e.Children = make([]*Element, len(r.kids))
		for i, k := range r.kids {
			e.Children[i] = t.toElement(k, keys)
		}
	}
	return e
}
