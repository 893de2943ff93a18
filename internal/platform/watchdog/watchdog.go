//go:build linux

// Package watchdog keeps what a process holds down (keys, buttons)
// released when that process dies, however it dies: neither an X server
// nor a wlroots compositor lets go of what a client of theirs held once
// that client is gone (x11/watchdog.go, wayland/watchdog.go measure it).
// The first hold of a connection starts a child process (the same binary
// in a hidden mode) with a pipe from its owner. Before a key or button
// goes down the owner writes it to the pipe, and once it is up again
// writes that; when the pipe closes (the owner exited, was killed, or
// closed its connection) the child reads what is still down (Held),
// releases it through its own connection to the display, and exits. A
// process that ends normally has released everything first, so its child
// has nothing left to do. The display's side (which connection, how to
// release) is the caller's; this package is the pipe's two ends.
package watchdog

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"os/signal"
	"slices"
	"sync"
	"syscall"
)

// Watch is a connection's watchdog child and what it was told is held.
// The zero value starts no child until Note needs one.
type Watch struct {
	mu     sync.Mutex
	cmd    *exec.Cmd
	w      io.WriteCloser
	held   []string // items ("k 50", "b 1") in the order they went down
	failed bool     // could not be started: said once, not retried
	closed bool
}

// Note tells the watchdog that item is going down, or was seen up. The
// first item down starts the child with command (nil: no watchdog, as in
// the command line tools, which hold nothing past their calls); a child
// that cannot start is said once on log.
func (wd *Watch) Note(item string, down bool, command func() *exec.Cmd, log io.Writer) {
	wd.mu.Lock()
	defer wd.mu.Unlock()
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
	if wd.closed || command == nil {
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
	wd.startOrSay(command, log)
}

// Start starts the child now, before anything is held, unless it runs
// (or could not start, or the watch is closed): for a display where a
// child's arrival mid-hold would disturb the hold. command and log are
// as for Note.
func (wd *Watch) Start(command func() *exec.Cmd, log io.Writer) {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	if wd.closed || wd.failed || wd.w != nil || command == nil {
		return
	}
	wd.startOrSay(command, log)
}

// startOrSay starts the child, or says once on log why it could not.
// Called with mu held.
func (wd *Watch) startOrSay(command func() *exec.Cmd, log io.Writer) {
	if err := wd.start(command()); err != nil {
		wd.failed = true
		if log != nil {
			fmt.Fprintf(log, "uiscope: no watchdog for held input (keys and buttons held when the server is killed stay down): %v\n", err)
		}
	}
}

// start runs the child and tells it everything held. Called with mu held.
func (wd *Watch) start(cmd *exec.Cmd) error {
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
	var lines []byte
	for _, item := range wd.held {
		lines = append(lines, "+"+item+"\n"...)
	}
	if _, err := w.Write(lines); err != nil {
		wd.stop()
		return err
	}
	return nil
}

// stop closes the pipe: the child releases what is left and exits.
func (wd *Watch) stop() {
	if wd.w != nil {
		_ = wd.w.Close()
	}
	wd.cmd, wd.w = nil, nil
}

// Close ends the watchdog: the child releases what is still held, if
// anything, and exits; no new child starts.
func (wd *Watch) Close() {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	wd.closed = true
	wd.stop()
}

// Held is the child's side: it reads what its owner holds from in until
// in ends (the owner is gone) and returns what is still down, in the order
// it went down. The owner's terminal closing or its Ctrl+C do not end the
// child before then.
func Held(in io.Reader) []string {
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT)
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
	return held
}

// Running reports whether a child is running now, for tests.
func (wd *Watch) Running() bool {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	return wd.cmd != nil
}
