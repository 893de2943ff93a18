package mcpserver

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/security"
)

// The docs' tests: their links (TestDocLinks), and the parts generated
// from the inventory, kept between markers:
//   - README.md's tool table (tools:begin … tools:end);
//   - docs/api.md's argument lists (args:begin … args:end).
//
// A test fails when a file's section differs from what the inventory
// renders; -update rewrites the section.

// docTools is the inventory with every toolset enabled.
func docTools() []toolDef {
	cfg := Config{Caps: security.Input}
	return Enabled(cfg, Inventory(cfg, core.NewSessions(fakePlatform())))
}

// toolTable renders the README's tool table.
func toolTable() string {
	var b strings.Builder
	b.WriteString("| tool | toolset | kind | what it does |\n|---|---|---|---|\n")
	for _, d := range docTools() {
		kind := "read-only"
		if d.Runner {
			kind = "as its steps: acting ones need `--allow-input`"
		} else if a := d.Tool.Annotations; a != nil && a.DestructiveHint != nil && *a.DestructiveHint {
			kind = "destructive (`--allow-input`)"
		} else if len(d.InputArgs) > 0 {
			kind = "read-only; `" + strings.Join(d.InputArgs, "`, `") + "` needs `--allow-input`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", d.Tool.Name, d.Toolset, kind,
			strings.ReplaceAll(firstSentence(d.Tool.Description), "|", `\|`))
	}
	return b.String()
}

// argGroups are the toolsets of docs/api.md's argument lists, in order.
var argGroups = []struct{ toolset, title string }{
	{ToolsetInspect, "Inspection (toolset inspect, always registered):"},
	{ToolsetInteract, "Interaction (toolset interact: `--allow-input` or `--allow-input=interact`):"},
	{ToolsetKeyboard, "Keyboard (toolset keyboard: `--allow-input` or `--allow-input=keyboard`):"},
}

// argLists renders docs/api.md's argument lists: a line per tool, grouped
// by toolset, its arguments in the input struct's order, each optional one
// marked "?" and typed unless it is a string.
func argLists() (string, error) {
	tools := docTools()
	var b strings.Builder
	listed := 0
	for gi, g := range argGroups {
		if gi > 0 {
			b.WriteString("\n")
		}
		b.WriteString(g.title + "\n\n")
		for _, d := range tools {
			if d.Toolset != g.toolset {
				continue
			}
			s, ok := d.Tool.InputSchema.(*jsonschema.Schema)
			if !ok {
				return "", fmt.Errorf("tool %s: input schema is a %T, not a *jsonschema.Schema", d.Tool.Name, d.Tool.InputSchema)
			}
			fmt.Fprintf(&b, "- `%s` {%s}\n", d.Tool.Name, strings.Join(argWords(s), ", "))
			listed++
		}
	}
	if listed != len(tools) {
		return "", fmt.Errorf("%d of %d tools are in a toolset argGroups does not list", len(tools)-listed, len(tools))
	}
	return b.String(), nil
}

// argWords is each argument of s as docs/api.md writes it: `name`,
// `name?` when optional, then `: type` unless it is a string.
func argWords(s *jsonschema.Schema) []string {
	names := s.PropertyOrder
	if len(names) != len(s.Properties) {
		names = names[:0:0]
		for n := range s.Properties {
			names = append(names, n)
		}
		slices.Sort(names)
	}
	var words []string
	for _, n := range names {
		w := n
		if !slices.Contains(s.Required, n) {
			w += "?"
		}
		if t := argType(s.Properties[n]); t != "string" {
			w += ": " + t
		}
		words = append(words, w)
	}
	return words
}

// argType names what an argument's schema admits, null left out:
// "integer", "string[]", "any".
func argType(s *jsonschema.Schema) string {
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	var out []string
	for _, t := range types {
		switch t {
		case "null":
		case "array":
			item := "any"
			if s.Items != nil {
				item = argType(s.Items)
			}
			out = append(out, item+"[]")
		default:
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return "any"
	}
	return strings.Join(out, "|")
}

// firstSentence cuts s after its first ". ", "? " or "! " that does not end
// an abbreviation ("e.g.") or an ellipsis.
func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for i := 1; i < len(s); i++ {
		if s[i] != ' ' || !strings.ContainsRune(".?!", rune(s[i-1])) {
			continue
		}
		word := strings.TrimLeft(s[strings.LastIndexByte(s[:i], ' ')+1:i-1], "(\"'[")
		if s[i-1] == '.' && (strings.HasSuffix(word, ".") || slices.Contains([]string{"e.g", "i.e", "etc", "vs"}, strings.ToLower(word))) {
			continue
		}
		return s[:i]
	}
	return s
}

