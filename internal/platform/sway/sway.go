// Package sway talks to the sway compositor over its IPC socket ($SWAYSOCK):
// the i3-ipc framing ("i3-ipc", a payload length and a message type, both
// 32-bit in the host's byte order, then JSON). It reads the windows (views)
// of the layout tree with their process, app_id, title, screen rectangle and
// focus, and acts on them by container id: focus, kill, fullscreen.
//
// Every call dials the socket afresh and runs under the caller's deadline
// (the socket's deadline follows the context), so a compositor that stops
// answering or goes away is an error, never a hang, and there is no
// connection to keep alive. Input and pixels on Wayland are the Wayland
// client's (internal/platform/wayland), not this package's.
package sway

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
)

// Message types of the i3/sway IPC.
const (
	msgRunCommand = 0
	msgSubscribe  = 2
	msgGetOutputs = 3
	msgGetTree    = 4
	msgGetVersion = 7
)

// eventInput is the type of an input event (a device added, removed or
// changed): the event bit and sway's event number 21.
const eventInput = 1<<31 | 21

const magic = "i3-ipc"

// maxReply bounds a reply's payload: a tree of hundreds of windows is a
// few hundred KB.
const maxReply = 64 << 20

// callTimeout bounds a call made with a context that has no deadline.
const callTimeout = 5 * time.Second

// ErrNoWindow: no view (window) has the container id asked for; it closed.
var ErrNoWindow = errors.New("sway: no such window")

// ErrNotApplied: sway accepted a command but the tree does not show its
// effect before the deadline.
var ErrNotApplied = errors.New("sway: the command had no effect")

// Client is a sway IPC endpoint. The zero value is unusable; Socket is
// fixed after New.
type Client struct {
	Socket string
}

// New returns a client of the socket at path.
func New(path string) *Client { return &Client{Socket: path} }

// FromEnv returns a client of $SWAYSOCK, or nil when it is unset.
func FromEnv() *Client {
	if s := os.Getenv("SWAYSOCK"); s != "" {
		return New(s)
	}
	return nil
}

// call sends one message and decodes its reply into out.
func (c *Client) call(ctx context.Context, typ uint32, payload string, out any) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, callTimeout)
		defer cancel()
	}
	conn, err := c.dial(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	defer conn.Close()
	deadline, _ := ctx.Deadline()
	_ = conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()

	if err := writeMsg(conn, typ, payload); err != nil {
		return c.fail(ctx, err)
	}
	got, body, err := c.readMsg(conn)
	if err != nil {
		return c.fail(ctx, err)
	}
	if got != typ {
		return fmt.Errorf("sway: %s: reply of type %d to a message of type %d", c.Socket, got, typ)
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("sway: %s: reply to message %d: %w", c.Socket, typ, err)
	}
	return nil
}

// writeMsg sends one message: the magic, the payload's length and the
// type, then the payload.
func writeMsg(conn net.Conn, typ uint32, payload string) error {
	msg := make([]byte, len(magic)+8+len(payload))
	copy(msg, magic)
	binary.NativeEndian.PutUint32(msg[len(magic):], uint32(len(payload)))
	binary.NativeEndian.PutUint32(msg[len(magic)+4:], typ)
	copy(msg[len(magic)+8:], payload)
	_, err := conn.Write(msg)
	return err
}

