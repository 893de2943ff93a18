package core

import (
	"context"
	"strconv"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
)

// Correlation joins a visual tree to the accessibility tree of the same
// application. Native windows and accessible elements share no ids, so the
// join is by geometry, and strict:
//
//   - A window's own counterpart (a11yRef) is an accessible element whose
//     bounds are exactly the window's (for a client window, or its
//     window-manager frame's, which toolkits report as a decorated
//     window's extents), looked for among the top-level
//     elements for a top-level window, else among the descendants of the
//     counterpart of the nearest window it sits in. Where several nested
//     elements share those bounds the outermost is the window's; where
//     unrelated ones do (and the one on screen does not settle it) the
//     window has none: a guess would be worse than nothing.
//   - What a window sits inside (a11yAncestorRef) is the deepest element,
//     under that same nearest counterpart, whose bounds contain the
//     window's (stopping above two that both do); for a window with an own
//     counterpart, the counterpart of the window it sits in.
//
// A window never reports an ancestor's counterpart as its own: GTK 3 draws
// its buttons into the top-level window and gives them no window, so the
// window showing a button correlates to the frame, and no window to the
// button.
type Correlation struct {
	// A11ySession is the a11y session whose refs a11yRef and
	// a11yAncestorRef are.
	A11ySession string
	// Failed says why there are no counterparts (the application has no
	// accessibility tree, or it could not be read); Err is the error.
	Failed string
	Err    *Error

	own      map[int]string // visual position -> a11y ref
	ancestor map[int]string
}

// correlate reads the accessibility tree of vs's application into an a11y
// session on the same process (a11ySession, else the latest open one, else
// one opened now) and joins it to the visual tree vt.
func (m *Sessions) correlate(ctx context.Context, vs *Session, vt *Tree, a11ySession string, timeout time.Duration) *Correlation {
	c := &Correlation{own: map[int]string{}, ancestor: map[int]string{}}
	fail := func(err error) *Correlation {
		c.Err = AsError(err)
		c.Failed = c.Err.Msg
		return c
	}
	as, err := m.companion(ctx, vs, a11ySession)
	if err != nil {
		return fail(err)
	}
	c.A11ySession = as.ID
	at, _, err := m.Fetch(ctx, as, timeout, platform.TreeOptions{})
	if err != nil {
		return fail(err)
	}
	c.join(vt, at, vs.App.Pid)
	return c
}

// companion finds the a11y session correlation reads through.
func (m *Sessions) companion(ctx context.Context, vs *Session, id string) (*Session, error) {
	same := func(s *Session) bool {
		return s.Identity.Pid == vs.Identity.Pid && s.Identity.StartTime == vs.Identity.StartTime
	}
	if id != "" {
		s, err := m.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		if s.Mode != ModeA11y || !same(s) {
			return nil, Errorf(CodeInvalidArgument, "a11ySession %s must be an a11y session on the same application as %s (pid %d)", Quote(id), vs.ID, vs.Identity.Pid)
		}
		return s, nil
	}
	var found *Session
	for _, s := range m.List(ctx) {
		if s.Mode == ModeA11y && same(s) {
			found = s // List is in creation order: the latest wins
		}
	}
	if found != nil {
		return m.Get(ctx, found.ID)
	}
	if !vs.App.Accessible {
		return nil, &Error{Code: CodeNotAccessible, Disposition: DispositionTerminal, Msg: "pid " + strconv.Itoa(vs.App.Pid) +
			" has no accessibility tree (Tk and some toolkits never have one), so its windows have no accessible counterparts"}
	}
	s, err := m.Connect(ctx, AppSpec{Pid: vs.Identity.Pid}, ModeA11y)
	if err != nil {
		return nil, err
	}
	if !same(s) {
		_ = m.Disconnect(ctx, s.ID)
		return nil, Errorf(CodeOwnershipLost, "pid %d now runs another process", vs.Identity.Pid)
	}
	return s, nil
}

