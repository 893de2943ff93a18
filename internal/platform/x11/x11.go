//go:build linux

// Package x11 is the X11 side of the desktop backend (jezek/xgb, no
// cgo). Every request is bounded by a context deadline, so a hung X server
// cannot hang the caller.
//
// What it holds:
//   - the connection and the window list (x11.go): top-level client
//     windows from the window manager's _NET_CLIENT_LIST (the root's
//     children when none runs), their processes (X-Resource before the
//     _NET_WM_PID a client set itself), the active window, root-window
//     properties such as AT_SPI_BUS;
//   - window actions (window.go): activating, minimizing, maximizing,
//     restoring and closing through the window manager, and the window on
//     top at a point;
//   - an application's windows as the screen stacks them (stack.go), its
//     top levels and popups: where GTK 4 elements lie, the window an
//     element shows in, the windows an action opened;
//   - the native window tree (tree.go) that visual sessions read;
//   - input (input.go, keys.go): XTest clicks, wheel, key chords and typing
//     by the current keymap, chords parsed by platform.ParseChord;
//   - held input (held.go): buttons and keys held across calls, and what
//     the X server reports down;
//   - capture (capture.go): a window's own pixels through Composite,
//     waiting on DAMAGE for a covered part's repaint;
//   - the watchdog (watchdog.go): a child process that releases what a
//     killed server held.
package x11

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/res"
	"github.com/jezek/xgb/xproto"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/watchdog"
)

// xgb logs connection chatter ("Could not get authority info") to stderr
// through a package global; uiscope reports its own errors, so silence it
// before any connection exists.
func init() { xgb.Logger = log.New(io.Discard, "", 0) }

// DefaultTimeout bounds calls whose context carries no deadline, and Open.
const DefaultTimeout = 5 * time.Second

// maxPropLen is the longest property value read, in 32-bit units (256 KiB):
// enough for any title or client list, small enough that a hostile client
// cannot make this process allocate without bound.
const maxPropLen = 1 << 16

// Conn is a connection to one X display. It is safe for concurrent use.
type Conn struct {
	xc     *xgb.Conn
	root   xproto.Window
	screen platform.Rect
	events chan struct{} // closed when the event drain ends (connection gone)

	mu    sync.Mutex
	atoms map[string]xproto.Atom
	// resState: 0 not yet probed, 1 X-Resource usable, -1 absent.
	resState int
	// xtestState: 0 not yet probed, 1 XTEST usable, -1 absent (input.go).
	xtestState int
	// keys are the spare keycodes bound for missing characters (input.go);
	// inputMu's, not mu's.
	keys bindings
	// shots is what window capture remembers (capture.go).
	shots captureState

	display string         // as given to Open, for the watchdog
	wd      watchdog.Watch // the child that releases what is held if this process dies (watchdog.go)
}

// Open connects to display ("" means $DISPLAY), authenticating with the
// cookie from $XAUTHORITY (or ~/.Xauthority). It gives up after
// DefaultTimeout.
func Open(display string) (*Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	return OpenContext(ctx, display)
}

