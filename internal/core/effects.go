package core

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
)

// What an action caused (API "Action results"): the windows it opened or
// closed, where the keyboard focus went, whether its element is gone. The
// app is looked at just before the action and again once it has settled;
// the difference is the action's effects. They are what an agent would
// otherwise re-read the tree to learn, and what decides whether an action
// whose reply never came ran at all (docs/api.md: three outcomes, not two).

// Effects is what changed around an action.
type Effects struct {
	WindowsOpened []WindowRef `json:"windowsOpened,omitempty"`
	WindowsClosed []WindowRef `json:"windowsClosed,omitempty"`
	// Focus is the element that took the keyboard focus during the
	// action; Ref is set when the session's last read holds it.
	Focus *FocusRef `json:"focus,omitempty"`
	// Gone: the element acted on no longer exists, or no longer is in
	// the app's tree once its window closed (a dialog's button that
	// closed it).
	Gone bool `json:"gone,omitempty"`
}

// any reports whether anything changed.
func (e Effects) any() bool {
	return len(e.WindowsOpened) > 0 || len(e.WindowsClosed) > 0 || e.Focus != nil || e.Gone
}

// WindowRef names a top-level window: its id, title, and the role of the
// accessible it shows ("dialog", "frame", "file chooser", "alert"; "window"
// when none could be matched to it); or an open menu (Popup: a window no
// window manager lists, role "menu", no title).
type WindowRef struct {
	Window string `json:"window"`
	Title  string `json:"title"`
	Role   string `json:"role"`
	Popup  bool   `json:"popup,omitempty"`
}

// FocusRef is the element that has the keyboard focus: its ref, which
// a later call takes (focusRef makes sure there is one where it can).
type FocusRef struct {
	Ref  string `json:"ref,omitempty"`
	Role string `json:"role"`
	Name string `json:"name,omitempty"`
	key  string
}

// scene is the app at one moment, as far as effects go.
type scene struct {
	wins       []platform.Window // mapped top-level windows
	winsRead   bool
	tops       []platform.Node
	focusKey   string
	focusMoves uint64
}

// look reads the scene of the session's app: its mapped windows, its
// top-level accessibles and the focus count. What cannot be read is left
// empty (and then compared as unknown, not as closed).
func (m *Sessions) look(ctx context.Context, s *Session) scene {
	var sc scene
	sc.wins, sc.winsRead = m.mappedWindows(ctx, s)
	if s.Mode != ModeVisual {
		if tl, ok := m.desk.Accessibility.(platform.TopLevelReader); ok {
			if tops, err := tl.TopLevels(ctx, s.App); err == nil {
				sc.tops = tops
			}
		}
		if ft, ok := m.desk.Accessibility.(platform.FocusTracker); ok {
			sc.focusKey, sc.focusMoves = ft.Focus(ctx, s.App)
		}
	}
	return sc
}

// mappedWindows lists the app's mapped windows, from the display server
// alone (never the app, which may not answer); false when they could not
// be read.
func (m *Sessions) mappedWindows(ctx context.Context, s *Session) ([]platform.Window, bool) {
	if wl, ok := m.desk.Windows.(platform.WindowLister); ok {
		if wins, err := wl.AppWindows(ctx, s.App.Pid); err == nil {
			return mapped(wins), true
		}
		return nil, false
	}
	wins, err := m.appWindows(ctx, s)
	if err == nil {
		return mapped(wins), true
	}
	return nil, AsError(err).Code == CodeNotFound // no window at all
}

func mapped(wins []platform.Window) []platform.Window {
	return slices.DeleteFunc(slices.Clone(wins), func(w platform.Window) bool { return !w.Mapped })
}

