//go:build linux

// Package sandbox runs a private headless desktop with a working AT-SPI2
// accessibility bus, so that uiscope can read GUI applications without a
// real session. On X11 (the default): Xvfb (cookie auth, no TCP) -> a
// private D-Bus session bus -> the activated AT-SPI bus launcher and its
// bus -> the AT-SPI registry -> org.a11y.Status switched on -> the
// AT_SPI_BUS root window property -> optionally openbox. On sway
// (sway.go): headless sway (as an unprivileged uid when this process is
// root: sway refuses root) -> the same buses and switches.
//
// Every step waits for a readiness condition with a deadline instead of
// sleeping. Every process is recorded with its kernel start time and stopped
// by pid in reverse start order; a failed Start stops whatever it had
// started. Nothing here touches the caller's own session.
package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/uiscope/uiscope/internal/procinfo"
)

// Options configures Start. The zero value is an X11 desktop, a
// 1920x1080x24 screen with openbox and 20 s per readiness step.
type Options struct {
	Desktop       string // DesktopX11 (default) or DesktopSway
	Screen        string // "WxHxD", default "1920x1080x24"; sway uses WxH
	WindowManager string // "openbox" (default) or "none"; sway is its own
	// Xwayland runs sway with Xwayland (DesktopSway only): apps get DISPLAY
	// as well, and X-only ones show up as sway views.
	Xwayland    bool
	StepTimeout time.Duration // per readiness wait, default 20s
	StateDir    string        // default: a new temp dir, removed on Close
	Log         io.Writer     // progress/diagnostics; nil = discard
	// Seat makes a keyboard and a pointer on a sway desktop's seat, given
	// its Wayland socket and sway's IPC socket, and holds them until closed: a real desktop has
	// them from the start, a headless sway has none until a client makes
	// virtual ones, and the first keyboard moves the keyboard focus into
	// the focused window (its app marks an element FOCUSED only then), the
	// last one going takes it out again. Without it every uiscope process
	// that makes input devices would change what apps hold focused. The
	// sandbox cannot make them itself: the Wayland client's tests start
	// sandboxes (wayland.HoldDevices is the one to pass).
	Seat func(ctx context.Context, socket, swaySock string) (io.Closer, error)

	// wmCommand replaces the window manager command line (tests use it to
	// make a start fail after the buses are up).
	wmCommand []string
	// onRecord sees every process as it is recorded, even in a failed Start.
	onRecord func(*Process)
}

// The desktops Start can run.
const (
	DesktopX11  = "x11"  // Xvfb and openbox
	DesktopSway = "sway" // headless sway (Wayland)
)

// DefaultScreen is the screen geometry used when Options.Screen is empty;
// gtk3-widget-factory alone is 1366 px wide.
const DefaultScreen = "1920x1080x24"

// DefaultStepTimeout bounds each readiness wait when Options.StepTimeout is 0.
const DefaultStepTimeout = 20 * time.Second

// Desktop is a running sandbox desktop. Its fields are fixed after Start.
type Desktop struct {
	Kind       string // DesktopX11 or DesktopSway
	Display    string // ":N" (X11, or sway's Xwayland)
	XAuthority string // cookie file for Display (X11)
	// WaylandDisplay is the compositor's socket name in RuntimeDir
	// ("wayland-1") and SwaySock its IPC socket (sway).
	WaylandDisplay string
	SwaySock       string
	SessionBus     string // private session bus address
	A11yBus        string // AT-SPI bus address
	RuntimeDir     string // private XDG_RUNTIME_DIR
	swayDir        string // sway's own runtime dir when it runs as another uid
	StateDir       string // logs, sockets, cookie
	Screen         string // geometry in use

	opts      Options
	ownsState bool
	seat      io.Closer // Options.Seat's devices, closed before sway stops
	logw      io.Writer
	cookie    []byte
	displayN  int

	mu         sync.Mutex
	components []*Process // in start order
	launched   []*Process
	appSeq     int
	closed     bool
	closeOnce  sync.Once
	closeErr   error
}

