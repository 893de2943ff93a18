//go:build linux

package linux

import (
	"context"
	"fmt"
	"image"

	"github.com/uiscope/uiscope/internal/platform"
)

var _ platform.Pixels = (*Desktop)(nil)
var _ platform.HeldReader = (*Desktop)(nil)

// CaptureWindow captures a window through X11 (Composite, so that covered
// parts are the window's own pixels).
func (d *Desktop) CaptureWindow(ctx context.Context, win platform.Window) (*image.RGBA, platform.Rect, error) {
	xc, err := d.x(ctx)
	if err != nil {
		return nil, platform.Rect{}, err
	}
	id, ok := xid(win.ID)
	if !ok {
		return nil, platform.Rect{}, fmt.Errorf("%w: %s is not an X window", platform.ErrElementGone, win.ID)
	}
	return xc.CaptureWindow(ctx, id)
}
