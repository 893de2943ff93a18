package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
	"github.com/uiscope/uiscope/internal/security"
)

var update = flag.Bool("update", false, "rewrite testdata/tools/*.json, the server sections of testdata/transcripts/*.txtar, the README tool table and docs/api.md's argument lists")

// eras are the protocol versions every in-memory test runs under: the
// legacy initialize handshake and the SDK's default (2026-07-28).
var eras = []struct{ name, version string }{{"2025-11-25", "2025-11-25"}, {"default", ""}}

// fakeDesk is a canned desktop: one app (this test process, so identity
// checks pass) with a small tree, and two apps sharing a name.
type fakeDesk struct{}

const fakeApp = "fixture"

// fakeTree builds the tree afresh on every read: core redacts in place.
func fakeTree() *platform.Node {
	node := func(key, role, name string, b platform.Rect, kids ...*platform.Node) *platform.Node {
		return &platform.Node{Key: key, Role: fake.Role(role), Name: name, States: fake.Shown, Bounds: &b,
			Interfaces: []string{"accessible", "component"}, ChildCount: len(kids), Children: kids}
	}
	submit := node("k/submit", "push button", "Submit", platform.Rect{X: 20, Y: 200, Width: 100, Height: 30},
		node("k/submit-label", "label", "Submit", platform.Rect{X: 30, Y: 205, Width: 40, Height: 20}))
	submit.Actions = []string{"click"}
	submit.Interfaces = append(submit.Interfaces, "action")
	entry := node("k/name", "text", "Name", platform.Rect{X: 20, Y: 40, Width: 300, Height: 30})
	entry.Interfaces = append(entry.Interfaces, "text", "editabletext")
	entry.States |= fake.States("editable", "focusable")
	password := node("k/password", "password text", "Password", platform.Rect{X: 20, Y: 80, Width: 300, Height: 30})
	check := node("k/check", "check box", "Remember me", platform.Rect{X: 20, Y: 120, Width: 150, Height: 25})
	panel := node("k/panel", "panel", "", platform.Rect{X: 10, Y: 30, Width: 380, Height: 260},
		entry, password, check, submit, node("k/status", "label", "Ready", platform.Rect{X: 20, Y: 240, Width: 100, Height: 20}))
	frame := node("k/frame", "frame", "Fake fixture", platform.Rect{X: 0, Y: 0, Width: 400, Height: 300}, panel)
	root := &platform.Node{Key: "k/root", Role: platform.RoleApplication, Name: fakeApp, ChildCount: 1, Children: []*platform.Node{frame}}
	return root
}

func (fakeDesk) Apps(context.Context) ([]platform.App, error) {
	self := os.Getpid()
	win := func(id platform.WindowID, title string) []platform.Window {
		return []platform.Window{{ID: id, Pid: self, Title: title, Bounds: platform.Rect{Width: 400, Height: 300}, Mapped: true}}
	}
	return []platform.App{
		{Pid: self, Name: fakeApp, Executable: hostExecutable(self), Toolkit: "GTK", ToolkitVersion: "3.24",
			Accessible: true, BusName: ":1.1", Windows: win(0x400001, "Fake fixture")},
		{Pid: 1<<22 + 1, Name: "twin", Executable: "/usr/bin/twin", Accessible: true, BusName: ":1.2", Windows: win(0x500001, "Twin one")},
		// Connecting needs a live process: the test runner's parent will do.
		{Pid: os.Getppid(), Name: "twin", Executable: hostExecutable(os.Getppid()), Accessible: true, BusName: ":1.3", Windows: win(0x600001, "Twin two")},
	}, nil
}

func (fakeDesk) Tree(_ context.Context, app platform.App, _ platform.TreeOptions) (*platform.Node, platform.TreeStats, error) {
	if app.Name != fakeApp {
		return nil, platform.TreeStats{}, platform.ErrAppNotFound
	}
	return fakeTree(), platform.TreeStats{Strategy: "fake", Nodes: 9}, nil
}

