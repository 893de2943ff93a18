//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/jezek/xgb"

	"github.com/uiscope/uiscope/internal/procinfo"
)

func TestMain(m *testing.M) {
	// xgb reports on stderr that $XAUTHORITY has no entry for the sandbox
	// display; that is expected, the sandbox passes its cookie itself.
	xgb.Logger = log.New(io.Discard, "", 0)
	os.Exit(m.Run())
}

// need skips a test that starts processes under -short (make unit runs
// without a desktop) and otherwise fails it when a program it starts is
// missing: a desktop test that skips in CI would pass while proving nothing.
func need(t *testing.T, bins ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a desktop; skipped under -short")
	}
	for _, b := range bins {
		if _, err := exec.LookPath(b); err != nil {
			t.Fatalf("%s not installed (make deps installs it)", b)
		}
	}
}

// testWriter sends progress to t.Log so a failure shows what happened.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// startDesktop starts the desktop opts asks for (Xvfb and openbox, or
// headless sway), closed when the test ends.
func startDesktop(t *testing.T, opts Options) *Desktop {
	t.Helper()
	if opts.Desktop == DesktopSway {
		need(t, "sway", "dbus-daemon", "/usr/libexec/at-spi-bus-launcher")
	} else {
		need(t, "Xvfb", "dbus-daemon", "openbox", "/usr/libexec/at-spi-bus-launcher")
	}
	if opts.Log == nil {
		opts.Log = testWriter{t}
	}
	d, err := Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// eventually polls cond until it holds or the limit passes.
func eventually(t *testing.T, limit time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s: %s", limit, what, state)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type ref struct {
	Name string
	Path dbus.ObjectPath
}

func registryChildren(t *testing.T, bus *busConn) []ref {
	t.Helper()
	var kids []ref
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := bus.call(ctx, "org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root",
		"org.a11y.atspi.Accessible.GetChildren", nil, &kids); err != nil {
		t.Fatal(err)
	}
	return kids
}

// launchFactory launches gtk3-widget-factory on d and waits up to limit
// until it registers with AT-SPI (one application more than before on
// the a11y bus) and, when ready is not nil, ready says so too. It fails
// with the app's log if the app exits first.
func launchFactory(t *testing.T, d *Desktop, a11y *busConn, before int, limit time.Duration, what string, ready func(app *Process) (bool, string)) *Process {
	t.Helper()
	app, err := d.Launch([]string{"gtk3-widget-factory"})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, limit, what, func() (bool, string) {
		select {
		case <-app.Done():
			log, _ := os.ReadFile(app.LogPath)
			t.Fatalf("gtk3-widget-factory exited with %d: %s", app.ExitCode(), log)
		default:
		}
		n := len(registryChildren(t, a11y))
		state := fmt.Sprintf("%d applications, want %d", n, before+1)
		if ready == nil {
			return n == before+1, state
		}
		ok, more := ready(app)
		return n == before+1 && ok, state + "; " + more
	})
	return app
}

// leftovers lists live processes whose environment mentions dir: anything
// started in the desktop, recorded or not (activated services included).
func leftovers(dir string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, []byte(dir)) {
			continue
		}
		if id, err := procinfo.Lookup(pid); err == nil && id.Alive() {
			out = append(out, fmt.Sprintf("%d %s", pid, procinfo.Comm(pid)))
		}
	}
	return out
}

func assertGone(t *testing.T, procs []*Process, stateDir string) {
	t.Helper()
	for _, p := range procs {
		if p.Identity.Alive() {
			t.Errorf("%s (pid %d) still alive after Close", p.Name, p.Pid())
		}
	}
	if stateDir != "" {
		if _, err := os.Stat(stateDir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("state dir %s still there (%v)", stateDir, err)
		}
		// Activated services may take a moment to notice their bus is gone.
		eventually(t, 10*time.Second, "processes started in the desktop exit", func() (bool, string) {
			l := leftovers(stateDir)
			return len(l) == 0, strings.Join(l, ", ")
		})
	}
}

