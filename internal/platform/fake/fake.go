// Package fake is an in-memory desktop for tests: applications with
// accessible trees and process identities, top-level windows in a stacking
// order with one active window, keyboard focus, and input that lands where
// a real desktop would send it (keys to the active window, a click to the
// window on top at the point). It implements every part of the platform
// seam (docs/platform.md) and follows its contract: every call honours its
// context and fails with an error wrapping platform.ErrTimeout when the
// context is done.
//
// Tests script it through knobs: Freeze makes an application stop
// answering, SetHook runs before every call (to fail it, delay it or count
// it), StealFocusAfter moves the focus to another window in the middle of
// typing. Read back what happened with Typed, Keys, Clicks and Calls.
package fake

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/uiscope/uiscope/internal/platform"
)

// App describes an application to add.
type App struct {
	Pid            int
	Name           string
	Executable     string
	StartTime      uint64
	Toolkit        string
	ToolkitVersion string
	// Tree is the application's accessible tree, keys unique within it;
	// nil makes an application with windows but no accessibility.
	Tree *platform.Node
	// Tables are the grids of the tree's table elements, by key
	// (TableReader, table.go).
	Tables map[string]*Table
}

// Call is one call into the fake, as a hook sees it.
type Call struct {
	Name string // the method: "Element", "Click", "TypeText", ...
	Pid  int    // the application called, 0 for desktop-wide calls
}

// Click is one pointer click as delivered.
type Click struct {
	X, Y, Button, Count int
	Window              platform.WindowID // on top at the point, 0 for none
}

type app struct {
	App
	frozen   bool
	changes  []chan struct{}
	text     map[string]string // key -> text of text elements
	value    map[string]*platform.ValueInfo
	selected map[string][2]int // key -> text selection
	// all is the text element whose whole text Ctrl+A selected: the next
	// character typed replaces it, BackSpace clears it.
	all string
}

type window struct {
	platform.Window
	above bool // kept above normal windows (a popup, an "always on top" window)
}

// Desktop is the fake desktop. The zero value is not usable: use New.
type Desktop struct {
	mu     sync.Mutex
	apps   map[int]*app
	order  []int     // pids in the order added
	wins   []*window // stacking order, bottom first
	active platform.WindowID
	next   platform.WindowID
	screen platform.Rect

	hook       func(context.Context, Call) error
	stealAfter int // characters still to type before the focus moves; <0 off
	stealTo    platform.WindowID

	typed    map[platform.WindowID]*strings.Builder
	keys     map[platform.WindowID][]string
	clicks   []Click
	buttons  []int              // held down (held.go)
	pointer  [2]int             // where ButtonDown and DragTo left it
	keysDown []string           // held down by KeyDown
	foreign  platform.HeldState // held down by someone else (HoldForeign)
	calls    []Call
	kids     map[platform.WindowID][]*platform.NativeWindow // child windows (tree.go)
}

// New returns an empty desktop with a 1920x1080 screen.
func New() *Desktop {
	return &Desktop{apps: map[int]*app{}, next: 0x400001, screen: platform.Rect{Width: 1920, Height: 1080},
		stealAfter: -1, typed: map[platform.WindowID]*strings.Builder{}, keys: map[platform.WindowID][]string{}}
}

// Platform is the desktop as the core receives it: every part of the seam.
func (d *Desktop) Platform() platform.Desktop {
	return platform.Desktop{Accessibility: d, Processes: d, Windows: d, Input: d, Actions: d, Events: d, Pixels: d}
}

var (
	_ platform.Accessibility = (*Desktop)(nil)
	_ platform.Processes     = (*Desktop)(nil)
	_ platform.Windows       = (*Desktop)(nil)
	_ platform.Input         = (*Desktop)(nil)
	_ platform.Actions       = (*Desktop)(nil)
	_ platform.Events        = (*Desktop)(nil)
	_ platform.TextReader    = (*Desktop)(nil)
)

