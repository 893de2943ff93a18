//go:build linux

package x11

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"github.com/uiscope/uiscope/internal/platform/watchdog"
)

// The watchdog (package watchdog): what a server holds is released when
// it dies, however it dies. The X server does not do it: a key or button an XTEST client
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

// note tells the watchdog that a key ("k") or button ("b") is going down,
// or was seen up.
func (c *Conn) note(kind string, n int, down bool) {
	var command func() *exec.Cmd
	if Watchdog.Command != nil {
		command = func() *exec.Cmd { return Watchdog.Command(c.display) }
	}
	c.wd.Note(kind+" "+strconv.Itoa(n), down, command, Watchdog.Log)
}

// closeWatchdog ends the connection's watchdog (Close).
func (c *Conn) closeWatchdog() { c.wd.Close() }

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
	held := watchdog.Held(in)
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
