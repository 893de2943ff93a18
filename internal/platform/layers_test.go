package platform

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLayers: the seam holds no OS code and knows nothing of MCP, so that
// it builds for every system a backend may come from (docs/platform.md):
// its dependencies are the standard library only, and internal/quote (the
// one way caller input is quoted, itself the standard library's alone).
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, std, _ := strings.Cut(line, " ")
		n++
		if std != "true" && path != "github.com/uiscope/uiscope/internal/platform" && path != "github.com/uiscope/uiscope/internal/quote" {
			t.Errorf("platform depends on %s; only the standard library belongs here, backends live in subpackages", path)
		}
	}
	if n < 2 {
		t.Fatalf("go list -deps listed %d packages; expected platform and its dependencies", n)
	}
}

// TestOptionalPartsDeclaredHere: an optional part of a Desktop part (a
// ButtonHolder the core finds on Input by a type assertion) is declared in
// this package, where a backend's author reads what to implement
// (docs/platform.md). The test reads every non-test Go file of the module
// outside internal/platform and fails on a type assertion, or a type
// switch case, on a Desktop part (x.Input, m.desk.Actions...) to a type
// that is not platform's, and on an interface declared there whose methods
// take or return platform types (asserted through a variable, which the
// first check does not see).
func TestOptionalPartsDeclaredHere(t *testing.T) {
	parts := desktopParts(t)
	root := filepath.Join("..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
	ours := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata" || path == filepath.Join(root, "internal", "platform")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		check := func(x ast.Expr, typ ast.Expr) {
			sel, ok := x.(*ast.SelectorExpr)
			if !ok || !parts[sel.Sel.Name] || typ == nil {
				return
			}
			if q, ok := typ.(*ast.SelectorExpr); ok {
				if pkg, ok := q.X.(*ast.Ident); ok && pkg.Name == "platform" {
					ours++
					return
				}
			}
			t.Errorf("%s: a type assertion on %s to %s: declare the optional part in internal/platform beside the others, document it and list it in docs/platform.md", fset.Position(typ.Pos()), types.ExprString(x), types.ExprString(typ))
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.InterfaceType:
				if mentionsPlatform(n) {
					t.Errorf("%s: an interface over platform types: a part a backend implements is declared in internal/platform beside the others, documented and listed in docs/platform.md", fset.Position(n.Pos()))
				}
			case *ast.TypeAssertExpr:
				check(n.X, n.Type)
			case *ast.TypeSwitchStmt:
				var x ast.Expr
				switch s := n.Assign.(type) {
				case *ast.AssignStmt:
					x = s.Rhs[0]
				case *ast.ExprStmt:
					x = s.X
				}
				if ta, ok := x.(*ast.TypeAssertExpr); ok {
					for _, c := range n.Body.List {
						for _, typ := range c.(*ast.CaseClause).List {
							check(ta.X, typ)
						}
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if ours == 0 {
		t.Fatal("found no type assertion on a Desktop part to a platform type: the scan no longer sees the core's")
	}
}

// mentionsPlatform reports an interface one of whose methods takes or
// returns a platform type (platform.App, platform.Node...): a part of a
// backend, whoever asserts it.
func mentionsPlatform(it *ast.InterfaceType) bool {
	found := false
	for _, m := range it.Methods.List {
		if _, ok := m.Type.(*ast.FuncType); !ok {
			continue // an embedded interface
		}
		ast.Inspect(m.Type, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "platform" {
					found = true
				}
			}
			return !found
		})
	}
	return found
}

// desktopParts are the names of Desktop's fields, read from seam.go.
func desktopParts(t *testing.T) map[string]bool {
	f, err := parser.ParseFile(token.NewFileSet(), "seam.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	parts := map[string]bool{}
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range g.Specs {
			if ts, ok := spec.(*ast.TypeSpec); ok && ts.Name.Name == "Desktop" {
				for _, field := range ts.Type.(*ast.StructType).Fields.List {
					for _, n := range field.Names {
						parts[n.Name] = true
					}
				}
			}
		}
	}
	if len(parts) < 5 {
		t.Fatalf("read Desktop's parts from seam.go as %v", parts)
	}
	return parts
}
