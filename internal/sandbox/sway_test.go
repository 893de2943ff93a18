//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/platform/sway"
)

func startSway(t *testing.T, opts Options) *Desktop {
	t.Helper()
	opts.Desktop = DesktopSway
	return startDesktop(t, opts)
}

// TestSwayDesktop starts headless sway with the buses, checks what apps
// are given, runs gtk3-widget-factory as a Wayland client (on the
// accessibility bus and in sway's tree by its pid), and tears it all down.
func TestSwayDesktop(t *testing.T) {
	need(t, "gtk3-widget-factory")
	d := startSway(t, Options{Screen: "1600x900x24"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	if d.Kind != DesktopSway || d.Display != "" || d.WaylandDisplay == "" || d.SwaySock == "" || d.A11yBus == "" || d.SessionBus == "" {
		t.Fatalf("incomplete desktop: %+v", d)
	}
	// The apps' runtime dir is this process's own (Firefox run as root
	// refuses another user's); sway's is its uid's, its Wayland socket
	// linked into the apps' dir.
	owner := func(dir string) uint32 {
		t.Helper()
		fi, err := os.Stat(dir)
		if err != nil || fi.Mode().Perm() != 0o700 || !fi.IsDir() {
			t.Fatalf("runtime dir %s: %v %v", dir, fi.Mode(), err)
		}
		return fi.Sys().(*syscall.Stat_t).Uid
	}
	if uid := owner(d.RuntimeDir); uid != uint32(os.Geteuid()) {
		t.Errorf("the apps' runtime dir is owned by uid %d, want %d", uid, os.Geteuid())
	}
	wantUID := uint32(os.Geteuid())
	if wantUID == 0 {
		wantUID = swayUser
	}
	if uid := owner(filepath.Dir(d.SwaySock)); uid != wantUID {
		t.Errorf("sway's runtime dir is owned by uid %d, want %d", uid, wantUID)
	}
	if fi, err := os.Stat(filepath.Join(d.RuntimeDir, d.WaylandDisplay)); err != nil || fi.Mode().Type() != os.ModeSocket {
		t.Errorf("no Wayland socket in the apps' runtime dir: %v", err)
	}
	sc := sway.New(d.SwaySock)
	screen, err := sc.Screen(ctx)
	if err != nil || screen.Width != 1600 || screen.Height != 900 {
		t.Fatalf("sway's screen %+v (%v), want 1600x900", screen, err)
	}

	env := "\n" + strings.Join(d.Env(), "\n") + "\n"
	for _, want := range []string{"WAYLAND_DISPLAY=" + d.WaylandDisplay, "SWAYSOCK=" + d.SwaySock, "XDG_RUNTIME_DIR=" + d.RuntimeDir,
		"XDG_SESSION_TYPE=wayland", "GDK_BACKEND=wayland", "QT_QPA_PLATFORM=wayland", "MOZ_ENABLE_WAYLAND=1", "UISCOPE_A11Y_BUS=" + d.A11yBus} {
		if !strings.Contains(env, "\n"+want+"\n") {
			t.Errorf("Env lacks %q", want)
		}
	}
	for _, not := range []string{"DISPLAY=", "XAUTHORITY=", "AT_SPI_BUS_ADDRESS="} {
		if strings.Contains(env, "\n"+not) {
			t.Errorf("Env sets %s", not)
		}
	}
	lines := d.ExportLines()
	if !strings.Contains(lines, "export SWAYSOCK=") || !strings.Contains(lines, "unset DISPLAY XAUTHORITY") {
		t.Errorf("export lines:\n%s", lines)
	}

	a11y, err := dialBus(ctx, d.A11yBus)
	if err != nil {
		t.Fatal(err)
	}
	defer a11y.Close()
	before := len(registryChildren(t, a11y))
	launchFactory(t, d, a11y, before, 60*time.Second, "gtk3-widget-factory registers with AT-SPI and maps a sway window", func(app *Process) (bool, string) {
		wins, err := sc.Windows(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var mine []sway.Window
		for _, w := range wins {
			if w.Pid == app.Pid() {
				mine = append(mine, w)
			}
		}
		return len(mine) == 1 && mine[0].Shell == "xdg_shell", fmt.Sprintf("windows of the app %+v", mine)
	})

	procs := d.Processes()
	if len(procs) != 6 {
		t.Errorf("recorded %d processes, want 5 components and 1 app", len(procs))
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := sc.Version(ctx); err == nil {
		t.Error("sway still answers after Close")
	}
	assertGone(t, procs, d.StateDir)
}

// TestSwayRollback cancels the start once the buses are up, after sway,
// and checks that all of it is gone again.
func TestSwayRollback(t *testing.T) {
	need(t, "sway", "dbus-daemon", "/usr/libexec/at-spi-bus-launcher")
	recorded := startCancelled(t, Options{Desktop: DesktopSway, Log: testWriter{t}}, func(p *Process) bool {
		return p.Name == "at-spi2-registryd"
	})
	if len(recorded) != 5 || recorded[0].Name != "sway" {
		t.Fatalf("recorded %d processes, want sway and the four of the buses", len(recorded))
	}
	assertGone(t, recorded, filepath.Dir(recorded[0].LogPath))
}

// TestSwayXwayland: with Xwayland, sway's X display takes this process's
// clients once the desktop is up, apps get DISPLAY beside WAYLAND_DISPLAY,
// and Close leaves neither Xwayland nor sway behind (Xwayland is stopped
// after sway, which would start another).
func TestSwayXwayland(t *testing.T) {
	need(t, "sway", "Xwayland", "xhost")
	d := startSway(t, Options{Xwayland: true})
	if !strings.HasPrefix(d.Display, ":") {
		t.Fatalf("no Xwayland display: %+v", d)
	}
	x, err := dialX(d.displayN, nil)
	if err != nil {
		t.Fatalf("Xwayland %s refuses this process: %v", d.Display, err)
	}
	x.Close()
	env := "\n" + strings.Join(d.Env(), "\n") + "\n"
	for _, want := range []string{"DISPLAY=" + d.Display, "WAYLAND_DISPLAY=" + d.WaylandDisplay, "SWAYSOCK=" + d.SwaySock, "GDK_BACKEND=wayland"} {
		if !strings.Contains(env, "\n"+want+"\n") {
			t.Errorf("Env lacks %q", want)
		}
	}
	if lines := d.ExportLines(); !strings.Contains(lines, "export DISPLAY=") || strings.Contains(lines, "unset DISPLAY") {
		t.Errorf("export lines:\n%s", lines)
	}
	procs := d.Processes()
	names := []string{}
	for _, p := range procs {
		names = append(names, p.Name)
	}
	if len(procs) != 6 || names[0] != "Xwayland" || names[1] != "sway" {
		t.Errorf("recorded %v, want Xwayland (stopped after sway), sway and the four of the buses", names)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	assertGone(t, procs, d.StateDir)
}

func TestBadDesktop(t *testing.T) {
	d, err := Start(context.Background(), Options{Desktop: "weston"})
	if err == nil {
		d.Close()
		t.Fatal("Start accepted desktop weston")
	}
	if !strings.Contains(err.Error(), "want x11 or sway") {
		t.Errorf("error %v", err)
	}
}
