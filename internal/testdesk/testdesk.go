//go:build linux

// Package testdesk gives tests one shared sandbox desktop per test binary
// and kind (X11, sway: Desktops, On, ForEach) and launches applications
// into it, returning only once an application is
// really there (on the accessibility bus with a stable tree, or with an X
// window). A desktop that cannot start fails the test; the one skip is
// under -short (make unit), which promises a run without a desktop.
package testdesk

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/atspi"
	"github.com/uiscope/uiscope/internal/platform/sway"
	"github.com/uiscope/uiscope/internal/platform/x11"
	"github.com/uiscope/uiscope/internal/sandbox"
)

// Python is the interpreter for fixture apps: the Debian one, which has gi
// and PyQt5 (a pyenv python3 on PATH may not).
const Python = "/usr/bin/python3"

// Desk is a shared desktop.
type Desk struct {
	*sandbox.Desktop
	A11y *atspi.Conn
	X    *x11.Conn    // the X display; nil on sway
	Sway *sway.Client // sway's IPC; nil on X11
}

// Desktops are the kinds of desktop the tests run on (sandbox.Options
// .Desktop): a test that is not about one of them runs on each (ForEach).
var Desktops = []string{sandbox.DesktopX11, sandbox.DesktopSway}

// Seat, set by a TestMain before the first desktop starts, makes a sway
// desktop's keyboard and pointer (sandbox.Options.Seat; the e2e tests pass
// wayland.HoldDevices). testdesk cannot import the Wayland client, whose
// own tests use it.
var Seat func(ctx context.Context, socket, swaySock string) (io.Closer, error)

// lazy is one kind's shared desktop, started on first use.
type lazy struct {
	once sync.Once
	desk *Desk
	err  error
}

// Xwayland is a desktop kind for On only, not in Desktops: sway with
// Xwayland (sandbox.Options.Xwayland), for the tests of X clients on a
// Wayland desktop.
const Xwayland = "sway+xwayland"

var shared = map[string]*lazy{}

func init() {
	for _, k := range append(slices.Clone(Desktops), Xwayland) {
		shared[k] = &lazy{}
	}
}

// Main runs the tests, tears the shared desktop down after them and exits
// with the tests' code.
func Main(m *testing.M) {
	os.Exit(Run(m))
}

// Run runs the tests and tears the shared desktop down after them,
// returning the tests' exit code: for a TestMain that has more to clean up
// before it exits.
func Run(m *testing.M) int {
	code := m.Run()
	for _, l := range shared {
		if d := l.desk; d != nil {
			d.A11y.Close()
			if d.X != nil {
				d.X.Close()
			}
			d.Close()
		}
	}
	return code
}

// Shared returns the X11 desktop, starting it on first use. Under -short
// the test is skipped instead: nothing starts.
func Shared(t testing.TB) *Desk {
	t.Helper()
	return On(t, sandbox.DesktopX11)
}

// On returns the shared desktop of a kind (one of Desktops), starting it
// on first use. Under -short the test is skipped instead. A desktop that
// does not start fails the test: a sway missing in CI is a failure there,
// not a skip.
func On(t testing.TB, kind string) *Desk {
	t.Helper()
	SkipShort(t)
	l, ok := shared[kind]
	if !ok {
		t.Fatalf("testdesk: no desktop %q (desktops are %v)", kind, Desktops)
	}
	l.once.Do(func() { l.desk, l.err = start(kind) })
	if l.err != nil {
		t.Fatalf("the %s sandbox desktop did not start: %v\n(make deps installs what it needs; make unit runs the tests that need no desktop)", kind, l.err)
	}
	return l.desk
}

// ForEach runs f as a subtest on each desktop of Desktops, named after it.
// UISCOPE_TEST_DESKTOPS (a comma-separated list of kinds) narrows the
// list for a developer's run; unset, as in make test and CI, every
// desktop runs.
//
// The desktops' subtests run at the same time (t.Parallel): each has its
// own display, buses and apps, and most of a desktop test's time is spent
// waiting on its apps, so the suite on two desktops takes far less than
// twice its time on one. Tests themselves stay one after another.
func ForEach(t *testing.T, f func(t *testing.T, d *Desk)) {
	for _, k := range chosen(t) {
		t.Run(k, func(t *testing.T) {
			t.Parallel()
			f(t, On(t, k))
		})
	}
}

