//go:build linux

package x11

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jezek/xgb/xproto"
)

// Errors of window actions.
var (
	// ErrNoWindowManager: the action needs an EWMH window manager and none
	// runs.
	ErrNoWindowManager = errors.New("no window manager is running")
	// ErrNotActivated: the window manager did not make the window active.
	ErrNotActivated = errors.New("the window could not be brought to the foreground")
	// ErrNotApplied: the window manager did not apply a window action.
	ErrNotApplied = errors.New("the window manager did not apply the action")
)

// Window actions for WindowAction.
const (
	ActionMinimize = "minimize"
	ActionMaximize = "maximize"
	ActionRestore  = "restore"
	ActionClose    = "close"
)

// verifyTimeout bounds how long an action's effect is waited for, within
// the caller's deadline.
const verifyTimeout = 3 * time.Second

// pollInterval is how often a condition is re-read while waiting.
const pollInterval = 20 * time.Millisecond

// ICCCM WM_STATE values.
const (
	wmStateNormal = 1
	wmStateIconic = 3
)

const (
	evMaskRootMessage = xproto.EventMaskSubstructureRedirect | xproto.EventMaskSubstructureNotify
	sourcePager       = 2 // EWMH source indication: a pager, i.e. the user's direct wish
)

// sendMessage sends a format-32 ClientMessage about win to dest.
func (c *Conn) sendMessage(dest, win xproto.Window, typ xproto.Atom, mask uint32, data ...uint32) error {
	d := make([]uint32, 5)
	copy(d, data)
	ev := xproto.ClientMessageEvent{Format: 32, Window: win, Type: typ, Data: xproto.ClientMessageDataUnionData32New(d)}
	if err := xproto.SendEventChecked(c.xc, false, dest, mask, string(ev.Bytes())).Check(); err != nil {
		if isXError(err) {
			return gone(uint32(dest))
		}
		return fmt.Errorf("x11: sending a client message: %w", err)
	}
	return nil
}

// wmAlive is WindowManagerPresent inside a call.
func (c *Conn) wmAlive(ctx context.Context) (bool, error) {
	atoms, err := c.internAtoms(ctx, "_NET_SUPPORTING_WM_CHECK")
	if err != nil {
		return false, err
	}
	r, err := c.getProp(c.root, atoms[0]).Reply()
	if err != nil {
		return false, fmt.Errorf("x11: reading _NET_SUPPORTING_WM_CHECK: %w", err)
	}
	return c.wmPresent(atoms[0], r)
}

// windowExists fails with ErrElementGone (wrapped) when id is no window.
func (c *Conn) windowExists(id uint32) error {
	_, err := xproto.GetWindowAttributes(c.xc, xproto.Window(id)).Reply()
	switch {
	case err == nil:
		return nil
	case isXError(err):
		return gone(id)
	default:
		return fmt.Errorf("x11: window %#x: %w", id, err)
	}
}

// prop reads a property of w; a vanished window is ErrElementGone.
func (c *Conn) prop(w xproto.Window, a xproto.Atom) (*xproto.GetPropertyReply, error) {
	r, err := c.getProp(w, a).Reply()
	if err != nil {
		if isXError(err) {
			return nil, gone(uint32(w))
		}
		return nil, fmt.Errorf("x11: window %#x: %w", uint32(w), err)
	}
	return r, nil
}

// poll calls cond every pollInterval until it holds, it fails, or
// verifyTimeout (or ctx) ends; timedOut is then true.
func poll(ctx context.Context, cond func() (bool, error)) (timedOut bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, verifyTimeout)
	defer cancel()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		ok, err := cond()
		if err != nil || ok {
			return false, err
		}
		select {
		case <-ctx.Done():
			return true, nil
		case <-tick.C:
		}
	}
}

