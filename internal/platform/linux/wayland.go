//go:build linux

package linux

import (
	"context"
	"fmt"
	"image"
	"os"
	"strings"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/wayland"
)

// waylandParts is the Input and Pixels part of the seam on sway: the
// project's Wayland client (virtual keyboard and pointer, screencopy) for
// the compositor $WAYLAND_DISPLAY names, with sway's IPC telling where
// windows are.
type waylandParts struct{ d *Desktop }

var (
	_ platform.ButtonHolder = waylandParts{}
	_ platform.KeyHolder    = waylandParts{}
	_ platform.Input        = waylandParts{}
	_ platform.CheckedTyper = waylandParts{}
	_ platform.Pixels       = waylandParts{}
)

// waylandBackend is the desktop's Wayland backend, made on first use once
// sway answers.
func (d *Desktop) waylandBackend(ctx context.Context) (*wayland.Backend, error) {
	c, err := d.conns(ctx)
	if err != nil {
		return nil, err
	}
	if c.sway == nil {
		return nil, errNoSway(c.swayErr)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.Wayland == nil {
		path, err := wayland.SocketPath(os.Getenv)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", platform.ErrNotSupported, err)
		}
		d.Wayland = wayland.NewBackend(path, c.sway)
	}
	return d.Wayland, nil
}

// openWayland makes the Wayland backend of a long-lived desktop (a
// server's) on sway and its virtual keyboard and pointer now, so that
// clients bind their own before the first input (input sent before an app
// bound its keyboard is lost). A compositor that does not answer yet is
// tried again on first use. One-shot commands make it on first use only:
// reading makes no input devices.
func (d *Desktop) openWayland(ctx context.Context) {
	path, err := wayland.SocketPath(os.Getenv)
	if err != nil {
		return
	}
	d.Wayland = wayland.NewBackend(path, d.Sway)
	d.Wayland.Conn(ctx)
}

func (w waylandParts) Click(ctx context.Context, x, y, button, count int) error {
	b, err := w.d.waylandBackend(ctx)
	if err != nil {
		return err
	}
	return b.Click(ctx, x, y, button, count)
}

func (w waylandParts) Wheel(ctx context.Context, x, y, dx, dy int) error {
	b, err := w.d.waylandBackend(ctx)
	if err != nil {
		return err
	}
	return b.Wheel(ctx, x, y, dx, dy)
}

// ValidateChord parses a chord without sending anything.
func (waylandParts) ValidateChord(chord string) error {
	if _, err := platform.ParseChord(chord); err != nil {
		return fmt.Errorf("%w: %v", platform.ErrInvalidKeys, err)
	}
	return nil
}

func (w waylandParts) KeyChord(ctx context.Context, chord string) error {
	if err := w.ValidateChord(chord); err != nil {
		return err
	}
	b, err := w.d.waylandBackend(ctx)
	if err != nil {
		return err
	}
	return b.KeyChord(ctx, chord)
}

func (w waylandParts) TypeText(ctx context.Context, text string) (int, error) {
	return w.TypeTextChecked(ctx, text, 0, nil)
}

func (w waylandParts) TypeTextChecked(ctx context.Context, text string, every int, check func(ctx context.Context) error) (int, error) {
	b, err := w.d.waylandBackend(ctx)
	if err != nil {
		return 0, err
	}
	return b.TypeTextChecked(ctx, text, every, check)
}

func (w waylandParts) ButtonDown(ctx context.Context, x, y, button int) error {
	b, err := w.d.waylandBackend(ctx)
	if err != nil {
		return err
	}
	return b.ButtonDown(ctx, x, y, button)
}

func (w waylandParts) DragTo(ctx context.Context, x, y int) error {
	b, err := w.d.waylandBackend(ctx)
	if err != nil {
		return err
	}
	return b.DragTo(ctx, x, y)
}

func (w waylandParts) ButtonUp(ctx context.Context, button int) error {
	b, err := w.d.waylandBackend(ctx)
	if err != nil {
		return err
	}
	return b.ButtonUp(ctx, button)
}

func (w waylandParts) KeyDown(ctx context.Context, key string) error {
	if _, err := platform.ParseChord(key); err != nil {
		return fmt.Errorf("%w: %v", platform.ErrInvalidKeys, err)
	}
	b, err := w.d.waylandBackend(ctx)
	if err != nil {
		return err
	}
	return b.KeyDown(ctx, key)
}

func (w waylandParts) KeyUp(ctx context.Context, key string) error {
	if _, err := platform.ParseChord(key); err != nil {
		return fmt.Errorf("%w: %v", platform.ErrInvalidKeys, err)
	}
	b, err := w.d.waylandBackend(ctx)
	if err != nil {
		return err
	}
	return b.KeyUp(ctx, key)
}

func (w waylandParts) CaptureWindow(ctx context.Context, win platform.Window) (*image.RGBA, platform.Rect, error) {
	b, err := w.d.waylandBackend(ctx)
	if err != nil {
		return nil, platform.Rect{}, err
	}
	return b.CaptureWindow(ctx, win)
}

// waylandNeeds are the protocols input and captures on sway use, and what
// each is for.
var waylandNeeds = []struct{ iface, use string }{
	{"zwp_virtual_keyboard_manager_v1", "typing and key chords"},
	{"zwlr_virtual_pointer_manager_v1", "clicks and the wheel"},
	{"zwlr_screencopy_manager_v1", "screenshots"},
	{"wl_shm", "screenshots"},
	{"wl_seat", "input"},
}

// diagnoseWayland says whether the compositor's socket answers and which
// of the protocols input and captures need it offers. Without sway's IPC
// uiscope uses none of them (it would not know where windows are), and
// says so.
func (d *Desktop) diagnoseWayland(ctx context.Context) Finding {
	const topic = "input and screenshots"
	var c *wayland.Conn
	var err error
	if d.Sway != nil {
		var b *wayland.Backend
		if b, err = d.waylandBackend(ctx); err == nil {
			c, err = b.Conn(ctx)
		}
	} else {
		var path string
		if path, err = wayland.SocketPath(os.Getenv); err == nil {
			if c, err = wayland.Dial(ctx, path); err == nil {
				defer c.Close()
			}
		}
	}
	if err != nil {
		return warn(topic, "set WAYLAND_DISPLAY (and XDG_RUNTIME_DIR) to the compositor's socket; meanwhile act semantically (click, set_value, set_text)",
			"the Wayland socket does not answer: %v", err)
	}
	offered := map[string]uint32{}
	for _, g := range c.Globals() {
		offered[g.Interface] = g.Version
	}
	var have, missing []string
	for _, n := range waylandNeeds {
		if v, ok := offered[n.iface]; ok {
			have = append(have, fmt.Sprintf("%s v%d", n.iface, v))
		} else {
			missing = append(missing, fmt.Sprintf("%s (%s)", n.iface, n.use))
		}
	}
	lacks := ""
	if len(missing) > 0 {
		lacks = fmt.Sprintf("the compositor lacks %s; ", strings.Join(missing, ", "))
	}
	if d.Sway == nil {
		return warn(topic, "run uiscope in sway, which it takes window places from; meanwhile act semantically",
			"%sit offers %s, but without sway's IPC uiscope does not know where windows are, so it uses none of them", lacks, strings.Join(have, ", "))
	}
	if len(missing) > 0 {
		return warn(topic, "use a wlroots compositor that offers them (sway does), or act semantically",
			"%sit offers %s", lacks, strings.Join(have, ", "))
	}
	return ok(topic, "the compositor offers %s", strings.Join(have, ", "))
}