// chosen is Desktops, or those UISCOPE_TEST_DESKTOPS names.
func chosen(t *testing.T) []string {
	v := os.Getenv("UISCOPE_TEST_DESKTOPS")
	if v == "" {
		return Desktops
	}
	var kinds []string
	for _, k := range strings.Split(v, ",") {
		if _, ok := shared[k]; !ok {
			t.Fatalf("UISCOPE_TEST_DESKTOPS: no desktop %q (desktops are %v)", k, Desktops)
		}
		kinds = append(kinds, k)
	}
	return kinds
}

func start(kind string) (*Desk, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	opts := sandbox.Options{Desktop: kind, Log: os.Stderr, Seat: Seat}
	if kind == Xwayland {
		opts.Desktop, opts.Xwayland = sandbox.DesktopSway, true
	}
	d, err := sandbox.Start(ctx, opts)
	if err != nil {
		return nil, err
	}
	a, err := atspi.Dial(ctx, d.A11yBus, atspi.SourceUiscopeEnv)
	if err != nil {
		d.Close()
		return nil, err
	}
	if d.Kind == sandbox.DesktopSway {
		// The process's environment stays the X11 desktop's: tests that
		// read in process find that one.
		return &Desk{Desktop: d, A11y: a, Sway: sway.New(d.SwaySock)}, nil
	}
	// The test binary is the desktop's client: tests that read it in
	// process (x11, atspi discovery) find it the way uiscope does.
	os.Setenv("DISPLAY", d.Display)
	os.Setenv("XAUTHORITY", d.XAuthority)
	x, err := x11.OpenContext(ctx, d.Display)
	if err != nil {
		a.Close()
		d.Close()
		return nil, fmt.Errorf("open display %s: %w", d.Display, err)
	}
	return &Desk{Desktop: d, A11y: a, X: x}, nil
}

// SkipShort skips t under -short: the one way a desktop test skips. Tests
// that start a desktop of their own (not through Shared) call it first.
// Without -short (make test, CI) it never skips, whatever is installed: a
// missing Xvfb is a failure there, not a pass.
func SkipShort(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs the sandbox desktop (Xvfb, D-Bus, AT-SPI); skipped under -short")
	}
}

// Fixture returns the path of a fixture app under testdata/apps.
func Fixture(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "apps", name)
}

// Probe returns the path of testdata/probe.py, which reads an element of a
// running app with pyatspi, outside uiscope (its usage is in the script).
func Probe() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "probe.py")
}

// App is a launched application.
type App struct {
	Proc *sandbox.Process
	Pid  int
	Bus  string // on the accessibility bus; "" for X-only apps
}

// Launch starts argv in the desktop and waits until the application is on
// the accessibility bus, shows a window, and its tree has stopped growing.
// It is stopped when the test ends.
func (d *Desk) Launch(t testing.TB, argv ...string) *App {
	t.Helper()
	app := d.start(t, argv)
	d.ready(t, app, argv)
	return app
}

// LaunchAsPid is Launch where the app gets pid, a pid that was in use
// (a process that exited): the kernel is asked to hand out pid next
// (ns_last_pid, which root may write), and launches that miss it, because
// another process forked first, are stopped and tried again. It fails the
// test when the pid cannot be had.
func (d *Desk) LaunchAsPid(t testing.TB, pid int, argv ...string) *App {
	t.Helper()
	for range 200 {
		if err := os.WriteFile("/proc/sys/kernel/ns_last_pid", []byte(strconv.Itoa(pid-1)), 0); err != nil {
			t.Fatalf("choosing the next pid (root writes /proc/sys/kernel/ns_last_pid): %v", err)
		}
		app := d.start(t, argv)
		if app.Pid == pid {
			d.ready(t, app, argv)
			return app
		}
		app.Proc.Stop()
	}
	t.Fatalf("launch %v: the kernel never handed out pid %d", argv, pid)
	return nil
}

// ready waits until a started app is on the accessibility bus, shows a
// window, and its tree has stopped growing.
func (d *Desk) ready(t testing.TB, app *App, argv []string) {
	t.Helper()
	// Generous: a tree of thousands of nodes, read twice to see it hold
	// still, takes a minute or more on a loaded 2-core machine under -race.
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	var last []string
	stable := 0
	err := poll(ctx, app, func() (bool, string) {
		if app.Bus == "" {
			a, err := d.A11y.AppForPid(ctx, app.Pid)
			if err != nil {
				return false, "not on the accessibility bus yet: " + err.Error()
			}
			app.Bus = a.Bus
		}
		if ok, why := d.window(ctx, app.Pid); !ok {
			return false, why
		}
		wctx, wcancel := context.WithTimeout(ctx, 45*time.Second)
		root, st, err := d.A11y.Tree(wctx, app.Bus, atspi.TreeOptions{NoDetails: true})
		wcancel()
		if err != nil || st.Truncated || len(root.Children) == 0 {
			return false, fmt.Sprintf("tree not readable yet (err %v, truncated %v)", err, st.Truncated)
		}
		shape := Shape(root)
		if d.Sway != nil {
			// A Wayland window settles its geometry after it maps (sway
			// adds its title bar once the client says it draws none).
			shape = append(shape, d.swayShape(ctx, app.Pid))
		}
		if equal(shape, last) {
			stable++
		} else {
			stable = 0
		}
		last = shape
		return stable >= 1, fmt.Sprintf("tree still changing (%d nodes)", len(shape))
	})
	if err != nil {
		t.Fatalf("launch %v: %v", argv, err)
	}
}

