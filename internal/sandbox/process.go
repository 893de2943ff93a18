//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/uiscope/uiscope/internal/procinfo"
)

// Teardown grace periods: SIGTERM first, SIGKILL after termGrace.
const (
	termGrace = 3 * time.Second
	killGrace = 2 * time.Second
)

// Process is a process the desktop started (or, for D-Bus activated
// components, adopted by pid). It is always signalled by pid after checking
// its start time, never by name.
type Process struct {
	Identity procinfo.Identity
	Name     string   // component name ("Xvfb", "openbox"...) or the program's base name
	Argv     []string // nil for adopted processes
	LogPath  string   // where its stdout/stderr go; "" when attached to the caller's streams

	cmd      *exec.Cmd // nil when the process is not this process's child
	done     chan struct{}
	doneOnce sync.Once
	exitCode int // written before done is closed

	stopOnce sync.Once
	stopErr  error
}

// Pid returns the process id.
func (p *Process) Pid() int { return p.Identity.Pid }

// Done returns a channel closed when the process has exited.
func (p *Process) Done() <-chan struct{} {
	if p.cmd == nil {
		// Not a child, so there is nothing to wait on: poll its identity.
		p.doneOnce.Do(func() {
			go func() {
				for p.Identity.Alive() {
					time.Sleep(100 * time.Millisecond)
				}
				close(p.done)
			}()
		})
	}
	return p.done
}

// ExitCode returns the exit status once Done is closed: 128+N when killed by
// signal N (as shells report it), -1 while running or for adopted processes.
func (p *Process) ExitCode() int {
	if p.cmd == nil {
		return -1
	}
	select {
	case <-p.done:
		return p.exitCode
	default:
		return -1
	}
}

// exited reports whether the process is gone; zombies count as gone.
func (p *Process) exited() bool {
	if p.cmd != nil {
		select {
		case <-p.done:
			return true
		default:
		}
	}
	return !p.Identity.Alive()
}

// Stop sends SIGTERM, waits up to 3 s, then sends SIGKILL. It is safe to call
// more than once and after the process exited on its own.
func (p *Process) Stop() error {
	p.stopOnce.Do(func() { p.stopErr = p.terminate() })
	return p.stopErr
}

func (p *Process) terminate() error {
	if p.exited() {
		p.reap()
		return nil
	}
	p.signal(syscall.SIGTERM)
	if p.waitGone(termGrace) {
		return nil
	}
	p.signal(syscall.SIGKILL)
	if p.waitGone(killGrace) {
		return nil
	}
	return fmt.Errorf("sandbox: %s (pid %d) survived SIGKILL", p.Name, p.Pid())
}

// signal delivers sig through a pidfd, so a recycled pid is never hit: for
// adopted processes the start time is checked after the pidfd pins the pid.
func (p *Process) signal(sig syscall.Signal) {
	if p.cmd != nil {
		_ = p.cmd.Process.Signal(sig)
		return
	}
	proc, err := os.FindProcess(p.Pid())
	if err != nil {
		return
	}
	defer proc.Release()
	if p.Identity.Alive() {
		_ = proc.Signal(sig)
	}
}

// waitGone polls until the process is dead (and reaped, for children).
func (p *Process) waitGone(limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for {
		if p.exited() {
			p.reap()
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		if p.cmd != nil {
			select {
			case <-p.done:
			case <-time.After(25 * time.Millisecond):
			}
		} else {
			time.Sleep(25 * time.Millisecond)
		}
	}
}

// reap waits briefly for the Wait goroutine so no zombie outlives Stop.
func (p *Process) reap() {
	if p.cmd == nil {
		return
	}
	select {
	case <-p.done:
	case <-time.After(killGrace):
	}
}

// stdio says where a started process reads and writes.
type stdio struct {
	in       io.Reader
	out, err io.Writer
	logPath  string // used for out and err when they are nil
	extra    []*os.File
	samePgrp bool
	cred     *syscall.Credential // run as this user; nil: as this process
}

// spawn starts argv and records its identity; a goroutine reaps it.
func spawn(name string, argv []string, env []string, dir string, s stdio) (*Process, error) {
	if len(argv) == 0 {
		return nil, errors.New("sandbox: empty command")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Dir = dir
	cmd.ExtraFiles = s.extra
	// Its own process group keeps a terminal's Ctrl-C away from it, so that
	// the teardown, not the signal, decides the order things die in.
	// Pdeathsig: if this process dies without tearing down (SIGKILL, a
	// test binary's timeout panic), the desktop goes with it instead of
	// lingering. Go never retires the OS thread that forked (nothing here
	// locks threads), so the signal means what it says.
	// The child changes its user (cred) before it sets Pdeathsig, which a
	// change of credentials would clear.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: !s.samePgrp, Pdeathsig: syscall.SIGTERM, Credential: s.cred}
	cmd.WaitDelay = killGrace
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s.in, s.out, s.err
	var logf *os.File
	if s.logPath != "" && (s.out == nil || s.err == nil) {
		f, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, fmt.Errorf("sandbox: log file for %s: %w", name, err)
		}
		logf = f
		if cmd.Stdout == nil {
			cmd.Stdout = f
		}
		if cmd.Stderr == nil {
			cmd.Stderr = f
		}
	}
	err := cmd.Start()
	if logf != nil {
		logf.Close() // the child holds its own copy
	}
	if err != nil {
		return nil, fmt.Errorf("sandbox: start %s: %w", name, err)
	}
	p := &Process{Name: name, Argv: argv, cmd: cmd, done: make(chan struct{}), exitCode: -1}
	if logf != nil {
		p.LogPath = s.logPath
	}
	id, lerr := procinfo.Lookup(cmd.Process.Pid)
	if lerr != nil {
		// Already gone before its start time could be read; a zero start
		// time makes Alive check the pid alone, and Wait below reaps it.
		id = procinfo.Identity{Pid: cmd.Process.Pid}
	}
	p.Identity = id
	go func() {
		_ = cmd.Wait()
		p.exitCode = exitStatus(cmd.ProcessState)
		close(p.done)
	}()
	return p, nil
}

// adopt records a process that D-Bus activation started for the sandbox.
func adopt(name string, pid int) (*Process, error) {
	id, err := procinfo.Lookup(pid)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %s (pid %d) vanished: %w", name, pid, err)
	}
	return &Process{Name: name, Identity: id, done: make(chan struct{}), exitCode: -1}, nil
}

func exitStatus(st *os.ProcessState) int {
	if st == nil {
		return -1
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}
