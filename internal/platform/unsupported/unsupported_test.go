package unsupported

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
)

// TestEveryPartAnswersNotSupported: each part of the desktop is there (so
// the core's own "this platform cannot ..." never shows) and fails with
// Err, which is platform.ErrNotSupported and names the system.
func TestEveryPartAnswersNotSupported(t *testing.T) {
	ctx := context.Background()
	d := Desktop()
	app := platform.App{Pid: 1}
	errs := map[string]error{}
	_, errs["Apps"] = d.Accessibility.Apps(ctx)
	_, _, errs["Tree"] = d.Accessibility.Tree(ctx, app, platform.TreeOptions{})
	_, errs["Element"] = d.Accessibility.Element(ctx, app, "k")
	_, errs["Owner"] = d.Accessibility.Owner(ctx, app)
	_, errs["Process"] = d.Processes.Process(ctx, 1)
	_, errs["Frameworks"] = d.Processes.Frameworks(ctx, 1)
	_, errs["Window"] = d.Windows.Window(ctx, app, "k")
	errs["Activate"] = d.Windows.Activate(ctx, platform.Window{})
	_, errs["ActiveWindow"] = d.Windows.ActiveWindow(ctx)
	_, errs["TopmostAt"] = d.Windows.TopmostAt(ctx, 0, 0)
	_, errs["WindowPid"] = d.Windows.WindowPid(ctx, 1)
	errs["WindowAction"] = d.Windows.WindowAction(ctx, platform.Window{}, "close")
	_, errs["Screen"] = d.Windows.Screen(ctx)
	errs["Click"] = d.Input.Click(ctx, 0, 0, 1, 1)
	errs["Wheel"] = d.Input.Wheel(ctx, 0, 0, 0, 1)
	errs["ValidateChord"] = d.Input.ValidateChord("Enter")
	errs["KeyChord"] = d.Input.KeyChord(ctx, "Enter")
	_, errs["TypeText"] = d.Input.TypeText(ctx, "x")
	_, errs["DoAction"] = d.Actions.DoAction(ctx, app, "k", "click")
	_, _, errs["SetText"] = d.Actions.SetText(ctx, app, "k", "x")
	_, errs["SetValue"] = d.Actions.SetValue(ctx, app, "k", 1)
	errs["GrabFocus"] = d.Actions.GrabFocus(ctx, app, "k")
	errs["ScrollTo"] = d.Actions.ScrollTo(ctx, app, "k")
	errs["Select"] = d.Actions.Select(ctx, app, "k", 0, true, false)
	_, errs["IsSelected"] = d.Actions.IsSelected(ctx, app, "k", 0)
	errs["SelectText"] = d.Actions.SelectText(ctx, app, "k", 0, 1)
	_, stop, werr := d.Events.Watch(ctx, app)
	stop()
	errs["Watch"] = werr
	_, _, errs["CaptureWindow"] = d.Pixels.CaptureWindow(ctx, platform.Window{})
	for name, err := range errs {
		if !errors.Is(err, platform.ErrNotSupported) || !strings.Contains(err.Error(), "only on Linux") {
			t.Errorf("%s: %v; want ErrNotSupported saying only Linux is supported", name, err)
		}
	}
}
