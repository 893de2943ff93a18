//go:build linux

package wayland

import (
	"context"
	"fmt"
	"image"
	"io"
	"sync"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/sway"
)

// Backend is input and pixels on sway: this package's client for the
// virtual keyboard and pointer and for screencopy, sway's IPC for where
// windows are. It connects on first use and again after the compositor
// broke the connection (a protocol error, a restart). Safe for concurrent
// use: the connection serializes calls.
type Backend struct {
	socket string
	sway   *sway.Client

	mu   sync.Mutex
	conn *Conn
}

var (
	_ platform.ButtonHolder = (*Backend)(nil)
	_ platform.KeyHolder    = (*Backend)(nil)
	_ platform.Input        = (*Backend)(nil)
	_ platform.CheckedTyper = (*Backend)(nil)
	_ platform.Pixels       = (*Backend)(nil)
)

// NewBackend is the backend of the compositor whose socket is at socket
// (SocketPath) with sway's IPC at sw.
func NewBackend(socket string, sw *sway.Client) *Backend {
	return &Backend{socket: socket, sway: sw}
}

// HoldDevices connects to the compositor at socket and makes a virtual
// keyboard (with a keymap) and pointer there, which stay until the
// returned connection is closed: a sandbox's seat holds them for its
// whole life, as a real desktop's has its keyboard and mouse
// (sandbox.Options.Seat). With sway's IPC at swaySock, the keyboard is
// made the seat's own again whenever another keyboard goes away
// (ReclaimKeyboard): sway leaves a seat whose keyboard was removed (a
// uiscope server's, gone with its process) without one, though it still
// has keyboards.
func HoldDevices(ctx context.Context, socket, swaySock string) (io.Closer, error) {
	c, err := Dial(ctx, socket)
	if err != nil {
		return nil, err
	}
	if err := c.EnsureDevices(ctx); err != nil {
		c.Close()
		return nil, err
	}
	h := &heldDevices{c: c}
	if swaySock != "" {
		h.stop, err = sway.New(swaySock).WatchInputs(ctx, func(ev sway.InputEvent) {
			if ev.Change == "removed" && ev.Input.Type == "keyboard" {
				rctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
				defer cancel()
				_ = c.ReclaimKeyboard(rctx)
			}
		})
		if err != nil {
			c.Close()
			return nil, err
		}
	}
	return h, nil
}

// heldDevices are HoldDevices' connection and its watch of sway's input
// events.
type heldDevices struct {
	c    *Conn
	stop func()
}

func (h *heldDevices) Close() error {
	if h.stop != nil {
		h.stop()
	}
	return h.c.Close()
}

// Close closes the connection, if any.
func (b *Backend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.conn == nil {
		return nil
	}
	err := b.conn.Close()
	b.conn = nil
	return err
}

// Conn is the connection, dialled when there is none or the last one
// broke; the virtual keyboard and pointer exist on it before it is
// returned, so that clients have bound theirs before the first input.
func (b *Backend) Conn(ctx context.Context) (*Conn, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.conn != nil && !b.conn.Broken() {
		return b.conn, nil
	}
	if b.conn != nil {
		b.conn.Close()
		b.conn = nil
	}
	c, err := Dial(ctx, b.socket)
	if err != nil {
		return nil, err
	}
	if err := c.EnsureDevices(ctx); err != nil {
		c.Close()
		return nil, err
	}
	b.conn = c
	return c, nil
}

// Click clicks at a screen point.
func (b *Backend) Click(ctx context.Context, x, y, button, count int) error {
	c, err := b.Conn(ctx)
	if err != nil {
		return err
	}
	return c.Click(ctx, x, y, button, count)
}

// Wheel turns the wheel over a screen point.
func (b *Backend) Wheel(ctx context.Context, x, y, dx, dy int) error {
	c, err := b.Conn(ctx)
	if err != nil {
		return err
	}
	return c.Scroll(ctx, x, y, dx, dy)
}

// ValidateChord parses a chord without sending anything.
func (b *Backend) ValidateChord(chord string) error {
	if _, err := platform.ParseChord(chord); err != nil {
		return fmt.Errorf("%w: %v", platform.ErrInvalidKeys, err)
	}
	return nil
}

// KeyChord presses one chord ("Ctrl+S").
func (b *Backend) KeyChord(ctx context.Context, chord string) error {
	ch, err := platform.ParseChord(chord)
	if err != nil {
		return fmt.Errorf("%w: %v", platform.ErrInvalidKeys, err)
	}
	c, err := b.Conn(ctx)
	if err != nil {
		return err
	}
	return c.KeyChord(ctx, ch)
}

// TypeText types text with the virtual keyboard.
func (b *Backend) TypeText(ctx context.Context, text string) (int, error) {
	return b.TypeTextChecked(ctx, text, 0, nil)
}

// TypeTextChecked types text, calling check before the first character
// and every every characters after; it stops when check fails and returns
// its error as is.
func (b *Backend) TypeTextChecked(ctx context.Context, text string, every int, check func(ctx context.Context) error) (int, error) {
	if _, err := textKeysyms(text); err != nil {
		return 0, err
	}
	c, err := b.Conn(ctx)
	if err != nil {
		return 0, err
	}
	return c.TypeTextChecked(ctx, text, every, check)
}