// effects compares the scene before an action with the app now. key is
// the element acted on ("" for none).
func (m *Sessions) effects(ctx context.Context, s *Session, before scene, key string) Effects {
	now := m.look(ctx, s)
	var e Effects
	if before.winsRead && now.winsRead {
		for _, w := range now.wins {
			if !hasWindow(before.wins, w.ID) {
				e.WindowsOpened = append(e.WindowsOpened, windowRef(w, now.tops))
			}
		}
		for _, w := range before.wins {
			if !hasWindow(now.wins, w.ID) {
				e.WindowsClosed = append(e.WindowsClosed, windowRef(w, before.tops))
			}
		}
	}
	if now.focusMoves != before.focusMoves && now.focusKey != "" {
		e.Focus = m.focusRef(ctx, s, now.focusKey)
	}
	if e.Focus == nil && s.Mode != ModeVisual && slices.ContainsFunc(e.WindowsOpened, func(w WindowRef) bool { return !w.Popup }) {
		// A toolkit that announces no focus moves (GTK 4): where the
		// focus is in the window that opened, from a read after it did.
		e.Focus = m.focusIn(ctx, s, e.WindowsOpened)
	}
	if key != "" && s.Mode != ModeVisual {
		_, err := m.desk.Accessibility.Element(ctx, s.App, key)
		switch {
		case errors.Is(err, platform.ErrElementGone):
			e.Gone = true
		case err == nil && windowClosed(e):
			e.Gone = m.detached(ctx, s, key)
		}
	}
	return e
}

// windowClosed reports effects in which a window closed (not a menu: a
// menu's items stay in the tree, to show again).
func windowClosed(e Effects) bool {
	return slices.ContainsFunc(e.WindowsClosed, func(w WindowRef) bool { return !w.Popup })
}

// Dialogs that close a moment after their Enter: GTK 3's file chooser
// checks the file it was given (an asynchronous query) before it answers,
// and its app hides it only then, after the app has been quiet for long
// enough to count as settled. An Enter sent to a dialog is what closes
// it, so the answer of one that closed none yet waits a little longer
// for its window to go, and then says it went.

// dialogCloseTime bounds the wait for a dialog's window to close after
// an Enter in it.
const dialogCloseTime = 2 * time.Second

// activates reports keys that accept a dialog: Enter (Return, KP_Enter).
func activates(keys string) bool {
	switch strings.ToLower(strings.TrimSpace(keys)) {
	case "enter", "return", "kp_enter":
		return true
	}
	return false
}

