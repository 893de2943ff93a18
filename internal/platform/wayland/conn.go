//go:build linux

package wayland

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/watchdog"
)

// Errors of the connection.
var (
	// ErrClosed: the connection is closed, or the compositor went away.
	ErrClosed = errors.New("the wayland connection is closed")
	// ErrNoGlobal: the compositor does not offer an interface (or not
	// in a version new enough).
	ErrNoGlobal = errors.New("the compositor does not offer the interface")
)

// ProtocolError is a wl_display.error the compositor sent: it ends the
// connection.
type ProtocolError struct {
	Object  ObjectID
	Code    uint32
	Message string
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("wayland: protocol error %d on object %d: %s", e.Code, e.Object, e.Message)
}

// timeoutError is a call that ran out of time: it is platform.ErrTimeout
// and the context's own error.
type timeoutError struct {
	what string
	ctx  error
}

func (e *timeoutError) Error() string {
	return fmt.Sprintf("wayland: %s: the compositor did not answer in time (%v)", e.what, e.ctx)
}

func (e *timeoutError) Unwrap() []error { return []error{platform.ErrTimeout, e.ctx} }

// Global is an interface the compositor announces in its registry.
type Global struct {
	Name      uint32
	Interface string
	Version   uint32
}

// handler receives the events of one object.
type handler func(opcode uint16, a *args) error

// Conn is a client connection to a Wayland compositor. Its calls are
// serialized: each runs alone, under its context (the socket's read and
// write deadlines follow the context, and a context cancelled without a
// deadline ends blocked I/O at once). A protocol error, the compositor
// closing the socket, or a request cut short mid-write breaks the
// connection for good; a call that merely timed out while waiting for
// events leaves it usable.
type Conn struct {
	sock *net.UnixConn
	path string         // the socket dialled, for the watchdog (watchdog.go) and the record of buttons down (pressed.go)
	wd   watchdog.Watch // the child that releases what is held if this process dies

	dead atomic.Bool // broken is set: Broken reads it without waiting for a call

	mu       sync.Mutex // held by the running call
	in       []byte     // bytes read and not yet dispatched
	handlers map[ObjectID]handler
	free     []ObjectID // ids the server released (delete_id), reused first
	next     ObjectID   // the next id never used
	registry ObjectID
	globals  []Global
	later    []message // destroy requests a cut-short call could not send
	broken   error     // why the connection is unusable, sticky

	outputs           []*Output
	shm               ObjectID
	screencopy        ObjectID
	screencopyVersion uint32
	seat              ObjectID
	keyboard          ObjectID // the virtual keyboard
	keys              *keymap  // what the virtual keyboard's keycodes type
	mods              uint32   // the modifiers the virtual keyboard has down
	pointer           ObjectID // the virtual pointer
	ptr               image.Point
	ptrKnown          bool     // ptr is where the virtual pointer last moved
	heldButtons       []uint32 // buttons ButtonDown left down
	watching          bool     // a watchdog's: its new pointer leaves the seat's buttons as they are
	pressed           []uint32 // buttons the pointer has down, as recorded beside the socket (pressed.go)
	heldCodes         []uint32 // keys KeyDown left down,
	heldSyms          []uint32 // and their keysyms, which every keymap keeps
	toplevelMgr       ObjectID // zwlr_foreign_toplevel_manager_v1, bound on first use
	toplevelVersion   uint32
	toplevels         map[ObjectID]*toplevel // the windows it announced, by handle
	toplevelOrder     []ObjectID             // their handles in the order it announced them

	dlMu sync.Mutex // guards gen against a context's AfterFunc
	gen  uint64     // which call's context may still cut the deadline
	t0   time.Time  // the base of the input timestamps
}

// SocketPath is where the compositor's socket is for an environment, as
// libwayland finds it: WAYLAND_DISPLAY (default "wayland-0"), relative to
// XDG_RUNTIME_DIR unless it is absolute.
func SocketPath(getenv func(string) string) (string, error) {
	name := getenv("WAYLAND_DISPLAY")
	if name == "" {
		name = "wayland-0"
	}
	if filepath.IsAbs(name) {
		return name, nil
	}
	dir := getenv("XDG_RUNTIME_DIR")
	if dir == "" {
		return "", errors.New("wayland: XDG_RUNTIME_DIR is not set, so the compositor's socket cannot be found")
	}
	return filepath.Join(dir, name), nil
}

// Dial connects to the compositor's socket at path and reads its registry.
func Dial(ctx context.Context, path string) (*Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, fmt.Errorf("wayland: connecting to %s: %w", path, err)
	}
	c, err := newConn(ctx, nc.(*net.UnixConn))
	if err != nil {
		return nil, fmt.Errorf("wayland: %s: %w", path, err)
	}
	c.path = path
	return c, nil
}

