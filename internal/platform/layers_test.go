package platform

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLayers: the seam holds no OS code and knows nothing of MCP, so that
// it builds for every system a backend may come from (docs/platform.md):
// its dependencies are the standard library only.
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, std, _ := strings.Cut(line, " ")
		n++
		if std != "true" && path != "github.com/uiscope/uiscope/internal/platform" {
			t.Errorf("platform depends on %s; only the standard library belongs here, backends live in subpackages", path)
		}
	}
	if n < 2 {
		t.Fatalf("go list -deps listed %d packages; expected platform and its dependencies", n)
	}
}