func (fakeDesk) Element(_ context.Context, _ platform.App, key string) (*platform.Details, error) {
	var find func(n, parent *platform.Node, idx int) *platform.Details
	find = func(n, parent *platform.Node, idx int) *platform.Details {
		if n.Key == key {
			d := &platform.Details{Node: *n, IndexInParent: idx}
			d.Node.Children = nil
			if parent != nil {
				d.ParentKey = parent.Key
			}
			if key == "k/name" {
				d.Text = &platform.TextContent{Text: "Ada", Length: 3}
			}
			return d
		}
		for i, k := range n.Children {
			if d := find(k, n, i); d != nil {
				return d
			}
		}
		return nil
	}
	if d := find(fakeTree(), nil, -1); d != nil {
		return d, nil
	}
	return nil, platform.ErrElementGone
}

// Owner: each app's connection is its own.
func (fakeDesk) Owner(_ context.Context, app platform.App) (int, error) { return app.Pid, nil }

// fakePlatform is fakeDesk with this machine's real processes, which the
// identity checks read.
func fakePlatform() platform.Desktop {
	return platform.Desktop{Accessibility: fakeDesk{}, Processes: hostProcesses()}
}

// connectClient serves New(cfg) on the canned desktop and returns a client
// session speaking the given protocol version ("" = default).
func connectClient(t *testing.T, cfg Config, version string) *mcp.ClientSession {
	t.Helper()
	return serve(t, New(cfg, core.NewSessions(fakePlatform())), version)
}

// serve serves srv over in-memory transports and returns a client session
// speaking the given protocol version ("" = default); when the test ends,
// the client closes and the server's side is waited for.
func serve(t *testing.T, srv *mcp.Server, version string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	t1, t2 := memTransports()
	ss, err := srv.Connect(ctx, t1, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "unit", Version: "1"}, nil)
	cs, err := client.Connect(ctx, t2, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

func listTools(t *testing.T, cs *mcp.ClientSession) []*mcp.Tool {
	t.Helper()
	var tools []*mcp.Tool
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, tool)
	}
	return tools
}

// toolsetOf looks a tool up in the full inventory.
// fullInventory is the inventory with every capability, built once: the
// helpers below ask it tool by tool, and deriving its schemas takes a while.
var fullInventory = sync.OnceValue(func() []toolDef {
	return Inventory(Config{Caps: security.Input}, core.NewSessions(fakePlatform()))
})

func toolsetOf(t *testing.T, name string) string {
	t.Helper()
	for _, d := range fullInventory() {
		if d.Tool.Name == name {
			return d.Toolset
		}
	}
	t.Fatalf("tool %s is listed but not in the inventory", name)
	return ""
}

func runnerOf(t *testing.T, name string) bool {
	t.Helper()
	for _, d := range fullInventory() {
		if d.Tool.Name == name {
			return d.Runner
		}
	}
	return false
}

func inputArgsOf(t *testing.T, name string) []string {
	t.Helper()
	for _, d := range fullInventory() {
		if d.Tool.Name == name {
			return d.InputArgs
		}
	}
	return nil
}

// TestInputArgsReadOnlyWithoutInput: a tool with input-gated arguments is
// read-only when the server cannot grant them.
func TestInputArgsReadOnlyWithoutInput(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		n := 0
		for _, d := range Inventory(Config{}, core.NewSessions(fakePlatform())) {
			if len(d.InputArgs) == 0 {
				continue
			}
			n++
			if d.Toolset != ToolsetInspect || !d.Tool.Annotations.ReadOnlyHint {
				t.Errorf("%s without input capabilities: toolset %s, readOnlyHint %v; want an inspection tool, read-only", d.Tool.Name, d.Toolset, d.Tool.Annotations.ReadOnlyHint)
			}
		}
		if n == 0 {
			t.Fatal("no tool has input-gated arguments (screenshot's path)")
		}
	})
}

// TestToolSchemasGolden snapshots each tool as tools/list writes it (its
// members sorted).
func TestToolSchemasGolden(t *testing.T) {
	t.Parallel()
	_, wire, _ := wireToolList(t, Config{Caps: security.Input}, "")
	if len(wire) == 0 {
		t.Fatal("no tools listed")
	}
	dir := filepath.Join("testdata", "tools")
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	for _, raw := range wire {
		var name string
		if err := json.Unmarshal(raw["name"], &name); err != nil {
			t.Fatal(err)
		}
		seen[name+".json"] = true
		var members any // maps: every level's members sorted
		if b, err := json.Marshal(raw); err != nil || json.Unmarshal(b, &members) != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := json.MarshalIndent(members, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		path := filepath.Join(dir, name+".json")
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: no golden file (run go test -run TestToolSchemasGolden -update): %v", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: tools/list entry differs from %s (run with -update if the change is intended):\n got: %s\nwant: %s", name, path, got, want)
		}
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if !seen[e.Name()] {
			if *update {
				os.Remove(filepath.Join(dir, e.Name()))
				continue
			}
			t.Errorf("golden file %s names no listed tool (run with -update to remove it)", e.Name())
		}
	}
}

