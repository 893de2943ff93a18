package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// TestBuildsOnOtherSystems: every package, tests included, builds and vets
// for Windows and macOS, where the unsupported backend answers (make lint
// runs the same). Compiling for two more systems takes a while on a cold
// cache, so make unit (-short) leaves it to make lint.
func TestBuildsOnOtherSystems(t *testing.T) {
	if testing.Short() {
		t.Skip("cross builds take a while cold; make lint runs them")
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	for _, goos := range []string{"windows", "darwin"} {
		for _, args := range [][]string{{"build", "./..."}, {"vet", "./..."}} {
			cmd := exec.Command("go", args...)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=amd64", "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("GOOS=%s go %s ./...: %v\n%s", goos, args[0], err, out)
			}
		}
	}
}
