//go:build linux

package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/uiscope/uiscope/internal/platform/wayland"
	"github.com/uiscope/uiscope/internal/sandbox"
)

func init() {
	register(command{
		name:    "sandbox",
		summary: "run a private headless desktop (X11, or sway) with accessibility on",
		run:     runSandbox,
	})
}

const sandboxSynopsis = "[--desktop x11|sway [--xwayland]] [--screen WxHxD] [--wm openbox|none] [--launch CMD]... [--detach] [-- CMD ARGS]"

// A detached child is told so through its environment, and tells its
// parent it is ready with a last line after the export lines.
const (
	detachedEnv  = "UISCOPE_SANDBOX_DETACHED"
	readyMarker  = "# uiscope sandbox ready"
	childLogName = "uiscope-sandbox.log"
)

type sandboxFlags struct {
	desktop, screen, wm string
	timeout             time.Duration
	launches            []string
	detach, xwayland    bool
}

func runSandbox(ctx context.Context, c *cli, args []string) error {
	var f sandboxFlags
	fs := newFlags(c, "sandbox", sandboxSynopsis)
	fs.StringVar(&f.desktop, "desktop", sandbox.DesktopX11, "x11 (Xvfb and openbox) or sway (headless sway: Wayland clients only)")
	fs.BoolVar(&f.xwayland, "xwayland", false, "with --desktop sway: run Xwayland too; apps get DISPLAY as well, X-only apps show up as sway windows")
	fs.StringVar(&f.screen, "screen", sandbox.DefaultScreen, "screen geometry `WxHxD`")
	fs.StringVar(&f.wm, "wm", "openbox", "window manager: openbox or none")
	fs.DurationVar(&f.timeout, "timeout", sandbox.DefaultStepTimeout, "limit for each start-up step")
	fs.Func("launch", "start `CMD` in the desktop once it is up; split into words like a shell\n(quotes and backslashes), but no shell runs. Repeatable", func(s string) error {
		f.launches = append(f.launches, s)
		return nil
	})
	fs.BoolVar(&f.detach, "detach", false, "start in the background and print export lines, for\neval \"$(uiscope sandbox --detach)\"; stop it with kill $UISCOPE_SANDBOX_PID")
	fs.Usage = func() {
		fmt.Fprintf(c.stderr, "usage: uiscope sandbox %s\n\n", sandboxSynopsis)
		fmt.Fprint(c.stderr, `Runs Xvfb, a private D-Bus session bus, the AT-SPI bus and registry and
(by default) openbox, with accessibility switched on for GTK and Qt. With
--desktop sway: headless sway instead of Xvfb and openbox (as uid 65534
when run as root); apps get WAYLAND_DISPLAY, SWAYSOCK and no DISPLAY
(with --xwayland, DISPLAY too: Xwayland's).
With a command: runs it inside the desktop, then tears everything down and
exits with its status. Without one: prints shell export lines and keeps the
desktop until SIGINT or SIGTERM. Progress goes to stderr.

`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return exitError{2}
	}
	command := fs.Args()
	var launches [][]string
	for _, l := range f.launches {
		argv, err := splitWords(l)
		if err == nil && len(argv) == 0 {
			err = errors.New("empty command")
		}
		if err != nil {
			fmt.Fprintf(c.stderr, "uiscope sandbox: --launch %q: %v\n", l, err)
			return exitError{2}
		}
		launches = append(launches, argv)
	}
	if f.detach && len(command) > 0 {
		fmt.Fprintln(c.stderr, "uiscope sandbox: --detach takes no command")
		return exitError{2}
	}
	if f.detach {
		return detachSandbox(ctx, c, f)
	}
	detached := os.Getenv(detachedEnv) == "1"
	os.Unsetenv(detachedEnv) // not for the programs it launches

	d, err := sandbox.Start(ctx, sandbox.Options{
		Desktop:       f.desktop,
		Screen:        f.screen,
		WindowManager: f.wm,
		Xwayland:      f.xwayland,
		StepTimeout:   f.timeout,
		Log:           c.stderr,
		Seat:          wayland.HoldDevices,
	})
	if err != nil {
		return err
	}
	code := 0
	err = serveSandbox(ctx, c, d, launches, command, detached, &code)
	if cerr := d.Close(); cerr != nil {
		fmt.Fprintf(c.stderr, "uiscope sandbox: teardown: %v\n", cerr)
		if err == nil && code == 0 {
			code = 1
		}
	}
	if err != nil {
		return err
	}
	if code != 0 {
		return exitError{code}
	}
	return nil
}

// serveSandbox runs the command, or holds the desktop until a signal.
func serveSandbox(ctx context.Context, c *cli, d *sandbox.Desktop, launches [][]string, command []string, detached bool, code *int) error {
	for _, argv := range launches {
		if _, err := d.Launch(argv); err != nil {
			return err
		}
	}
	if len(command) > 0 {
		// Same process group as uiscope, so an interactive command can
		// read the terminal and gets its Ctrl-C like any foreground job.
		p, err := d.LaunchWith(command, sandbox.LaunchOptions{
			Stdin: c.stdin, Stdout: c.stdout, Stderr: c.stderr, ForegroundGroup: true,
		})
		if err != nil {
			return err
		}
		select {
		case <-p.Done():
		case <-ctx.Done():
			_ = p.Stop()
		}
		*code = p.ExitCode()
		if *code < 0 {
			*code = 1
		}
		return nil
	}

	fmt.Fprint(c.stdout, d.ExportLines())
	fmt.Fprintf(c.stdout, "export UISCOPE_SANDBOX_PID=%d\n", os.Getpid())
	if detached {
		fmt.Fprintln(c.stdout, readyMarker)
		// Closing both pipes tells the parent the desktop is ready; later messages
		// (the teardown) go to a log in the state dir.
		if err := redirectStdio(filepath.Join(d.StateDir, childLogName)); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(c.stderr, "uiscope sandbox: desktop on %s; Ctrl-C or kill %d to stop it\n", d.Where(), os.Getpid())
	}

	died := make(chan *sandbox.Process, 1)
	for _, p := range d.Components() {
		go func() {
			select {
			case <-p.Done():
				select {
				case died <- p:
				default:
				}
			case <-ctx.Done():
			}
		}()
	}
	select {
	case <-ctx.Done():
		fmt.Fprintln(c.stderr, "uiscope sandbox: stopping")
		return nil
	case p := <-died:
		return fmt.Errorf("%s (pid %d) exited; stopping the desktop", p.Name, p.Pid())
	}
}

func redirectStdio(logPath string) error {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close()
	if err := syscall.Dup3(int(null.Fd()), 1, 0); err != nil {
		return err
	}
	return syscall.Dup3(int(logf.Fd()), 2, 0)
}

// detachSandbox re-runs uiscope in a new session with its output on pipes,
// relays its progress, and prints its export lines once it is ready.
func detachSandbox(ctx context.Context, c *cli, f sandboxFlags) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	args := []string{"sandbox", "--desktop", f.desktop, "--screen", f.screen, "--wm", f.wm, "--timeout", f.timeout.String()}
	if f.xwayland {
		args = append(args, "--xwayland")
	}
	for _, l := range f.launches {
		args = append(args, "--launch", l)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return err
	}
	defer outR.Close()
	errR, errW, err := os.Pipe()
	if err != nil {
		outW.Close()
		return err
	}
	defer errR.Close()
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), detachedEnv+"=1")
	cmd.Stdout, cmd.Stderr = outW, errW
	// A session of its own: no controlling terminal, so neither Ctrl-C nor
	// closing the terminal reaches it; only a signal to its pid does.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		return err
	}
	relayed := make(chan struct{})
	go func() {
		_, _ = io.Copy(c.stderr, errR)
		close(relayed)
	}()
	// Interrupted while it starts: have it roll back rather than orphan it.
	stop := context.AfterFunc(ctx, func() { _ = cmd.Process.Signal(syscall.SIGTERM) })
	defer stop()
	out, _ := io.ReadAll(outR)
	<-relayed

	if body, ok := bytes.CutSuffix(out, []byte(readyMarker+"\n")); ok && ctx.Err() == nil {
		_, err := c.stdout.Write(body)
		_ = cmd.Process.Release()
		return err
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() > 0 {
		return exitError{ee.ExitCode()}
	}
	if err != nil {
		return fmt.Errorf("background sandbox: %w", err)
	}
	return exitError{1}
}