func TestDesktop(t *testing.T) {
	need(t, "gtk3-widget-factory")
	d := startDesktop(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	if !strings.HasPrefix(d.Display, ":") || d.A11yBus == "" || d.SessionBus == "" {
		t.Fatalf("incomplete desktop: %+v", d)
	}
	if fi, err := os.Stat(d.RuntimeDir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("runtime dir %s: %v %v", d.RuntimeDir, fi.Mode(), err)
	}

	a11y, err := dialBus(ctx, d.A11yBus)
	if err != nil {
		t.Fatal(err)
	}
	defer a11y.Close()
	before := len(registryChildren(t, a11y))

	x, err := dialX(d.displayN, d.cookie)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	v, _, err := x.rootProperty(ctx, "AT_SPI_BUS")
	if err != nil || string(v) != d.A11yBus {
		t.Fatalf("AT_SPI_BUS = %q (%v), want %q", v, err, d.A11yBus)
	}
	if v, _, err := x.rootProperty(ctx, "_NET_SUPPORTING_WM_CHECK"); err != nil || len(v) != 4 {
		t.Fatalf("_NET_SUPPORTING_WM_CHECK = %v (%v)", v, err)
	}

	session, err := dialBus(ctx, d.SessionBus)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	var on dbus.Variant
	if err := session.call(ctx, "org.a11y.Bus", "/org/a11y/bus", "org.freedesktop.DBus.Properties.Get",
		[]any{"org.a11y.Status", "IsEnabled"}, &on); err != nil || on.Value() != true {
		t.Fatalf("IsEnabled = %v (%v)", on, err)
	}

	env := strings.Join(d.Env(), "\n") + "\n"
	for _, want := range []string{"DISPLAY=" + d.Display + "\n", "UISCOPE_A11Y_BUS=" + d.A11yBus + "\n", "GSK_RENDERER=cairo\n", "XDG_SESSION_TYPE=x11\n"} {
		if !strings.Contains(env, want) {
			t.Errorf("Env lacks %q", want)
		}
	}
	if strings.Contains(env, "AT_SPI_BUS_ADDRESS=") {
		t.Error("Env sets AT_SPI_BUS_ADDRESS")
	}

	app := launchFactory(t, d, a11y, before, 30*time.Second, "gtk3-widget-factory registers with AT-SPI", nil)

	procs := d.Processes()
	if len(procs) != 7 {
		t.Errorf("recorded %d processes, want 6 components and 1 app", len(procs))
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	select {
	case <-app.Done():
	default:
		t.Error("app not done after Close")
	}
	if _, err := d.Launch([]string{"true"}); err == nil {
		t.Error("Launch after Close succeeded")
	}
	assertGone(t, procs, d.StateDir)
}

func TestBadOptions(t *testing.T) {
	for _, o := range []Options{
		{Screen: "1920x1080"},
		{Screen: "axbxc"},
		{Screen: "10x10x24"},
		{Screen: "1920x1080x23"},
		{WindowManager: "bogus"},
		{Xwayland: true}, // X11 is an X server already
	} {
		var recorded []*Process
		o.onRecord = func(p *Process) { recorded = append(recorded, p) }
		d, err := Start(context.Background(), o)
		if err == nil {
			d.Close()
			t.Fatalf("%+v: no error", o)
		}
		if len(recorded) != 0 {
			t.Fatalf("%+v: started %d processes before failing", o, len(recorded))
		}
		t.Logf("%+v: %v", o, err)
	}
}

// TestRollback fails the last step, after the X server, both buses and the
// registry are up, and checks that all of them are gone again.
func TestRollback(t *testing.T) {
	need(t, "Xvfb", "dbus-daemon", "/usr/libexec/at-spi-bus-launcher")
	for name, wm := range map[string][]string{
		"missing binary":   {"uiscope-no-such-window-manager"},
		"exits at once":    {"true"},
		"never gets ready": {"sleep", "600"},
	} {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			var recorded []*Process
			opts := Options{Log: testWriter{t}, wmCommand: wm, StepTimeout: 20 * time.Second}
			if name == "never gets ready" {
				opts.StepTimeout = 6 * time.Second
			}
			opts.onRecord = func(p *Process) {
				mu.Lock()
				recorded = append(recorded, p)
				mu.Unlock()
			}
			d, err := Start(context.Background(), opts)
			if err == nil {
				d.Close()
				t.Fatal("Start succeeded with a broken window manager")
			}
			t.Log(err)
			mu.Lock()
			defer mu.Unlock()
			if len(recorded) < 5 {
				t.Fatalf("only %d processes recorded: the failure came too early to test rollback", len(recorded))
			}
			assertGone(t, recorded, filepath.Dir(recorded[0].LogPath))
		})
	}
}

