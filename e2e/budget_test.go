//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// A default get_a11y_tree answer of a big real app fits an
// agent's context in either format — its JSON text within the default
// maxBytes (32000), both copies a result carries under 80 KB — keeps the
// upper levels of the tree (breadth-first), and says where to read on: the
// ref it names, passed as element, shows what was left out.
func TestTreeBudgetWidgetFactories(t *testing.T) {
	testdesk.ForEach(t, testTreeBudgetWidgetFactories)
}

func testTreeBudgetWidgetFactories(t *testing.T, d *testdesk.Desk) {
	for _, name := range []string{"gtk3-widget-factory", "gtk4-widget-factory"} {
		t.Run(name, func(t *testing.T) {
			app := d.Launch(t, name)
			s := startMCP(t, d, "")
			sess := s.connect(t, map[string]any{"pid": app.Pid})
			for _, format := range []string{"json", "outline"} {
				checkBudgetAnswer(t, s, sess, format)
			}
		})
	}
}

var refPattern = regexp.MustCompile(`a11y:e[0-9]+`)

// shownLevels lists the refs an answer shows with their level below the
// root: from the JSON tree, or from the outline's indentation.
func shownLevels(t *testing.T, out map[string]any) map[string]int {
	t.Helper()
	levels := map[string]int{}
	if text, ok := out["outline"].(string); ok {
		for _, line := range strings.Split(text, "\n") {
			trimmed := strings.TrimLeft(line, " ")
			if ref := refPattern.FindString(trimmed); ref != "" && !strings.HasPrefix(trimmed, "… ") {
				levels[ref] = (len(line) - len(trimmed)) / 2
			}
		}
		return levels
	}
	depth := map[*elem]int{}
	decode[*elem](t, out["root"]).walk(func(e, p *elem) {
		if p != nil {
			depth[e] = depth[p] + 1
		}
		levels[e.Ref] = depth[e]
	})
	return levels
}

func checkBudgetAnswer(t *testing.T, s *mcpServer, sess, format string) {
	t.Helper()
	// The whole tree and the default answer, read until two reads agree on
	// the app's size (a widget factory may still be building a page).
	var whole, levels map[string]int
	var out map[string]any
	var res *mcp.CallToolResult
	until(t, "two reads of the same tree", func(context.Context) (bool, string) {
		all := s.ok(t, "get_a11y_tree", map[string]any{"session": sess, "format": "json", "maxNodes": 100000, "maxBytes": 100000000, "timeoutMs": 60000})
		var err error
		out, res, err = s.callRaw(t, "get_a11y_tree", map[string]any{"session": sess, "format": format, "timeoutMs": 60000})
		if err != nil || out["ok"] != true {
			t.Fatalf("default %s read: %v %v", format, err, out)
		}
		whole, levels = shownLevels(t, all), shownLevels(t, out)
		return all["nodeCount"] == out["nodeCount"] && len(whole) == int(all["nodeCount"].(float64)),
			fmt.Sprintf("nodeCount %v then %v", all["nodeCount"], out["nodeCount"])
	})
	text := res.Content[0].(*mcp.TextContent).Text
	wire, _ := json.Marshal(res)
	t.Logf("%s: %d of %d elements shown, %d bytes, %d both copies, cutBy %v", format, len(levels), len(whole), len(text), len(wire), out["cutBy"])
	if len(text) > 32000 || len(wire) > 80000 {
		t.Errorf("%s: the default answer is %d bytes (%d both copies): over the budget", format, len(text), len(wire))
	}
	if out["shown"] != float64(len(levels)) || out["omitted"] != float64(len(whole)-len(levels)) || out["truncated"] != false {
		t.Errorf("%s: shown %v omitted %v truncated %v; the answer holds %d of %d", format, out["shown"], out["omitted"], out["truncated"], len(levels), len(whole))
	}
	for ref, l := range levels {
		if whole[ref] != l {
			t.Errorf("%s: %s at level %d, in the whole tree at %d", format, ref, l, whole[ref])
		}
	}
	if len(levels) == len(whole) {
		if out["cutBy"] != nil || out["note"] != nil {
			t.Errorf("%s: the whole tree, yet cutBy %v note %v", format, out["cutBy"], out["note"])
		}
		return
	}
	// A cut answer uses most of its budget: it is not cut far short of it.
	if len(text) < 32000*3/4 {
		t.Errorf("%s: %d of %d elements cut to %d bytes, far short of maxBytes 32000", format, len(levels), len(whole), len(text))
	}
	// Breadth-first: every element above the level of the highest one left
	// out is shown, and none below it.
	cut := -1
	for ref, l := range whole {
		if _, ok := levels[ref]; !ok && (cut < 0 || l < cut) {
			cut = l
		}
	}
	for ref, l := range whole {
		if _, ok := levels[ref]; ok && l > cut {
			t.Errorf("%s: %s shown at level %d, below level %d where elements were left out", format, ref, l, cut)
		}
	}
	note, _ := out["note"].(string)
	if out["cutBy"] != "maxBytes" || !strings.Contains(note, "element") || !strings.Contains(note, "maxBytes") {
		t.Fatalf("%s: cutBy %v, note %q", format, out["cutBy"], note)
	}
	// Read on where the note says: the element's subtree shows elements the
	// first answer left out.
	at := refPattern.FindString(note[strings.Index(note, "largest cuts"):])
	if _, ok := levels[at]; !ok {
		t.Fatalf("%s: the note names %q, not an element shown: %s", format, at, note)
	}
	more := s.ok(t, "get_a11y_tree", map[string]any{"session": sess, "format": format, "element": at, "timeoutMs": 60000})
	fresh := 0
	for ref := range shownLevels(t, more) {
		if _, ok := levels[ref]; !ok {
			fresh++
		}
	}
	if fresh == 0 {
		t.Errorf("%s: reading on at %s showed nothing the first answer left out: %.1000v", format, at, more)
	}
}
