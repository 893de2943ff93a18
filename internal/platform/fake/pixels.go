package fake

import (
	"context"
	"fmt"
	"image"
	"image/color"

	"github.com/uiscope/uiscope/internal/platform"
)

var _ platform.Pixels = (*Desktop)(nil)

// Pixel is what the fake shows at point x, y of window id's image: a
// pattern of the window's own, so that a test can tell its pixels from
// another window's and from anything drawn over them.
func Pixel(id platform.WindowID, x, y int) color.RGBA {
	return color.RGBA{uint8(40 + x%7), uint8(200 - y%9), uint8(150 + (x+y)%11 + int(id)%50), 0xff}
}

// CaptureWindow returns the window's pattern (Pixel), whatever covers it,
// as a backend does. A minimized window fails with ErrWindowHidden, a
// closed one with ErrElementGone. A frozen application's windows are
// still captured: the display server answers, not the application.
func (d *Desktop) CaptureWindow(ctx context.Context, win platform.Window) (*image.RGBA, platform.Rect, error) {
	if err := d.enter(ctx, "CaptureWindow", win.Pid, false); err != nil {
		return nil, platform.Rect{}, err
	}
	d.mu.Lock()
	w := d.window(win.ID)
	var cur platform.Window
	if w != nil {
		cur = w.Window
	}
	d.mu.Unlock()
	switch {
	case w == nil:
		return nil, platform.Rect{}, fmt.Errorf("%w: no window %s", platform.ErrElementGone, win.ID)
	case !cur.Mapped:
		return nil, platform.Rect{}, fmt.Errorf("window %s is minimized: %w", win.ID, platform.ErrWindowHidden)
	}
	img := image.NewRGBA(image.Rect(0, 0, cur.Bounds.Width, cur.Bounds.Height))
	for y := 0; y < cur.Bounds.Height; y++ {
		for x := 0; x < cur.Bounds.Width; x++ {
			img.SetRGBA(x, y, Pixel(cur.ID, x, y))
		}
	}
	return img, cur.Bounds, nil
}