func TestRollbackOnCancel(t *testing.T) {
	need(t, "Xvfb", "dbus-daemon", "/usr/libexec/at-spi-bus-launcher")
	recorded := startCancelled(t, Options{Log: testWriter{t}, WindowManager: "none"}, func(p *Process) bool {
		return strings.HasPrefix(p.Name, "dbus-daemon session")
	})
	assertGone(t, recorded, filepath.Dir(recorded[0].LogPath))
}

// startCancelled starts a desktop with opts and cancels the start once a
// process that at picks is recorded; it fails the test if Start
// succeeds anyway, and returns the processes recorded.
func startCancelled(t *testing.T, opts Options, at func(p *Process) bool) []*Process {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var recorded []*Process
	opts.onRecord = func(p *Process) {
		mu.Lock()
		recorded = append(recorded, p)
		mu.Unlock()
		if at(p) {
			cancel()
		}
	}
	d, err := Start(ctx, opts)
	if err == nil {
		d.Close()
		t.Fatal("Start succeeded after cancel")
	}
	t.Log(err)
	mu.Lock()
	defer mu.Unlock()
	return slices.Clone(recorded)
}

func TestConcurrentDesktops(t *testing.T) {
	need(t, "Xvfb", "dbus-daemon", "/usr/libexec/at-spi-bus-launcher")
	var wg sync.WaitGroup
	ds := make([]*Desktop, 2)
	errs := make([]error, 2)
	for i := range ds {
		wg.Go(func() {
			ds[i], errs[i] = Start(context.Background(), Options{WindowManager: "none", Screen: "800x600x24", Log: testWriter{t}})
		})
	}
	wg.Wait()
	for i, d := range ds {
		if d != nil {
			t.Cleanup(func() { _ = d.Close() })
		}
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
	}
	if ds[0].Display == ds[1].Display {
		t.Fatalf("both desktops on %s", ds[0].Display)
	}
	if ds[0].A11yBus == ds[1].A11yBus {
		t.Fatalf("both desktops share the a11y bus %s", ds[0].A11yBus)
	}
	var procs []*Process
	for _, d := range ds {
		procs = append(procs, d.Processes()...)
		if err := d.Close(); err != nil {
			t.Error(err)
		}
	}
	assertGone(t, procs, "")
}

func TestLaunchExitCode(t *testing.T) {
	d := startDesktop(t, Options{WindowManager: "none"})
	var out bytes.Buffer
	p, err := d.LaunchWith([]string{"sh", "-c", `echo "$DISPLAY $UISCOPE_A11Y_BUS"; exit 7`}, LaunchOptions{Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	if p.ExitCode() != 7 {
		t.Errorf("exit code %d, want 7", p.ExitCode())
	}
	if want := d.Display + " " + d.A11yBus + "\n"; out.String() != want {
		t.Errorf("output %q, want %q", out.String(), want)
	}
	p, err = d.Launch([]string{"sleep", "600"})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if p.ExitCode() != 128+15 {
		t.Errorf("exit code after Stop %d, want 143", p.ExitCode())
	}
}

func TestExportLines(t *testing.T) {
	d := &Desktop{Display: ":5", XAuthority: "/tmp/it's", A11yBus: "unix:path=/x"}
	got := d.ExportLines()
	if !strings.Contains(got, `export XAUTHORITY='/tmp/it'\''s'`+"\n") {
		t.Errorf("quoting: %s", got)
	}
	out, err := exec.Command("sh", "-c", got+`printf %s "$XAUTHORITY|$DISPLAY|$UISCOPE_A11Y_BUS"`).Output()
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != "/tmp/it's|:5|unix:path=/x" {
		t.Errorf("shell read back %q", out)
	}
}