// OpenContext is Open bounded by ctx instead of DefaultTimeout.
func OpenContext(ctx context.Context, display string) (*Conn, error) {
	type result struct {
		xc  *xgb.Conn
		err error
	}
	// An ended context never connects: checked first, because a fast
	// handshake could otherwise win the race below.
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("x11: connecting to display %q: %w", display, err)
	}
	// The handshake blocks on the socket with no deadline of its own, so it
	// runs aside; if the caller gives up first, whoever finishes later closes it.
	ch := make(chan result) // unbuffered: a late result must see abandoned
	abandoned := make(chan struct{})
	go func() {
		xc, err := xgb.NewConnDisplay(display)
		select {
		case ch <- result{xc, err}:
		case <-abandoned:
			if xc != nil {
				xc.Close()
			}
		}
	}()
	var r result
	select {
	case r = <-ch:
	case <-ctx.Done():
		close(abandoned)
		// The result may have been sent just before; don't leak it.
		select {
		case r = <-ch:
			if r.xc != nil {
				r.xc.Close()
			}
		default:
		}
		return nil, fmt.Errorf("x11: connecting to display %q: %w", display, ctx.Err())
	}
	if r.err != nil {
		return nil, fmt.Errorf("x11: connecting to display %q: %w", display, r.err)
	}
	xc := r.xc
	setup := xproto.Setup(xc)
	if setup == nil || xc.DefaultScreen < 0 || xc.DefaultScreen >= len(setup.Roots) {
		xc.Close()
		return nil, fmt.Errorf("x11: display %q: no screen %d", display, xc.DefaultScreen)
	}
	scr := setup.Roots[xc.DefaultScreen]
	c := &Conn{
		xc:      xc,
		root:    scr.Root,
		screen:  platform.Rect{Width: int(scr.WidthInPixels), Height: int(scr.HeightInPixels)},
		events:  make(chan struct{}),
		atoms:   map[string]xproto.Atom{},
		display: display,
	}
	// xgb queues events and unchecked errors on a bounded channel; once it is
	// full its reader stops and every reply stalls behind it. We select no
	// events, but the server may still send some (and errors of requests
	// issued unchecked), so they are read and dropped.
	go func() {
		defer close(c.events)
		for {
			ev, err := xc.WaitForEvent()
			if ev == nil && err == nil {
				return
			}
		}
	}()
	return c, nil
}

// Close closes the connection. It never blocks: xgb's Close queues behind
// pending requests, which a hung server may never take.
func (c *Conn) Close() {
	c.closeWatchdog()
	go func() {
		c.restoreBindings()
		c.xc.Close()
	}()
}

// Done is closed when the connection is gone, whether closed by Close or lost
// (the X server exited); a caller can then reconnect.
func (c *Conn) Done() <-chan struct{} { return c.events }

// Screen is the size of the default screen's root window.
func (c *Conn) Screen() platform.Rect { return c.screen }

// call runs fn aside and waits for it or for ctx, whichever comes first.
// xgb's Reply (and even sending, once the socket buffer fills) blocks with no
// deadline; when ctx wins, fn is left to finish on its own and returns once
// the server answers or the connection closes. fn gets ctx so that it can stop
// issuing further requests.
func call[T any](ctx context.Context, fn func(ctx context.Context) (T, error)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := fn(ctx)
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		return zero, fmt.Errorf("x11: %w", ctx.Err())
	}
}

// isXError reports whether err is an X protocol error (BadWindow, BadMatch,
// ...) rather than a failure of the connection. For per-window requests it
// means the window went away meanwhile.
func isXError(err error) bool {
	var xe xgb.Error
	return errors.As(err, &xe)
}

// gone wraps the error for a window that no longer exists.
func gone(id uint32) error {
	return fmt.Errorf("x11: window %#x: %w", id, platform.ErrElementGone)
}

// internAtoms returns the atoms for names, interning the ones not cached in a
// single round trip. Interning (rather than only looking up existing atoms)
// lets a result be cached for good: an atom never changes once created.
func (c *Conn) internAtoms(ctx context.Context, names ...string) ([]xproto.Atom, error) {
	out := make([]xproto.Atom, len(names))
	var missing []int
	c.mu.Lock()
	for i, n := range names {
		if a, ok := c.atoms[n]; ok {
			out[i] = a
		} else {
			missing = append(missing, i)
		}
	}
	c.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	cookies := make([]xproto.InternAtomCookie, len(missing))
	for j, i := range missing {
		cookies[j] = xproto.InternAtom(c.xc, false, uint16(len(names[i])), names[i])
	}
	for j, i := range missing {
		r, err := cookies[j].Reply()
		if err != nil {
			return nil, fmt.Errorf("x11: interning %s: %w", names[i], err)
		}
		if r == nil {
			return nil, fmt.Errorf("x11: interning %s: connection closed", names[i])
		}
		out[i] = r.Atom
		c.mu.Lock()
		c.atoms[names[i]] = r.Atom
		c.mu.Unlock()
	}
	return out, ctx.Err()
}