// AddApp adds a running application. Text elements (those with the "text"
// interface) start with their Name as text, Value elements at 0 of 0..100.
// As the platform's contract asks, the text of password and redacted
// elements is kept (typing and SetText change it: see Text) but never
// read back through Element.
func (d *Desktop) AddApp(a App) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if a.Executable == "" {
		a.Executable = "/usr/bin/" + a.Name
	}
	if a.Tree != nil {
		a.Tree = copyTree(a.Tree) // the caller's nodes stay the caller's
	}
	if a.StartTime == 0 {
		a.StartTime = 1000 + uint64(a.Pid)
	}
	st := &app{App: a, text: map[string]string{}, value: map[string]*platform.ValueInfo{}, selected: map[string][2]int{}}
	walk(a.Tree, func(n, _ *platform.Node, _ int) bool {
		if has(n, "text") {
			st.text[n.Key] = n.Name
		}
		if has(n, "value") {
			st.value[n.Key] = &platform.ValueInfo{Maximum: 100, Increment: 1}
		}
		return true
	})
	d.apps[a.Pid] = st
	d.order = append(d.order, a.Pid)
}

// AddWindow adds a mapped top-level window of pid on top of the normal
// windows (not active) and returns its id.
func (d *Desktop) AddWindow(pid int, title string, bounds platform.Rect) platform.WindowID {
	d.mu.Lock()
	defer d.mu.Unlock()
	id := d.next
	d.next++
	w := &window{Window: platform.Window{ID: id, Pid: pid, Title: title, Bounds: bounds, Mapped: true}}
	d.wins = append(d.wins, w)
	d.restack()
	return id
}

// SetAbove keeps a window above every normal window, even one activated
// later, as a window manager does for popups and "always on top" windows.
func (d *Desktop) SetAbove(id platform.WindowID, above bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if w := d.window(id); w != nil {
		w.above = above
		d.restack()
	}
}

// SetActive gives a window the focus, as a user clicking it would.
func (d *Desktop) SetActive(id platform.WindowID) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.raise(id)
}

// Active is the window that has the focus.
func (d *Desktop) Active() platform.WindowID {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.active
}

// Freeze makes an application stop answering: calls that need it block
// until their context is done and fail with platform.ErrTimeout. The bus,
// the window manager and /proc keep answering, as they do for a real
// frozen app.
func (d *Desktop) Freeze(pid int, frozen bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if a := d.apps[pid]; a != nil {
		a.frozen = frozen
	}
}

// Restart gives pid a new start time: the same pid, another process.
func (d *Desktop) Restart(pid int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if a := d.apps[pid]; a != nil {
		a.StartTime++
	}
}

// Exit ends an application: its process, tree and windows go.
func (d *Desktop) Exit(pid int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.apps, pid)
	d.order = slices.DeleteFunc(d.order, func(p int) bool { return p == pid })
	d.wins = slices.DeleteFunc(d.wins, func(w *window) bool { return w.Pid == pid })
	if d.window(d.active) == nil {
		d.active = 0
	}
}

// SetHook sets a function run before every call (nil removes it). It runs
// outside the desktop's lock, may block (honouring ctx) and fails the call
// when it returns an error.
func (d *Desktop) SetHook(h func(ctx context.Context, c Call) error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.hook = h
}

// StealFocusAfter makes window to active once n more characters have been
// typed, in the middle of a TypeText call if need be: the rest of that
// call's text goes to to, as it would on a real desktop.
func (d *Desktop) StealFocusAfter(n int, to platform.WindowID) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stealAfter, d.stealTo = n, to
}

// Typed is the text typed while id was active.
func (d *Desktop) Typed(id platform.WindowID) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if b := d.typed[id]; b != nil {
		return b.String()
	}
	return ""
}

// Keys are the chords pressed while id was active.
func (d *Desktop) Keys(id platform.WindowID) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.keys[id])
}

// Clicks are the pointer clicks delivered, in order.
func (d *Desktop) Clicks() []Click {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.clicks)
}

// Calls are the calls made so far, in order.
func (d *Desktop) Calls() []Call {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.calls)
}

// Text is what a text element holds now.
func (d *Desktop) Text(pid int, key string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if a := d.apps[pid]; a != nil {
		return a.text[key]
	}
	return ""
}

// PutText sets what a text element holds, as the application itself
// changed it (a page's script), and tells the watchers.
func (d *Desktop) PutText(pid int, key, text string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if a := d.apps[pid]; a != nil {
		a.text[key] = text
		d.changed(a)
	}
}