// readMsg reads one reply or event: its type and payload.
func (c *Client) readMsg(conn net.Conn) (uint32, []byte, error) {
	hdr := make([]byte, len(magic)+8)
	if _, err := io.ReadFull(conn, hdr); err != nil {
		return 0, nil, err
	}
	if string(hdr[:len(magic)]) != magic {
		return 0, nil, fmt.Errorf("sway: %s: not an i3-ipc reply (%q)", c.Socket, hdr[:len(magic)])
	}
	n := binary.NativeEndian.Uint32(hdr[len(magic):])
	if n > maxReply {
		return 0, nil, fmt.Errorf("sway: %s: reply of %d bytes", c.Socket, n)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(conn, body); err != nil {
		return 0, nil, err
	}
	return binary.NativeEndian.Uint32(hdr[len(magic)+4:]), body, nil
}

// dial connects to the socket. sway listens with a backlog of 3: more
// callers at once (twenty sessions listing apps) find the queue full,
// which a unix socket answers at once with EAGAIN instead of a wait, so
// the dial is tried again, a little later each time, until the deadline.
func (c *Client) dial(ctx context.Context) (net.Conn, error) {
	var d net.Dialer
	wait := time.Millisecond
	for {
		conn, err := d.DialContext(ctx, "unix", c.Socket)
		if err == nil || !errors.Is(err, syscall.EAGAIN) {
			return conn, err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, err
		case <-t.C:
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// fail names what went wrong: the deadline (wrapping platform.ErrTimeout),
// or the socket's own error (sway gone: refused, reset, closed early).
func (c *Client) fail(ctx context.Context, err error) error {
	// The socket's deadline is the context's: it may fire a moment before
	// the context says it is done.
	var ne net.Error
	if ctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("sway: %s: %w (%w)", c.Socket, platform.ErrTimeout, err)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("sway: %s: the compositor closed the connection before answering", c.Socket)
	}
	return fmt.Errorf("sway: %w", err)
}

// Version is sway's get_version reply.
type Version struct {
	HumanReadable string `json:"human_readable"`
	Major         int    `json:"major"`
	Minor         int    `json:"minor"`
	Patch         int    `json:"patch"`
}

// Version asks sway its version: the cheapest call that proves it answers.
func (c *Client) Version(ctx context.Context) (Version, error) {
	var v Version
	err := c.call(ctx, msgGetVersion, "", &v)
	return v, err
}

// Rect is a rectangle as sway reports it.
type Rect struct {
	X      int `json:"x"`
	Y      int `json:"y"`
	Width  int `json:"width"`
	Height int `json:"height"`
}

func (r Rect) platform() platform.Rect {
	return platform.Rect{X: r.X, Y: r.Y, Width: r.Width, Height: r.Height}
}

// Output is one of get_outputs' outputs.
type Output struct {
	Name    string `json:"name"`
	Active  bool   `json:"active"`
	Rect    Rect   `json:"rect"`
	Focused bool   `json:"focused"`
}

// Outputs lists the outputs.
func (c *Client) Outputs(ctx context.Context) ([]Output, error) {
	var out []Output
	err := c.call(ctx, msgGetOutputs, "", &out)
	return out, err
}

// Screen is the rectangle that holds every active output.
func (c *Client) Screen(ctx context.Context) (platform.Rect, error) {
	outs, err := c.Outputs(ctx)
	if err != nil {
		return platform.Rect{}, err
	}
	var r platform.Rect
	for _, o := range outs {
		if !o.Active {
			continue
		}
		or := o.Rect.platform()
		if r.Empty() {
			r = or
			continue
		}
		x0, y0 := min(r.X, or.X), min(r.Y, or.Y)
		x1, y1 := max(r.X+r.Width, or.X+or.Width), max(r.Y+r.Height, or.Y+or.Height)
		r = platform.Rect{X: x0, Y: y0, Width: x1 - x0, Height: y1 - y0}
	}
	if r.Empty() {
		return r, errors.New("sway: no active output")
	}
	return r, nil
}

// node is a container of get_tree's layout tree.
type node struct {
	ID             int64  `json:"id"`
	Type           string `json:"type"` // root, output, workspace, con, floating_con
	Name           string `json:"name"`
	Rect           Rect   `json:"rect"`
	WindowRect     Rect   `json:"window_rect"`
	DecoRect       Rect   `json:"deco_rect"`
	Focused        bool   `json:"focused"`
	Visible        *bool  `json:"visible"`
	FullscreenMode int    `json:"fullscreen_mode"`
	Pid            int    `json:"pid"`
	AppID          string `json:"app_id"`
	Shell          string `json:"shell"`
	Nodes          []node `json:"nodes"`
	FloatingNodes  []node `json:"floating_nodes"`
}

// Window is a view: a container that shows a client's surface.
type Window struct {
	Con   int64  // the container id
	Pid   int    // the client's process
	AppID string // the xdg_toplevel app_id ("" for Xwayland windows)
	Title string
	Shell string // "xdg_shell" or "xwayland"
	// Bounds are the window's content on the screen (sway's rect plus its
	// window_rect: inside the border and title bar sway draws), where a
	// Wayland client's window-relative coordinates count from.
	Bounds     platform.Rect
	Frame      platform.Rect // the container with the border and title bar sway draws
	Focused    bool
	Visible    bool // on a visible workspace and not hidden behind a tab or fullscreen window
	Floating   bool
	Fullscreen bool
	Workspace  string
}

// Scratchpad reports a view in sway's scratchpad: hidden until shown.
func (w Window) Scratchpad() bool { return w.Workspace == "__i3_scratch" }

// ID is the window's id as the platform names it ("sway:42").
func (w Window) ID() platform.WindowID { return platform.SwayWindowID(w.Con) }

// Windows lists the views of the layout tree, in stacking order, bottom to
// top: per workspace, tiled views, then floating ones (the last floating
// view is on top), a fullscreen view last.
func (c *Client) Windows(ctx context.Context) ([]Window, error) {
	var root node
	if err := c.call(ctx, msgGetTree, "", &root); err != nil {
		return nil, err
	}
	var out, full []Window
	var walk func(n *node, ws string, floating bool)
	walk = func(n *node, ws string, floating bool) {
		if n.Type == "workspace" {
			ws = n.Name
		}
		if (n.Type == "con" || n.Type == "floating_con") && n.Pid > 0 {
			w := Window{Con: n.ID, Pid: n.Pid, AppID: n.AppID, Title: n.Name, Shell: n.Shell,
				Bounds: platform.Rect{X: n.Rect.X + n.WindowRect.X, Y: n.Rect.Y + n.WindowRect.Y,
					Width: n.WindowRect.Width, Height: n.WindowRect.Height},
				Frame: n.Rect.platform(), Focused: n.Focused, Visible: n.Visible == nil || *n.Visible,
				Floating: floating || n.Type == "floating_con", Fullscreen: n.FullscreenMode != 0, Workspace: ws}
			if d := n.DecoRect.Height; d > 0 && !w.Fullscreen {
				// The title bar sway draws above the container's rect.
				w.Frame.Y -= d
				w.Frame.Height += d
			}
			if w.Fullscreen {
				full = append(full, w)
			} else {
				out = append(out, w)
			}
		}
		for i := range n.Nodes {
			walk(&n.Nodes[i], ws, floating)
		}
		for i := range n.FloatingNodes {
			walk(&n.FloatingNodes[i], ws, true)
		}
	}
	walk(&root, "", false)
	return append(out, full...), nil
}

// Window returns the view with container id con (ErrNoWindow when none).
func (c *Client) Window(ctx context.Context, con int64) (Window, error) {
	wins, err := c.Windows(ctx)
	if err != nil {
		return Window{}, err
	}
	for _, w := range wins {
		if w.Con == con {
			return w, nil
		}
	}
	return Window{}, fmt.Errorf("%w: sway:%d", ErrNoWindow, con)
}

// Focused returns the focused view; ok is false when none has the focus
// (an empty workspace).
func (c *Client) Focused(ctx context.Context) (Window, bool, error) {
	wins, err := c.Windows(ctx)
	if err != nil {
		return Window{}, false, err
	}
	for _, w := range wins {
		if w.Focused {
			return w, true, nil
		}
	}
	return Window{}, false, nil
}

// At returns the view on top at screen point (x, y); ok is false when
// no view covers it (the background, an empty workspace). Sway's own
// borders and title bars count as their window's.
func (c *Client) At(ctx context.Context, x, y int) (Window, bool, error) {
	wins, err := c.Windows(ctx)
	if err != nil {
		return Window{}, false, err
	}
	p := platform.Rect{X: x, Y: y, Width: 1, Height: 1}
	for i := len(wins) - 1; i >= 0; i-- {
		w := wins[i]
		if w.Visible && w.Frame.Intersect(p) == p {
			return w, true, nil
		}
	}
	return Window{}, false, nil
}

// commandResult is one entry of run_command's reply.
type commandResult struct {
	Success    bool   `json:"success"`
	ParseError bool   `json:"parse_error"`
	Error      string `json:"error"`
}

// Command runs sway commands and fails with the first one that failed.
func (c *Client) Command(ctx context.Context, cmd string) error {
	var res []commandResult
	if err := c.call(ctx, msgRunCommand, cmd, &res); err != nil {
		return err
	}
	for _, r := range res {
		if !r.Success {
			return fmt.Errorf("sway: %q: %s", cmd, r.Error)
		}
	}
	if len(res) == 0 {
		return fmt.Errorf("sway: %q: no result", cmd)
	}
	return nil
}

// onCon runs a command on one container. sway answers "No matching node"
// for an id that names nothing: that is ErrNoWindow.
func (c *Client) onCon(ctx context.Context, con int64, cmd string) error {
	err := c.Command(ctx, "[con_id="+strconv.FormatInt(con, 10)+"] "+cmd)
	if err != nil && strings.Contains(err.Error(), "No matching node") {
		return fmt.Errorf("%w: sway:%d", ErrNoWindow, con)
	}
	return err
}

// Focus focuses the view con and verifies that sway then has it focused.
func (c *Client) Focus(ctx context.Context, con int64) error {
	if err := c.onCon(ctx, con, "focus"); err != nil {
		return err
	}
	return c.until(ctx, con, "focus", func(w Window) bool { return w.Focused })
}

// Kill asks the view con's client to close it (xdg_toplevel.close); the
// client may keep it open (a "save changes?" question): the caller checks.
func (c *Client) Kill(ctx context.Context, con int64) error {
	return c.onCon(ctx, con, "kill")
}

// Fullscreen puts the view con into fullscreen or out of it, verified.
func (c *Client) Fullscreen(ctx context.Context, con int64, on bool) error {
	arg := "disable"
	if on {
		arg = "enable"
	}
	if err := c.onCon(ctx, con, "fullscreen "+arg); err != nil {
		return err
	}
	return c.until(ctx, con, "fullscreen "+arg, func(w Window) bool { return w.Fullscreen == on })
}

// until polls the view con until cond holds: sway applies a command to
// its tree before it answers, so the first read normally shows it; a
// later one catches a client that acknowledges late.
func (c *Client) until(ctx context.Context, con int64, what string, cond func(Window) bool) error {
	delay := 5 * time.Millisecond
	for {
		w, err := c.Window(ctx, con)
		if errors.Is(err, platform.ErrTimeout) {
			// The read that would have shown it ran out of time.
			return fmt.Errorf("%w: %s on sway:%d (%w)", ErrNotApplied, what, con, err)
		}
		if err != nil {
			return err
		}
		if cond(w) {
			return nil
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w: %s on sway:%d (%w)", ErrNotApplied, what, con, ctx.Err())
		case <-t.C:
		}
		delay = min(delay*2, 100*time.Millisecond)
	}
}

// InputEvent is one of sway's input events: a device added, removed or
// changed.
type InputEvent struct {
	Change string `json:"change"` // added, removed, xkb_keymap, xkb_layout, ...
	Input  struct {
		Identifier string `json:"identifier"`
		Type       string `json:"type"` // keyboard, pointer, ...
	} `json:"input"`
}

// WatchInputs subscribes to sway's input events and calls f with each,
// from a goroutine of its own, until stop is called or sway closes the
// connection. The subscription is made under ctx's deadline (callTimeout
// when it has none); the events then come on the same connection, as
// long as it lasts. stop returns once f is no longer called.
func (c *Client) WatchInputs(ctx context.Context, f func(InputEvent)) (stop func(), err error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, callTimeout)
		defer cancel()
	}
	conn, err := c.dial(ctx)
	if err != nil {
		return nil, c.fail(ctx, err)
	}
	deadline, _ := ctx.Deadline()
	_ = conn.SetDeadline(deadline)
	var reply struct {
		Success bool `json:"success"`
	}
	typ, body, err := uint32(0), []byte(nil), writeMsg(conn, msgSubscribe, `["input"]`)
	if err == nil {
		typ, body, err = c.readMsg(conn)
	}
	if err == nil && (typ != msgSubscribe || json.Unmarshal(body, &reply) != nil || !reply.Success) {
		err = fmt.Errorf("sway: %s: the subscription to input events was refused (%s)", c.Socket, body)
	}
	if err != nil {
		conn.Close()
		return nil, c.fail(ctx, err)
	}
	_ = conn.SetDeadline(time.Time{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			typ, body, err := c.readMsg(conn)
			if err != nil {
				return
			}
			var ev InputEvent
			if typ == eventInput && json.Unmarshal(body, &ev) == nil {
				f(ev)
			}
		}
	}()
	return func() {
		conn.Close()
		<-done
	}, nil
}
