//go:build linux

package e2e

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/platform/atspi"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// pageSections makes the generated page about 4,000 nodes in Chromium
// (about 19 a section) and 2,400 in Firefox (about 11).
const pageSections = 210

// TestBrowserLargePage reads a generated page of thousands of nodes in
// Firefox and Chromium through a real `uiscope mcp`: the raw tree is
// complete (the same role/name pairs as an independent walk, one blocking
// call at a time), read afresh and from the session's mirror; a cold read
// costs fewer than 3.5 D-Bus calls per node (the page's nodes are not in
// either browser's cache: nine Collection.GetMatches for the list and the
// roles, then Properties.GetAll, the states and interfaces of each node,
// extents of what is on screen). A call per property and per child cost
// 6.7 calls per node in Chromium and 6.9 in Firefox; GetAll, the role,
// states and interfaces per node and GetChildren per parent 4.4.
func TestBrowserLargePage(t *testing.T) { testdesk.ForEach(t, testBrowserLargePage) }

func testBrowserLargePage(t *testing.T, d *testdesk.Desk) {
	url, last := bigPage(t, pageSections)
	for _, b := range browsers {
		t.Run(b.name, func(t *testing.T) {
			app := b.launch(t, d, url)
			waitForNamed(t, d, app.Bus, last)
			s := startMCP(t, d, "")
			sess := s.connect(t, map[string]any{"pid": app.Pid})

			cold := s.ok(t, "get_a11y_tree", map[string]any{"session": sess, "maxNodes": 100000, "maxBytes": 100000000, "timeoutMs": 60000})
			fetch := decode[struct {
				Strategy string `json:"strategy"`
				Calls    int    `json:"calls"`
			}](t, cold["fetch"])
			nodes := int(cold["nodeCount"].(float64))
			perNode := float64(fetch.Calls) / float64(nodes)
			t.Logf("%s: cold outline read of %d nodes: %d D-Bus calls (%.2f a node), strategy %s", b.name, nodes, fetch.Calls, perNode, fetch.Strategy)
			if perNode >= 3.5 {
				t.Errorf("a cold read of the page cost %.2f D-Bus calls a node (%d for %d nodes); want fewer than 3.5", perNode, fetch.Calls, nodes)
			}

			// Repeated reads on the session come from its mirror, kept by
			// the page's events, and hold the same tree. (On a loaded
			// machine a read may come more than the mirror's age limit
			// after the last whole one, and be whole again: the reads are
			// compared whatever served them.)
			readJSON := func() treeJSON {
				return decode[treeJSON](t, s.ok(t, "get_a11y_tree", map[string]any{"session": sess, "format": "json", "view": "raw",
					"maxNodes": 100000, "maxBytes": 100000000, "timeoutMs": 60000}))
			}
			var reads []treeJSON
			for try := 0; try < 5; try++ {
				reads = append(reads, readJSON())
				if reads[len(reads)-1].Fetch.Strategy == "mirror" {
					break
				}
			}
			for i, r := range reads {
				t.Logf("%s: read %d: %s, %d ms", b.name, i, r.Fetch.Strategy, r.Fetch.Ms)
			}
			want := independentWalk(t, d.A11yBus, app.Bus)
			for i := range want {
				want[i] = memoryUsage.ReplaceAllString(want[i], "")
			}
			if len(want) < 2000 {
				t.Errorf("the independent walk found only %d nodes: the page did not load", len(want))
			}
			for i, tj := range reads {
				var got []string
				tj.Root.walk(func(e, _ *elem) {
					got = append(got, memoryUsage.ReplaceAllString(fmt.Sprintf("%s %q", e.Role, e.Name), ""))
				})
				sort.Strings(got)
				if tj.Truncated || tj.NodeCount != len(got) {
					t.Errorf("read %d: truncated %v, nodeCount %d for %d nodes in the JSON", i, tj.Truncated, tj.NodeCount, len(got))
				}
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("read %d: the session's raw tree (%d nodes, %s) differs from an independent walk (%d nodes):\n%s",
						i, len(got), tj.Fetch.Strategy, len(want), diff(want, got))
				}
			}
		})
	}
}