// LaunchX starts an app that has no accessibility support and waits for its
// X window.
func (d *Desk) LaunchX(t testing.TB, argv ...string) *App {
	t.Helper()
	app := d.start(t, argv)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := poll(ctx, app, func() (bool, string) {
		return d.window(ctx, app.Pid)
	}); err != nil {
		t.Fatalf("launch %v: %v", argv, err)
	}
	return app
}

func (d *Desk) start(t testing.TB, argv []string) *App {
	t.Helper()
	p, err := d.Desktop.Launch(argv)
	if err != nil {
		t.Fatalf("launch %v: %v", argv, err)
	}
	t.Cleanup(func() { p.Stop() })
	return &App{Proc: p, Pid: p.Pid()}
}

// window reports whether pid has a mapped top level, and if not, what the
// X server (or sway) showed instead.
func (d *Desk) window(ctx context.Context, pid int) (bool, string) {
	if d.Sway != nil {
		wins, err := d.Sway.Windows(ctx)
		if err != nil {
			return false, "no sway window yet (reading sway's tree: " + err.Error() + ")"
		}
		for _, w := range wins {
			if w.Pid == pid {
				return true, ""
			}
		}
		return false, fmt.Sprintf("no sway window yet (%d views)", len(wins))
	}
	wins, err := d.X.TopLevels(ctx)
	if err != nil {
		return false, "no mapped X window yet (reading the top levels: " + err.Error() + ")"
	}
	unmapped := 0
	for _, w := range wins {
		if w.Pid == pid {
			if w.Mapped {
				return true, ""
			}
			unmapped++
		}
	}
	return false, fmt.Sprintf("no mapped X window yet (%d top levels, %d of the app unmapped)", len(wins), unmapped)
}

// swayShape is where sway has pid's views now, for seeing them hold
// still.
func (d *Desk) swayShape(ctx context.Context, pid int) string {
	wins, err := d.Sway.Windows(ctx)
	if err != nil {
		return err.Error()
	}
	var b strings.Builder
	for _, w := range wins {
		if w.Pid == pid {
			fmt.Fprintf(&b, "%d %v %v;", w.Con, w.Bounds, w.Frame)
		}
	}
	return b.String()
}

// poll retries cond every 100 ms until it holds, the app exits, or ctx ends.
func poll(ctx context.Context, app *App, cond func() (bool, string)) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	why, tries := "", 0
	for {
		ok, w := cond()
		if ok {
			return nil
		}
		// A check cut short by the deadline says nothing of the app: the
		// one before it does.
		if why == "" || ctx.Err() == nil {
			why = w
		}
		tries++
		select {
		case <-ctx.Done():
			return fmt.Errorf("gave up waiting after %d checks: %s (log: %s%s)", tries, why, app.Proc.LogPath, app.Proc.LogHint())
		case <-app.Proc.Done():
			return fmt.Errorf("exited with status %d before it was ready (log: %s%s)", app.Proc.ExitCode(), app.Proc.LogPath, app.Proc.LogHint())
		case <-tick.C:
		}
	}
}

// Shape lists a tree's nodes as "depth role name" lines, sorted: what two
// reads of an unchanged UI must agree on.
func Shape(root *platform.Node) []string {
	var out []string
	var walk func(n *platform.Node, depth int)
	walk = func(n *platform.Node, depth int) {
		out = append(out, fmt.Sprintf("%d %s %q", depth, n.Role, n.Name))
		for _, k := range n.Children {
			walk(k, depth+1)
		}
	}
	walk(root, 0)
	sort.Strings(out)
	return out
}

func equal(a, b []string) bool {
	return len(a) == len(b) && strings.Join(a, "\n") == strings.Join(b, "\n")
}

// Env is the environment for a uiscope process run against the desktop.
func (d *Desk) Env() []string { return d.Desktop.Env() }