// ActivateWindow asks the window manager to activate the window (raise it,
// give it focus, switch to its desktop, de-iconify it) and waits until
// _NET_ACTIVE_WINDOW names it. It fails with ErrNotActivated when that does
// not happen within a few seconds or the context's deadline, and with
// ErrNoWindowManager when no EWMH window manager runs.
func (c *Conn) ActivateWindow(ctx context.Context, id uint32) error {
	var sent atomic.Bool
	_, err := call(ctx, func(ctx context.Context) (struct{}, error) {
		if err := c.checkWM(ctx, id); err != nil {
			return struct{}{}, err
		}
		sent.Store(true)
		return struct{}{}, c.activate(ctx, id)
	})
	if err != nil && sent.Load() && !errors.Is(err, ErrNotActivated) &&
		(errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) {
		err = fmt.Errorf("x11: window %#x: %w: %w", id, ErrNotActivated, err)
	}
	return err
}

// checkWM fails unless a window manager runs and id is a window.
func (c *Conn) checkWM(ctx context.Context, id uint32) error {
	wm, err := c.wmAlive(ctx)
	if err != nil {
		return err
	}
	if !wm {
		return fmt.Errorf("x11: window %#x: %w", id, ErrNoWindowManager)
	}
	return c.windowExists(id)
}

func (c *Conn) activate(ctx context.Context, id uint32) error {
	atoms, err := c.internAtoms(ctx, "_NET_ACTIVE_WINDOW")
	if err != nil {
		return err
	}
	if err := c.sendMessage(c.root, xproto.Window(id), atoms[0], evMaskRootMessage, sourcePager, 0, 0); err != nil {
		return err
	}
	var active uint32
	timedOut, err := poll(ctx, func() (bool, error) {
		r, err := c.prop(c.root, atoms[0])
		if err != nil {
			return false, err
		}
		active, _ = propCard32(r)
		return active == id, nil
	})
	if err != nil {
		return err
	}
	if timedOut {
		return fmt.Errorf("x11: window %#x: %w (the active window is %#x)", id, ErrNotActivated, active)
	}
	return nil
}

// WindowAction minimizes, maximizes, restores or closes a window through
// the window manager (ActionMinimize, ...) and, where that is cheap, waits
// until the effect shows: WM_STATE iconic after minimize, both
// _NET_WM_STATE_MAXIMIZED atoms after maximize, normal and unmaximized after
// restore; ErrNotApplied if it does not within a few seconds. Close asks the
// window manager to close the window; the application may still ask the
// user, so it is not verified. Without a window manager every action fails
// with ErrNoWindowManager, except close of a window that accepts
// WM_DELETE_WINDOW, which is then sent to it directly.
func (c *Conn) WindowAction(ctx context.Context, id uint32, action string) error {
	action = strings.ToLower(strings.TrimSpace(action))
	switch action {
	case ActionMinimize, ActionMaximize, ActionRestore, ActionClose:
	default:
		return fmt.Errorf("x11: unknown window action %q; actions are minimize, maximize, restore, close", action)
	}
	var verifying atomic.Bool
	_, err := call(ctx, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, c.windowAction(ctx, id, action, &verifying)
	})
	if err != nil && verifying.Load() && !errors.Is(err, ErrNotApplied) &&
		(errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) {
		err = fmt.Errorf("x11: %s window %#x: %w: %w", action, id, ErrNotApplied, err)
	}
	return err
}

