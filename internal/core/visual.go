package core

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
)

// The visual tree is an application's native window hierarchy (on X11,
// QueryTree from its top-level windows, frames included), for what the
// accessibility tree does not show: toolkits without one (Tk), custom-drawn
// surfaces, popups. A visual session (connect {mode: "visual"}) reads it
// instead of the accessibility tree; its refs are "visual:eN", numbered
// from the same run-wide counter as every other ref (ids.go), by the
// window's durable key (its id plus a generation marker the backend gives,
// so a recycled window id never inherits an identity).
//
// Inside the core a visual tree is a Tree of kind KindVisual: each window
// stands as a platform.Node (role "window", its name, its bounds, states
// "showing" and "visible" while it is viewable) so that refs, find, hit
// testing and waits work on it unchanged, and the window itself is kept
// beside it (Tree.native) for what only the visual tree shows. The root is
// the application.

// visualTreeStrategy names how a visual tree was read, for fetch stats.
const visualTreeStrategy = "window-tree"

// windowTree is the platform's native window tree: the windows part
// offers it when it can read one (docs/platform.md).
func (m *Sessions) windowTree() (platform.WindowTree, error) {
	if wt, ok := m.desk.Windows.(platform.WindowTree); ok && m.desk.Windows != nil {
		return wt, nil
	}
	return nil, Errorf(CodeNotSupported, "this platform cannot read native window trees, so visual sessions are not available; connect with mode \"a11y\"")
}

// fetchVisual reads the session's application's window hierarchy and makes
// it the session's tree.
func (m *Sessions) fetchVisual(ctx context.Context, s *Session, timeout time.Duration, maxWindows int) (*Tree, platform.TreeStats, error) {
	t, st, err := m.readVisual(ctx, s, timeout, maxWindows)
	if err != nil {
		return nil, st, err
	}
	s.adopt(t)
	return t, st, nil
}

