//go:build linux

package x11

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"
)

// The watchdog: what a server holds is released when it dies, however it
// dies. The X server does not do it: a key or button an XTEST client
// pressed stays down after that client's connection closes, killed or
// not, while any other client is connected (measured on Xvfb 21.1: Shift
// and button 1 held, the holder killed with SIGKILL or closing cleanly,
// QueryPointer still reports mask 0x101 and QueryKeymap keycode 50 a
// second later; only the server's reset when its last client goes clears
// them). So the first hold of a connection starts a child process, the
// same binary in a hidden mode (Watchdog.Command), with its own X
// connection and a pipe from the connection's owner. Before a key or
// button goes down the owner writes it to the pipe, and once it is seen
// up again writes that; when the pipe closes — the owner exited, was
// killed, or closed the connection — the child releases exactly what it
// was told is down, and exits. A server that ends normally has released
// everything first, so its child has nothing left to do.

// Watchdog configures the watchdog process. Command is unset (no
// watchdog) unless the program sets it: `uiscope mcp` does; the command
// line tools and tests of this package hold nothing past their calls.
var Watchdog struct {
	// Command returns the command that runs RunWatchdog for display,
	// in a process of its own: uiscope re-executes itself with WatchdogArg.
	Command func(display string) *exec.Cmd
	// Log takes the one line written when the watchdog cannot be started.
	Log io.Writer
}

// WatchdogArg is the hidden first argument that runs the watchdog.
const WatchdogArg = "__x11-release-watchdog"

// watchdog is a connection's child and what it was told is held.
type watchdog struct {
	mu     sync.Mutex
	cmd    *exec.Cmd
	w      io.WriteCloser
	held   []string // "k 50", "b 1", in the order they went down
	failed bool     // could not be started: said once, not retried
	closed bool
}

// note tells the watchdog that a key ("k") or button ("b") is going down,
// or was seen up.
func (c *Conn) note(kind string, n int, down bool) {
	wd := &c.wd
	wd.mu.Lock()
	defer wd.mu.Unlock()
	item := kind + " " + strconv.Itoa(n)
	if down {
		if !slices.Contains(wd.held, item) {
			wd.held = append(wd.held, item)
		}
	} else {
		i := slices.Index(wd.held, item)
		if i < 0 {
			return
		}
		wd.held = slices.Delete(wd.held, i, i+1)
	}
	if wd.closed || Watchdog.Command == nil {
		return
	}
	line := "-" + item + "\n"
	if down {
		line = "+" + item + "\n"
	}
	if wd.w != nil {
		if _, err := io.WriteString(wd.w, line); err == nil {
			return
		}
		// The child went (killed by hand?): a new one is told everything.
		wd.stop()
	}
	if !down || wd.failed {
		return
	}
	if err := wd.start(c.display); err != nil {
		wd.failed = true
		if Watchdog.Log != nil {
			fmt.Fprintf(Watchdog.Log, "uiscope: no watchdog for held input (keys and buttons held when the server is killed stay down): %v\n", err)
		}
	}
}

// start runs the child and tells it everything held. Called with mu held.
func (wd *watchdog) start(display string) error {
	cmd := Watchdog.Command(display)
	w, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	// Out of the server's process group, so that the terminal's SIGINT or
	// SIGHUP to the group does not end it before the server.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }() // reaped whenever it ends
	wd.cmd, wd.w = cmd, w
	var b strings.Builder
	for _, item := range wd.held {
		b.WriteString("+" + item + "\n")
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		wd.stop()
		return err
	}
	return nil
}

// stop closes the pipe: the child releases what is left and exits.
func (wd *watchdog) stop() {
	if wd.w != nil {
		_ = wd.w.Close()
	}
	wd.cmd, wd.w = nil, nil
}

// closeWatchdog ends the connection's watchdog (Close).
func (c *Conn) closeWatchdog() {
	c.wd.mu.Lock()
	defer c.wd.mu.Unlock()
	c.wd.closed = true
	c.wd.stop()
}

// RunWatchdog is the watchdog process: it connects to display, reads what
// its parent holds from in, and when in ends (the parent is gone) releases
// it, and returns the exit status.
func RunWatchdog(in io.Reader, display string) int {
	// The parent's terminal closing or its Ctrl+C must not end the child
	// before it has done its work.
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT)
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	c, err := OpenContext(ctx, display)
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "uiscope watchdog: %v\n", err)
		_, _ = io.Copy(io.Discard, in) // keep the pipe open: the parent goes on
		return 1
	}
	var held []string
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		line := sc.Text()
		if len(line) < 2 {
			continue
		}
		item := line[1:]
		switch line[0] {
		case '+':
			if !slices.Contains(held, item) {
				held = append(held, item)
			}
		case '-':
			held = slices.DeleteFunc(held, func(h string) bool { return h == item })
		}
	}
	if len(held) == 0 {
		return 0
	}
	if err := c.initXTest(); err != nil {
		fmt.Fprintf(os.Stderr, "uiscope watchdog: %v\n", err)
		return 1
	}
	// Released in the reverse order of pressing, as a hand lets go.
	for i := len(held) - 1; i >= 0; i-- {
		kind, num, _ := strings.Cut(held[i], " ")
		n, err := strconv.Atoi(num)
		if err != nil || n < 0 || n > 255 {
			continue
		}
		switch kind {
		case "k":
			xtest.FakeInput(c.xc, fakeKeyRelease, byte(n), 0, c.root, 0, 0, 0)
		case "b":
			xtest.FakeInput(c.xc, fakeButtonRelease, byte(n), 0, c.root, 0, 0, 0)
		}
	}
	if _, err := xproto.GetInputFocus(c.xc).Reply(); err != nil {
		fmt.Fprintf(os.Stderr, "uiscope watchdog: %v\n", err)
		return 1
	}
	var names []string
	for _, h := range held {
		names = append(names, strings.NewReplacer("k ", "keycode ", "b ", "button ").Replace(h))
	}
	fmt.Fprintf(os.Stderr, "uiscope watchdog: the server went with %s still down; released\n", strings.Join(names, ", "))
	return 0
}