var screenRE = regexp.MustCompile(`^([0-9]{1,5})x([0-9]{1,5})x([0-9]{1,2})$`)

// validateScreen checks a "WxHxD" geometry against what Xvfb accepts.
func validateScreen(s string) error {
	m := screenRE.FindStringSubmatch(s)
	if m == nil {
		return fmt.Errorf("sandbox: screen %q is not WIDTHxHEIGHTxDEPTH (e.g. %s)", s, DefaultScreen)
	}
	w, _ := strconv.Atoi(m[1])
	h, _ := strconv.Atoi(m[2])
	d, _ := strconv.Atoi(m[3])
	if w < 64 || h < 64 || w > 16384 || h > 16384 {
		return fmt.Errorf("sandbox: screen %q: width and height must be 64..16384", s)
	}
	if !slices.Contains([]int{8, 15, 16, 24, 30, 32}, d) {
		return fmt.Errorf("sandbox: screen %q: depth must be 8, 15, 16, 24, 30 or 32", s)
	}
	return nil
}

func (o *Options) normalize() error {
	switch o.Desktop {
	case "":
		o.Desktop = DesktopX11
	case DesktopX11, DesktopSway:
	default:
		return fmt.Errorf("sandbox: desktop %q: want %s or %s", o.Desktop, DesktopX11, DesktopSway)
	}
	if o.Xwayland && o.Desktop != DesktopSway {
		return fmt.Errorf("sandbox: Xwayland is for the %s desktop (%s is an X server already)", DesktopSway, o.Desktop)
	}
	if o.Screen == "" {
		o.Screen = DefaultScreen
	}
	if err := validateScreen(o.Screen); err != nil {
		return err
	}
	switch o.WindowManager {
	case "":
		o.WindowManager = "openbox"
	case "openbox", "none":
	default:
		return fmt.Errorf("sandbox: window manager %q: want openbox or none", o.WindowManager)
	}
	if o.StepTimeout <= 0 {
		o.StepTimeout = DefaultStepTimeout
	}
	return nil
}

// Start brings the desktop up. On error everything it started is stopped
// again and the state directory it created is removed. ctx cancels the
// start; it does not bound the desktop's lifetime (call Close).
func Start(ctx context.Context, opts Options) (d *Desktop, err error) {
	if err := opts.normalize(); err != nil {
		return nil, err
	}
	d = &Desktop{Kind: opts.Desktop, opts: opts, Screen: opts.Screen, logw: opts.Log}
	if d.logw == nil {
		d.logw = io.Discard
	}
	if opts.StateDir == "" {
		dir, err := os.MkdirTemp("", "uiscope-sandbox-")
		if err != nil {
			return nil, fmt.Errorf("sandbox: state dir: %w", err)
		}
		d.StateDir, d.ownsState = dir, true
	} else {
		dir, err := filepath.Abs(opts.StateDir)
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("sandbox: state dir: %w", err)
		}
		d.StateDir = dir
	}
	defer func() {
		if err != nil {
			d.logf("start failed, rolling back: %v", err)
			if cerr := d.Close(); cerr != nil {
				d.logf("rollback: %v", cerr)
			}
			d = nil
		}
	}()
	started := time.Now()
	type step struct {
		name string
		run  func(context.Context) error
	}
	buses := []step{
		{"session bus", d.startSessionBus},
		{"accessibility bus", d.startA11yBus},
		{"accessibility registry", d.startRegistry},
		{"accessibility switches", d.enableA11y},
	}
	// The display comes first: services the session bus activates get
	// its address.
	var steps []step
	switch d.Kind {
	case DesktopSway:
		steps = append([]step{{"sway", d.startSway}}, buses...)
	default:
		steps = append([]step{{"X server", d.startX}}, buses...)
		steps = append(steps, step{"AT_SPI_BUS root property", d.publishA11yBus}, step{"window manager", d.startWM})
	}
	for _, s := range steps {
		if err := ctx.Err(); err != nil {
			return d, fmt.Errorf("sandbox: start cancelled before %s: %w", s.name, err)
		}
		if err := s.run(ctx); err != nil {
			return d, fmt.Errorf("sandbox: %s: %w", s.name, err)
		}
	}
	d.logf("desktop ready on %s in %v (state in %s)", d.Where(), time.Since(started).Round(time.Millisecond), d.StateDir)
	return d, nil
}