// TestAnnotations holds every tool to the hints docs/api.md
// ("Annotations") promises, read-only and with --allow-input, in the
// inventory and in tools/list: openWorldHint true everywhere; readOnlyHint
// true on inspection; readOnlyHint false and destructiveHint true on what
// acts (run_steps with input capabilities, as its steps); readOnlyHint
// false and destructiveHint false, said, on an inspection that may write a
// file (screenshot with --allow-input: destructiveHint defaults to true).
func TestAnnotations(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		hint := func(b *bool) string {
			if b == nil {
				return "unset"
			}
			return fmt.Sprint(*b)
		}
		check := func(where string, tool *mcp.Tool, toolset string, input bool) {
			a := tool.Annotations
			if a == nil {
				t.Errorf("%s %s: no annotations", where, tool.Name)
				return
			}
			if a.OpenWorldHint == nil || !*a.OpenWorldHint {
				t.Errorf("%s %s: openWorldHint %s, want true", where, tool.Name, hint(a.OpenWorldHint))
			}
			readOnly, destructive := true, "" // "": not destructive, unset or false
			switch {
			case toolset != ToolsetInspect, input && runnerOf(t, tool.Name):
				readOnly, destructive = false, "true"
			case input && len(inputArgsOf(t, tool.Name)) > 0:
				readOnly, destructive = false, "false"
			}
			if a.ReadOnlyHint != readOnly {
				t.Errorf("%s %s (toolset %s): readOnlyHint %v, want %v", where, tool.Name, toolset, a.ReadOnlyHint, readOnly)
			}
			switch got := hint(a.DestructiveHint); {
			case destructive == "" && got == "true":
				t.Errorf("%s %s: an inspection tool is annotated destructive", where, tool.Name)
			case destructive != "" && got != destructive:
				t.Errorf("%s %s (toolset %s): destructiveHint %s, want %s", where, tool.Name, toolset, got, destructive)
			}
		}
		for _, c := range []struct {
			name string
			cfg  Config
		}{{"read-only", Config{}}, {"--allow-input", Config{Caps: security.Input}}} {
			input := c.cfg.Caps == security.Input
			for _, d := range Enabled(c.cfg, Inventory(c.cfg, core.NewSessions(fakePlatform()))) {
				check(c.name+" inventory", d.Tool, d.Toolset, input)
			}
			for _, tool := range listTools(t, connectClient(t, c.cfg, "")) {
				check(c.name+" tools/list", tool, toolsetOf(t, tool.Name), input)
			}
		}
	})
}

// TestEveryToolLiteralHasAnnotations parses the package source: a new
// &mcp.Tool{...} without an Annotations field fails here, whether or not it
// reaches the inventory.
func TestEveryToolLiteralHasAnnotations(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	literals := 0
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			sel, ok := lit.Type.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Tool" {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "mcp" {
				return true
			}
			literals++
			name, annotated := "?", false
			for _, el := range lit.Elts {
				kv, ok := el.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				switch key, _ := kv.Key.(*ast.Ident); {
				case key == nil:
				case key.Name == "Annotations":
					annotated = true
				case key.Name == "Name":
					if bl, ok := kv.Value.(*ast.BasicLit); ok {
						name = bl.Value
					}
				}
			}
			if !annotated {
				t.Errorf("%s: mcp.Tool %s has no Annotations field", fset.Position(lit.Pos()), name)
			}
			return true
		})
	}
	if literals == 0 {
		t.Fatal("found no mcp.Tool literals: the test no longer sees the tool definitions")
	}
}

