package mcpserver

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/platform"
)

// get_a11y_tree keeps its whole answer within maxBytes (the default when
// none is given) in both formats, cut breadth-first, and its note names
// where to read on: a ref that, passed as element, shows what was left out.
func TestTreeAnswerWithinMaxBytes(t *testing.T) {
	t.Parallel() // CPU-bound on a large tree: the large-tree tests and their parts run side by side
	// largeTree serves the same 3000-node tree on a server of its own,
	// one per part (each in a bubble of its own), and connects to it.
	largeTree := func(t *testing.T) (cs *mcp.ClientSession, session string, count int) {
		root, count := benchTree(3000)
		desk := fakePlatform()
		desk.Accessibility = benchDesk{root: root, nodes: count}
		cs = serve(t, New(Config{}, core.NewSessions(desk)), "")
		return cs, mustOK(t, cs, "connect", map[string]any{"name": fakeApp})["session"].(string), count
	}
	refs := regexp.MustCompile(`a11y:e[0-9]+`)
	for _, format := range []string{"json", "outline"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				cs, session, count := largeTree(t)
				for _, maxBytes := range []int{0, core.MinMaxBytes, 5000, 20000, 100000} {
					name := fmt.Sprintf("%s maxBytes %d", format, maxBytes)
					args := map[string]any{"session": session, "format": format}
					limit := core.DefaultMaxBytes
					if maxBytes > 0 {
						args["maxBytes"], limit = maxBytes, maxBytes
					}
					out, res := call(t, cs, "get_a11y_tree", args)
					text := res.Content[0].(*mcp.TextContent).Text
					if out["ok"] != true || len(text) > limit {
						t.Fatalf("%s: %d bytes, ok %v: %.300s", name, len(text), out["ok"], text)
					}
					wire, _ := json.Marshal(res)
					if maxBytes == 0 && len(wire) > 80000 {
						t.Errorf("%s: both copies are %d bytes, over 80 KB", name, len(wire))
					}
					note, _ := out["note"].(string)
					omitted := out["omitted"].(float64)
					if omitted == 0 || out["cutBy"] != "maxBytes" || out["truncated"] != false {
						t.Fatalf("%s: %v of %d omitted, cutBy %v, truncated %v", name, omitted, count, out["cutBy"], out["truncated"])
					}
					for _, want := range []string{"breadth-first", "element", "read_table", "raise maxBytes"} {
						if !strings.Contains(note, want) {
							t.Errorf("%s: note does not say %q: %s", name, want, note)
						}
					}
					// Breadth-first: no item (level 3) is shown while a panel
					// (level 2) is left out.
					shown := out["shown"].(float64)
					panelsCut, itemsShown := false, false
					if format == "outline" {
						for _, line := range strings.Split(out["outline"].(string), "\n") {
							panelsCut = panelsCut || strings.HasPrefix(line, "    … ")
							itemsShown = itemsShown || strings.HasPrefix(line, "      ") && !strings.HasPrefix(line, "      … ")
						}
					} else {
						frame := out["root"].(map[string]any)["children"].([]any)[0].(map[string]any)
						panelsCut = frame["childrenOmitted"] != nil
						panels, _ := frame["children"].([]any)
						for _, p := range panels {
							itemsShown = itemsShown || p.(map[string]any)["children"] != nil
						}
					}
					if panelsCut && itemsShown {
						t.Errorf("%s: items shown while panels were left out", name)
					}
					cut := refs.FindString(note[strings.Index(note, "largest cuts"):])
					if cut == "" {
						t.Fatalf("%s: note names no element to read on from: %s", name, note)
					}
					more := mustOK(t, cs, "get_a11y_tree", map[string]any{"session": session, "format": format, "element": cut})
					if more["shown"].(float64) < 2 {
						t.Errorf("%s: reading on at %s shows %v", name, cut, more["shown"])
					}
					t.Logf("%s: %d bytes (%d both copies), %v shown", name, len(text), len(wire), shown)
				}
			})
		})
	}
	// A budget that holds the whole tree shows it whole, without a note.
	t.Run("whole", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			cs, session, count := largeTree(t)
			out := mustOK(t, cs, "get_a11y_tree", map[string]any{"session": session, "format": "json", "maxBytes": core.MaxMaxBytes, "maxNodes": core.MaxMaxNodes})
			if out["omitted"] != float64(0) || out["shown"] != float64(count) || out["note"] != nil || out["cutBy"] != nil {
				t.Errorf("whole tree: shown %v omitted %v note %v cutBy %v", out["shown"], out["omitted"], out["note"], out["cutBy"])
			}
			for _, bad := range []any{0, core.MinMaxBytes - 1, core.MaxMaxBytes + 1, "big"} {
				mustFail(t, cs, "get_a11y_tree", map[string]any{"session": session, "maxBytes": bad}, core.CodeInvalidArgument)
			}
		})
	})
}

// A tree answer written by appendMembers is what json.Marshal writes for
// it (with "ok": true first, as successResult does), in both formats.
func TestTreeResultAppendsAsMarshal(t *testing.T) {
	t.Parallel()
	root, _ := benchTree(500)
	odd := []string{`q"uote`, `back\slash`, "<tag>&", "ctl\x01\n", "bad\xff", "sep\u2028", "é漢🙂"}
	i := 0
	var walk func(n *platform.Node)
	walk = func(n *platform.Node) {
		n.Name = odd[i%len(odd)] + n.Name
		v := odd[(i+3)%len(odd)]
		if i%4 == 0 {
			n.Value = &v
		}
		i++
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(root)
	tr := core.NewTree(root, core.KindA11y)
	el, rs, err := tr.Render(core.ViewOptions{Depth: -1, MaxNodes: core.MaxMaxNodes, MaxBytes: 50000})
	if err != nil {
		t.Fatal(err)
	}
	outline, _, _ := tr.Outline(core.ViewOptions{Depth: -1})
	for _, r := range []treeResult{
		{Session: "s1", Format: "json", View: "raw", Root: el, NodeCount: tr.Len(), Shown: rs.Nodes, Omitted: rs.Omitted,
			CutBy: "maxBytes", Note: "a <note> & \"more\"", Fetch: fetchInfo{Strategy: "bench", Ms: 3, Calls: 9}, rootBytes: rs.Bytes},
		{Session: "s1", Format: "outline", View: "content", Outline: outline, NodeCount: tr.Len(), Shown: tr.Len(), Truncated: true, TruncatedReason: "deadline"},
		{Session: "s2", Format: "json", View: "raw"},
	} {
		m, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		want := append([]byte(`{"ok":true,`), m[1:]...)
		got, err := r.appendMembers(nil)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s answer:\n got %.600s\nwant %.600s", r.Format, got, want)
		}
	}
}