func (d *Desktop) logf(format string, args ...any) {
	fmt.Fprintf(d.logw, "sandbox: "+format+"\n", args...)
}

func (d *Desktop) record(p *Process) {
	d.mu.Lock()
	d.components = append(d.components, p)
	d.mu.Unlock()
	if d.opts.onRecord != nil {
		d.opts.onRecord(p)
	}
	d.logf("started %s (pid %d)", p.Name, p.Pid())
}

// waitFor polls try until it succeeds, the step deadline passes, ctx ends,
// or the process it depends on exits. The interval backs off to 200 ms.
func (d *Desktop) waitFor(ctx context.Context, what string, watch *Process, try func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, d.opts.StepTimeout)
	defer cancel()
	delay := 10 * time.Millisecond
	for {
		err := try(ctx)
		if err == nil {
			return nil
		}
		if watch != nil && watch.exited() {
			return fmt.Errorf("%s exited while waiting for %s (%v)%s", watch.Name, what, err, watch.LogHint())
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("no %s after %v: %v%s", what, d.opts.StepTimeout, err, watchHint(watch))
		case <-t.C:
		}
		delay = min(delay*2, 200*time.Millisecond)
	}
}

// LogHint quotes the end of a process's log ("; NAME said: …", or "" when
// it logged nothing): on a failed start the state dir, and the log with it,
// is removed, so a failure message carries it.
func (p *Process) LogHint() string {
	if p.LogPath == "" {
		return ""
	}
	b, err := os.ReadFile(p.LogPath)
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return ""
	}
	if len(b) > 600 {
		b = b[len(b)-600:]
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return fmt.Sprintf("; %s said: %s", p.Name, strings.Join(lines, " | "))
}

func watchHint(p *Process) string {
	if p == nil {
		return ""
	}
	return p.LogHint()
}

// Where names the display the desktop runs on, for messages.
func (d *Desktop) Where() string {
	if d.Kind == DesktopSway && d.Display != "" {
		return "sway " + d.WaylandDisplay + " (Xwayland " + d.Display + ")"
	}
	if d.Kind == DesktopSway {
		return "sway " + d.WaylandDisplay
	}
	return d.Display
}

// displayEnv is the variables that point a toolkit at the desktop's
// display (and only at it).
func (d *Desktop) displayEnv() map[string]string {
	if d.Kind == DesktopSway {
		m := map[string]string{
			"XDG_RUNTIME_DIR": d.RuntimeDir,
			"GDK_BACKEND":     "wayland",
			"QT_QPA_PLATFORM": "wayland",
		}
		if d.WaylandDisplay != "" {
			m["WAYLAND_DISPLAY"] = d.WaylandDisplay
		}
		if d.Display != "" {
			m["DISPLAY"] = d.Display
		}
		return m
	}
	return map[string]string{
		"DISPLAY":         d.Display,
		"XAUTHORITY":      d.XAuthority,
		"XDG_RUNTIME_DIR": d.RuntimeDir,
		"GDK_BACKEND":     "x11",
		"QT_QPA_PLATFORM": "xcb",
	}
}

// componentEnv is what the desktop's own processes run with.
func (d *Desktop) componentEnv() []string {
	env := baseEnv()
	de := d.displayEnv()
	for _, k := range slices.Sorted(maps.Keys(de)) {
		env = append(env, k+"="+de[k])
	}
	if d.SessionBus != "" {
		env = append(env, "DBUS_SESSION_BUS_ADDRESS="+d.SessionBus)
	}
	return env
}

