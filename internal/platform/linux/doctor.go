//go:build linux

package linux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/atspi"
	"github.com/uiscope/uiscope/internal/procinfo"
)

// Finding is one line of a diagnosis.
type Finding struct {
	Level   string `json:"level"` // ok, warn, fail
	Topic   string `json:"topic"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
}

func ok(topic, format string, a ...any) Finding {
	return Finding{Level: "ok", Topic: topic, Message: fmt.Sprintf(format, a...)}
}

func warn(topic, fix, format string, a ...any) Finding {
	return Finding{Level: "warn", Topic: topic, Message: fmt.Sprintf(format, a...), Fix: fix}
}

func fail(topic, fix, format string, a ...any) Finding {
	return Finding{Level: "fail", Topic: topic, Message: fmt.Sprintf(format, a...), Fix: fix}
}

// Diagnose checks the desktop: display, window manager, accessibility bus,
// registry, the switch toolkits read, and the environment this process
// would pass on to apps started from it.
func (d *Desktop) Diagnose(ctx context.Context) []Finding {
	fs := []Finding{d.diagnoseDesktop()}
	switch {
	case d.Sway != nil:
		v, err := d.Sway.Version(ctx)
		scr, serr := d.Sway.Screen(ctx)
		if err == nil && serr == nil {
			fs = append(fs, ok("display", "sway %s answers on %s (%dx%d): windows, focus and window actions from its IPC", v.HumanReadable, d.Sway.Socket, scr.Width, scr.Height))
		} else {
			fs = append(fs, warn("display", "restart sway, or point SWAYSOCK at its socket", "sway's IPC stopped answering: %v", errors.Join(err, serr)))
		}
		fs = append(fs, d.diagnoseWayland(ctx))
	case d.X != nil:
		fs = append(fs, ok("display", "X display %s answers (%dx%d)", os.Getenv("DISPLAY"), d.X.Screen().Width, d.X.Screen().Height))
		if wm, err := d.X.WindowManagerPresent(ctx); err == nil && wm {
			fs = append(fs, ok("window manager", "a window manager is running"))
		} else {
			fs = append(fs, warn("window manager", "start one (uiscope sandbox runs openbox)", "no EWMH window manager: window titles and activation are limited"))
		}
	case os.Getenv("WAYLAND_DISPLAY") != "":
		fs = append(fs, d.diagnoseWayland(ctx))
	}
	if d.Sway != nil || os.Getenv("WAYLAND_DISPLAY") != "" {
		fs = append(fs, diagnoseWaylandPackages())
	}
	if d.A11y == nil {
		fs = append(fs, fail("accessibility bus", "start at-spi2-core (it comes with a desktop session), or use 'uiscope sandbox'", "%v", d.A11yErr))
	} else {
		fs = append(fs, ok("accessibility bus", "found via %s", d.A11y.Source))
		if pid, err := d.A11y.RegistryPid(ctx); err == nil {
			fs = append(fs, ok("registry", "at-spi2-registryd answers (pid %d)", pid))
		} else {
			fs = append(fs, fail("registry", "restart the session's at-spi2-core", "the AT-SPI registry does not answer: %v", err))
		}
	}
	if en, sr, err := atspi.Status(ctx); err == nil {
		if en || sr {
			fs = append(fs, ok("a11y switch", "org.a11y.Status IsEnabled=%v ScreenReaderEnabled=%v", en, sr))
		} else {
			fs = append(fs, warn("a11y switch", "gsettings set org.gnome.desktop.interface toolkit-accessibility true, then restart the apps",
				"org.a11y.Status IsEnabled is false: Qt and Chromium apps will not expose a tree"))
		}
	}
	for _, v := range []string{"NO_AT_BRIDGE", "GTK_A11Y"} {
		if val := os.Getenv(v); val != "" && val != "0" {
			fs = append(fs, warn("environment", "unset "+v+" and restart the apps", "%s=%s is set: GTK apps started from this environment will not join the accessibility bus", v, val))
		}
	}
	return fs
}

// DesktopKind names the desktop Open found: "sway", "x11", "wayland" (a
// Wayland compositor without sway's IPC: no windows, input nor captures)
// or "none".
func (d *Desktop) DesktopKind() string {
	switch {
	case d.Sway != nil:
		return "sway"
	case d.X != nil:
		return "x11"
	case os.Getenv("WAYLAND_DISPLAY") != "":
		return "wayland"
	}
	return "none"
}

// diagnoseDesktop names the desktop found and what uiscope does on it.
func (d *Desktop) diagnoseDesktop() Finding {
	const topic = "desktop"
	display, wl := os.Getenv("DISPLAY"), os.Getenv("WAYLAND_DISPLAY")
	switch d.DesktopKind() {
	case "sway":
		xw := ""
		if display != "" {
			xw = fmt.Sprintf("; X clients of its Xwayland (DISPLAY=%s) are sway windows too", display)
		}
		return ok(topic, "sway (Wayland, WAYLAND_DISPLAY=%s and SWAYSOCK): windows from sway's IPC, input and screenshots through Wayland%s", wl, xw)
	case "x11":
		if wl != "" {
			return warn(topic, "in sway, set SWAYSOCK (as swaymsg finds it); other Wayland compositors are seen only through their X clients",
				"x11 through Xwayland (DISPLAY=%s) in a Wayland compositor without sway IPC (WAYLAND_DISPLAY=%s): only X clients' windows are seen, and X11 input and captures reach only them", display, wl)
		}
		return ok(topic, "x11 (DISPLAY=%s)", display)
	case "wayland":
		why := "SWAYSOCK is unset"
		if d.SwayErr != nil && os.Getenv("SWAYSOCK") != "" {
			why = "SWAYSOCK does not answer: " + d.SwayErr.Error()
		}
		return warn(topic, "run uiscope in sway (SWAYSOCK set), or in 'uiscope sandbox --desktop sway'; meanwhile read trees and act semantically (click, set_value, set_text)",
			"Wayland compositor without sway IPC (WAYLAND_DISPLAY=%s; %s): trees and semantic actions work; windows are listed without a place, where their titles tell whose they are (zwlr_foreign_toplevel_management_v1); pointer and keyboard input and screenshots do not work", wl, why)
	}
	msg := "none: neither DISPLAY nor WAYLAND_DISPLAY is set"
	if d.SwayErr != nil && os.Getenv("SWAYSOCK") != "" {
		msg += "; sway's IPC at $SWAYSOCK does not answer: " + d.SwayErr.Error()
	}
	return warn(topic, "run inside an X session or sway, or start one with 'uiscope sandbox'", "%s", msg)
}

// waylandPackages are what apps need on a Wayland desktop beyond the
// compositor, each found by a file it installs.
// (Debian's multiarch and Fedora's library dirs).
var waylandPackages = []struct {
	pkg, use string
	globs    []string
}{
	{"qtwayland5", "Qt 5 apps as Wayland clients (without it they need X11 or fail)",
		[]string{"/usr/lib/*/qt5/plugins/platforms/libqwayland-generic.so", "/usr/lib*/qt5/plugins/platforms/libqwayland-generic.so"}},
	{"xwayland", "X-only apps (Tk, xterm, Java, GTK 2) through sway's Xwayland", []string{"/usr/bin/Xwayland"}},
}

// diagnoseWaylandPackages says which of waylandPackages are installed.
func diagnoseWaylandPackages() Finding {
	var have, missing []string
	for _, p := range waylandPackages {
		found := false
		for _, g := range p.globs {
			m, _ := filepath.Glob(g)
			found = found || len(m) > 0
		}
		if found {
			have = append(have, p.pkg)
		} else {
			missing = append(missing, fmt.Sprintf("%s (%s)", p.pkg, p.use))
		}
	}
	if len(missing) > 0 {
		return warn("packages", "install them (Debian names)", "missing %s; installed: %s", strings.Join(missing, ", "), strings.Join(have, ", "))
	}
	return ok("packages", "installed: %s", strings.Join(have, ", "))
}

// DiagnoseApp explains an application's missing or partial tree.
func (d *Desktop) DiagnoseApp(ctx context.Context, app platform.App) []Finding {
	var fs []Finding
	fws, _ := procinfo.Frameworks(app.Pid)
	has := func(name string) bool {
		for _, f := range fws {
			if f.Name == name {
				return true
			}
		}
		return false
	}
	var names []string
	for _, f := range fws {
		names = append(names, strings.TrimSpace(f.Name+" "+f.Version))
	}
	if len(names) > 0 {
		fs = append(fs, ok("frameworks", "pid %d uses %s", app.Pid, strings.Join(names, ", ")))
	}
	env, _ := procinfo.Environ(app.Pid)
	if app.Accessible {
		fs = append(fs, ok("registered", "pid %d (%s) is on the accessibility bus as %s %s", app.Pid, app.Name, app.Toolkit, app.ToolkitVersion))
	} else {
		fs = append(fs, fail("registered", "", "pid %d (%s) has windows but is not on the accessibility bus", app.Pid, app.Name))
		switch {
		case has("Tk"):
			fs = append(fs, fail("toolkit", "use the visual tree, screenshots and pointer input for it", "Tk has no AT-SPI support: this app can never expose an accessibility tree"))
		case has("Chromium") || has("Electron"):
			if !strings.Contains(strings.Join(procinfo.Cmdline(app.Pid), " "), "--force-renderer-accessibility") {
				fs = append(fs, fail("toolkit", "restart it with --force-renderer-accessibility", "Chromium/Electron builds its accessibility tree only when asked"))
			}
		case env["NO_AT_BRIDGE"] == "1":
			fs = append(fs, fail("environment", "restart it without NO_AT_BRIDGE", "the app was started with NO_AT_BRIDGE=1, which disables GTK's accessibility bridge"))
		case env["GTK_A11Y"] == "none":
			fs = append(fs, fail("environment", "restart it without GTK_A11Y=none", "the app was started with GTK_A11Y=none"))
		case has("Qt 5") || has("Qt 6"):
			fs = append(fs, fail("toolkit", "restart it with QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 (and AT_SPI_BUS on the root window)", "Qt decides at start whether to expose its tree; it was off when this app started"))
		case has("GTK 2") && !has("ATK bridge"):
			fs = append(fs, fail("toolkit", "restart it with GTK_MODULES=gail:atk-bridge (from the packages libgail-common and libatk-adaptor); apps started in 'uiscope sandbox' get it",
				"GTK 2 loads its accessibility only as modules, and this app was started without them"))
		case has("GTK 3") && !has("ATK bridge"):
			fs = append(fs, fail("toolkit", "install libatk-adaptor and restart the app", "GTK 3 app without the ATK bridge loaded"))
		default:
			fs = append(fs, d.startedBefore(ctx, app)...)
		}
		return fs
	}
	fs = append(fs, d.startedBefore(ctx, app)...)
	switch {
	case strings.EqualFold(app.Toolkit, "chromium") || has("Chromium") || has("Electron"):
		if !strings.Contains(strings.Join(procinfo.Cmdline(app.Pid), " "), "--force-renderer-accessibility") {
			fs = append(fs, fail("toolkit", "restart it with --force-renderer-accessibility (as root, Chromium also needs --no-sandbox)",
				"Chromium/Electron builds its pages' accessibility tree only when asked: started without --force-renderer-accessibility it shows its window frames empty (4 nodes), whatever the page holds"))
		}
	case strings.EqualFold(app.Toolkit, "gecko"):
		fs = append(fs, ok("gecko", "Firefox exports a page's elements to its AT-SPI cache lazily: a read just after a page loads walks most of the page (slower), and elements appear as the page is exported; wait for an element (wait_for), not for a time"))
	}
	if WindowRelative(app.Toolkit, app.ToolkitVersion) {
		fs = append(fs, ok("gtk4", "GTK 4 caches only the objects it exported so far and reports window-relative extents; uiscope walks the rest and converts bounds to screen pixels"))
	}
	return fs
}

// WhyInaccessible says why an application with windows has no
// accessibility tree and what to do, from the findings of DiagnoseApp
// that failed ("" when none did).
func (d *Desktop) WhyInaccessible(ctx context.Context, app platform.App) string {
	var why []string
	for _, f := range d.DiagnoseApp(ctx, app) {
		if f.Level != "fail" || f.Topic == "registered" {
			continue
		}
		s := f.Message
		if f.Fix != "" {
			s += ": " + f.Fix
		}
		why = append(why, s)
	}
	return strings.Join(why, "; ")
}

// startedBefore notes an app started before the accessibility registry:
// toolkits decide at start whether to talk to it.
func (d *Desktop) startedBefore(ctx context.Context, app platform.App) []Finding {
	if d.A11y == nil {
		return nil
	}
	rpid, err := d.A11y.RegistryPid(ctx)
	if err != nil {
		return nil
	}
	reg, err1 := procinfo.Lookup(rpid)
	me, err2 := procinfo.Lookup(app.Pid)
	if err1 == nil && err2 == nil && me.StartTime < reg.StartTime {
		return []Finding{warn("start order", "restart the app", "pid %d started before the accessibility registry; many toolkits only connect at start", app.Pid)}
	}
	return nil
}
