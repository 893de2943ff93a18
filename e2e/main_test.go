//go:build linux

// Package e2e drives real uiscope processes against real applications in
// the sandbox desktop: the CLI, the MCP server over stdio, and the
// benchmarks against the pyatspi peer.
package e2e

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/platform/wayland"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// uiscopeBin is the binary under test, built once per run.
var uiscopeBin string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

// run builds the binary into a temporary directory, runs the tests in the
// shared desktop and removes the directory, returning the exit code (an
// os.Exit here would skip the removal).
func run(m *testing.M) int {
	flag.Parse()
	if testing.Short() {
		// Every test here runs uiscope in a sandbox desktop; -short (make
		// unit) promises a run without one, so none runs and nothing is
		// built.
		fmt.Println("e2e: skipped under -short (every test needs the sandbox desktop)")
		return 0
	}
	if signal.Ignored(syscall.SIGHUP) {
		// A run under nohup would hand the ignore down to every server it
		// starts, and the hang-up tests would test nohup instead
		// (TestServerUnderNohup ignores it itself). A handled signal is
		// reset to the default in a child.
		signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP)
	}
	dir, err := os.MkdirTemp("", "uiscope-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	uiscopeBin = filepath.Join(dir, "uiscope")
	_, file, _, _ := runtime.Caller(0)
	build := exec.Command("go", "build", "-o", uiscopeBin, "./cmd/uiscope")
	build.Dir = filepath.Join(filepath.Dir(file), "..")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building uiscope:", err)
		return 1
	}
	// The sway desktop's seat has a keyboard and a pointer, as a real
	// desktop's has: apps' focus does not come and go with the servers.
	testdesk.Seat = wayland.HoldDevices
	return testdesk.Run(m)
}

// result is one finished uiscope run.
type result struct {
	stdout, stderr string
	code           int
	took           time.Duration
}

// runCLI runs uiscope with args in the desktop, bounded by limit.
func runCLI(t testing.TB, d *testdesk.Desk, limit time.Duration, args ...string) result {
	t.Helper()
	return runCLIEnv(t, d.Env(), limit, args...)
}