func (d *Desktop) startComponent(name string, argv []string, extra []*os.File) (*Process, error) {
	return d.startComponentAs(name, argv, d.componentEnv(), extra, nil)
}

// startComponentAs starts a component with env, as the user cred names
// (nil: this process's).
func (d *Desktop) startComponentAs(name string, argv, env []string, extra []*os.File, cred *syscall.Credential) (*Process, error) {
	logName := strings.ToLower(strings.ReplaceAll(name, " ", "-")) + ".log"
	p, err := spawn(name, argv, env, d.StateDir, stdio{logPath: filepath.Join(d.StateDir, logName), extra: extra, cred: cred})
	if err != nil {
		return nil, err
	}
	d.record(p)
	return p, nil
}

// makeRuntimeDir creates the private XDG_RUNTIME_DIR, 0700.
func (d *Desktop) makeRuntimeDir() error {
	d.RuntimeDir = filepath.Join(d.StateDir, "runtime")
	if err := os.MkdirAll(d.RuntimeDir, 0o700); err != nil {
		return err
	}
	// MkdirAll keeps the mode of an existing dir; toolkits refuse a
	// runtime dir others can read.
	return os.Chmod(d.RuntimeDir, 0o700)
}

func (d *Desktop) startX(ctx context.Context) error {
	if err := d.makeRuntimeDir(); err != nil {
		return err
	}
	cookie, err := newCookie()
	if err != nil {
		return err
	}
	d.cookie = cookie
	d.XAuthority = filepath.Join(d.StateDir, "Xauthority")
	if err := writeXauthority(d.XAuthority, cookie); err != nil {
		return err
	}
	removeStaleXLocks(d.logf)

	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	// No display number: with -displayfd Xvfb takes the first free one and
	// reports it once it accepts clients. -noreset keeps root window
	// properties when the last client disconnects.
	p, err := d.startComponent("Xvfb", []string{"Xvfb", "-displayfd", "3", "-screen", "0", d.opts.Screen,
		"-nolisten", "tcp", "-auth", d.XAuthority, "-noreset"}, []*os.File{w})
	w.Close()
	if err != nil {
		return err
	}
	line, err := readLine(ctx, r, d.opts.StepTimeout)
	if err != nil {
		return fmt.Errorf("no display number from Xvfb: %v%s", err, p.LogHint())
	}
	n, err := strconv.Atoi(line)
	if err != nil || n < 0 {
		return fmt.Errorf("bad display number %q from Xvfb%s", line, p.LogHint())
	}
	d.displayN, d.Display = n, ":"+line
	return d.waitFor(ctx, "X server answering on "+d.Display, p, func(ctx context.Context) error {
		x, err := dialX(n, d.cookie)
		if err != nil {
			return err
		}
		defer x.Close()
		_, err = x.atom(ctx, "_NET_SUPPORTED")
		return err
	})
}

func (d *Desktop) startSessionBus(ctx context.Context) error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	// --nofork keeps the daemon this process's child, so its pid is known from the
	// start; --print-address writes once the socket listens.
	p, err := d.startComponent("dbus-daemon session", []string{"dbus-daemon", "--session", "--nofork", "--nopidfile",
		"--address=unix:path=" + filepath.Join(d.StateDir, "bus"), "--print-address=3"}, []*os.File{w})
	w.Close()
	if err != nil {
		return err
	}
	addr, err := readLine(ctx, r, d.opts.StepTimeout)
	if err != nil || addr == "" {
		return fmt.Errorf("dbus-daemon printed no address: %v%s", err, p.LogHint())
	}
	d.SessionBus = addr
	var bus *busConn
	err = d.waitFor(ctx, "session bus", p, func(ctx context.Context) error {
		var err error
		bus, err = dialBus(ctx, addr)
		return err
	})
	if err != nil {
		return err
	}
	defer bus.Close()
	// Services the bus activates (the AT-SPI launcher, dconf...) must find
	// this display and runtime dir, not the caller's.
	env := d.displayEnv()
	sctx, cancel := context.WithTimeout(ctx, d.opts.StepTimeout)
	defer cancel()
	return bus.busCall(sctx, "UpdateActivationEnvironment", []any{env})
}