func (c *Conn) windowAction(ctx context.Context, id uint32, action string, verifying *atomic.Bool) error {
	atoms, err := c.internAtoms(ctx, "WM_STATE", "_NET_WM_STATE", "_NET_WM_STATE_MAXIMIZED_VERT",
		"_NET_WM_STATE_MAXIMIZED_HORZ", "WM_CHANGE_STATE", "_NET_CLOSE_WINDOW", "WM_PROTOCOLS", "WM_DELETE_WINDOW")
	if err != nil {
		return err
	}
	aWMState, aNetState, aMaxV, aMaxH, aChange, aClose, aProtocols, aDelete :=
		atoms[0], atoms[1], atoms[2], atoms[3], atoms[4], atoms[5], atoms[6], atoms[7]
	w := xproto.Window(id)

	wm, err := c.wmAlive(ctx)
	if err != nil {
		return err
	}
	if err := c.windowExists(id); err != nil {
		return err
	}
	if !wm {
		if action != ActionClose {
			return fmt.Errorf("x11: %s window %#x: %w", action, id, ErrNoWindowManager)
		}
		r, err := c.prop(w, aProtocols)
		if err != nil {
			return err
		}
		if !slices.Contains(propCard32List(r), uint32(aDelete)) {
			return fmt.Errorf("x11: close window %#x: it does not accept WM_DELETE_WINDOW: %w", id, ErrNoWindowManager)
		}
		// Event mask 0: delivered to the client that created the window.
		return c.sendMessage(w, w, aProtocols, 0, uint32(aDelete), 0)
	}

	wmState := func() (uint32, error) {
		r, err := c.prop(w, aWMState)
		if err != nil {
			return 0, err
		}
		v, _ := propCard32(r)
		return v, nil
	}
	maximized := func() (vert, horz bool, err error) {
		r, err := c.prop(w, aNetState)
		if err != nil {
			return false, false, err
		}
		l := propCard32List(r)
		return slices.Contains(l, uint32(aMaxV)), slices.Contains(l, uint32(aMaxH)), nil
	}
	var cond func() (bool, error)
	switch action {
	case ActionClose:
		return c.sendMessage(c.root, w, aClose, evMaskRootMessage, 0, sourcePager)
	case ActionMinimize:
		if err := c.sendMessage(c.root, w, aChange, evMaskRootMessage, wmStateIconic); err != nil {
			return err
		}
		cond = func() (bool, error) {
			st, err := wmState()
			return st == wmStateIconic, err
		}
	case ActionMaximize:
		if err := c.sendMessage(c.root, w, aNetState, evMaskRootMessage, 1, uint32(aMaxV), uint32(aMaxH), sourcePager); err != nil {
			return err
		}
		cond = func() (bool, error) {
			v, h, err := maximized()
			return v && h, err
		}
	case ActionRestore:
		if err := c.sendMessage(c.root, w, aNetState, evMaskRootMessage, 0, uint32(aMaxV), uint32(aMaxH), sourcePager); err != nil {
			return err
		}
		st, err := wmState()
		if err != nil {
			return err
		}
		if st == wmStateIconic {
			// Activation de-iconifies (EWMH); mapping asks the same the
			// ICCCM way, through a MapRequest to the window manager.
			aActive, err := c.internAtoms(ctx, "_NET_ACTIVE_WINDOW")
			if err != nil {
				return err
			}
			if err := c.sendMessage(c.root, w, aActive[0], evMaskRootMessage, sourcePager, 0, 0); err != nil {
				return err
			}
			if err := xproto.MapWindowChecked(c.xc, w).Check(); err != nil {
				if isXError(err) {
					return gone(id)
				}
				return fmt.Errorf("x11: mapping window %#x: %w", id, err)
			}
		}
		cond = func() (bool, error) {
			st, err := wmState()
			if err != nil {
				return false, err
			}
			v, h, err := maximized()
			return st != wmStateIconic && !v && !h, err
		}
	}
	verifying.Store(true)
	timedOut, err := poll(ctx, cond)
	if err != nil {
		return err
	}
	if timedOut {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("x11: %s window %#x: %w: %w", action, id, ErrNotApplied, err)
		}
		return fmt.Errorf("x11: %s window %#x: %w", action, id, ErrNotApplied)
	}
	return nil
}