// join fills the correlation of every window of the visual tree vt that
// belongs to pid, against the accessibility tree at.
func (c *Correlation) join(vt, at *Tree, pid int) {
	// own counterpart by visual position, as an a11y position
	ownPos := map[int]int{}
	claimed := map[int]bool{}
	// Pre-order: a window's ancestors are done before it.
	for v := 1; v < vt.Len(); v++ {
		w := vt.Window(v)
		if w == nil {
			continue
		}
		anc := -1 // the counterpart of the nearest window holding this one
		for p, ok := vt.Parent(v); ok; p, ok = vt.Parent(p) {
			if a, has := ownPos[p]; has {
				anc = a
				break
			}
		}
		if w.Pid == pid && w.Viewable() && !w.Frame && !w.Bounds.Empty() {
			// A toolkit may give a decorated window's extents as the
			// window manager's frame around it (GTK 3 does, through
			// gdk_window_get_frame_extents): the client window's own
			// counterpart then has the frame's bounds.
			var alt *platform.Rect
			if w.Client {
				if f := vt.Window(outermost(vt, v)); f != nil && f.Frame {
					alt = &f.Bounds
				}
			}
			if a, ok := ownCounterpart(at, anc, w, alt, claimed); ok {
				ownPos[v] = a
				claimed[a] = true
				c.own[v] = at.RefString(a)
				if anc >= 0 {
					c.ancestor[v] = at.RefString(anc)
				}
				continue
			}
		}
		if anc < 0 {
			continue
		}
		if a := deepestHolder(at, anc, w.Bounds); a >= 0 {
			c.ancestor[v] = at.RefString(a)
		}
	}
}

// outermost is the top-level window (a child of the application root)
// holding position v of a visual tree.
func outermost(vt *Tree, v int) int {
	for {
		p, ok := vt.Parent(v)
		if !ok || p == 0 {
			return v
		}
		v = p
	}
}

// ownCounterpart finds the element showing exactly window w: among the
// top-level elements when anc < 0, else among anc's descendants.
func ownCounterpart(at *Tree, anc int, w *platform.NativeWindow, alt *platform.Rect, claimed map[int]bool) (int, bool) {
	same := func(i int) bool {
		n := at.nodes[i]
		return n.Bounds != nil && (*n.Bounds == w.Bounds || alt != nil && *n.Bounds == *alt) && !claimed[i]
	}
	var cands []int
	if anc < 0 {
		if at.Len() == 0 {
			return 0, false
		}
		for _, i := range at.kids[0] {
			if same(i) {
				cands = append(cands, i)
			}
		}
		if len(cands) > 1 {
			// Two top-level windows of one size: the title tells them apart.
			var named []int
			for _, i := range cands {
				if at.nodes[i].Name == w.Name {
					named = append(named, i)
				}
			}
			cands = named
		}
	} else {
		// Outermost matches only: a match inside another match is the
		// same area drawn by a child (a label filling its button).
		for i := anc + 1; i < at.end[anc]; i++ {
			if same(i) {
				cands = append(cands, i)
				i = at.end[i] - 1
			}
		}
		if len(cands) > 1 {
			var showing []int
			for _, i := range cands {
				if at.nodes[i].States.Has(platform.StateShowing) {
					showing = append(showing, i)
				}
			}
			cands = showing
		}
	}
	if len(cands) != 1 {
		return 0, false
	}
	return cands[0], true
}

// deepestHolder is the deepest element under anc (anc included) whose
// bounds contain r; -1 when not even anc does. Where two children contain
// r (and being on screen does not settle it) it stops above them: which
// one the window sits in would be a guess.
func deepestHolder(at *Tree, anc int, r platform.Rect) int {
	contains := func(i int) bool {
		b := at.nodes[i].Bounds
		return b != nil && b.X <= r.X && b.Y <= r.Y && b.X+b.Width >= r.X+r.Width && b.Y+b.Height >= r.Y+r.Height
	}
	if !contains(anc) {
		return -1
	}
	for cur := anc; ; {
		var in, showing []int
		for _, k := range at.kids[cur] {
			if contains(k) {
				in = append(in, k)
				if at.nodes[k].States.Has(platform.StateShowing) {
					showing = append(showing, k)
				}
			}
		}
		switch {
		case len(in) == 1:
			cur = in[0]
		case len(showing) == 1:
			cur = showing[0]
		default:
			return cur
		}
	}
}