func (d *Desktop) startA11yBus(ctx context.Context) error {
	bus, err := dialBus(ctx, d.SessionBus)
	if err != nil {
		return err
	}
	defer bus.Close()
	sctx, cancel := context.WithTimeout(ctx, d.opts.StepTimeout)
	defer cancel()
	pid, err := bus.startService(sctx, "org.a11y.Bus")
	if err != nil {
		return fmt.Errorf("%w (is at-spi2-core installed?)", err)
	}
	launcher, err := adopt("at-spi-bus-launcher", pid)
	if err != nil {
		return err
	}
	d.record(launcher)

	err = d.waitFor(ctx, "org.a11y.Bus address", launcher, func(ctx context.Context) error {
		var addr string
		if err := bus.call(ctx, "org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus.GetAddress", nil, &addr); err != nil {
			return err
		}
		if addr == "" {
			return errors.New("empty address")
		}
		d.A11yBus = addr
		return nil
	})
	if err != nil {
		return err
	}
	// The launcher runs the bus daemon as its child: record it so teardown
	// does not depend on the launcher cleaning up after itself.
	return d.waitFor(ctx, "AT-SPI bus daemon", launcher, func(ctx context.Context) error {
		for _, c := range procinfo.Children(launcher.Pid()) {
			if comm := procinfo.Comm(c); comm == "dbus-daemon" || strings.HasPrefix(comm, "dbus-broker") {
				p, err := adopt("dbus-daemon a11y", c)
				if err != nil {
					return err
				}
				d.record(p)
				return nil
			}
		}
		return fmt.Errorf("no bus daemon child of pid %d yet", launcher.Pid())
	})
}

func (d *Desktop) startRegistry(ctx context.Context) error {
	var bus *busConn
	err := d.waitFor(ctx, "AT-SPI bus connection", d.lastComponent(), func(ctx context.Context) error {
		var err error
		bus, err = dialBus(ctx, d.A11yBus)
		return err
	})
	if err != nil {
		return err
	}
	defer bus.Close()
	sctx, cancel := context.WithTimeout(ctx, d.opts.StepTimeout)
	defer cancel()
	pid, err := bus.startService(sctx, "org.a11y.atspi.Registry")
	if err != nil {
		return err
	}
	reg, err := adopt("at-spi2-registryd", pid)
	if err != nil {
		return err
	}
	d.record(reg)
	return d.waitFor(ctx, "AT-SPI registry root", reg, func(ctx context.Context) error {
		var kids []struct {
			Name string
			Path dbus.ObjectPath
		}
		return bus.call(ctx, "org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root",
			"org.a11y.atspi.Accessible.GetChildren", nil, &kids)
	})
}

// enableA11y tells toolkits that an assistive technology runs: Qt reads
// IsEnabled or ScreenReaderEnabled once at start, Chromium and accesskit
// only ScreenReaderEnabled.
func (d *Desktop) enableA11y(ctx context.Context) error {
	bus, err := dialBus(ctx, d.SessionBus)
	if err != nil {
		return err
	}
	defer bus.Close()
	sctx, cancel := context.WithTimeout(ctx, d.opts.StepTimeout)
	defer cancel()
	for _, prop := range []string{"IsEnabled", "ScreenReaderEnabled"} {
		if err := bus.call(sctx, "org.a11y.Bus", "/org/a11y/bus", "org.freedesktop.DBus.Properties.Set",
			[]any{"org.a11y.Status", prop, dbus.MakeVariant(true)}); err != nil {
			return err
		}
		var v dbus.Variant
		if err := bus.call(sctx, "org.a11y.Bus", "/org/a11y/bus", "org.freedesktop.DBus.Properties.Get",
			[]any{"org.a11y.Status", prop}, &v); err != nil {
			return err
		}
		if on, _ := v.Value().(bool); !on {
			return fmt.Errorf("org.a11y.Status.%s stays %v", prop, v.Value())
		}
	}
	return nil
}

