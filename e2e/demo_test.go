//go:build linux

package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// TestDemo runs 'uiscope demo' as a newcomer would, on each desktop, and
// checks that it shows the sample app, its tree and timings, and leaves no
// process behind.
func TestDemo(t *testing.T) {
	for _, desktop := range testdesk.Desktops {
		t.Run(desktop, func(t *testing.T) { demoOn(t, desktop) })
	}
}

func demoOn(t *testing.T, desktop string) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, uiscopeBin, "demo", "--desktop", desktop, "--verbose")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("uiscope demo did not finish within 120 s; stderr:\n%s\nstdout:\n%s", errb.String(), out.String())
	}
	if err != nil {
		t.Fatalf("uiscope demo: %v; stderr:\n%s\nstdout:\n%s", err, errb.String(), out.String())
	}
	stdout := out.String()
	for _, want := range []string{"gtk3-widget-factory", "push button", "[a11y:e", `radio button "Page 2"`,
		"list_apps -> connect -> get_a11y_tree -> find_elements -> disconnect"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	timing := regexp.MustCompile(`(?m)^first read \(cold\): [1-9][0-9]* nodes, strategy \S+, [0-9]+ calls, [0-9]+ ms$`)
	if !timing.MatchString(stdout) {
		t.Errorf("stdout has no timing line like %q:\n%s", timing, stdout)
	}
	if strings.Contains(stdout, "sandbox: ") {
		t.Errorf("progress went to stdout:\n%s", stdout)
	}

	// --verbose names the state dir on stderr; every process of the desktop
	// (Xvfb, the buses, openbox, the app) has it in its command line or its
	// environment. None may survive. Other desktops on the machine have
	// other state dirs.
	m := regexp.MustCompile(`state in (\S+)\)`).FindStringSubmatch(errb.String())
	if m == nil {
		t.Fatalf("stderr does not name the state dir:\n%s", errb.String())
	}
	stateDir := m[1]
	if _, err := os.Stat(stateDir); !os.IsNotExist(err) {
		t.Errorf("state dir %s still exists (stat: %v)", stateDir, err)
	}
	if left := processesMentioning(stateDir); len(left) > 0 {
		t.Errorf("processes of the demo's desktop survived it: %s", strings.Join(left, "; "))
	}
}

// processesMentioning lists "pid comm" of the live processes whose command
// line or environment contains s (only processes this user may read).
func processesMentioning(s string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		dir := filepath.Join("/proc", e.Name())
		found := false
		for _, f := range []string{"cmdline", "environ"} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err == nil && bytes.Contains(b, []byte(s)) {
				found = true
			}
		}
		if !found {
			continue
		}
		// A zombie is gone but for its exit status; its parent is the
		// test's concern only if it is the demo, which has exited.
		stat, _ := os.ReadFile(filepath.Join(dir, "stat"))
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && len(stat) > i+2 && stat[i+2] == 'Z' {
			continue
		}
		comm, _ := os.ReadFile(filepath.Join(dir, "comm"))
		out = append(out, e.Name()+" "+strings.TrimSpace(string(comm)))
	}
	return out
}