// dialogClosing waits, after an Enter sent to window win, for win to
// close when it is a dialog the effects do not say closed yet (role
// dialog, file chooser or alert, as its top-level accessible shows it),
// within dialogCloseTime; it reports whether it closed, and the effects
// should be read again.
func (m *Sessions) dialogClosing(ctx context.Context, t *actTarget, win platform.WindowID, e Effects) bool {
	if t.s.Mode == ModeVisual || win == 0 || windowClosed(e) || !t.before.winsRead {
		return false
	}
	var w *platform.Window
	for i := range t.before.wins {
		if t.before.wins[i].ID == win {
			w = &t.before.wins[i]
		}
	}
	if w == nil || w.Popup {
		return false
	}
	switch windowRef(*w, t.before.tops).Role {
	case "dialog", "file chooser", "alert":
	default:
		return false
	}
	deadline := time.NewTimer(dialogCloseTime)
	defer deadline.Stop()
	for {
		// The windows only: an app that stopped answering holds no
		// read of its accessibles past the bound.
		if wins, ok := m.mappedWindows(ctx, t.s); ok && !hasWindow(wins, win) {
			return true
		}
		select {
		case <-t.changes:
		case <-time.After(pollGap):
		case <-deadline.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// keepsDetached reports an app whose toolkit keeps answering for the
// widgets of a window it destroyed (GTK 4): an action there checks first
// that its element is still in the tree, or it would act on a closed
// dialog's button and answer verified.
func (m *Sessions) keepsDetached(s *Session) bool {
	ar, ok := m.desk.Accessibility.(platform.AttachedReader)
	return ok && ar.KeepsDetached(s.App)
}

// detached reports an element that still answers but is no longer in the
// app's tree: GTK 4 keeps exporting the widgets of a window it destroyed
// (a dialog's button that closed it) while the app holds the window.
func (m *Sessions) detached(ctx context.Context, s *Session, key string) bool {
	ar, ok := m.desk.Accessibility.(platform.AttachedReader)
	if !ok {
		return false
	}
	in, err := ar.Attached(ctx, s.App, key)
	return err == nil && !in
}

func hasWindow(wins []platform.Window, id platform.WindowID) bool {
	for _, w := range wins {
		if w.ID == id {
			return true
		}
	}
	return false
}

// focusRef describes the element that took the focus, if it still has it.
func (m *Sessions) focusRef(ctx context.Context, s *Session, key string) *FocusRef {
	d, err := m.desk.Accessibility.Element(ctx, s.App, key)
	if err != nil || !focused(d) {
		return nil
	}
	f := &FocusRef{Role: d.Node.Role.String(), Name: d.Node.Name, key: key}
	if d.Node.Secret() {
		f.Name = ""
	}
	f.Ref = s.refOfKey(key)
	if f.Ref == "" {
		// An element no read of the session holds (the name field of a
		// dialog the action opened): the session's watcher reads the app
		// once more (or a read of it under way finds it), and its read
		// holds the ref (Resolve takes the watcher's refs), so that the
		// agent needs no search to act on it.
		rctx, cancel := context.WithTimeout(ctx, focusReadTime)
		defer cancel()
		if m.readSinceOr(rctx, s, func() bool { return s.refOfKey(key) != "" }) {
			f.Ref = s.refOfKey(key)
		}
	}
	return f
}

// FocusOf is the element of the session's app that has the keyboard focus
// (connect's first look: where typed keys go), or nil: the first shown
// element in its watcher's last read with the focused state, the top-level
// windows aside. When that read has none and no active top level while
// the desktop's active window is the app's, the app has not yet taken the
// focus the window system gave it (GTK 4 marks its window active and its
// focused widget a moment after its tree holds still, and announces no
// focus move): the watcher reads again until a read has a focused element
// or an active top level, for up to focusWait.
func (m *Sessions) FocusOf(ctx context.Context, s *Session) *FocusRef {
	if f := s.watchedFocus(nil); f != nil || !m.focusComing(ctx, s) {
		return f
	}
	ctx, cancel := context.WithTimeout(ctx, focusWait)
	defer cancel()
	for {
		if !m.readSince(ctx, s) {
			return nil
		}
		if f := s.watchedFocus(nil); f != nil || s.watchedActive() {
			return f
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(pollGap):
		}
	}
}

// focusWait bounds connect's wait for an app to take the focus its window
// has (FocusOf).
const focusWait = 2 * time.Second

// focusComing reports a session whose watcher's last read has no active
// top level while the desktop's active window is one of the app's (by
// the app's window list, else by the window's process): the app is yet
// to mark the focus its window has.
func (m *Sessions) focusComing(ctx context.Context, s *Session) bool {
	w := m.desk.Windows
	if w == nil || s.watchedActive() {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	active, err := w.ActiveWindow(ctx)
	if err != nil || active == 0 {
		return false
	}
	if hasWindow(s.App.Windows, active) {
		return true
	}
	pid, err := w.WindowPid(ctx, active)
	return err == nil && pid == s.App.Pid
}

// watchedActive reports whether a top-level accessible of the watcher's
// last read has the active state (its window has the keyboard focus).
func (s *Session) watchedActive() bool {
	s.mu.Lock()
	t := s.watched
	s.mu.Unlock()
	if t == nil {
		return false
	}
	for _, top := range t.Children(0) {
		if n, _ := t.Node(top); n != nil && n.States.Has(platform.StateActive) {
			return true
		}
	}
	return false
}

// focusIn is the focused element of one of the windows that opened (not
// menus), read afresh by the session's watcher: the first showing one
// with the focused state under the top-level accessible the window shows
// (named as its title, or starting it). nil when there is none, or no
// read in time.
func (m *Sessions) focusIn(ctx context.Context, s *Session, opened []WindowRef) *FocusRef {
	rctx, cancel := context.WithTimeout(ctx, focusReadTime)
	defer cancel()
	if !m.readSince(rctx, s) {
		return nil
	}
	return s.watchedFocus(func(t *Tree, top int) bool {
		n, _ := t.Node(top)
		return n != nil && n.Name != "" && slices.ContainsFunc(opened, func(w WindowRef) bool {
			return !w.Popup && (w.Title == n.Name || strings.HasPrefix(w.Title, n.Name))
		})
	})
}

// watchedFocus is the focused element (focusUnder) under the first
// top-level accessible of the watcher's last read that has one, among
// those keep accepts (all when keep is nil), or nil.
func (s *Session) watchedFocus(keep func(t *Tree, top int) bool) *FocusRef {
	s.mu.Lock()
	t := s.watched
	s.mu.Unlock()
	if t == nil {
		return nil
	}
	for _, top := range t.Children(0) {
		if keep != nil && !keep(t, top) {
			continue
		}
		if f := t.focusUnder(top); f != nil {
			return f
		}
	}
	return nil
}

// focusUnder is the first element in the subtree of id (id itself aside)
// that is shown and has the focused state, or nil.
func (t *Tree) focusUnder(id int) *FocusRef {
	for i := id + 1; i < t.end[id]; i++ {
		n := t.nodes[i]
		if !n.States.Has(platform.StateFocused) || !n.States.Has(platform.StateShowing) && !n.States.Has(platform.StateVisible) {
			continue
		}
		f := &FocusRef{Ref: t.RefString(i), Role: n.Role.String(), Name: n.Name, key: n.Key}
		if n.Secret() {
			f.Name = ""
		}
		return f
	}
	return nil
}

// focusReadTime bounds the read that gives a new focused element its ref.
const focusReadTime = 3 * time.Second

// refOfKey is the ref of the element with this key in a read of the
// session that Resolve takes (its last read, else its watcher's), or "".
func (s *Session) refOfKey(key string) string {
	s.mu.Lock()
	trees := []*Tree{s.tree, s.watched}
	s.mu.Unlock()
	for _, t := range trees {
		if t == nil {
			continue
		}
		if id, ok := t.ByKey(key); ok {
			return t.RefString(id)
		}
	}
	return ""
}

// windowRef names a window with the role of the top-level accessible it
// shows, matched by title (a toolkit may add the app's name to the title
// of a dialog: "Save File — KWrite"), else by size.
func windowRef(w platform.Window, tops []platform.Node) WindowRef {
	if w.Popup {
		// A window list gives only menus of an app's popups.
		return WindowRef{Window: w.ID.String(), Role: "menu", Popup: true}
	}
	r := WindowRef{Window: w.ID.String(), Title: w.Title, Role: "window"}
	if top, ok := topLevelFor(w, tops); ok {
		r.Role = top.Role.String()
		if r.Title == "" && !top.Secret() {
			// A window without a title (GTK 3's message dialogs) is
			// named as its accessible is ("Question").
			r.Title = top.Name
		}
	}
	return r
}

// Within how much the box of a top-level accessible may differ from its
// window's and still be matched to it: GTK 3 gives a dialog's box with
// the window manager's frame (a title bar and borders) around it.
const (
	frameSlackW = 16
	frameSlackH = 48
)

// topLevelFor finds the top-level accessible a window shows: the showing
// one named as its title, else one whose name starts its title, else the
// only one of its size.
func topLevelFor(w platform.Window, tops []platform.Node) (platform.Node, bool) {
	shown := func(n platform.Node) bool {
		return n.States.Has(platform.StateShowing) || n.States.Has(platform.StateVisible)
	}
	for _, n := range tops {
		if shown(n) && n.Name != "" && n.Name == w.Title {
			return n, true
		}
	}
	for _, n := range tops {
		if shown(n) && n.Name != "" && strings.HasPrefix(w.Title, n.Name) {
			return n, true
		}
	}
	var bySize []platform.Node
	for _, n := range tops {
		if b := n.Bounds; shown(n) && b != nil && b.Width == w.Bounds.Width && b.Height == w.Bounds.Height {
			bySize = append(bySize, n)
		}
	}
	if len(bySize) == 1 {
		return bySize[0], true
	}
	// Else the only one whose box holds the window's, give or take a
	// window manager's frame.
	var framed []platform.Node
	for _, n := range tops {
		if b := n.Bounds; shown(n) && b != nil && holdsFramed(*b, w.Bounds) {
			framed = append(framed, n)
		}
	}
	if len(framed) == 1 {
		return framed[0], true
	}
	// Else the only one whose box is the window's with an even border
	// around it: a client-side decoration's invisible border, which a
	// Wayland toolkit counts in its window's box and the compositor does
	// not (GTK 3's dialogs on sway: 10 px; its header-bar windows' shadow,
	// 26 px across, 23 above and 29 below).
	var bordered []platform.Node
	for _, n := range tops {
		if b := n.Bounds; shown(n) && b != nil && b.Borders(w.Bounds) {
			bordered = append(bordered, n)
		}
	}
	if len(bordered) == 1 {
		return bordered[0], true
	}
	return platform.Node{}, false
}

// holdsFramed reports a box that holds win's, larger by at most a window
// manager's frame (frameSlackW, frameSlackH).
func holdsFramed(box, win platform.Rect) bool {
	dw, dh := box.Width-win.Width, box.Height-win.Height
	return dw >= 0 && dw <= frameSlackW && dh >= 0 && dh <= frameSlackH &&
		box.X <= win.X && box.Y <= win.Y && box.X+box.Width >= win.X+win.Width && box.Y+box.Height >= win.Y+win.Height
}

// observer watches an app across input sent outside the acting path's
// target (held buttons and keys): look before, effects once it settled.
type observer struct {
	m       *Sessions
	s       *Session
	changes <-chan struct{}
	stop    func()
	before  scene
}

// observe starts watching the session's app; call stop when done.
func (m *Sessions) observe(ctx context.Context, s *Session) *observer {
	changes, stop := m.Watch(ctx, s)
	return &observer{m: m, s: s, changes: changes, stop: stop, before: m.look(ctx, s)}
}

// effects waits for the app to settle and says what changed since observe.
func (o *observer) effects(ctx context.Context) Effects {
	o.m.settle(ctx, o.s, "", o.changes, nil)
	return o.m.effects(ctx, o.s, o.before, "")
}

// Observing: an acting call with observe true also answers with the tree
// changes its action caused (API "Action results"): the app's tree is read
// just before the action and again once it settled, and the difference is
// given as get_a11y_tree_changes gives a patch (refs included), cut at a
// byte budget. It costs two tree reads, so it is asked for, never done by
// default.

// DefaultObserveBytes is the default budget of an answer's changes.
const DefaultObserveBytes = 4000

// observeTime bounds each of an observed action's two tree reads.
const observeTime = 5 * time.Second

type observeKey struct{}

// WithObserve asks the acting calls made with ctx to report their tree
// changes, within maxBytes of JSON (DefaultObserveBytes when 0 or less).
func WithObserve(ctx context.Context, maxBytes int) context.Context {
	if maxBytes <= 0 {
		maxBytes = DefaultObserveBytes
	}
	return context.WithValue(ctx, observeKey{}, maxBytes)
}

// observeBudget is the byte budget of the changes ctx asks for, 0 for none.
func observeBudget(ctx context.Context) int {
	b, _ := ctx.Value(observeKey{}).(int)
	return b
}

// observeBefore reads the tree an observed action's changes are measured
// from (nil when not observing, or in a visual session).
func (m *Sessions) observeBefore(ctx context.Context, s *Session) *Tree {
	if observeBudget(ctx) == 0 || s.Mode != ModeA11y {
		return nil
	}
	t, _, err := m.Fetch(ctx, s, observeTime, platform.TreeOptions{})
	if err != nil || t.Truncated {
		// A partial read would make what it missed look added.
		return &Tree{}
	}
	return t
}

// observed reads the tree again and fills in the result's changes since
// before, cut at the budget.
func (m *Sessions) observed(ctx context.Context, s *Session, before *Tree, r *ActResult) {
	if before == nil {
		return
	}
	if before.Len() == 0 {
		r.ChangesNote = "the tree could not be read whole before the action, so its changes are not known: read get_a11y_tree"
		return
	}
	after, _, err := m.Fetch(ctx, s, observeTime, platform.TreeOptions{})
	if err != nil || after.Truncated {
		r.ChangesNote = "the tree could not be read whole after the action, so its changes are not known: read get_a11y_tree"
		return
	}
	all := diff(flatten(before, "raw"), flatten(after, "raw"))
	budget := observeBudget(ctx)
	n, used := 0, 0
	for ; n < len(all); n++ {
		used += EventBytes(all[n]) + 1
		if used > budget {
			break
		}
	}
	changes := all[:n:n]
	if changes == nil {
		changes = []Change{}
	}
	r.Changes = &changes
	if n < len(all) {
		r.ChangesNote = fmt.Sprintf("%d of %d changes fit in maxBytes; the rest: get_a11y_tree (refs from the read after the action hold)", n, len(all))
	}
}