func (c *Conn) getProp(w xproto.Window, prop xproto.Atom) xproto.GetPropertyCookie {
	return xproto.GetProperty(c.xc, false, w, prop, xproto.GetPropertyTypeAny, 0, maxPropLen)
}

// propCard32 reads the first 32-bit item of a WINDOW/CARDINAL property; ok is
// false when the property is absent or of another shape.
func propCard32(r *xproto.GetPropertyReply) (v uint32, ok bool) {
	if r == nil || r.Format != 32 || len(r.Value) < 4 {
		return 0, false
	}
	return xgb.Get32(r.Value), true
}

func propCard32List(r *xproto.GetPropertyReply) []uint32 {
	if r == nil || r.Format != 32 {
		return nil
	}
	out := make([]uint32, 0, len(r.Value)/4)
	for i := 0; i+4 <= len(r.Value); i += 4 {
		out = append(out, xgb.Get32(r.Value[i:]))
	}
	return out
}

// propString decodes an 8-bit text property. STRING is Latin-1 by ICCCM;
// UTF8_STRING and anything else (COMPOUND_TEXT is ASCII for common text) are
// taken as UTF-8 and sanitised.
func propString(r *xproto.GetPropertyReply, utf8Atom xproto.Atom) (string, bool) {
	if r == nil || r.Format != 8 || r.Type == xproto.AtomNone {
		return "", false
	}
	b := r.Value
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	if r.Type == xproto.AtomString && !isASCII(b) {
		rs := make([]rune, len(b))
		for i, ch := range b {
			rs[i] = rune(ch)
		}
		return string(rs), true
	}
	s := string(b)
	if r.Type != utf8Atom || !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return s, true
}

func isASCII(b []byte) bool {
	for _, ch := range b {
		if ch >= 0x80 {
			return false
		}
	}
	return true
}

// RootProperty returns an 8-bit (string) property of the root window, or ""
// when it is not set.
func (c *Conn) RootProperty(ctx context.Context, name string) (string, error) {
	return call(ctx, func(ctx context.Context) (string, error) {
		atoms, err := c.internAtoms(ctx, name, "UTF8_STRING")
		if err != nil {
			return "", err
		}
		r, err := c.getProp(c.root, atoms[0]).Reply()
		if err != nil {
			return "", fmt.Errorf("x11: reading root property %s: %w", name, err)
		}
		if r == nil || r.Type == xproto.AtomNone {
			return "", nil
		}
		s, ok := propString(r, atoms[1])
		if !ok {
			return "", fmt.Errorf("x11: root property %s is not a string (format %d)", name, r.Format)
		}
		return s, nil
	})
}

// wmPresent does the EWMH check: the root's _NET_SUPPORTING_WM_CHECK names
// a window whose own _NET_SUPPORTING_WM_CHECK names itself. A window manager
// that died leaves the root property behind, pointing at a dead window.
func (c *Conn) wmPresent(checkAtom xproto.Atom, r *xproto.GetPropertyReply) (bool, error) {
	w, ok := propCard32(r)
	if !ok || w == 0 {
		return false, nil
	}
	cr, err := c.getProp(xproto.Window(w), checkAtom).Reply()
	if err != nil {
		if isXError(err) {
			return false, nil
		}
		return false, fmt.Errorf("x11: reading _NET_SUPPORTING_WM_CHECK: %w", err)
	}
	self, ok := propCard32(cr)
	return ok && self == w, nil
}

// WindowManagerPresent reports whether an EWMH window manager is running.
func (c *Conn) WindowManagerPresent(ctx context.Context) (bool, error) {
	return call(ctx, c.wmAlive)
}

