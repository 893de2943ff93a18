package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/sample.md from testdata/bench.txt")

// TestSample renders the saved sample of make bench's output and compares
// it with testdata/sample.md.
func TestSample(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "bench.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := parse(f)
	if err != nil {
		t.Fatal(err)
	}
	got := render(r)
	golden := filepath.Join("testdata", "sample.md")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("render(bench.txt) differs from sample.md (run go test ./bench/benchtable -update and review the diff):\n%s", got)
	}
	for _, row := range []string{
		"| gtk4-widget-factory | cold | 949 | 109 ms (327 calls) | 2114 ms (cache cleared) | 19.5x |",
		"| gtk3-widget-factory | repeated (the mirror) | 261 (pyatspi: 241) | 8.5 ms (26 calls) | 136 ms (cache kept) | 16.0x |",
		"| get_a11y_tree, json (with action names), gtk3-widget-factory | 54.0 ms | 7.3 ms on the wire |",
		"| type_text, 100 characters into a GTK 3 entry, read back |  | 255 characters/s |",
		"peak RSS of uiscope tree on gtk4-widget-factory: 21.6 MB",
		"| `BenchmarkGeometryGTK4/hit_test` |",
		"| gedit (GTK 3): type, Save As, type, close, Save | 17 → 12 (1.4×) | 28.5 KB → 5.1 KB (5.6×) |",
		"| **all 2 tasks** | 30 → 24 (1.2×) |",
	} {
		if !strings.Contains(got, row) {
			t.Errorf("the tables lack %q", row)
		}
	}
}

// TestParseInterleaved: lines a benchmark prints to stderr come between
// its name and its figures; a name run again (-count) keeps its last
// figures; log and FAIL lines are not results.
func TestParseInterleaved(t *testing.T) {
	out := strings.Join([]string{
		"goos: linux",
		"cpu: Some CPU",
		"BenchmarkA/x-2   \tmcp x cold on app: median 12.0 ms over 10 calls",
		"pyatspi walk (cache kept) on app: median 166.0 ms",
		"      10\t  1439 ns/op\t  156.0 median-ms/call",
		"BenchmarkA/x-2   \t      10\t  1000 ns/op\t  150.0 median-ms/call",
		"--- BENCH: BenchmarkA/x-2",
		"    a_test.go:1: 10 runs",
		"BenchmarkB-16    \t--- FAIL: BenchmarkB",
		"BenchmarkC/with-dash-name \t 5\t 2.5 p50-ms",
	}, "\n")
	r, err := parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if r.cpu != "Some CPU" {
		t.Errorf("cpu = %q", r.cpu)
	}
	if len(r.results) != 2 {
		t.Fatalf("results = %+v, want BenchmarkA/x and BenchmarkC/with-dash-name", r.results)
	}
	if a := r.results[0]; a.name != "BenchmarkA/x" || a.n != 10 || a.metrics["median-ms/call"] != 150 {
		t.Errorf("BenchmarkA/x = %+v, want its last figures (150)", a)
	}
	if c := r.results[1]; c.name != "BenchmarkC/with-dash-name" || c.metrics["p50-ms"] != 2.5 {
		t.Errorf("BenchmarkC = %+v", c)
	}
}