// publishA11yBus sets AT_SPI_BUS on the root window, as a launcher built
// with X11 support would. Qt 5 registers its tree reliably only with it.
func (d *Desktop) publishA11yBus(ctx context.Context) error {
	x, err := dialX(d.displayN, d.cookie)
	if err != nil {
		return err
	}
	defer x.Close()
	sctx, cancel := context.WithTimeout(ctx, d.opts.StepTimeout)
	defer cancel()
	if err := x.setRootString(sctx, "AT_SPI_BUS", d.A11yBus); err != nil {
		return err
	}
	v, _, err := x.rootProperty(sctx, "AT_SPI_BUS")
	if err != nil {
		return err
	}
	if string(v) != d.A11yBus {
		return fmt.Errorf("AT_SPI_BUS reads back %q", v)
	}
	return nil
}

func (d *Desktop) startWM(ctx context.Context) error {
	if d.opts.WindowManager == "none" {
		return nil
	}
	argv := d.opts.wmCommand
	if argv == nil {
		argv = []string{"openbox", "--sm-disable"}
	}
	p, err := d.startComponent("openbox", argv, nil)
	if err != nil {
		return err
	}
	x, err := dialX(d.displayN, d.cookie)
	if err != nil {
		return err
	}
	defer x.Close()
	return d.waitFor(ctx, "_NET_SUPPORTING_WM_CHECK from the window manager", p, func(ctx context.Context) error {
		v, _, err := x.rootProperty(ctx, "_NET_SUPPORTING_WM_CHECK")
		if err != nil {
			return err
		}
		if len(v) < 4 {
			return errors.New("not set yet")
		}
		return nil
	})
}

func (d *Desktop) lastComponent() *Process {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.components) == 0 {
		return nil
	}
	return d.components[len(d.components)-1]
}

// Components returns the desktop's own processes in start order.
func (d *Desktop) Components() []*Process {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.components)
}

// Processes returns every process the desktop recorded: its components,
// then the launched programs.
func (d *Desktop) Processes() []*Process {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append(slices.Clone(d.components), d.launched...)
}

// strippedVars never pass from the caller's environment into the desktop:
// they would point programs at the caller's session or switch a11y off.
var strippedVars = []string{"DISPLAY", "XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS_ADDRESS",
	"XDG_RUNTIME_DIR", "XDG_SESSION_TYPE", "WAYLAND_DISPLAY", "WAYLAND_SOCKET", "SWAYSOCK", "I3SOCK", "NO_AT_BRIDGE", "GTK_A11Y"}

func baseEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(strippedVars, k) {
			env = append(env, kv)
		}
	}
	return env
}

