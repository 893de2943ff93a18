package mcpserver

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLayers keeps the MCP layer thin: its code imports the core, the
// policy package (internal/security, no platform code), internal/atomicfile
// (the discovery file), the MCP SDK (with its JSON schema library) and the
// standard library, nothing of the platform (internal/platform, procinfo,
// D-Bus, X11).
func TestLayers(t *testing.T) {
	t.Parallel()
	allowed := []string{
		"github.com/uiscope/uiscope/internal/core",
		"github.com/uiscope/uiscope/internal/security",
		"github.com/uiscope/uiscope/internal/atomicfile",
		"github.com/modelcontextprotocol/go-sdk/",
		"github.com/google/jsonschema-go/",
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !strings.Contains(strings.Split(p, "/")[0], ".") {
				continue // the standard library
			}
			ok := false
			for _, a := range allowed {
				ok = ok || p == a || strings.HasPrefix(p, a)
			}
			if !ok {
				t.Errorf("%s imports %s: the MCP layer may import only internal/core, internal/security, internal/atomicfile, the SDK and the standard library", path, p)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no source files checked")
	}
}