// TestOutputSchemas: {"type":"object","anyOf":[success, failure]}, never
// closed.
func TestOutputSchemas(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		cs := connectClient(t, Config{Caps: security.Input}, "")
		for _, tool := range listTools(t, cs) {
			raw, err := json.Marshal(tool.OutputSchema)
			if err != nil {
				t.Fatal(err)
			}
			var s map[string]any
			if err := json.Unmarshal(raw, &s); err != nil || s == nil {
				t.Errorf("%s: outputSchema is not an object: %s", tool.Name, raw)
				continue
			}
			if s["type"] != "object" {
				t.Errorf("%s: outputSchema top-level type is %v, want \"object\"", tool.Name, s["type"])
			}
			if branches, _ := s["anyOf"].([]any); len(branches) != 2 {
				t.Errorf("%s: outputSchema anyOf has %d branches, want 2 (success, failure)", tool.Name, len(branches))
			}
			var walk func(path string, v any)
			walk = func(path string, v any) {
				switch v := v.(type) {
				case map[string]any:
					for k, x := range v {
						if k == "additionalProperties" && x == false {
							t.Errorf("%s: outputSchema closes additionalProperties at %s", tool.Name, path)
						}
						walk(path+"/"+k, x)
					}
				case []any:
					for i, x := range v {
						walk(fmt.Sprintf("%s/%d", path, i), x)
					}
				}
			}
			walk("", s)
		}
	})
}

// TestInputGate: without input capabilities only inspection tools exist.
func TestInputGate(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cs := connectClient(t, Config{}, era.version)
				tools := listTools(t, cs)
				if len(tools) == 0 {
					t.Fatal("no tools listed")
				}
				for _, tool := range tools {
					if ts := toolsetOf(t, tool.Name); ts != ToolsetInspect {
						t.Errorf("without input capabilities, %s (toolset %s) is listed", tool.Name, ts)
					}
				}
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "click", Arguments: map[string]any{"session": "s1", "element": "a11y:e1"}})
				if err == nil && !res.IsError {
					t.Errorf("an unregistered interaction tool was accepted: %+v", res)
				}
			})
		})
	}
	tools := []toolDef{
		{Tool: &mcp.Tool{Name: "look"}, Toolset: ToolsetInspect},
		{Tool: &mcp.Tool{Name: "click"}, Toolset: ToolsetInteract},
		{Tool: &mcp.Tool{Name: "press_key"}, Toolset: ToolsetKeyboard},
	}
	names := func(ds []toolDef) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.Tool.Name)
		}
		return out
	}
	if got := names(Enabled(Config{}, tools)); !slices.Equal(got, []string{"look"}) {
		t.Errorf("Enabled without input capabilities = %v, want [look]", got)
	}
	if got := names(Enabled(Config{Caps: security.Input}, tools)); !slices.Equal(got, []string{"look", "click", "press_key"}) {
		t.Errorf("Enabled with security.Input = %v, want all three", got)
	}
}

// call runs a tool and checks the output contract: structuredContent and
// the one text block are the same JSON. It returns the decoded result.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (map[string]any, *mcp.CallToolResult) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: protocol error: %v", name, args, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content blocks, want one text block", name, len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: content is %T, want text", name, res.Content[0])
	}
	var text any
	if err := json.Unmarshal([]byte(tc.Text), &text); err != nil {
		t.Fatalf("%s: text block is not JSON: %v\n%s", name, err, tc.Text)
	}
	// The client decoded structuredContent already; decoded anew as
	// encoding/json decodes (float64 numbers), it is compared again before
	// it is called different.
	structured := res.StructuredContent
	if !sameJSON(text, structured) {
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		structured = nil
		if err := json.Unmarshal(raw, &structured); err != nil {
			t.Fatal(err)
		}
		if !sameJSON(text, structured) {
			t.Errorf("%s: structuredContent differs from the text block:\nstructured: %s\ntext:       %s", name, raw, tc.Text)
		}
	}
	out, _ := structured.(map[string]any)
	if out == nil {
		t.Fatalf("%s: result is not an object: %s", name, tc.Text)
	}
	if ok, _ := out["ok"].(bool); ok == res.IsError {
		t.Errorf("%s: ok=%v but isError=%v", name, out["ok"], res.IsError)
	}
	if err := outputSchema(t, cs, name).Validate(structured); err != nil {
		t.Errorf("%s: the result does not match the advertised output schema: %v\n%.2000s", name, err, tc.Text)
	}
	return out, res
}

