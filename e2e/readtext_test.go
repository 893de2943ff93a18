//go:build linux

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// Text a user reads, where no name carries it: a status line a page's
// script fills in after a click, and a PDF page's text in Evince. The
// tree gives such an element a short value, and a name search finds an
// unnamed element by it (docs/api.md, "value").

// statusPage has a button whose click fills an ARIA status line later, from
// a timer (an asynchronous update, as a form's "saved" notice).
const statusPage = `<!DOCTYPE html><html><head><title>Status page</title></head><body>
<button id="b" onclick="setTimeout(step, 300)">Run step</button>
<p role="status" id="s">nothing done yet</p>
<script>var n = 0;
function step() { var t = (++n) + ' of 3 done'; document.getElementById('s').textContent = t; document.title = 'Steps run: ' + n; }</script>
</body></html>`

// TestTaskBrowserStatusText: click a button whose script updates a
// <p role=status> later; the status line's text is found by name and read
// back from the tree's value (Firefox) or its static text child
// (Chromium); the page ran the step once (the script counts it in the
// window's title, read from X or sway, outside uiscope).
func TestTaskBrowserStatusText(t *testing.T) { testdesk.ForEach(t, testTaskBrowserStatusText) }

func testTaskBrowserStatusText(t *testing.T, d *testdesk.Desk) {
	for _, b := range browsers {
		t.Run(b.name, func(t *testing.T) {
			app := openPage(t, d, b, "Status page", statusPage)
			s := startMCP(t, d, "", "--allow-input")
			defer s.logCost(t, b.name+": click, wait for the status text, read it")
			sess := s.connect(t, map[string]any{"pid": app.Pid})
			// The status line says what it holds: Firefox's as its value,
			// Chromium's in a static text child named with it.
			shows := func(within, text string) []elem {
				return decode[[]elem](t, s.ok(t, "find_elements", map[string]any{"session": sess, "within": within, "name": text, "nameMatch": "exact"})["elements"])
			}
			status := findOne(t, s, sess, map[string]any{"role": "status bar"})
			if found := shows(status.Ref, "nothing done yet"); len(found) != 1 || b.name == "firefox" && (found[0].Ref != status.Ref || found[0].Value == nil) {
				t.Errorf("the status line before the click: %+v", found)
			}
			button := findOne(t, s, sess, map[string]any{"name": "Run step", "nameMatch": "exact", "role": "push button"})
			s.ok(t, "click", map[string]any{"session": sess, "element": button.Ref})
			got := s.ok(t, "wait_for", map[string]any{"session": sess, "name": "1 of 3 done", "nameMatch": "exact",
				"until": "appears", "timeoutMs": 20000})
			if els := decode[[]elem](t, got["elements"]); len(els) != 1 {
				t.Fatalf("wait_for the status text: %v", got)
			}
			// A search of the whole page by a word of it finds the line,
			// and what it shows is the text the script wrote.
			found := decode[[]elem](t, s.ok(t, "find_elements", map[string]any{"session": sess, "name": "done"})["elements"])
			var texts []string
			for _, e := range found {
				if e.Value != nil {
					texts = append(texts, *e.Value)
				} else {
					texts = append(texts, e.Name)
				}
			}
			if len(found) != 1 || texts[0] != "1 of 3 done" || b.name == "firefox" && found[0].Ref != status.Ref {
				t.Errorf("find_elements {name: done}: %q in %+v", texts, found)
			}
			// The page ran the step once, read outside uiscope: its script
			// puts the count in the window's title.
			until(t, "the window's title says one step ran", func(ctx context.Context) (bool, string) {
				title := windowTitle(ctx, d, app.Pid)
				return strings.HasPrefix(title, "Steps run: 1 "), title
			})
		})
	}
}

// minimalPDF writes a one-page PDF showing each line in Helvetica, with
// a correct cross-reference table.
func minimalPDF(lines []string) []byte {
	var content strings.Builder
	content.WriteString("BT /F1 18 Tf 40 160 Td 24 TL\n")
	for _, l := range lines {
		fmt.Fprintf(&content, "(%s) Tj T*\n", l)
	}
	content.WriteString("ET\n")
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", content.Len(), content.String()),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// TestTaskEvincePageText: open a PDF generated here in Evince and find the
// page's text through find_elements, the page's value holding the lines
// put in the PDF.
func TestTaskEvincePageText(t *testing.T) { testdesk.ForEach(t, testTaskEvincePageText) }

func testTaskEvincePageText(t *testing.T, d *testdesk.Desk) {
	lines := []string{"Quarterly report page", "Revenue grew by nine percent"}
	path := filepath.Join(t.TempDir(), "report.pdf")
	if err := os.WriteFile(path, minimalPDF(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	app := d.Launch(t, append(freshHome(t), "evince", path)...)
	s := startMCP(t, d, "")
	defer s.logCost(t, "Evince: find the page's text")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	appears(t, s, sess, "the page text", map[string]any{"name": "nine percent"})
	page := decode[[]elem](t, s.ok(t, "find_elements", map[string]any{"session": sess, "name": "Revenue grew"})["elements"])
	if len(page) != 1 || page[0].Value == nil {
		t.Fatalf("find_elements {name: Revenue grew}: %+v", page)
	}
	// Evince joins the lines as it lays them out: with a line break or a
	// space between them.
	v := strings.Join(strings.Fields(*page[0].Value), " ")
	if v != strings.Join(lines, " ") {
		t.Errorf("the page's value %q, want the PDF's lines %q", *page[0].Value, lines)
	}
}