// newConn starts the protocol on a connected socket: the registry, read
// whole with one round trip.
func newConn(ctx context.Context, sock *net.UnixConn) (*Conn, error) {
	c := &Conn{sock: sock, handlers: map[ObjectID]handler{}, next: 2, t0: time.Now()}
	err := c.do(ctx, "reading the registry", func() error {
		c.registry = c.newID()
		c.handlers[c.registry] = c.onRegistry
		if err := c.send(newRequest(displayID, 1).NewID(c.registry)); err != nil {
			return err
		}
		return c.roundtrip()
	})
	if err != nil {
		sock.Close()
		return nil, err
	}
	return c, nil
}

// Close closes the connection; objects the compositor holds for it go
// with it, and its watchdog releases what is still held.
func (c *Conn) Close() error {
	defer c.wd.Close()
	c.dlMu.Lock()
	c.gen++
	c.dlMu.Unlock()
	err := c.sock.Close()
	c.mu.Lock()
	if c.broken == nil {
		c.setBroken(ErrClosed)
	}
	c.mu.Unlock()
	return err
}

// Broken tells whether the connection can no longer be used (closed, the
// compositor gone, a protocol error), without waiting for a running call.
func (c *Conn) Broken() bool { return c.dead.Load() }

// setBroken records why the connection is unusable; the first reason
// stays.
func (c *Conn) setBroken(err error) {
	if c.broken == nil {
		c.broken = err
	}
	c.dead.Store(true)
}

// Globals lists the interfaces the compositor announced, in its order.
func (c *Conn) Globals() []Global {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Global(nil), c.globals...)
}

// Roundtrip waits until the compositor has handled every request sent
// before it (wl_display.sync).
func (c *Conn) Roundtrip(ctx context.Context) error {
	return c.do(ctx, "round trip", c.roundtrip)
}

var aLongTimeAgo = time.Unix(1, 0)

// DefaultTimeout bounds a call whose context has no deadline: a frozen
// compositor never hangs the caller.
var DefaultTimeout = 10 * time.Second

// do runs fn as one call: alone, with the socket's deadlines following
// ctx (DefaultTimeout when it has none), requests left from a cut-short
// call sent first. Errors out of fn
// are worded with what.
func (c *Conn) do(ctx context.Context, what string, fn func() error) error {
	if err := ctx.Err(); err != nil {
		return &timeoutError{what, err}
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken != nil {
		return fmt.Errorf("wayland: %s: %w", what, c.broken)
	}
	c.dlMu.Lock()
	c.gen++
	gen := c.gen
	dl, _ := ctx.Deadline()
	c.sock.SetDeadline(dl) // the zero time: none
	c.dlMu.Unlock()
	stop := context.AfterFunc(ctx, func() {
		c.dlMu.Lock()
		defer c.dlMu.Unlock()
		if c.gen == gen {
			c.sock.SetDeadline(aLongTimeAgo)
		}
	})
	defer func() {
		stop()
		c.dlMu.Lock()
		c.gen++
		c.dlMu.Unlock()
	}()
	err := c.flushLater()
	if err == nil {
		err = fn()
	}
	if err == nil {
		return nil
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, os.ErrDeadlineExceeded) {
		cerr := ctx.Err()
		if cerr == nil {
			cerr = context.DeadlineExceeded
		}
		return &timeoutError{what, cerr}
	}
	return fmt.Errorf("wayland: %s: %w", what, err)
}

// newID allocates an object id: one the server released, else the next.
func (c *Conn) newID() ObjectID {
	if n := len(c.free); n > 0 {
		id := c.free[n-1]
		c.free = c.free[:n-1]
		return id
	}
	id := c.next
	c.next++
	return id
}

// send writes one request whole. A write the deadline cut after part of
// the message went out breaks the connection: the stream is out of step.
func (c *Conn) send(r *request) error {
	if r.err != nil {
		return r.err
	}
	b, err := r.m.encode()
	if err != nil {
		return err
	}
	var oob []byte
	if len(r.m.fds) > 0 {
		oob = syscall.UnixRights(r.m.fds...)
	}
	n, _, err := c.sock.WriteMsgUnix(b, oob, nil)
	if err != nil {
		if n > 0 {
			c.setBroken(fmt.Errorf("a request was cut short: %w", err))
		} else if isGone(err) {
			c.setBroken(fmt.Errorf("%w: %v", ErrClosed, err))
			return c.broken
		}
		return err
	}
	return nil
}

// sendLater sends a destroy request, or keeps it for the next call when
// this one ran out of time: objects are not leaked in the compositor.
func (c *Conn) sendLater(r *request) {
	if c.broken != nil {
		return
	}
	if err := c.send(r); err != nil && c.broken == nil {
		c.later = append(c.later, r.m)
	}
}

func (c *Conn) flushLater() error {
	for len(c.later) > 0 {
		if err := c.send(&request{m: c.later[0]}); err != nil {
			return err
		}
		c.later = c.later[1:]
	}
	return nil
}

// isGone tells the errors of a socket whose other end closed.
func isGone(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, net.ErrClosed)
}