// added lists the variables Env sets, in a stable order.
func (d *Desktop) added() [][2]string {
	display := [][2]string{
		{"DISPLAY", d.Display},
		{"XAUTHORITY", d.XAuthority},
		{"DBUS_SESSION_BUS_ADDRESS", d.SessionBus},
		{"XDG_RUNTIME_DIR", d.RuntimeDir},
		{"XDG_SESSION_TYPE", "x11"},
		{"GDK_BACKEND", "x11"},
		{"QT_QPA_PLATFORM", "xcb"},
	}
	if d.Kind == DesktopSway {
		// Wayland only: no DISPLAY, so nothing falls back to an X server,
		// unless sway runs Xwayland (then toolkits still pick Wayland
		// first; X-only apps use DISPLAY).
		display = [][2]string{
			{"WAYLAND_DISPLAY", d.WaylandDisplay},
			{"SWAYSOCK", d.SwaySock},
			{"DBUS_SESSION_BUS_ADDRESS", d.SessionBus},
			{"XDG_RUNTIME_DIR", d.RuntimeDir},
			// Chromium's default platform hint picks Wayland only in a
			// session that says it is one (without it Chromium 156 tried
			// X11 and exited: "Missing X server or $DISPLAY").
			{"XDG_SESSION_TYPE", "wayland"},
			{"GDK_BACKEND", "wayland"},
			{"QT_QPA_PLATFORM", "wayland"},
			{"MOZ_ENABLE_WAYLAND", "1"},
		}
		if d.Display != "" {
			display = append([][2]string{{"DISPLAY", d.Display}}, display...)
		}
	}
	return append(display, [][2]string{
		{"QT_ACCESSIBILITY", "1"},
		{"QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "1"},
		// GTK 2 (GIMP 2.10) loads its accessibility only as modules; GTK 3
		// has both built in and skips these names, GTK 4 reads no modules.
		{"GTK_MODULES", gtkModules(os.Getenv("GTK_MODULES"))},
		// GTK 4's GL renderer runs on llvmpipe under Xvfb and starves its
		// idle-priority a11y registration.
		{"GSK_RENDERER", "cairo"},
		// Java switches on its ATK wrapper (Swing, AWT) only when told.
		{"JAVA_TOOL_OPTIONS", javaOptions(os.Getenv("JAVA_TOOL_OPTIONS"), atkWrapperJar())},
		// AT_SPI_BUS_ADDRESS stays unset so a stale value can never point
		// an app at a dead bus; this one is only for uiscope.
		{"UISCOPE_A11Y_BUS", d.A11yBus},
	}...)
}

// gtkModules is the caller's GTK_MODULES with GTK 2's accessibility
// modules, gail and atk-bridge, added where missing.
func gtkModules(caller string) string {
	mods := strings.FieldsFunc(caller, func(r rune) bool { return r == ':' || r == ',' })
	for _, m := range []string{"gail", "atk-bridge"} {
		if !slices.Contains(mods, m) {
			mods = append(mods, m)
		}
	}
	return strings.Join(mods, ":")
}

// atkWrapperJars are where distributions install Java's ATK wrapper
// (Debian's libatk-wrapper-java, Fedora's java-atk-wrapper).
var atkWrapperJars = []string{"/usr/share/java/java-atk-wrapper.jar", "/usr/lib64/java-atk-wrapper/java-atk-wrapper.jar", "/usr/lib/java-atk-wrapper/java-atk-wrapper.jar"}

// atkWrapperJar is the ATK wrapper's jar, "" when none is installed.
func atkWrapperJar() string {
	for _, j := range atkWrapperJars {
		if _, err := os.Stat(j); err == nil {
			return j
		}
	}
	return ""
}

// javaOptions is the caller's JAVA_TOOL_OPTIONS with the ATK wrapper named
// as Java's assistive technology and its jar on the boot class path (so
// that it loads whatever class path the app gives). Without the jar it is
// the caller's: an assistive technology Java cannot load stops the app.
func javaOptions(caller, jar string) string {
	if jar == "" || strings.Contains(caller, "javax.accessibility.assistive_technologies") {
		return caller
	}
	return strings.TrimSpace(caller + " -Xbootclasspath/a:" + jar + " -Djavax.accessibility.assistive_technologies=org.GNOME.Accessibility.AtkWrapper")
}

// Env is the environment for programs run inside the desktop: the
// caller's, minus variables naming another session or disabling a11y, plus
// this desktop's.
func (d *Desktop) Env() []string {
	env := baseEnv()
	for _, kv := range d.added() {
		env = append(env, kv[0]+"="+kv[1])
	}
	return env
}

// ExportLines returns shell lines that set what Env adds (and unset what it
// removes), for eval in a POSIX shell.
func (d *Desktop) ExportLines() string {
	var b strings.Builder
	for _, kv := range d.added() {
		fmt.Fprintf(&b, "export %s=%s\n", kv[0], shellQuote(kv[1]))
	}
	if d.Kind == DesktopSway && d.Display != "" {
		b.WriteString("unset XAUTHORITY WAYLAND_SOCKET I3SOCK NO_AT_BRIDGE GTK_A11Y AT_SPI_BUS_ADDRESS\n")
	} else if d.Kind == DesktopSway {
		b.WriteString("unset DISPLAY XAUTHORITY WAYLAND_SOCKET I3SOCK NO_AT_BRIDGE GTK_A11Y AT_SPI_BUS_ADDRESS\n")
	} else {
		b.WriteString("unset WAYLAND_DISPLAY WAYLAND_SOCKET SWAYSOCK I3SOCK NO_AT_BRIDGE GTK_A11Y AT_SPI_BUS_ADDRESS\n")
	}
	return b.String()
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// LaunchOptions says where a launched program's standard streams go.
type LaunchOptions struct {
	Stdin          io.Reader // nil: /dev/null
	Stdout, Stderr io.Writer // nil: a log file in the state dir
	// ForegroundGroup keeps the program in the caller's process group, so
	// that a terminal's signals and job control reach it (an interactive
	// command); otherwise it gets a group of its own.
	ForegroundGroup bool
}

// Launch starts a program inside the desktop with Env(), its output going
// to a log file in the state dir. It is stopped by Close.
func (d *Desktop) Launch(argv []string) (*Process, error) {
	return d.LaunchWith(argv, LaunchOptions{})
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// LaunchWith is Launch with the standard streams chosen by the caller.
func (d *Desktop) LaunchWith(argv []string, o LaunchOptions) (*Process, error) {
	if len(argv) == 0 {
		return nil, errors.New("sandbox: launch: empty command")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, errors.New("sandbox: launch: desktop is closed")
	}
	d.appSeq++
	name := filepath.Base(argv[0])
	logPath := filepath.Join(d.StateDir, fmt.Sprintf("app-%d-%s.log", d.appSeq, unsafeName.ReplaceAllString(name, "_")))
	p, err := spawn(name, argv, d.Env(), "", stdio{in: o.Stdin, out: o.Stdout, err: o.Stderr,
		logPath: logPath, samePgrp: o.ForegroundGroup})
	if err != nil {
		return nil, err
	}
	d.launched = append(d.launched, p)
	d.logf("launched %s (pid %d)", name, p.Pid())
	return p, nil
}

// Close stops the launched programs, then the desktop's components in
// reverse start order, and removes the state dir if Start created it. It is
// idempotent.
func (d *Desktop) Close() error {
	d.closeOnce.Do(func() {
		d.mu.Lock()
		d.closed = true
		launched := slices.Clone(d.launched)
		comps := slices.Clone(d.components)
		d.mu.Unlock()

		var errs []error
		// Apps first, all at once: each may take the full grace period.
		var wg sync.WaitGroup
		var emu sync.Mutex
		for _, p := range launched {
			wg.Go(func() {
				if err := p.Stop(); err != nil {
					emu.Lock()
					errs = append(errs, err)
					emu.Unlock()
				}
			})
		}
		wg.Wait()
		if d.seat != nil {
			d.seat.Close()
		}
		for _, p := range slices.Backward(comps) {
			if err := p.Stop(); err != nil {
				errs = append(errs, err)
			} else {
				d.logf("stopped %s (pid %d)", p.Name, p.Pid())
			}
		}
		if d.ownsState {
			if err := os.RemoveAll(d.StateDir); err != nil {
				errs = append(errs, err)
			}
		} else if d.RuntimeDir != "" {
			_ = os.RemoveAll(d.RuntimeDir)
			if d.swayDir != "" {
				_ = os.RemoveAll(d.swayDir)
			}
			_ = os.Remove(filepath.Join(d.StateDir, "bus"))
			_ = os.Remove(d.XAuthority)
		}
		d.closeErr = errors.Join(errs...)
	})
	return d.closeErr
}
