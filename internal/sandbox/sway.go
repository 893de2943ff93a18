//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/uiscope/uiscope/internal/platform/sway"
	"github.com/uiscope/uiscope/internal/procinfo"
)

// swayUser is who sway runs as when this process is root: sway refuses to
// run as root (it checks that it cannot regain it), so it gets nobody's
// uid and gid and no supplementary groups.
const swayUser = 65534

// swayConfig is the compositor's whole configuration: one headless output
// of the screen's size; no Xwayland unless asked for, so that apps are
// Wayland clients or nothing (with it, started at once: "force", so that
// its display is known before any app starts); windows as tabs, so that
// each has the whole output (as a maximized window would) and the focused
// one is on top, rather than tiles squeezing apps below the size they ask
// for. Dialogs float, as sway floats them anyway. Without a bar block no
// swaybar runs. The chords a desktop binds that uiscope refuses to send
// (Super+D, Alt+Tab, Ctrl+Alt+T, Ctrl+Alt+L, Ctrl+Alt+arrows, Alt with the
// wheel) are bound as a user's sway binds them, to a workspace or window
// switch, so that one that reached the compositor shows. (Sway names its
// first workspace after the first workspace a binding names: Super+1's,
// 1.)
//
// Xwayland lets in only its own uid's clients: when sway runs as another
// uid than this process (root's sandbox), its first command lets this
// process's uid in too (xhost, run by sway once Xwayland is up).
func swayConfig(width, height int, xwayland bool, uid int) string {
	x := "disable"
	if xwayland {
		x = "force"
	}
	cfg := fmt.Sprintf("output HEADLESS-1 resolution %dx%d\nxwayland %s\nworkspace_layout tabbed\n", width, height, x) +
		"bindsym Mod4+1 workspace number 1\n" +
		"bindsym Mod4+d workspace number 2\n" +
		"bindsym Mod1+Tab focus right\n" +
		"bindsym Ctrl+Mod1+t workspace number 2\n" +
		"bindsym Ctrl+Mod1+l workspace number 2\n" +
		"bindsym Ctrl+Mod1+Down workspace number 2\n" +
		"bindsym Ctrl+Mod1+Up workspace number 2\n" +
		"bindsym --whole-window Mod1+button4 workspace number 2\n" +
		"bindsym --whole-window Mod1+button5 workspace number 2\n"
	if xwayland && uid >= 0 {
		cfg += fmt.Sprintf("exec xhost +si:localuser:#%d\n", uid)
	}
	return cfg
}

// swayCred is the credential sway runs with, nil to run as this process.
// Root's state dir is made passable for it (0711: others may pass through
// but not list), so sway reads its config and reaches its runtime dir.
func (d *Desktop) swayCred() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	if err := os.Chmod(d.StateDir, 0o711); err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: swayUser, Gid: swayUser, Groups: []uint32{}}, nil
}

// swayRuntimeDir is sway's own XDG_RUNTIME_DIR when it runs as another
// uid (0700, that uid's): the apps' runtime dir stays this process's,
// because Firefox run as root refuses an XDG_RUNTIME_DIR that another user
// owns ("Running Firefox as root in a regular user's session is not
// supported"). The Wayland socket sway makes there is linked into the
// apps' runtime dir under its own name. Without a credential sway shares
// the apps' runtime dir.
func (d *Desktop) swayRuntimeDir(cred *syscall.Credential) (string, error) {
	if cred == nil {
		return d.RuntimeDir, nil
	}
	dir := filepath.Join(d.StateDir, "sway-runtime")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", err
	}
	if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
		return "", err
	}
	d.swayDir = dir
	return dir, nil
}