// memoryUsage is what Chromium appends to a tab's name, and changes as the
// page's memory does.
var memoryUsage = regexp.MustCompile(` - Memory usage - [0-9.]+ [KMG]B`)

// bigPage returns a generated page of sections (heading, paragraph with a
// link, a list, a check box with its label, a text input, a button) and
// the name of its last element, which a test waits for: the page is
// loaded, and exported to AT-SPI, once that appears.
func bigPage(t testing.TB, sections int) (url, last string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><meta charset=utf-8><title>big page</title></head><body>\n<h1>Big page</h1>\n")
	for i := range sections {
		fmt.Fprintf(&b, `<section><h2>Section %d</h2><p>Paragraph %d with <a href="#s%d">link %d</a> and more words.</p>`+
			`<ul><li>item %d.1</li><li>item %d.2</li></ul>`+
			`<label><input type=checkbox name=c%d> pick %d</label> <input type=text aria-label="field %d" value="v%d"> <button>button %d</button></section>`+"\n",
			i, i, i, i, i, i, i, i, i, i, i)
	}
	last = "the end of the page"
	fmt.Fprintf(&b, "<p><button>%s</button></p></body></html>\n", last)
	return writePage(t, "big.html", b.String()), last
}

// waitForNamed waits until the application's tree holds an element named
// name and has stopped changing (two reads of the same shape), and returns
// the node count of the last read.
func waitForNamed(t testing.TB, d *testdesk.Desk, bus, name string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	var last []string
	why := ""
	for {
		rctx, rcancel := context.WithTimeout(ctx, 60*time.Second)
		root, st, err := d.A11y.Tree(rctx, bus, atspi.TreeOptions{NoDetails: true, MaxNodes: 100000})
		rcancel()
		if err == nil && !st.Truncated {
			found := hasName(root, name)
			shape := testdesk.Shape(root)
			if found && strings.Join(shape, "\n") == strings.Join(last, "\n") {
				return len(shape)
			}
			last = shape
			why = fmt.Sprintf("%d nodes, %q found %v", len(shape), name, found)
		} else {
			why = fmt.Sprintf("err %v, truncated %v (%s)", err, st.Truncated, st.Reason)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %q in the tree: %s", name, why)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// TestDoctorBrowsers: `uiscope doctor` explains a Chromium started without
// --force-renderer-accessibility (its pages' trees are empty frames) and
// says that Firefox exports its pages lazily.
func TestDoctorBrowsers(t *testing.T) { testdesk.ForEach(t, testDoctorBrowsers) }

func testDoctorBrowsers(t *testing.T, d *testdesk.Desk) {
	page := writePage(t, "doctor.html", "<!doctype html><title>doctor page</title><button>a button</button>")
	bare := d.Launch(t, append(freshHome(t), "chromium", "--no-sandbox", "--user-data-dir="+t.TempDir(),
		"--no-first-run", "--no-default-browser-check", "--password-store=basic", page)...)
	r := runCLI(t, d, 60*time.Second, "doctor", "--pid", strconv.Itoa(bare.Pid))
	if r.code == 0 || !strings.Contains(r.stdout, "--force-renderer-accessibility") || !strings.Contains(r.stdout, "empty") {
		t.Errorf("doctor on a Chromium without accessibility: exit %d\n%s", r.code, r.stdout)
	}
	ff := launchFirefox(t, d, page)
	r = runCLI(t, d, 60*time.Second, "doctor", "--pid", strconv.Itoa(ff.Pid))
	if !strings.Contains(r.stdout, "lazily") {
		t.Errorf("doctor on Firefox does not say it exports pages lazily: exit %d\n%s", r.code, r.stdout)
	}
	forced := launchChromium(t, d, page)
	r = runCLI(t, d, 60*time.Second, "doctor", "--pid", strconv.Itoa(forced.Pid))
	if strings.Contains(r.stdout, "only when asked") {
		t.Errorf("doctor on a Chromium with --force-renderer-accessibility still says it is off:\n%s", r.stdout)
	}
}
