//go:build linux

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/atspi"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// collectionPage holds what a browser exposes in many shapes: sections of
// headings, paragraphs with links, lists, check boxes, text fields and
// buttons; a table with header cells and links in cells; a grid, a tree,
// selects, a text area, a slider, a progress bar, an image, a disclosure,
// a frame and a password field.
func collectionPage() string {
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><meta charset=utf-8><title>collection page</title></head><body><h1>Collection page</h1>\n")
	for i := range 40 {
		fmt.Fprintf(&b, `<section><h2>Section %d</h2><p>Paragraph %d with <a href="#s%d">link %d</a> and <b>bold</b> words.</p>`+
			`<ul><li>item %d.1</li><li><a href="#">item %d.2</a></li></ul><label><input type=checkbox name=c%d> pick %d</label> `+
			`<input type=text aria-label="field %d" value="v%d"> <button>button %d</button></section>`+"\n", i, i, i, i, i, i, i, i, i, i, i)
	}
	b.WriteString(`<table border=1><caption>the table</caption><thead><tr><th>head 1</th><th>head 2</th></tr></thead><tbody>`)
	for i := range 6 {
		fmt.Fprintf(&b, `<tr><th scope=row>row %d</th><td>x <a href="#">cell link %d</a> y</td></tr>`, i, i)
	}
	b.WriteString(`</tbody></table>
<div role=grid aria-label="the grid"><div role=row><div role=gridcell>g1</div><div role=gridcell>g2</div></div></div>
<div role=tree aria-label="the tree"><div role=treeitem aria-expanded=true>t1<div role=group><div role=treeitem>t1.1</div></div></div></div>
<select aria-label="one select"><option>one</option><option selected>two</option></select>
<select size=3 aria-label="a list"><option>a</option><option>b</option><option>c</option></select>
<textarea aria-label="the area">some text</textarea><input type=range value=3 min=0 max=10 aria-label="the slider">
<progress value=3 max=10></progress><img alt="an image" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
<details open><summary>summary</summary><p>disclosed</p></details>
<iframe srcdoc="<p>in the frame <a href=#>frame link</a></p>"></iframe>
<input type=password aria-label="the password" value="hunter2-collection">
<p><button>the end of the page</button></p></body></html>
`)
	return b.String()
}

// nodeLines renders a tree one node a line with every field a read fills,
// the element's key included.
func nodeLines(n *platform.Node) []string {
	var out []string
	var walk func(n *platform.Node, depth int)
	walk = func(n *platform.Node, depth int) {
		b, v := "-", "-"
		if n.Bounds != nil {
			b = fmt.Sprint(*n.Bounds)
		}
		if n.Value != nil {
			v = fmt.Sprintf("%q", *n.Value)
		}
		out = append(out, fmt.Sprintf("%s%s %s %q %q %v %s %v %v n=%d value=%s trunc=%v redacted=%v partial=%v err=%q", strings.Repeat(" ", depth),
			n.Key, n.Role, n.Name, n.Description, n.States.Names(), b, n.Interfaces, n.Actions, n.ChildCount, v, n.ValueTruncated,
			n.Redacted, n.ChildrenPartial, n.Err))
		for _, k := range n.Children {
			walk(k, depth+1)
		}
	}
	walk(n, 0)
	return out
}

// TestBrowserCollectionRead: a browser's cold read prefetches the page
// through Collection.GetMatches (the preorder list and the roles in nine
// calls, then GetAll, GetState and GetInterfaces per element, over a
// direct connection to the browser rather than through the bus) and returns
// the same tree, field by field and key by key, as a walk without any
// prefetch, for fewer than 3.5 D-Bus calls a node. Before, the walk cost
// 4.7 (Firefox) and 3.7 (Chromium) calls a node on this page (GetAll,
// GetRole, GetState, GetInterfaces per element, GetChildren per parent).
func TestBrowserCollectionRead(t *testing.T) { testdesk.ForEach(t, testBrowserCollectionRead) }

func testBrowserCollectionRead(t *testing.T, d *testdesk.Desk) {
	page := collectionPage()
	for _, b := range browsers {
		t.Run(b.name, func(t *testing.T) {
			app := openPage(t, d, b, "collection page", page)
			waitForNamed(t, d, app.Bus, "the end of the page")
			opts := atspi.TreeOptions{Bulk: true, SilentMoves: true, MaxNodes: 100000}
			read := func(noCache bool) (*platform.Node, atspi.TreeStats) {
				t.Helper()
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				o := opts
				o.NoCache = noCache
				root, st, err := d.A11y.Tree(ctx, app.Bus, o)
				if err != nil || st.Truncated {
					t.Fatalf("tree (no cache %v): %v (truncated %v %s)", noCache, err, st.Truncated, st.Reason)
				}
				return root, st
			}
			a, b1, st := heldStill(t, func(prefetch bool) (*platform.Node, atspi.TreeStats) { return read(!prefetch) }, nodeLines)
			perNode := float64(st.Calls) / float64(st.Nodes)
			t.Logf("%s: %d nodes, strategy %s, %d D-Bus calls (%.2f a node), %d from the prefetch or cache, %v", b.name, st.Nodes, st.Strategy,
				st.Calls, perNode, st.CacheUsed, st.Elapsed)
			if d := diff(b1, a); d != "" {
				t.Errorf("the read with the prefetch differs from a walk without it:\n%s", d)
			}
			if len(a) < 400 || !strings.Contains(strings.Join(a, "\n"), `"the end of the page"`) {
				t.Errorf("the page is not all there: %d nodes", len(a))
			}
			if strings.Contains(strings.Join(a, "\n"), "hunter2") {
				t.Errorf("the password is in the tree")
			}
			if st.Strategy != "direct+collection+walk" || perNode >= 3.5 {
				t.Errorf("a cold read: strategy %q, %.2f D-Bus calls a node (%d for %d nodes); want direct+collection+walk and fewer than 3.5",
					st.Strategy, perNode, st.Calls, st.Nodes)
			}
		})
	}
}