// ButtonDown moves the pointer to (x, y) and presses button, which stays
// down.
func (b *Backend) ButtonDown(ctx context.Context, x, y, button int) error {
	c, err := b.Conn(ctx)
	if err != nil {
		return err
	}
	return c.ButtonDown(ctx, x, y, button)
}

// DragTo moves the pointer to (x, y) in steps.
func (b *Backend) DragTo(ctx context.Context, x, y int) error {
	c, err := b.Conn(ctx)
	if err != nil {
		return err
	}
	return c.DragTo(ctx, x, y)
}

// ButtonUp releases button.
func (b *Backend) ButtonUp(ctx context.Context, button int) error {
	c, err := b.Conn(ctx)
	if err != nil {
		return err
	}
	return c.ButtonUp(ctx, button)
}

// KeyDown holds one key down ("Shift", "a").
func (b *Backend) KeyDown(ctx context.Context, key string) error {
	return b.holdKey(ctx, key, (*Conn).KeyDown)
}

// KeyUp releases a held key.
func (b *Backend) KeyUp(ctx context.Context, key string) error {
	return b.holdKey(ctx, key, (*Conn).KeyUp)
}

func (b *Backend) holdKey(ctx context.Context, key string, fn func(*Conn, context.Context, platform.Chord) error) error {
	ch, err := platform.ParseChord(key)
	if err != nil {
		return fmt.Errorf("%w: %v", platform.ErrInvalidKeys, err)
	}
	c, err := b.Conn(ctx)
	if err != nil {
		return err
	}
	return fn(c, ctx, ch)
}

// CaptureWindow captures a sway window's content from the output it is
// on. Screencopy copies what the output shows, so a window that another
// covers (a floating one above it) is refused rather than captured with
// the other's pixels, and so is one sway does not show (another
// workspace, behind a fullscreen window or a tab: ErrWindowHidden). The
// window's rectangle is read again after the copy: one that moved or got
// covered meanwhile is captured again.
func (b *Backend) CaptureWindow(ctx context.Context, win platform.Window) (*image.RGBA, platform.Rect, error) {
	con, ok := win.ID.SwayCon()
	if !ok {
		return nil, platform.Rect{}, fmt.Errorf("%w: %s is not a sway window", platform.ErrElementGone, win.ID)
	}
	c, err := b.Conn(ctx)
	if err != nil {
		return nil, platform.Rect{}, err
	}
	for range 3 {
		w, err := b.shown(ctx, con)
		if err != nil {
			return nil, platform.Rect{}, err
		}
		outs, err := c.Outputs(ctx)
		if err != nil {
			return nil, platform.Rect{}, err
		}
		bounds := image.Rect(w.Bounds.X, w.Bounds.Y, w.Bounds.X+w.Bounds.Width, w.Bounds.Y+w.Bounds.Height)
		var out Output
		var on image.Rectangle
		for _, o := range outs {
			if r := o.Rect().Intersect(bounds); r.Dx()*r.Dy() > on.Dx()*on.Dy() {
				out, on = o, r
			}
		}
		if on.Empty() {
			return nil, platform.Rect{}, fmt.Errorf("%w: %s lies on no output", platform.ErrWindowHidden, win.ID)
		}
		img, err := c.Capture(ctx, out, on.Sub(out.Rect().Min))
		if err != nil {
			return nil, platform.Rect{}, err
		}
		after, err := b.shown(ctx, con)
		if err != nil {
			return nil, platform.Rect{}, err
		}
		if after.Bounds != w.Bounds {
			continue // it moved during the copy
		}
		if img.Bounds().Dx() != on.Dx() || img.Bounds().Dy() != on.Dy() {
			return nil, platform.Rect{}, fmt.Errorf("wayland: a capture of %v came back %v (a scaled output is not supported)", on, img.Bounds())
		}
		return img, platform.Rect{X: on.Min.X, Y: on.Min.Y, Width: on.Dx(), Height: on.Dy()}, nil
	}
	return nil, platform.Rect{}, fmt.Errorf("%w: %s kept moving during the capture", platform.ErrTimeout, win.ID)
}

// ErrCovered: another window covers part of the one to capture, and a
// screencopy would show the cover's pixels there.
var ErrCovered = platform.ErrWindowCovered

// shown is sway's view con, checked to be shown and uncovered: no visible
// window above it in the stacking order overlaps its content.
func (b *Backend) shown(ctx context.Context, con int64) (sway.Window, error) {
	if b.sway == nil {
		return sway.Window{}, fmt.Errorf("%w: no sway IPC socket (SWAYSOCK) to find windows by", platform.ErrNotSupported)
	}
	wins, err := b.sway.Windows(ctx)
	if err != nil {
		return sway.Window{}, err
	}
	idx := -1
	for i, w := range wins {
		if w.Con == con {
			idx = i
		}
	}
	if idx < 0 {
		return sway.Window{}, fmt.Errorf("%w: sway:%d", platform.ErrElementGone, con)
	}
	w := wins[idx]
	if !w.Visible {
		return sway.Window{}, fmt.Errorf("%w: sway:%d is on a workspace not shown or behind another window", platform.ErrWindowHidden, con)
	}
	for _, above := range wins[idx+1:] {
		if above.Visible && above.Workspace == w.Workspace && !above.Frame.Intersect(w.Bounds).Empty() {
			return sway.Window{}, fmt.Errorf("%w: sway:%d is covered by sway:%d (%q), and a Wayland capture copies what the screen shows",
				ErrCovered, con, above.Con, above.Title)
		}
	}
	return w, nil
}