// sameJSON is reflect.DeepEqual for values as encoding/json decodes them
// into an any (maps, slices, strings, float64, bools, nil), without its
// allocations: false for any other type.
func sameJSON(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) || (a == nil) != (b == nil) {
			return false
		}
		for k, v := range a {
			if w, ok := b[k]; !ok || !sameJSON(v, w) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) || (a == nil) != (b == nil) {
			return false
		}
		for i := range a {
			if !sameJSON(a[i], b[i]) {
				return false
			}
		}
		return true
	case string, float64, bool, nil:
		return a == b
	}
	return false
}

// resolved caches outputSchema's answers: every server in these tests is
// built by the same code.
var (
	resolvedMu sync.Mutex
	resolved   = map[string]*jsonschema.Resolved{}
)

// outputSchema resolves a tool's output schema as tools/list shows it: the
// server does not validate its results at run time, the tests do. One
// tools/list resolves every tool it lists.
func outputSchema(t *testing.T, cs *mcp.ClientSession, name string) *jsonschema.Resolved {
	t.Helper()
	resolvedMu.Lock()
	defer resolvedMu.Unlock()
	if r, ok := resolved[name]; ok {
		return r
	}
	for _, tool := range listTools(t, cs) {
		if resolved[tool.Name] != nil {
			continue
		}
		raw, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: output schema does not resolve: %v", tool.Name, err)
		}
		resolved[tool.Name] = r
	}
	if r, ok := resolved[name]; ok {
		return r
	}
	t.Fatalf("no tool %s listed", name)
	return nil
}

func mustOK(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	out, _ := call(t, cs, name, args)
	if out["ok"] != true {
		t.Fatalf("%s %v failed: %v", name, args, out)
	}
	return out
}

func mustFail(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, code string) map[string]any {
	t.Helper()
	out, res := call(t, cs, name, args)
	if out["ok"] != false || !res.IsError || out["errorCode"] != code {
		t.Errorf("%s %v: want ok:false isError errorCode %s, got isError=%v %v", name, args, code, res.IsError, out)
	}
	if msg, _ := out["error"].(string); msg == "" {
		t.Errorf("%s: failure without a message: %v", name, out)
	}
	if _, ok := out["retryable"].(bool); !ok {
		t.Errorf("%s: failure without retryable: %v", name, out)
	}
	return out
}

// findRef returns the ref of the first element named name in a json tree.
func findRef(root map[string]any, role, name string) (ref string, bounds map[string]any) {
	var walk func(e map[string]any) bool
	walk = func(e map[string]any) bool {
		if e["role"] == role && e["name"] == name {
			ref, _ = e["ref"].(string)
			bounds, _ = e["bounds"].(map[string]any)
			return true
		}
		kids, _ := e["children"].([]any)
		for _, k := range kids {
			if km, ok := k.(map[string]any); ok && walk(km) {
				return true
			}
		}
		return false
	}
	walk(root)
	return ref, bounds
}