// ActiveWindow returns the window manager's _NET_ACTIVE_WINDOW, 0 if none.
func (c *Conn) ActiveWindow(ctx context.Context) (uint32, error) {
	return call(ctx, func(ctx context.Context) (uint32, error) {
		atoms, err := c.internAtoms(ctx, "_NET_ACTIVE_WINDOW")
		if err != nil {
			return 0, err
		}
		r, err := c.getProp(c.root, atoms[0]).Reply()
		if err != nil {
			return 0, fmt.Errorf("x11: reading _NET_ACTIVE_WINDOW: %w", err)
		}
		w, _ := propCard32(r)
		return w, nil
	})
}

// WindowOrigin returns the absolute screen position of the window's top-left
// interior corner; it accounts for reparenting into window-manager frames.
func (c *Conn) WindowOrigin(ctx context.Context, id uint32) (x, y int, err error) {
	type pt struct{ x, y int }
	p, err := call(ctx, func(ctx context.Context) (pt, error) {
		r, err := xproto.TranslateCoordinates(c.xc, xproto.Window(id), c.root, 0, 0).Reply()
		if err != nil {
			if isXError(err) {
				return pt{}, gone(id)
			}
			return pt{}, fmt.Errorf("x11: window %#x origin: %w", id, err)
		}
		if r == nil {
			return pt{}, fmt.Errorf("x11: window %#x origin: connection closed", id)
		}
		return pt{int(r.DstX), int(r.DstY)}, nil
	})
	return p.x, p.y, err
}

// WindowPid returns the process owning the window: what the server knows
// of the client that created it (X-Resource; local clients only), else
// _NET_WM_PID. The property is the application's own word, and any client
// may set it to any pid (another application's, one --apps allows); the
// server's answer cannot be forged. It returns 0 with no error when
// neither tells.
func (c *Conn) WindowPid(ctx context.Context, id uint32) (int, error) {
	return call(ctx, func(ctx context.Context) (int, error) {
		atoms, err := c.internAtoms(ctx, "_NET_WM_PID")
		if err != nil {
			return 0, err
		}
		// Asked first, so that a window that is gone is told by its
		// property's BadWindow whatever X-Resource says of it.
		prop := c.getProp(xproto.Window(id), atoms[0])
		pids, err := c.resPids(ctx, []uint32{id})
		r, perr := prop.Reply()
		if perr != nil {
			if isXError(perr) {
				return 0, gone(id)
			}
			return 0, fmt.Errorf("x11: window %#x pid: %w", id, perr)
		}
		if err != nil {
			return 0, err
		}
		if pids[0] > 0 {
			return pids[0], nil
		}
		if pid, ok := propCard32(r); ok && pid > 0 {
			return int(pid), nil
		}
		return 0, nil
	})
}

// extension registers an X extension's opcode on this connection once and
// reports whether the server has it; state caches the answer (0 unknown,
// 1 present, -1 absent). The xgb packages' Init functions are avoided on
// purpose: they write xgb's process-global event/error tables without a
// lock, racing with the reader goroutine of every other xgb connection in
// the process. The extensions used here (X-Resource, XTEST) define no
// events or errors, so the opcode is all they need.
func (c *Conn) extension(name string, state *int) (bool, error) {
	c.mu.Lock()
	st := *state
	c.mu.Unlock()
	if st != 0 {
		return st > 0, nil
	}
	r, err := xproto.QueryExtension(c.xc, uint16(len(name)), name).Reply()
	if err != nil {
		return false, fmt.Errorf("x11: querying %s: %w", name, err)
	}
	if r == nil {
		return false, fmt.Errorf("x11: querying %s: connection closed", name)
	}
	st = -1
	if r.Present {
		c.xc.ExtLock.Lock()
		c.xc.Extensions[name] = r.MajorOpcode
		c.xc.ExtLock.Unlock()
		st = 1
	}
	c.mu.Lock()
	*state = st
	c.mu.Unlock()
	return st > 0, nil
}

// initRes enables X-Resource once.
func (c *Conn) initRes() (bool, error) { return c.extension("X-Resource", &c.resState) }