// roundtrip sends wl_display.sync and dispatches events until its done.
func (c *Conn) roundtrip() error {
	cb := c.newID()
	done := false
	c.handlers[cb] = func(opcode uint16, a *args) error {
		done = true
		return nil
	}
	if err := c.send(newRequest(displayID, 0).NewID(cb)); err != nil {
		delete(c.handlers, cb)
		return err
	}
	return c.wait(func() bool { return done })
}

// wait dispatches events until cond holds (checked before each read).
func (c *Conn) wait(cond func() bool) error {
	for !cond() {
		if err := c.readEvents(); err != nil {
			return err
		}
	}
	return nil
}

// readEvents reads what the socket has (blocking for at least one byte)
// and dispatches every whole message. Descriptors that arrive are closed:
// no interface this client binds sends any.
func (c *Conn) readEvents() error {
	var buf [maxMessage]byte
	oob := make([]byte, syscall.CmsgSpace(28*4))
	n, oobn, _, _, err := c.sock.ReadMsgUnix(buf[:], oob)
	if oobn > 0 {
		closeRights(oob[:oobn])
	}
	if n > 0 {
		c.in = append(c.in, buf[:n]...)
		if derr := c.dispatch(); derr != nil {
			return derr
		}
	}
	if err != nil {
		if isGone(err) || errors.Is(err, io.EOF) {
			c.setBroken(fmt.Errorf("%w: the compositor closed the connection", ErrClosed))
			return c.broken
		}
		return err
	}
	if n == 0 {
		c.setBroken(fmt.Errorf("%w: the compositor closed the connection", ErrClosed))
		return c.broken
	}
	return nil
}

func closeRights(oob []byte) {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return
	}
	for _, m := range msgs {
		fds, err := syscall.ParseUnixRights(&m)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			syscall.Close(fd)
		}
	}
}

// dispatch hands every whole message in c.in to its object's handler.
func (c *Conn) dispatch() error {
	for {
		m, n, err := splitMessage(c.in)
		if err != nil {
			c.setBroken(err)
			return err
		}
		if n == 0 {
			return nil
		}
		c.in = c.in[n:]
		if err := c.event(m); err != nil {
			return err
		}
	}
}

// event dispatches one event: wl_display's own, or the object's handler's.
// An event for an object without a handler (one a call gave up on) is
// dropped.
func (c *Conn) event(m message) error {
	a := &args{b: m.args}
	if m.object == displayID {
		switch m.opcode {
		case 0: // error(object_id, code, message)
			pe := &ProtocolError{Object: a.Object(), Code: a.Uint(), Message: a.String()}
			if err := a.Done(); err != nil {
				c.setBroken(err)
				return err
			}
			c.setBroken(pe)
			return pe
		case 1: // delete_id(id)
			id := ObjectID(a.Uint())
			if a.Done() == nil && id > displayID && id < c.next {
				delete(c.handlers, id)
				c.free = append(c.free, id)
			}
		}
		return nil
	}
	h := c.handlers[m.object]
	if h == nil {
		return nil
	}
	if err := h(m.opcode, a); err != nil {
		c.setBroken(err)
		return err
	}
	return nil
}

// onRegistry records globals (global, opcode 0) and their removal
// (global_remove, opcode 1).
func (c *Conn) onRegistry(opcode uint16, a *args) error {
	switch opcode {
	case 0:
		g := Global{Name: a.Uint(), Interface: a.String(), Version: a.Uint()}
		if err := a.Done(); err != nil {
			return err
		}
		c.globals = append(c.globals, g)
	case 1:
		name := a.Uint()
		for i, g := range c.globals {
			if g.Name == name {
				c.globals = append(c.globals[:i], c.globals[i+1:]...)
				break
			}
		}
	}
	return a.Done()
}

// bind binds every global of iface (the first only unless all) in the
// highest version both sides know, at least minVersion. It returns the
// new objects and their versions; handlers are the caller's to set.
func (c *Conn) bind(iface string, minVersion, maxVersion uint32, all bool) ([]ObjectID, []uint32, error) {
	var ids []ObjectID
	var versions []uint32
	found := false
	for _, g := range c.globals {
		if g.Interface != iface {
			continue
		}
		found = true
		v := min(g.Version, maxVersion)
		if v < minVersion {
			continue
		}
		id := c.newID()
		if err := c.send(newRequest(c.registry, 0).Uint(g.Name).String(iface).Uint(v).NewID(id)); err != nil {
			return nil, nil, err
		}
		ids, versions = append(ids, id), append(versions, v)
		if !all {
			break
		}
	}
	if len(ids) == 0 {
		if found {
			return nil, nil, fmt.Errorf("%w: %s older than version %d", ErrNoGlobal, iface, minVersion)
		}
		return nil, nil, fmt.Errorf("%w: %s", ErrNoGlobal, iface)
	}
	return ids, versions, nil
}

// now is the timestamp of an input event, in milliseconds on the
// connection's own clock.
func (c *Conn) now() uint32 { return uint32(time.Since(c.t0).Milliseconds()) }