func (d *Desktop) startSway(ctx context.Context) error {
	if err := d.makeRuntimeDir(); err != nil {
		return err
	}
	m := screenRE.FindStringSubmatch(d.opts.Screen)
	w, _ := strconv.Atoi(m[1])
	h, _ := strconv.Atoi(m[2])
	cred, err := d.swayCred()
	if err != nil {
		return fmt.Errorf("making the state dir passable for sway: %w", err)
	}
	dir, err := d.swayRuntimeDir(cred)
	if err != nil {
		return fmt.Errorf("making sway's runtime dir: %w", err)
	}
	let := -1
	if cred != nil {
		let = os.Geteuid()
	}
	cfg := filepath.Join(d.StateDir, "sway.config")
	if err := os.WriteFile(cfg, []byte(swayConfig(w, h, d.opts.Xwayland, let)), 0o644); err != nil {
		return err
	}
	env := append(d.componentEnv(),
		"XDG_RUNTIME_DIR="+dir,
		"WLR_BACKENDS=headless",
		"WLR_LIBINPUT_NO_DEVICES=1",
		"WLR_RENDERER=pixman",
	)
	p, err := d.startComponentAs("sway", []string{"sway", "-c", cfg}, env, nil, cred)
	if err != nil {
		return err
	}
	// Sway names its IPC socket after its uid and pid, and makes it after
	// the Wayland socket: once it answers, both are there.
	sock := filepath.Join(dir, fmt.Sprintf("sway-ipc.%d.%d.sock", swayUID(cred), p.Pid()))
	client := sway.New(sock)
	err = d.waitFor(ctx, "sway's IPC socket answering get_outputs", p, func(ctx context.Context) error {
		outs, err := client.Outputs(ctx)
		if err != nil {
			return err
		}
		for _, o := range outs {
			if o.Active && o.Rect.Width == w && o.Rect.Height == h {
				return nil
			}
		}
		return fmt.Errorf("no active %dx%d output yet (%d outputs)", w, h, len(outs))
	})
	if err != nil {
		return err
	}
	d.SwaySock = sock
	name, err := waylandSocket(dir)
	if err != nil {
		return fmt.Errorf("%v%s", err, p.LogHint())
	}
	if dir != d.RuntimeDir {
		if err := os.Symlink(filepath.Join(dir, name), filepath.Join(d.RuntimeDir, name)); err != nil {
			return fmt.Errorf("linking sway's Wayland socket into the runtime dir: %w", err)
		}
	}
	d.WaylandDisplay = name
	if d.opts.Seat != nil {
		seat, err := d.opts.Seat(ctx, filepath.Join(dir, name), sock)
		if err != nil {
			return fmt.Errorf("making the seat's keyboard and pointer: %w", err)
		}
		d.seat = seat
	}
	if d.opts.Xwayland {
		return d.waitXwayland(ctx, p, dir)
	}
	return nil
}

// waitXwayland waits for the Xwayland sway started and its window manager
// (wlroots' own, in sway). wlroots starts Xwayland through a second fork,
// so it is no child of sway's: it is the Xwayland whose runtime dir is
// sway's (swayDir), and it names its display first on its command line.
// The window manager is up once the root window names it
// (_NET_SUPPORTING_WM_CHECK); before that an X client's window would not
// become a sway view. Xwayland is recorded to be stopped after sway, so
// that teardown does not depend on sway's (stopped before sway, it would
// be started again).
func (d *Desktop) waitXwayland(ctx context.Context, sway *Process, swayDir string) error {
	var xw int
	err := d.waitFor(ctx, "Xwayland started by sway", sway, func(ctx context.Context) error {
		pid, display, err := findXwayland(swayDir)
		if err != nil {
			return err
		}
		n, err := strconv.Atoi(strings.TrimPrefix(display, ":"))
		if err != nil || !strings.HasPrefix(display, ":") {
			return fmt.Errorf("the display %q of Xwayland (pid %d)", display, pid)
		}
		xw, d.displayN, d.Display = pid, n, display
		return nil
	})
	if err != nil {
		return err
	}
	p, err := adopt("Xwayland", xw)
	if err != nil {
		return err
	}
	d.recordBefore(p, sway)
	return d.waitFor(ctx, "_NET_SUPPORTING_WM_CHECK from sway's X window manager on "+d.Display, p, func(ctx context.Context) error {
		x, err := dialX(d.displayN, nil)
		if err != nil {
			return err
		}
		defer x.Close()
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

// recordBefore records p as a component started just before next, so
// that Close stops it just after next.
func (d *Desktop) recordBefore(p, next *Process) {
	d.mu.Lock()
	i := slices.Index(d.components, next)
	d.components = slices.Insert(d.components, max(i, 0), p)
	d.mu.Unlock()
	if d.opts.onRecord != nil {
		d.opts.onRecord(p)
	}
	d.logf("started %s (pid %d)", p.Name, p.Pid())
}

// findXwayland finds the Xwayland process whose XDG_RUNTIME_DIR is dir
// and the display it serves.
func findXwayland(dir string) (pid int, display string, err error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, "", err
	}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil || procinfo.Comm(p) != "Xwayland" {
			continue
		}
		env, err := procinfo.Environ(p)
		if err != nil || env["XDG_RUNTIME_DIR"] != dir {
			continue
		}
		if argv := procinfo.Cmdline(p); len(argv) > 1 {
			return p, argv[1], nil
		}
	}
	return 0, "", errors.New("no Xwayland of this desktop yet")
}

func swayUID(cred *syscall.Credential) int {
	if cred != nil {
		return int(cred.Uid)
	}
	return os.Geteuid()
}

// waylandSocket finds the one Wayland socket in a private runtime dir
// ("wayland-1"; its lock file aside).
func waylandSocket(dir string) (string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var found []string
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, "wayland-") && !strings.HasSuffix(n, ".lock") && e.Type()&os.ModeSocket != 0 {
			found = append(found, n)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", errors.New("sway answers but made no Wayland socket")
	}
	return "", fmt.Errorf("several Wayland sockets in %s: %s", dir, strings.Join(found, ", "))
}