// enter starts a call: it records it, runs the hook, and waits out a
// frozen application when the call needs the application to answer.
func (d *Desktop) enter(ctx context.Context, name string, pid int, needsApp bool) error {
	d.mu.Lock()
	d.calls = append(d.calls, Call{Name: name, Pid: pid})
	hook := d.hook
	frozen := needsApp && d.apps[pid] != nil && d.apps[pid].frozen
	d.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return timeout(err)
	}
	if hook != nil {
		if err := hook(ctx, Call{Name: name, Pid: pid}); err != nil {
			return err
		}
	}
	if frozen {
		<-ctx.Done()
	}
	return timeout(ctx.Err())
}

func timeout(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %v", platform.ErrTimeout, err)
}

// appLocked returns the application a call is about; d.mu is held.
func (d *Desktop) appLocked(a platform.App) (*app, error) {
	st := d.apps[a.Pid]
	if st == nil {
		return nil, fmt.Errorf("%w: pid %d", platform.ErrAppNotFound, a.Pid)
	}
	if st.Tree == nil {
		return nil, fmt.Errorf("%w: pid %d", platform.ErrNotAccessible, a.Pid)
	}
	return st, nil
}

// changed tells the application's watchers; d.mu is held.
func (d *Desktop) changed(st *app) {
	for _, ch := range st.changes {
		select {
		case ch <- struct{}{}:
		default: // coalesced: one pending value is enough
		}
	}
}

// walk visits n and its descendants in pre-order until visit says stop.
func walk(n *platform.Node, visit func(n, parent *platform.Node, index int) bool) bool {
	var rec func(n, parent *platform.Node, index int) bool
	rec = func(n, parent *platform.Node, index int) bool {
		if n == nil {
			return true
		}
		if !visit(n, parent, index) {
			return false
		}
		for i, c := range n.Children {
			if !rec(c, n, i) {
				return false
			}
		}
		return true
	}
	return rec(n, nil, 0)
}

// find returns the element with key, its parent and index in it.
func find(root *platform.Node, key string) (n, parent *platform.Node, index int) {
	walk(root, func(c, p *platform.Node, i int) bool {
		if c.Key == key {
			n, parent, index = c, p, i
			return false
		}
		return true
	})
	return n, parent, index
}

func has(n *platform.Node, iface string) bool { return slices.Contains(n.Interfaces, iface) }

// element finds a live element of a; d.mu is held.
func (d *Desktop) element(a platform.App, key string) (*app, *platform.Node, *platform.Node, int, error) {
	st, err := d.appLocked(a)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	n, parent, i := find(st.Tree, key)
	if n == nil {
		return nil, nil, nil, 0, fmt.Errorf("%w: %s", platform.ErrElementGone, key)
	}
	return st, n, parent, i, nil
}

// copyTree copies a tree so that callers (the core redacts in place) never
// share nodes with the fake.
func copyTree(n *platform.Node) *platform.Node {
	c := *n
	c.Interfaces = slices.Clone(n.Interfaces)
	c.Actions = slices.Clone(n.Actions)
	c.Children = nil
	for _, k := range n.Children {
		c.Children = append(c.Children, copyTree(k))
	}
	c.ChildCount = len(c.Children)
	if n.Bounds != nil {
		b := *n.Bounds
		c.Bounds = &b
	}
	return &c
}

// window returns a window by id; d.mu is held.
func (d *Desktop) window(id platform.WindowID) *window {
	for _, w := range d.wins {
		if w.ID == id {
			return w
		}
	}
	return nil
}

// restack keeps windows above the others on top, in their own order.
func (d *Desktop) restack() {
	slices.SortStableFunc(d.wins, func(a, b *window) int {
		switch {
		case a.above == b.above:
			return 0
		case a.above:
			return 1
		}
		return -1
	})
}

// raise puts a window on top of its layer and makes it active.
func (d *Desktop) raise(id platform.WindowID) bool {
	w := d.window(id)
	if w == nil {
		return false
	}
	d.wins = slices.DeleteFunc(d.wins, func(o *window) bool { return o == w })
	d.wins = append(d.wins, w)
	d.restack()
	w.Mapped = true
	d.active = id
	return true
}

// topmost is the mapped window on top at a point; d.mu is held.
func (d *Desktop) topmost(x, y int) platform.WindowID {
	for i := len(d.wins) - 1; i >= 0; i-- {
		if w := d.wins[i]; w.Mapped && w.Bounds.Contains(x, y) {
			return w.ID
		}
	}
	return 0
}
