// Package unsupported is the backend of the systems uiscope has no backend
// for yet (Windows, macOS): every part of the seam answers
// platform.ErrNotSupported with a message saying that only Linux is
// supported so far. With it the CLI and the MCP server build and run
// everywhere, and fail each operation with data (errorCode notSupported)
// instead of not starting; a real backend replaces it as one new package
// (docs/platform.md).
package unsupported

import (
	"context"
	"image"
	"runtime"

	"github.com/uiscope/uiscope/internal/platform"
)

// Desktop returns the desktop of a system without a backend: every part
// present, every call failing with Err.
func Desktop() platform.Desktop {
	var d desk
	return platform.Desktop{Accessibility: d, Processes: d, Windows: d, Input: d, Actions: d, Events: d, Pixels: d}
}

// Err is what every call answers: it matches platform.ErrNotSupported
// (errors.Is) and says which systems are supported.
var Err error = osError{}

type osError struct{}

func (osError) Error() string {
	return "uiscope reads and drives desktops only on Linux (X11 with AT-SPI) so far; this is " + runtime.GOOS +
		", which has no backend yet: run uiscope on a Linux desktop, or in 'uiscope sandbox' there"
}

func (osError) Is(target error) bool { return target == platform.ErrNotSupported }

// desk implements every part of platform.Desktop by failing.
type desk struct{}

func (desk) Apps(context.Context) ([]platform.App, error) { return nil, Err }
func (desk) Tree(context.Context, platform.App, platform.TreeOptions) (*platform.Node, platform.TreeStats, error) {
	return nil, platform.TreeStats{}, Err
}
func (desk) Element(context.Context, platform.App, string) (*platform.Details, error) {
	return nil, Err
}
func (desk) Owner(context.Context, platform.App) (int, error) { return 0, Err }

func (desk) Process(context.Context, int) (platform.Process, error) {
	return platform.Process{}, Err
}
func (desk) Frameworks(context.Context, int) ([]platform.Framework, error) { return nil, Err }

func (desk) Window(context.Context, platform.App, string) (platform.Window, error) {
	return platform.Window{}, Err
}
func (desk) Activate(context.Context, platform.Window) error { return Err }
func (desk) ActiveWindow(context.Context) (platform.WindowID, error) {
	return 0, Err
}
func (desk) TopmostAt(context.Context, int, int) (platform.WindowID, error) { return 0, Err }
func (desk) WindowPid(context.Context, platform.WindowID) (int, error)      { return 0, Err }
func (desk) WindowAction(context.Context, platform.Window, string) error    { return Err }
func (desk) Screen(context.Context) (platform.Rect, error)                  { return platform.Rect{}, Err }

func (desk) Click(context.Context, int, int, int, int) error { return Err }
func (desk) Wheel(context.Context, int, int, int, int) error { return Err }
func (desk) ValidateChord(string) error                      { return Err }
func (desk) KeyChord(context.Context, string) error          { return Err }
func (desk) TypeText(context.Context, string) (int, error)   { return 0, Err }

func (desk) DoAction(context.Context, platform.App, string, ...string) (string, error) {
	return "", Err
}
func (desk) SetText(context.Context, platform.App, string, string) (string, string, error) {
	return "", "", Err
}
func (desk) SetValue(context.Context, platform.App, string, float64) (float64, error) {
	return 0, Err
}
func (desk) GrabFocus(context.Context, platform.App, string) error { return Err }
func (desk) ScrollTo(context.Context, platform.App, string) error  { return Err }
func (desk) Select(context.Context, platform.App, string, int, bool, bool) error {
	return Err
}
func (desk) IsSelected(context.Context, platform.App, string, int) (bool, error) {
	return false, Err
}
func (desk) SelectText(context.Context, platform.App, string, int, int) error { return Err }

func (desk) Watch(context.Context, platform.App) (<-chan struct{}, func(), error) {
	return nil, func() {}, Err
}

func (desk) CaptureWindow(context.Context, platform.Window) (*image.RGBA, platform.Rect, error) {
	return nil, platform.Rect{}, Err
}