func TestWorkflow(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cs := connectClient(t, Config{}, era.version)
				apps := mustOK(t, cs, "list_apps", nil)
				if list, _ := apps["apps"].([]any); len(list) != 3 {
					t.Fatalf("list_apps: %v", apps)
				}
				conn := mustOK(t, cs, "connect", map[string]any{"pid": os.Getpid()})
				session, _ := conn["session"].(string)
				if session == "" || conn["pid"] != float64(os.Getpid()) {
					t.Fatalf("connect: %v", conn)
				}

				outline := mustOK(t, cs, "get_a11y_tree", map[string]any{"session": session})
				text, _ := outline["outline"].(string)
				if !strings.Contains(text, "[a11y:e") || !strings.Contains(text, `push button "Submit"`) {
					t.Errorf("outline:\n%s", text)
				}
				if strings.Contains(text, "Password") {
					t.Errorf("the password field's name is not redacted:\n%s", text)
				}

				tree := mustOK(t, cs, "get_a11y_tree", map[string]any{"session": session, "format": "json"})
				root, _ := tree["root"].(map[string]any)
				if root == nil || tree["nodeCount"] != float64(9) || tree["truncated"] != false {
					t.Fatalf("json tree: %v", tree)
				}
				submit, bounds := findRef(root, "push button", "Submit")
				if submit == "" || bounds == nil {
					t.Fatalf("no Submit button in %v", root)
				}

				found := mustOK(t, cs, "find_elements", map[string]any{"session": session, "name": "Name", "nameMatch": "exact"})
				els, _ := found["elements"].([]any)
				if len(els) != 1 {
					t.Fatalf("find_elements Name: %v", found)
				}
				nameRef, _ := els[0].(map[string]any)["ref"].(string)
				byRole := mustOK(t, cs, "find_elements", map[string]any{"session": session, "role": "push button"})
				if byRole["matched"] != float64(1) {
					t.Errorf("find_elements role push button: %v", byRole)
				}

				props := mustOK(t, cs, "get_element_properties", map[string]any{"session": session, "element": nameRef})
				p, _ := props["properties"].(map[string]any)
				if p["role"] != "text" || p["bounds"] == nil || p["name"] != "Name" {
					t.Errorf("properties: %v", props)
				}
				if txt, _ := p["text"].(map[string]any); txt["text"] != "Ada" {
					t.Errorf("properties text: %v", p["text"])
				}

				fws := mustOK(t, cs, "get_frameworks", map[string]any{"session": session})
				if list, _ := fws["frameworks"].([]any); len(list) == 0 || list[0].(map[string]any)["name"] != "GTK" {
					t.Errorf("frameworks: %v", fws)
				}

				x := int(bounds["x"].(float64) + bounds["width"].(float64)/2)
				y := int(bounds["y"].(float64) + bounds["height"].(float64) - 3)
				hit := mustOK(t, cs, "hit_test", map[string]any{"session": session, "x": x, "y": y})
				if el, _ := hit["element"].(map[string]any); el == nil || el["ref"] != submit {
					t.Errorf("hit_test at %d,%d: %v, want %s", x, y, hit, submit)
				}
				inLabel := mustOK(t, cs, "hit_test", map[string]any{"session": session, "x": 35, "y": 210})
				anc, _ := inLabel["ancestors"].([]any)
				if len(anc) == 0 || anc[0].(map[string]any)["ref"] != submit {
					t.Errorf("hit_test on the label: nearest ancestor should be %s: %v", submit, inLabel)
				}
				miss := mustOK(t, cs, "hit_test", map[string]any{"session": session, "x": 5000, "y": 5000})
				if miss["element"] != nil {
					t.Errorf("hit_test off the app: %v", miss)
				}

				wait := mustOK(t, cs, "wait_for", map[string]any{"session": session, "name": "Ready", "until": "appears", "timeoutMs": 2000})
				if wait["satisfied"] != true {
					t.Errorf("wait_for: %v", wait)
				}
				start := time.Now()
				timeout := mustFail(t, cs, "wait_for", map[string]any{"session": session, "name": "Never", "until": "appears", "timeoutMs": 500}, core.CodeTimeout)
				if timeout["retryable"] != true || time.Since(start) > 5*time.Second {
					t.Errorf("wait_for timeout: %v after %v", timeout, time.Since(start))
				}

				mustOK(t, cs, "disconnect", map[string]any{"session": session})
				mustFail(t, cs, "get_a11y_tree", map[string]any{"session": session}, core.CodeUnknownSession)
				mustFail(t, cs, "disconnect", map[string]any{"session": session}, core.CodeUnknownSession)
			})
		})
	}
}