// syncSection checks that the text between begin and end in the file at
// path (relative to the repository's root) is want, and with -update
// writes want there instead.
func syncSection(t *testing.T, path, begin, end, want string) {
	t.Helper()
	full := filepath.Join("..", "..", filepath.FromSlash(path))
	doc, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	i, j := bytes.Index(doc, []byte(begin)), bytes.Index(doc, []byte(end))
	if i < 0 || j < i {
		t.Fatalf("%s has no %s … %s section; the section should read:\n%s", path, begin, end, want)
	}
	got := strings.TrimSpace(string(doc[i+len(begin) : j]))
	if got == strings.TrimSpace(want) {
		return
	}
	if *update {
		var out bytes.Buffer
		out.Write(doc[:i+len(begin)])
		out.WriteString("\n" + strings.TrimSpace(want) + "\n")
		out.Write(doc[j:])
		if err := os.WriteFile(full, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s is out of date with the inventory (run go test ./internal/mcpserver -run %s -update):\n got:\n%s\nwant:\n%s", path, t.Name(), got, want)
}

// TestReadmeToolTable keeps the README's tool table equal to the inventory.
func TestReadmeToolTable(t *testing.T) {
	// Not parallel: with -update it rewrites README.md, which TestDocLinks reads.
	syncSection(t, "README.md", "<!-- tools:begin -->", "<!-- tools:end -->", toolTable())
}

// TestAPIArguments keeps docs/api.md's argument lists equal to the
// inventory's input schemas.
func TestAPIArguments(t *testing.T) {
	// Not parallel: with -update it rewrites docs/api.md, which TestDocLinks reads.
	want, err := argLists()
	if err != nil {
		t.Fatal(err)
	}
	syncSection(t, "docs/api.md", "<!-- args:begin -->", "<!-- args:end -->", want)
}

func TestArgWords(t *testing.T) {
	t.Parallel()
	s := &jsonschema.Schema{
		Properties: map[string]*jsonschema.Schema{
			"session": {Type: "string"},
			"rows":    {Type: "array", Items: &jsonschema.Schema{Type: "integer"}},
			"states":  {Types: []string{"null", "array"}, Items: &jsonschema.Schema{Type: "string"}},
			"x":       {Types: []string{"null", "integer"}},
			"value":   {},
		},
		PropertyOrder: []string{"session", "rows", "states", "x", "value"},
		Required:      []string{"session", "rows", "value"},
	}
	got := strings.Join(argWords(s), ", ")
	if want := "session, rows: integer[], states?: string[], x?: integer, value: any"; got != want {
		t.Errorf("argWords = %q, want %q", got, want)
	}
	s.PropertyOrder = nil // no order recorded: sorted by name
	got = strings.Join(argWords(s), ", ")
	if want := "rows: integer[], session, states?: string[], value: any, x?: integer"; got != want {
		t.Errorf("argWords without an order = %q, want %q", got, want)
	}
}

func TestFirstSentence(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Find things by role (e.g. \"push button\"). More.": "Find things by role (e.g. \"push button\").",
		"One line only.":                 "One line only.",
		"No period":                      "No period",
		"Read a.b values. Then\nstop.":   "Read a.b values.",
		"Ask? Yes.":                      "Ask?",
		"Wait for it... then go. Later.": "Wait for it... then go.",
		"A thing. lower case follows.":   "A thing.",
	} {
		if got := firstSentence(in); got != want {
			t.Errorf("firstSentence(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDocLinks: every relative link in the repository's Markdown files
// (the README, the files beside it and docs/) names a file that exists
// and, after a #, a heading of that file, as GitHub makes its anchors. The
// README is the lobby: the sections moved out of it stay reachable only
// while these links hold.
func TestDocLinks(t *testing.T) {
	// Not parallel: it reads the files -update rewrites, after they are.
	root := filepath.Join("..", "..")
	var docs []string
	for _, pattern := range []string{"*.md", filepath.Join("docs", "*.md")} {
		m, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, m...)
	}
	if len(docs) < 2 {
		t.Fatalf("found %d Markdown files under %s", len(docs), root)
	}
	anchors := map[string]map[string]bool{}
	headingsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		a := map[string]bool{}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		fenced := false
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "```") {
				fenced = !fenced
			}
			if h, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " "); ok && !fenced && strings.HasPrefix(line, "#") {
				a[anchorOf(h)] = true
			}
		}
		anchors[path] = a
		return a
	}
	links := 0
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			links++
			file, anchor, _ := strings.Cut(target, "#")
			path := doc
			if file != "" {
				path = filepath.Join(filepath.Dir(doc), filepath.FromSlash(file))
			}
			rel, _ := filepath.Rel(root, doc)
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s links to %s: no such file", rel, target)
				continue
			}
			if anchor != "" && strings.HasSuffix(path, ".md") && !headingsOf(path)[anchor] {
				t.Errorf("%s links to %s: no such heading", rel, target)
			}
		}
	}
	if links == 0 {
		t.Fatal("no relative links found")
	}
}

// mdLink matches a Markdown link's target: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// anchorOf is the anchor GitHub gives a heading: lower case, punctuation
// but hyphens dropped, spaces made hyphens.
func anchorOf(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestAnchorOf(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"The mirror (MCP sessions on GTK 3 apps and browsers)": "the-mirror-mcp-sessions-on-gtk-3-apps-and-browsers",
		"Clients, sessions and HTTP":                           "clients-sessions-and-http",
		"`uiscope tree`":                                       "uiscope-tree",
	} {
		if got := anchorOf(in); got != want {
			t.Errorf("anchorOf(%q) = %q, want %q", in, got, want)
		}
	}
}
