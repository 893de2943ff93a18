//go:build linux

package wayland

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/uiscope/uiscope/internal/platform/watchdog"
)

// The watchdog (package watchdog): what a server holds is released when
// it dies, however it dies. The compositor does not do it: when a killed
// process's connection closes, sway 1.7 (wlroots 0.15) destroys its
// virtual keyboard and pointer, but the seat keeps a button they pressed
// pressed and the focused client keeps the modifiers they set (measured
// with the GTK 3 fixture's own account of its input: button 1 and Shift
// held, the holder killed with SIGKILL, the app still had button 1 down
// and Shift set 20 s later). So the first hold of a connection starts a
// child (Watchdog.Command) that, once its owner is gone, connects to the
// compositor with virtual devices of its own (made when it starts) and
// releases what the owner held: a button's release from another virtual
// pointer ends the seat's press, and a key's release (with the modifiers
// it leaves) from another virtual keyboard gives the client the
// keyboard's state afresh.

// Watchdog configures the watchdog process. Command is unset (no
// watchdog) unless the program sets it: `uiscope mcp` does; the command
// line tools and tests of this package hold nothing past their calls.
var Watchdog struct {
	// Command returns the command that runs RunWatchdog for the
	// compositor's socket, in a process of its own: uiscope re-executes
	// itself with WatchdogArg.
	Command func(socket string) *exec.Cmd
	// Log takes the one line written when the watchdog cannot be started.
	Log io.Writer
}

// WatchdogArg is the hidden first argument that runs the watchdog.
const WatchdogArg = "__wayland-release-watchdog"

// watchdogCommand is the command of this connection's watchdog, nil for
// none.
func (c *Conn) watchdogCommand() func() *exec.Cmd {
	if Watchdog.Command == nil || c.path == "" || c.watching {
		return nil
	}
	return func() *exec.Cmd { return Watchdog.Command(c.path) }
}

// startWatchdog starts the watchdog when the connection makes its devices
// (EnsureDevices), before anything is held: the child's own devices
// arriving mid-drag made sway 1.7 refocus the app's keyboard, and GTK 3
// dropped the drag.
func (c *Conn) startWatchdog() { c.wd.Start(c.watchdogCommand(), Watchdog.Log) }

// note tells the watchdog that a key ("k", its evdev code) or button
// ("b", its evdev code) is going down, or was seen up.
func (c *Conn) note(kind string, code uint32, down bool) {
	c.wd.Note(kind+" "+strconv.FormatUint(uint64(code), 10), down, c.watchdogCommand(), Watchdog.Log)
}

// RunWatchdog is the watchdog process: it connects to the compositor at
// socket and makes its own virtual keyboard and pointer, reads what its
// parent holds from in, and when in ends (the parent is gone) releases
// it, and returns the exit status. Its devices exist before the parent's
// go: were the parent's the seat's last, the seat would lose its pointer
// and keyboard with them, the clients their wl_pointer and wl_keyboard,
// and a release sent after that would reach no client that had the focus.
func RunWatchdog(in io.Reader, socket string) int {
	owner := os.Getppid() // the server, until it is gone
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	c, err := Dial(ctx, socket)
	if err == nil {
		c.watching = true
		if err = c.EnsureDevices(ctx); err != nil {
			c.Close()
		}
	}
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "uiscope watchdog: %v\n", err)
		_, _ = io.Copy(io.Discard, in) // keep the pipe open: the parent goes on
		return 1
	}
	defer c.Close()
	held := watchdog.Held(in)
	if len(held) == 0 {
		return 0
	}
	// The compositor drops the dead server's connection in its own time,
	// and wlroots releases a destroyed virtual keyboard's keys with that
	// keyboard's last modifiers, Shift still in them: a release sent
	// before that is undone (measured: one time in three on a loaded
	// machine). So the release is sent at once, and again twice later.
	for _, wait := range []time.Duration{0, 250 * time.Millisecond, 1500 * time.Millisecond} {
		time.Sleep(wait)
		if err := release(c, held); err != nil {
			fmt.Fprintf(os.Stderr, "uiscope watchdog: %v\n", err)
			return 1
		}
	}
	// Released: no later pointer releases them again.
	var buttons []uint32
	for _, h := range held {
		if num, ok := strings.CutPrefix(h, "b "); ok {
			if code, err := strconv.ParseUint(num, 10, 32); err == nil {
				buttons = append(buttons, uint32(code))
			}
		}
	}
	forgetPressed(socket, owner, buttons)
	var names []string
	for _, h := range held {
		names = append(names, strings.NewReplacer("k ", "key code ", "b ", "button code ").Replace(h))
	}
	fmt.Fprintf(os.Stderr, "uiscope watchdog: the server went with %s still down; released\n", strings.Join(names, ", "))
	return 0
}

// release releases what held lists (watchdog items), in the reverse order
// of pressing, as a hand lets go.
func release(c *Conn, held []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	return c.do(ctx, "releasing what a server held", func() error {
		for _, h := range slices.Backward(held) {
			kind, num, _ := strings.Cut(h, " ")
			code, err := strconv.ParseUint(num, 10, 32)
			if err != nil {
				continue
			}
			switch kind {
			case "b":
				if err := c.button(uint32(code), false); err != nil {
					return err
				}
			case "k":
				// A modifier's state is this keyboard's own, sent only
				// when it changes: the modifier is pressed here first, so
				// that its release is a change the client hears.
				if modMask(uint32(code)) != 0 {
					if err := c.key(uint32(code), true); err != nil {
						return err
					}
				}
				if err := c.key(uint32(code), false); err != nil {
					return err
				}
			}
		}
		return c.roundtrip()
	})
}