// resPids asks the server which local process owns the client behind each
// window (any resource id of a client identifies it), in one round trip.
// Unknown entries, including windows that vanished, are 0.
func (c *Conn) resPids(ctx context.Context, ids []uint32) ([]int, error) {
	pids := make([]int, len(ids))
	ok, err := c.initRes()
	if err != nil || !ok {
		return pids, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cookies := make([]res.QueryClientIdsCookie, len(ids))
	for i, id := range ids {
		cookies[i] = res.QueryClientIds(c.xc, 1, []res.ClientIdSpec{{Client: id, Mask: res.ClientIdMaskLocalClientPID}})
	}
	for i, ck := range cookies {
		r, err := ck.Reply()
		if err != nil {
			if isXError(err) {
				continue
			}
			return nil, fmt.Errorf("x11: X-Resource client ids: %w", err)
		}
		if r == nil {
			return nil, errors.New("x11: X-Resource client ids: connection closed")
		}
		for _, v := range r.Ids {
			if v.Spec.Mask&res.ClientIdMaskLocalClientPID != 0 && len(v.Value) > 0 {
				pids[i] = int(v.Value[0])
				break
			}
		}
	}
	return pids, nil
}

// TopLevels lists the client windows: the window manager's _NET_CLIENT_LIST
// in its order, or without a window manager the root's children that look
// like application windows (bottom to top). Windows that vanish meanwhile are
// left out. Requests are pipelined: a handful of round trips in all.
func (c *Conn) TopLevels(ctx context.Context) ([]platform.Window, error) {
	return call(ctx, c.topLevels)
}

type winCookies struct {
	attrs xproto.GetWindowAttributesCookie
	geom  xproto.GetGeometryCookie
	trans xproto.TranslateCoordinatesCookie
	pid   xproto.GetPropertyCookie
	name  xproto.GetPropertyCookie
	wmNam xproto.GetPropertyCookie
	class xproto.GetPropertyCookie
	state xproto.GetPropertyCookie
}

func (c *Conn) topLevels(ctx context.Context) ([]platform.Window, error) {
	atoms, err := c.internAtoms(ctx, "_NET_CLIENT_LIST", "_NET_SUPPORTING_WM_CHECK",
		"_NET_WM_PID", "_NET_WM_NAME", "UTF8_STRING", "WM_STATE")
	if err != nil {
		return nil, err
	}
	aClientList, aCheck, aPid, aNetName, aUTF8, aWMState := atoms[0], atoms[1], atoms[2], atoms[3], atoms[4], atoms[5]

	// Round trip 1: the client list, the WM check and the root's children
	// together, so the fallback costs nothing extra.
	clCk := c.getProp(c.root, aClientList)
	chkCk := c.getProp(c.root, aCheck)
	treeCk := xproto.QueryTree(c.xc, c.root)
	cl, err := clCk.Reply()
	if err != nil {
		return nil, fmt.Errorf("x11: reading _NET_CLIENT_LIST: %w", err)
	}
	chk, err := chkCk.Reply()
	if err != nil {
		return nil, fmt.Errorf("x11: reading _NET_SUPPORTING_WM_CHECK: %w", err)
	}
	tree, err := treeCk.Reply()
	if err != nil {
		return nil, fmt.Errorf("x11: listing root children: %w", err)
	}
	if tree == nil {
		return nil, errors.New("x11: listing root children: connection closed")
	}

	// A dead window manager leaves a stale client list behind, so the list
	// is trusted only while the manager is alive (one more round trip).
	var ids []xproto.Window
	fromWM := false
	if cl != nil && cl.Type != xproto.AtomNone {
		alive, err := c.wmPresent(aCheck, chk)
		if err != nil {
			return nil, err
		}
		if alive {
			fromWM = true
			for _, w := range propCard32List(cl) {
				ids = append(ids, xproto.Window(w))
			}
		}
	}
	if !fromWM {
		ids = tree.Children
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// Round trip 2: everything about every candidate.
	cks := make([]winCookies, len(ids))
	for i, w := range ids {
		cks[i] = winCookies{
			attrs: xproto.GetWindowAttributes(c.xc, w),
			geom:  xproto.GetGeometry(c.xc, xproto.Drawable(w)),
			trans: xproto.TranslateCoordinates(c.xc, w, c.root, 0, 0),
			pid:   c.getProp(w, aPid),
			name:  c.getProp(w, aNetName),
			wmNam: c.getProp(w, xproto.AtomWmName),
			class: c.getProp(w, xproto.AtomWmClass),
			state: c.getProp(w, aWMState),
		}
	}
	wins := make([]platform.Window, 0, len(ids))
	for i, w := range ids {
		win, keep, err := c.collect(w, &cks[i], aUTF8, fromWM)
		if err != nil {
			return nil, err
		}
		if keep {
			wins = append(wins, win)
		}
	}

	// Round trip 3: who created each window, as the server knows it
	// (X-Resource), which an application cannot forge, over the
	// _NET_WM_PID it set (WindowPid); the property stays for windows of
	// clients X-Resource cannot name (remote ones).
	if len(wins) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		q := make([]uint32, len(wins))
		for i := range wins {
			q[i] = uint32(wins[i].ID)
		}
		pids, err := c.resPids(ctx, q)
		if err != nil {
			return nil, err
		}
		for i, pid := range pids {
			if pid > 0 {
				wins[i].Pid = pid
			}
		}
	}
	return wins, nil
}

// collect reads the replies for one window. keep is false when the window
// vanished or, in fallback mode, does not look like a client window. All
// replies are drained even when an early one fails, so none is left queued.
func (c *Conn) collect(w xproto.Window, ck *winCookies, aUTF8 xproto.Atom, fromWM bool) (platform.Window, bool, error) {
	var vanished bool
	var fatal error
	check := func(err error) {
		switch {
		case err == nil:
		case isXError(err):
			vanished = true
		case fatal == nil:
			fatal = fmt.Errorf("x11: window %#x: %w", uint32(w), err)
		}
	}
	attrs, err := ck.attrs.Reply()
	check(err)
	geom, err := ck.geom.Reply()
	check(err)
	trans, err := ck.trans.Reply()
	check(err)
	pidR, err := ck.pid.Reply()
	check(err)
	nameR, err := ck.name.Reply()
	check(err)
	wmNameR, err := ck.wmNam.Reply()
	check(err)
	classR, err := ck.class.Reply()
	check(err)
	stateR, err := ck.state.Reply()
	check(err)
	if fatal != nil {
		return platform.Window{}, false, fatal
	}
	if vanished || attrs == nil || geom == nil || trans == nil {
		return platform.Window{}, false, nil
	}

	win := platform.Window{
		ID:     platform.WindowID(w),
		Mapped: attrs.MapState == xproto.MapStateViewable,
		Bounds: platform.Rect{X: int(trans.DstX), Y: int(trans.DstY), Width: int(geom.Width), Height: int(geom.Height)},
	}
	if pid, ok := propCard32(pidR); ok {
		win.Pid = int(pid)
	}
	if s, ok := propString(nameR, aUTF8); ok && nameR.Type == aUTF8 {
		win.Title = s
	} else if s, ok := propString(wmNameR, aUTF8); ok {
		win.Title = s
	}
	hasClass := false
	if s, ok := propString(classR, aUTF8); ok {
		hasClass = true
		// WM_CLASS is "instance\0class\0"; the trailing NUL is already gone.
		inst, class, _ := strings.Cut(s, "\x00")
		win.Instance, win.Class = inst, strings.TrimRight(class, "\x00")
	}
	if !fromWM {
		hasState := stateR != nil && stateR.Type != xproto.AtomNone
		if attrs.OverrideRedirect || attrs.Class == xproto.WindowClassInputOnly ||
			!(win.Mapped || hasState) || (win.Title == "" && !hasClass) {
			return platform.Window{}, false, nil
		}
	}
	return win, true, nil
}