// TopmostAt returns the window that is visible at the absolute screen point
// (x, y): the client window of the topmost top-level window (window-manager
// frame included) covering it, or a top-level window no window manager
// manages, such as a popup menu (whose owner WindowPid can tell). It returns
// 0 when only the root window is there.
//
// The stacking order is the server's own (the root's children, bottom to
// top), which _NET_CLIENT_LIST_STACKING only mirrors; that list (or, without
// a window manager, nothing) maps frames to their client windows. Windows are
// taken as rectangles: shaped windows count by their bounding box, and
// InputOnly windows are ignored.
func (c *Conn) TopmostAt(ctx context.Context, x, y int) (uint32, error) {
	return call(ctx, func(ctx context.Context) (uint32, error) {
		if err := c.onscreen(x, y); err != nil {
			return 0, err
		}
		atoms, err := c.internAtoms(ctx, "_NET_CLIENT_LIST_STACKING", "_NET_CLIENT_LIST")
		if err != nil {
			return 0, err
		}
		stackCk := c.getProp(c.root, atoms[0])
		listCk := c.getProp(c.root, atoms[1])
		treeCk := xproto.QueryTree(c.xc, c.root)
		stack, err1 := stackCk.Reply()
		list, err2 := listCk.Reply()
		tree, err3 := treeCk.Reply()
		if err := errors.Join(err1, err2, err3); err != nil {
			return 0, fmt.Errorf("x11: reading the window stack: %w", err)
		}
		if tree == nil {
			return 0, errors.New("x11: reading the window stack: connection closed")
		}
		var clients []uint32
		wm, err := c.wmAlive(ctx)
		if err != nil {
			return 0, err
		}
		if wm {
			clients = propCard32List(stack)
			if len(clients) == 0 {
				clients = propCard32List(list)
			}
		}
		frames, err := c.topAncestors(ctx, clients)
		if err != nil {
			return 0, err
		}
		children := tree.Children
		attrCks := make([]xproto.GetWindowAttributesCookie, len(children))
		geomCks := make([]xproto.GetGeometryCookie, len(children))
		for i, w := range children {
			attrCks[i] = xproto.GetWindowAttributes(c.xc, w)
			geomCks[i] = xproto.GetGeometry(c.xc, xproto.Drawable(w))
		}
		found := xproto.Window(0)
		var fatal error
		// Every reply is read, so none stays queued.
		for i := len(children) - 1; i >= 0; i-- {
			a, aerr := attrCks[i].Reply()
			g, gerr := geomCks[i].Reply()
			for _, err := range []error{aerr, gerr} {
				if err != nil && !isXError(err) && fatal == nil {
					fatal = fmt.Errorf("x11: reading window %#x: %w", uint32(children[i]), err)
				}
			}
			if found != 0 || a == nil || g == nil || aerr != nil || gerr != nil {
				continue
			}
			if a.MapState != xproto.MapStateViewable || a.Class != xproto.WindowClassInputOutput {
				continue
			}
			w, h := int(g.Width)+2*int(g.BorderWidth), int(g.Height)+2*int(g.BorderWidth)
			if x >= int(g.X) && x < int(g.X)+w && y >= int(g.Y) && y < int(g.Y)+h {
				found = children[i]
			}
		}
		if fatal != nil {
			return 0, fatal
		}
		if cl, ok := frames[found]; ok {
			return cl, nil
		}
		return uint32(found), nil
	})
}

// topAncestors maps the root child holding each client window (its frame,
// or the window itself) to the client. Vanished windows are left out.
func (c *Conn) topAncestors(ctx context.Context, clients []uint32) (map[xproto.Window]uint32, error) {
	out := make(map[xproto.Window]uint32, len(clients))
	type walk struct {
		client uint32
		cur    xproto.Window
	}
	pending := make([]walk, 0, len(clients))
	for _, cl := range clients {
		pending = append(pending, walk{cl, xproto.Window(cl)})
	}
	// Frames nest a few levels at most; each level is one round trip.
	for depth := 0; len(pending) > 0 && depth < 16; depth++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cks := make([]xproto.QueryTreeCookie, len(pending))
		for i, p := range pending {
			cks[i] = xproto.QueryTree(c.xc, p.cur)
		}
		next := pending[:0:0]
		var fatal error
		for i, p := range pending {
			r, err := cks[i].Reply()
			switch {
			case err != nil && !isXError(err):
				if fatal == nil {
					fatal = fmt.Errorf("x11: window %#x: %w", p.client, err)
				}
			case err != nil || r == nil:
			case r.Parent == c.root || r.Parent == 0:
				out[p.cur] = p.client
			default:
				next = append(next, walk{p.client, r.Parent})
			}
		}
		if fatal != nil {
			return nil, fatal
		}
		pending = next
	}
	return out, nil
}