func TestFailures(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cs := connectClient(t, Config{}, era.version)
				session := mustOK(t, cs, "connect", map[string]any{"pid": os.Getpid()})["session"].(string)
				props := func(ref string) map[string]any { return map[string]any{"session": session, "element": ref} }

				mustFail(t, cs, "get_a11y_tree", map[string]any{"session": "s999"}, core.CodeUnknownSession)
				mustFail(t, cs, "get_element_properties", props("a11y:e999"), core.CodeUnknownRef)
				mustOK(t, cs, "get_a11y_tree", map[string]any{"session": session})
				mustFail(t, cs, "get_element_properties", props("e12x"), core.CodeMalformedRef)
				mustFail(t, cs, "get_element_properties", props("visual:e3"), core.CodeWrongTree)
				mustFail(t, cs, "get_element_properties", props("a11y:e999"), core.CodeUnknownRef)
				mustFail(t, cs, "get_a11y_tree", map[string]any{"session": session, "depth": -1}, core.CodeInvalidArgument)
				mustFail(t, cs, "get_a11y_tree", map[string]any{"session": session, "maxNodes": 100000000}, core.CodeInvalidArgument)
				mustFail(t, cs, "get_a11y_tree", map[string]any{"session": session, "timeoutMs": 0}, core.CodeInvalidArgument)
				mustFail(t, cs, "get_a11y_tree", map[string]any{"session": session, "format": "xml"}, core.CodeInvalidArgument)
				mustFail(t, cs, "wait_for", map[string]any{"session": session, "until": "soon"}, core.CodeInvalidArgument)
				mustFail(t, cs, "connect", map[string]any{"pid": os.Getpid(), "name": fakeApp}, core.CodeInvalidArgument)
				mustFail(t, cs, "connect", map[string]any{"name": "nothing-like-it"}, core.CodeNotFound)

				amb := mustFail(t, cs, "connect", map[string]any{"name": "twin"}, core.CodeAmbiguous)
				if c, _ := amb["candidates"].([]any); len(c) != 2 {
					t.Errorf("ambiguous connect: want 2 candidates: %v", amb)
				} else {
					for _, x := range c {
						m := x.(map[string]any)
						if m["pid"] == nil || m["window"] == "" || m["title"] == "" {
							t.Errorf("candidate lacks pid/window/title: %v", m)
						}
					}
				}
				if byTitle := mustOK(t, cs, "connect", map[string]any{"title": "twin two"}); byTitle["pid"] != float64(os.Getppid()) {
					t.Errorf("connect by title: %v", byTitle)
				}

				// Arguments of the wrong type, unknown or missing are
				// invalidArgument data naming the argument.
				for _, c := range []struct {
					tool, arg string
					args      map[string]any
				}{
					{"get_a11y_tree", "bogus", map[string]any{"session": session, "bogus": 1}},
					{"get_a11y_tree", "depth", map[string]any{"session": session, "depth": "deep"}},
					{"get_a11y_tree", "depth", map[string]any{"session": session, "depth": 1.5}},
					{"get_a11y_tree", "maxNodes", map[string]any{"session": session, "maxNodes": 1e30}},
					{"get_a11y_tree", "session", map[string]any{}},
					{"get_a11y_tree", "session", map[string]any{"session": 7}},
					{"connect", "pid", map[string]any{"pid": "abc"}},
					{"find_elements", "states", map[string]any{"session": session, "states": "focused"}},
					{"find_elements", "states", map[string]any{"session": session, "states": []any{1}}},
					{"hit_test", "x", map[string]any{"session": session, "x": nil, "y": 3}},
				} {
					out := mustFail(t, cs, c.tool, c.args, core.CodeInvalidArgument)
					if msg, _ := out["error"].(string); !strings.Contains(msg, c.arg) || len(msg) > 300 {
						t.Errorf("%s %v: the message should name %s, briefly: %q", c.tool, c.args, c.arg, msg)
					}
				}
				// tools/list shows optional arguments without their null
				// (listed); null is still taken as leaving one out.
				mustOK(t, cs, "get_a11y_tree", map[string]any{"session": session, "depth": nil, "maxBytes": nil})
			})
		})
	}
}