// TestRunKeepsDocWithoutResults: output without a result (a failed run)
// fails and leaves the document as it was; with results, only the section
// between the markers changes.
func TestRunKeepsDocWithoutResults(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "perf.md")
	orig := "# Perf\n\nbefore\n" + beginMarker + "\nold table\n" + endMarker + "\nafter\n"
	if err := os.WriteFile(doc, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	failed := filepath.Join(dir, "failed.out")
	if err := os.WriteFile(failed, []byte("--- FAIL: BenchmarkTree\nFAIL\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(failed, doc, "", nil); err == nil {
		t.Error("a run without results succeeded")
	}
	if b, _ := os.ReadFile(doc); string(b) != orig {
		t.Errorf("the document changed after a failed run:\n%s", b)
	}
	ok := filepath.Join(dir, "ok.out")
	if err := os.WriteFile(ok, []byte("BenchmarkX-2 \t 3\t 1.5 median-ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(ok, doc, "", nil); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(doc)
	s := string(b)
	if strings.Contains(s, "old table") || !strings.Contains(s, "| `BenchmarkX` | 1.5 median-ms |") ||
		!strings.HasPrefix(s, "# Perf\n\nbefore\n"+beginMarker+"\n") || !strings.HasSuffix(s, endMarker+"\nafter\n") {
		t.Errorf("the document after a run:\n%s", s)
	}
	if _, err := replaceSection([]byte("no markers"), beginMarker, endMarker, "x"); err == nil {
		t.Error("a document without markers was accepted")
	}
}

// TestRunReadme: the agent task table replaces the README's tasks section;
// a run without agent tasks leaves the README as it was.
func TestRunReadme(t *testing.T) {
	dir := t.TempDir()
	doc, readme := filepath.Join(dir, "perf.md"), filepath.Join(dir, "README.md")
	orig := "# Tool\n" + tasksBegin + "\nold\n" + tasksEnd + "\nrest\n"
	for _, f := range []string{doc, readme} {
		if err := os.WriteFile(f, []byte(beginMarker+"\n"+endMarker+"\n"+orig), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	other := filepath.Join(dir, "other.out")
	if err := os.WriteFile(other, []byte("BenchmarkX-2 \t 3\t 1.5 median-ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(other, doc, readme, nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(readme); !strings.Contains(string(b), "\nold\n") {
		t.Errorf("a run without agent tasks changed the README:\n%s", b)
	}
	tasks := filepath.Join(dir, "tasks.out")
	if err := os.WriteFile(tasks, []byte("cpu: Some CPU\n"+
		"BenchmarkAgentTasks/gedit/today-2 \t 1\t 17.00 calls/op\t 28467 bytes/op\t 4036 wall-ms/op\n"+
		"BenchmarkAgentTasks/gedit/loop-2 \t 1\t 8.00 calls/op\t 5114 bytes/op\t 4523 wall-ms/op\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(tasks, doc, readme, nil); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(readme)
	s := string(b)
	if strings.Contains(s, "\nold\n") || !strings.Contains(s, "on Some CPU:") || !strings.HasSuffix(s, tasksEnd+"\nrest\n") ||
		!strings.Contains(s, "| gedit (GTK 3): type, Save As, type, close, Save | 17 → 8 (2.1×) | 28.5 KB → 5.1 KB (5.6×) | 4.0 s → 4.5 s (0.9×) |") {
		t.Errorf("the README after a run with agent tasks:\n%s", s)
	}
}

// TestRunReadmeDesktops: BenchmarkMCPDesktops's medians fill the README's
// desktops section, one column per desktop, the screenshot's row naming
// the window's size; a run without them leaves it alone.
func TestRunReadmeDesktops(t *testing.T) {
	dir := t.TempDir()
	readme := filepath.Join(dir, "README.md")
	orig := "# Tool\n" + desktopsBegin + "\nold\n" + desktopsEnd + "\nrest\n"
	if err := os.WriteFile(readme, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "bench.out")
	if err := os.WriteFile(out, []byte("cpu: Some CPU\n"+
		"BenchmarkMCPDesktops/x11/start-2 \t 10\t 1 ns/op\t 217.0 median-ms/call\n"+
		"BenchmarkMCPDesktops/x11/screenshot-2 \t 10\t 1 ns/op\t 800.0 height-px\t 32.51 median-ms/call\t 1280 width-px\n"+
		"BenchmarkMCPDesktops/sway/start-2 \t 10\t 1 ns/op\t 111.0 median-ms/call\n"+
		"BenchmarkMCPDesktops/sway/screenshot-2 \t 10\t 1 ns/op\t 800.0 height-px\t 85.09 median-ms/call\t 1280 width-px\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout strings.Builder
	if err := run(out, "", readme, &stdout); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(readme)
	for _, want := range []string{"on Some CPU", "| | x11 | sway |\n", "| sandbox start, until the desktop is ready | 217 ms | 111 ms |\n",
		"| `screenshot` of a 1280×800 window | 32.5 ms | 85.1 ms |\n", desktopsEnd + "\nrest\n"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the README lacks %q:\n%s", want, b)
		}
	}
	if strings.Contains(string(b), "\nold\n") || strings.Contains(string(b), "type_text") {
		t.Errorf("the README keeps the old section or a row without figures:\n%s", b)
	}
	if !strings.Contains(stdout.String(), "The same calls on each sandbox desktop") {
		t.Errorf("the tables lack the desktops table:\n%s", stdout.String())
	}
}
