package security

import (
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLayers keeps the policy package free of platform code (doc.go): its
// dependencies are the standard library only (no backend, procinfo,
// D-Bus, X11 or MCP; internal/quote, the standard library's alone, quotes
// what it shows), and none of its files, on any system, starts a
// program or embeds one: a dialog or helper the user sees is the
// platform's, reached through a Prompter.
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, std, _ := strings.Cut(line, " ")
		n++
		if std != "true" && path != "github.com/uiscope/uiscope/internal/security" && path != "github.com/uiscope/uiscope/internal/quote" {
			t.Errorf("security depends on %s; only the standard library belongs here", path)
		}
	}
	if n < 2 {
		t.Fatalf("go list -deps listed %d packages; expected security and its dependencies", n)
	}

	// Every file, whatever its build constraints: go list sees only this
	// system's.
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			switch {
			case p == "os/exec" || p == "embed":
				t.Errorf("%s imports %s: the programs a user sees (the consent dialog) belong to the platform, behind a Prompter", path, p)
			case p == "github.com/uiscope/uiscope/internal/quote":
			case strings.Contains(strings.Split(p, "/")[0], "."):
				t.Errorf("%s imports %s; only the standard library belongs here", path, p)
			}
		}
		for _, g := range f.Comments {
			for _, c := range g.List {
				if strings.HasPrefix(c.Text, "//go:embed") {
					t.Errorf("%s embeds a file (%s): the programs a user sees belong to the platform, behind a Prompter", path, c.Text)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no source files checked")
	}
	if m, _ := filepath.Glob("*.py"); len(m) > 0 {
		t.Errorf("scripts in the policy package: %v; they belong to the platform that runs them", m)
	}
}