// TestHugeInputQuotedShort: an error quotes caller input short, however
// long it was (an 8 MiB name once gave a 16.7 MB answer).
func TestHugeInputQuotedShort(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		cs := connectClient(t, Config{}, "")
		session := mustOK(t, cs, "connect", map[string]any{"pid": os.Getpid()})["session"].(string)
		mustOK(t, cs, "get_a11y_tree", map[string]any{"session": session})
		huge := strings.Repeat("é", 1<<15) // 64 KiB: an answer that grew with it would be far over the bound
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"connect", map[string]any{"name": huge}},
			{"connect", map[string]any{"title": huge}},
			{"connect", map[string]any{"window": huge}},
			{"connect", map[string]any{"pid": os.Getpid(), "mode": huge}},
			{"find_elements", map[string]any{"session": session, "role": huge}},
			{"find_elements", map[string]any{"session": session, "states": []string{huge}}},
			{"find_elements", map[string]any{"session": session, "interface": huge}},
			{"find_elements", map[string]any{"session": session, "name": "x", "nameMatch": huge}},
			{"find_elements", map[string]any{"session": session, "within": huge}},
			{"get_a11y_tree", map[string]any{"session": session, "view": huge}},
			{"get_a11y_tree", map[string]any{"session": session, "format": huge}},
			{"get_a11y_tree", map[string]any{"session": session, "element": "a11y:" + huge}},
			{"get_a11y_tree", map[string]any{"session": huge}},
			{"get_element_properties", map[string]any{"session": session, "element": huge}},
			{"get_element_properties", map[string]any{"session": session, "element": "a11y:e1", "names": []string{huge}}},
			{"wait_for", map[string]any{"session": session, "until": huge}},
			{"wait_for", map[string]any{"session": session, "until": "property", "property": huge}},
			{"wait_for", map[string]any{"session": session, "until": "property", "property": "state", "value": huge}},
			{"disconnect", map[string]any{"session": huge}},
			{"list_apps", map[string]any{huge: 1}},
		} {
			out, res := call(t, cs, c.tool, c.args)
			if out["ok"] != false {
				t.Errorf("%s: huge input accepted: %.300v", c.tool, out)
				continue
			}
			if n := len(res.Content[0].(*mcp.TextContent).Text); n > 1000 {
				t.Errorf("%s: a %d-byte answer to a huge argument: %.300s", c.tool, n, res.Content[0].(*mcp.TextContent).Text)
			}
		}
	})
}

// TestPanicRecovered: a handler that panics answers internal, logs, and the
// server keeps serving.
func TestPanicRecovered(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	srv := mcp.NewServer(&mcp.Implementation{Name: "panics", Version: "1"}, nil)
	def := newTool(ToolsetInspect, &mcp.Tool{Name: "boom", Annotations: readOnly()},
		func(_ context.Context, _ *mcp.CallToolRequest, in sessionArgs) (sessionResult, error) {
			if in.Session == "panic" {
				panic("a bug: nil map")
			}
			return sessionResult(in), nil
		})
	def.register(srv, def.Tool, newGuard(Config{}, &syncWriter{b: &log}))
	cs := serve(t, srv, "")
	out := mustFail(t, cs, "boom", map[string]any{"session": "panic"}, core.CodeInternal)
	if msg, _ := out["error"].(string); strings.Contains(msg, "nil map") {
		t.Errorf("the panic's text reached the client: %q", msg)
	}
	mustOK(t, cs, "boom", map[string]any{"session": "calm"})
	mustFail(t, cs, "boom", map[string]any{"session": "panic"}, core.CodeInternal)
	if got := log.String(); !strings.Contains(got, "boom panicked") || !strings.Contains(got, "nil map") || !strings.Contains(got, "goroutine") {
		t.Errorf("the panic was not logged with its stack:\n%s", got)
	}
}

// syncWriter guards a buffer written by handler goroutines.
type syncWriter struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// TestSameJSON: sameJSON agrees with reflect.DeepEqual on decoded JSON.
func TestSameJSON(t *testing.T) {
	t.Parallel()
	docs := []string{`null`, `0`, `1`, `"1"`, `true`, `false`, `[]`, `{}`, `[1]`, `[null]`, `{"a":1}`, `{"a":"1"}`, `{"b":1}`,
		`{"a":1,"b":[1,{"c":null}]}`, `{"a":1,"b":[1,{"c":false}]}`, `{"a":1,"b":[1,{"d":null}]}`, `{"a":1,"b":[1,{}]}`, `[[],{}]`, `[{},[]]`}
	for _, x := range docs {
		for _, y := range docs {
			var a, b any
			if json.Unmarshal([]byte(x), &a) != nil || json.Unmarshal([]byte(y), &b) != nil {
				t.Fatalf("%s or %s is not JSON", x, y)
			}
			if got, want := sameJSON(a, b), reflect.DeepEqual(a, b); got != want {
				t.Errorf("sameJSON(%s, %s) = %v, DeepEqual says %v", x, y, got, want)
			}
		}
	}
	if sameJSON(map[string]any{"a": 1}, map[string]any{"a": 1}) {
		t.Error("an int is not what encoding/json decodes, yet sameJSON took it")
	}
}
