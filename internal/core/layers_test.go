package core

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLayers keeps the core OS-neutral (docs/platform.md): it speaks to
// desktops through the platform seam only, so no backend, /proc reader,
// D-Bus or X client, and no MCP, may be among its dependencies.
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	forbidden := []string{
		"github.com/uiscope/uiscope/internal/procinfo",
		"github.com/uiscope/uiscope/internal/platform/", // backends: atspi, x11, linux, fake
		"github.com/uiscope/uiscope/internal/mcpserver",
		"github.com/uiscope/uiscope/internal/sandbox",
		"github.com/godbus/",
		"github.com/jezek/xgb",
		"github.com/modelcontextprotocol/",
	}
	deps := strings.Fields(string(out))
	if len(deps) < 2 {
		t.Fatalf("go list -deps listed %q; expected the core and its dependencies", deps)
	}
	for _, dep := range deps {
		for _, f := range forbidden {
			if dep == f || (strings.HasSuffix(f, "/") && strings.HasPrefix(dep, f)) || strings.HasPrefix(dep, f+"/") {
				t.Errorf("core depends on %s; reach the desktop through internal/platform's interfaces instead", dep)
			}
		}
	}
}