// readVisual reads the window tree as fetchVisual does, without making it
// the session's tree.
func (m *Sessions) readVisual(ctx context.Context, s *Session, timeout time.Duration, maxWindows int) (*Tree, platform.TreeStats, error) {
	wt, err := m.windowTree()
	if err != nil {
		return nil, platform.TreeStats{}, err
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	nt, err := wt.WindowTree(tctx, s.App.Pid, platform.WindowTreeOptions{MaxWindows: maxWindows})
	st := platform.TreeStats{Strategy: visualTreeStrategy, Elapsed: time.Since(start)}
	if err != nil {
		if cerr := m.check(ctx, s); cerr != nil {
			return nil, st, cerr
		}
		if tctx.Err() != nil && ctx.Err() == nil {
			err = fmt.Errorf("%w: reading the window tree took longer than %d ms", platform.ErrTimeout, timeout.Milliseconds())
		}
		return nil, st, AsError(err)
	}
	// The windows were read; the process behind them must still be the
	// session's (a recycled pid would show another app's windows).
	if err := m.check(ctx, s); err != nil {
		return nil, st, err
	}
	t := newVisualTree(s, nt)
	st.Nodes, st.Truncated, st.Reason = t.Len(), nt.Truncated, nt.Reason
	return t, st, nil
}

// newVisualTree builds the session's visual tree from a window-tree read:
// the application at the root, its top-level windows below.
func newVisualTree(s *Session, nt *platform.NativeTree) *Tree {
	wins := map[*platform.Node]*platform.NativeWindow{}
	var conv func(w *platform.NativeWindow) *platform.Node
	conv = func(w *platform.NativeWindow) *platform.Node {
		n := &platform.Node{Key: w.Key, Role: platform.RoleWindow, Name: w.Name, ChildCount: w.ChildCount}
		if !w.Bounds.Empty() {
			b := w.Bounds
			n.Bounds = &b
		}
		if w.Viewable() {
			n.States = 1<<platform.StateShowing | 1<<platform.StateVisible
		}
		for _, c := range w.Children {
			n.Children = append(n.Children, conv(c))
		}
		wins[n] = w
		return n
	}
	// The application has no window of its own; its key is its process
	// incarnation, so that its ref lives as long as the session.
	root := &platform.Node{Key: "app:" + strconv.Itoa(s.Identity.Pid) + "." + strconv.FormatUint(s.Identity.StartTime, 10),
		Role: platform.RoleApplication, Name: s.App.Name, ChildCount: len(nt.Roots)}
	for _, w := range nt.Roots {
		root.Children = append(root.Children, conv(w))
	}
	t := NewTree(root, KindVisual)
	t.Truncated = nt.Truncated
	t.native = make([]*platform.NativeWindow, len(t.nodes))
	for i, n := range t.nodes {
		t.native[i] = wins[n]
	}
	return t
}

// Window returns the native window behind position id of a visual tree
// (nil for the application root, and for every node of an a11y tree).
func (t *Tree) Window(id int) *platform.NativeWindow {
	if id < 0 || id >= len(t.native) {
		return nil
	}
	return t.native[id]
}

// VisualElement is one window as get_visual_tree shows it. Field names are
// part of the contract (docs/api.md).
type VisualElement struct {
	ID  string `json:"id"`
	Ref string `json:"ref"`
	Key string `json:"key"`
	// Window is the native window id ("0x1a00003"); empty for the
	// application root.
	Window           string         `json:"window,omitempty"`
	Pid              int            `json:"pid,omitempty"`
	Name             string         `json:"name,omitempty"`
	Class            string         `json:"class,omitempty"`
	Instance         string         `json:"instance,omitempty"`
	Bounds           *platform.Rect `json:"bounds,omitempty"`
	MapState         string         `json:"mapState,omitempty"`
	OverrideRedirect bool           `json:"overrideRedirect,omitempty"`
	InputOnly        bool           `json:"inputOnly,omitempty"`
	Frame            bool           `json:"frame,omitempty"`
	Client           bool           `json:"client,omitempty"`
	// A11yRef is this window's own accessible counterpart (correlate:
	// true): an element of the accessibility tree showing exactly this
	// window, never one it only sits inside. A11yAncestorRef is the
	// counterpart of what it sits inside.
	A11yRef         string           `json:"a11yRef,omitempty"`
	A11yAncestorRef string           `json:"a11yAncestorRef,omitempty"`
	ChildCount      int              `json:"childCount"`
	Children        []*VisualElement `json:"children,omitempty"`
	ChildrenOmitted int              `json:"childrenOmitted,omitempty"`
}

// visualElement builds the flat VisualElement for position id.
func (t *Tree) visualElement(id int, corr *Correlation) *VisualElement {
	n := t.nodes[id]
	e := &VisualElement{ID: "e" + strconv.Itoa(t.extID(id)), Ref: t.RefString(id), Key: n.Key, Name: n.Name, ChildCount: n.ChildCount}
	if w := t.Window(id); w != nil {
		b := w.Bounds
		e.Window, e.Pid, e.Class, e.Instance, e.Bounds = w.ID.String(), w.Pid, w.Class, w.Instance, &b
		e.MapState, e.OverrideRedirect, e.InputOnly, e.Frame, e.Client = w.MapState, w.OverrideRedirect, w.InputOnly, w.Frame, w.Client
	}
	if corr != nil {
		e.A11yRef, e.A11yAncestorRef = corr.own[id], corr.ancestor[id]
	}
	return e
}

// RenderVisual shapes a visual tree for output: from the scope element,
// down to the depth, within the node budget (opts.View is ignored: every
// window is shown). corr, when not nil, adds each window's accessible
// counterparts.
func (t *Tree) RenderVisual(opts ViewOptions, corr *Correlation) (*VisualElement, RenderStats, error) {
	if t.kind != KindVisual {
		return nil, RenderStats{}, Errorf(CodeWrongTree, "this is not a visual tree")
	}
	opts.View = ViewRaw
	opts, err := t.normalize(opts)
	if err != nil {
		return nil, RenderStats{}, err
	}
	opts.MaxBytes = 0 // a window's JSON is not an Element's: no byte budget
	r, stats := t.render(opts, formatJSON)
	var conv func(r *rnode) *VisualElement
	conv = func(r *rnode) *VisualElement {
		e := t.visualElement(r.id, corr)
		e.ChildrenOmitted = r.omitted
		for _, k := range r.kids {
			e.Children = append(e.Children, conv(k))
		}
		return e
	}
	return conv(r), stats, nil
}

// VisualRequest is one get_visual_tree read.
type VisualRequest struct {
	// Element is the ref of the subtree root (from an earlier read of this
	// session); "" for the application.
	Element string
	// Depth is how many levels below the element to show; -1 for all.
	Depth int
	// MaxNodes bounds the windows shown (0: DefaultMaxNodes).
	MaxNodes int
	// Timeout bounds the read (0: DefaultTimeoutMs).
	Timeout time.Duration
	// Correlate adds the accessible counterparts, read through the a11y
	// session A11ySession (or one found or opened on the same process).
	Correlate   bool
	A11ySession string
	// Fresh resolves Element in the tree this call reads rather than the
	// session's earlier read: for one-shot commands ('uiscope tree
	// --visual --element visual:e3'), whose numbering starts afresh.
	Fresh bool
}

// VisualRead is the outcome of a VisualRequest.
type VisualRead struct {
	Tree        *Tree
	Stats       platform.TreeStats
	Root        *VisualElement
	Render      RenderStats
	Correlation *Correlation // nil without Correlate
}

// ReadVisual reads the session's application's window hierarchy afresh
// (it becomes the session's last read) and shapes it as req asks.
func (m *Sessions) ReadVisual(ctx context.Context, sessionID string, req VisualRequest) (*VisualRead, error) {
	s, err := m.Get(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if s.Mode != ModeVisual {
		return nil, Errorf(CodeWrongTree, "session %s reads the accessibility tree; get_visual_tree needs a visual session: connect with mode \"visual\" (a second session on the same app is fine)", s.ID)
	}
	if req.Depth < -1 {
		return nil, Errorf(CodeInvalidArgument, "depth must be 0 or more (omit it for the whole tree), not %d", req.Depth)
	}
	if req.MaxNodes < 0 || req.MaxNodes > MaxMaxNodes {
		return nil, Errorf(CodeInvalidArgument, "maxNodes must be between 1 and %d, not %d", MaxMaxNodes, req.MaxNodes)
	}
	if err := validRef(req.Element); err != nil {
		return nil, err
	}
	if req.Timeout <= 0 {
		req.Timeout = DefaultTimeoutMs * time.Millisecond
	}
	if req.A11ySession != "" {
		// A wrong a11ySession is the caller's to fix, not a correlation
		// that failed.
		if !req.Correlate {
			return nil, Errorf(CodeInvalidArgument, "a11ySession only applies with correlate: true")
		}
		if _, err := m.companion(ctx, s, req.A11ySession); err != nil {
			return nil, err
		}
	}
	var key string
	if req.Element != "" && !req.Fresh {
		n, _, _, err := s.Resolve(req.Element)
		if err != nil {
			return nil, err
		}
		key = n.Key
	}
	t, st, err := m.fetchVisual(ctx, s, req.Timeout, 0)
	if err != nil {
		return nil, err
	}
	scope := 0
	if req.Element != "" && req.Fresh {
		_, pos, err := t.LookupString(req.Element)
		if err != nil {
			return nil, AsError(err)
		}
		scope = pos
	} else if req.Element != "" {
		pos, ok := t.ByKey(key)
		if !ok {
			return nil, Errorf(CodeElementGone, "window %s is no longer there (it was destroyed, or the UI changed): read the tree again without element, then use the new refs", Quote(req.Element))
		}
		scope = pos
	}
	out := &VisualRead{Tree: t, Stats: st}
	if req.Correlate {
		out.Correlation = m.correlate(ctx, s, t, req.A11ySession, req.Timeout)
	}
	out.Root, out.Render, err = t.RenderVisual(ViewOptions{Depth: req.Depth, Scope: scope, MaxNodes: req.MaxNodes}, out.Correlation)
	if err != nil {
		return nil, AsError(err)
	}
	return out, nil
}

// VisualOutline renders a visual tree one window a line, indented two
// spaces a level, at a fraction of the JSON's size:
//
//	application "tk_fixture.py" [visual:e0]
//	  window [visual:e1] 0x400261 322x185+80+80 frame
//	    window "uiscope Tk fixture" [visual:e2] 0x60000e Uiscope-tk-fixture 320x160+81+100 client a11y:e1
//
// Flags follow the geometry: the map state unless viewable, frame, client,
// override-redirect, input-only; then the own accessible counterpart, and
// "in" the counterpart of what the window sits in; "(… N more)" counts
// children left out.
func VisualOutline(root *VisualElement) string {
	var b strings.Builder
	var line func(e *VisualElement, depth int)
	line = func(e *VisualElement, depth int) {
		b.WriteString(strings.Repeat("  ", depth))
		if e.Window == "" {
			fmt.Fprintf(&b, "application %s [%s]", strconv.Quote(e.Name), e.Ref)
		} else {
			b.WriteString("window")
			if e.Name != "" {
				b.WriteString(" " + strconv.Quote(e.Name))
			}
			fmt.Fprintf(&b, " [%s] %s", e.Ref, e.Window)
			if e.Class != "" {
				b.WriteString(" " + e.Class)
			}
			if r := e.Bounds; r != nil {
				fmt.Fprintf(&b, " %dx%d%+d%+d", r.Width, r.Height, r.X, r.Y)
			}
			if e.MapState != platform.MapViewable {
				b.WriteString(" " + e.MapState)
			}
			for _, f := range []struct {
				on   bool
				name string
			}{{e.Frame, "frame"}, {e.Client, "client"}, {e.OverrideRedirect, "override-redirect"}, {e.InputOnly, "input-only"}} {
				if f.on {
					b.WriteString(" " + f.name)
				}
			}
		}
		if e.A11yRef != "" {
			b.WriteString(" " + e.A11yRef)
		}
		if e.A11yAncestorRef != "" {
			b.WriteString(" in " + e.A11yAncestorRef)
		}
		if e.ChildrenOmitted > 0 {
			fmt.Fprintf(&b, " (… %d more)", e.ChildrenOmitted)
		}
		b.WriteByte('\n')
		for _, k := range e.Children {
			line(k, depth+1)
		}
	}
	if root != nil {
		line(root, 0)
	}
	return b.String()
}
