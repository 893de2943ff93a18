// Command benchtable turns the output of make bench (bench.out) into the
// tables of docs/performance.md's latest run.
//
//	go run ./bench/benchtable -in bench.out -doc docs/performance.md -readme README.md
//
// It reads the result lines go test -bench writes (a benchmark's name, its
// iterations, then value-unit pairs, with lines that benchmarks print to
// stderr possibly between the name and the figures) and the peak-RSS line
// of scripts/bench-rss.sh, and replaces what lies between the
// <!-- bench:begin --> and <!-- bench:end --> markers of -doc with:
//   - whole agent tasks both ways (BenchmarkAgentTasks), which also
//     replace what lies between -readme's <!-- tasks:begin --> and
//     <!-- tasks:end --> markers;
//   - X11 and sway side by side (BenchmarkMCPDesktops), which also
//     replace what lies between -readme's <!-- desktops:begin --> and
//     <!-- desktops:end --> markers;
//   - tree reads (BenchmarkTree) against the pyatspi peer;
//   - the CLI process (BenchmarkCLITree) and its peak RSS;
//   - MCP tool calls (BenchmarkMCPTree, BenchmarkMCPAct);
//   - what values cost (BenchmarkValuesCost);
//   - screenshots (BenchmarkScreenshot) and live changes (BenchmarkLiveNotify);
//   - every other benchmark, one row each with all its figures.
//
// Output without a single benchmark result leaves -doc untouched and
// fails: a broken run never wipes the tables. Without -doc the tables go
// to stdout.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

const (
	beginMarker = "<!-- bench:begin -->"
	endMarker   = "<!-- bench:end -->"
	// The README's agent task table.
	tasksBegin = "<!-- tasks:begin -->"
	tasksEnd   = "<!-- tasks:end -->"
	// The README's desktops table.
	desktopsBegin = "<!-- desktops:begin -->"
	desktopsEnd   = "<!-- desktops:end -->"
)

func main() {
	in := flag.String("in", "bench.out", "the output of make bench")
	doc := flag.String("doc", "", "the Markdown file whose bench:begin … bench:end section is replaced; stdout when empty")
	readme := flag.String("readme", "", "a Markdown file whose tasks:begin … tasks:end and desktops:begin … desktops:end sections get the agent task and desktops tables, when the run has them")
	flag.Parse()
	if err := run(*in, *doc, *readme, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}

func run(in, doc, readme string, stdout io.Writer) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := parse(f)
	if err != nil {
		return err
	}
	if tasks := agentSection(r); readme != "" && tasks != "" {
		note := "Written by `make bench` (`go test -run '^$' -bench '^BenchmarkAgentTasks$' -benchtime 1x ./e2e/`)"
		if r.cpu != "" {
			note += " on " + r.cpu
		}
		if err := rewrite(readme, tasksBegin, tasksEnd, note+":\n\n"+tasks); err != nil {
			return err
		}
	}
	if desks := desktopsSection(r); readme != "" && desks != "" {
		note := "Written by `make bench` (`go test -run '^$' -bench MCPDesktops -benchtime 10x ./e2e/`)"
		if r.cpu != "" {
			note += " on " + r.cpu
		}
		if err := rewrite(readme, desktopsBegin, desktopsEnd, note+", medians of 10:\n\n"+desks); err != nil {
			return err
		}
	}
	tables := render(r)
	if doc == "" {
		_, err := io.WriteString(stdout, tables)
		return err
	}
	return rewrite(doc, beginMarker, endMarker, tables)
}

// rewrite replaces the section of the file between the markers.
func rewrite(path, begin, end, section string) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	updated, err := replaceSection(old, begin, end, section)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, updated, 0o644)
}

// result is one benchmark's line: its name without the GOMAXPROCS suffix,
// its iterations and its figures by unit.
type result struct {
	name    string
	n       int
	metrics map[string]float64
}

// benchRun is what one bench.out holds.
type benchRun struct {
	cpu     string
	results []result // in order; a name run again (-count) keeps its last
	rss     string   // scripts/bench-rss.sh's summary line, if any
}

var procSuffix = regexp.MustCompile(`-\d+$`)

// parse reads go test -bench output. A result line is "NAME \t N \t V UNIT
// \t V UNIT ...", but what a benchmark prints to stderr lands between the
// name (written before the timed run) and the figures (after it), so a name
// is remembered until figures come.
func parse(rd io.Reader) (*benchRun, error) {
	r := &benchRun{}
	pending := ""
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "cpu: "):
			r.cpu = strings.TrimPrefix(line, "cpu: ")
			continue
		case strings.HasPrefix(line, "peak RSS of "):
			r.rss = strings.TrimSpace(line)
			continue
		case strings.HasPrefix(line, "--- "):
			continue
		}
		rest := line
		if strings.HasPrefix(line, "Benchmark") {
			name, after, _ := strings.Cut(line, "\t")
			pending = procSuffix.ReplaceAllString(strings.TrimSpace(name), "")
			rest = after
		}
		if pending == "" {
			continue
		}
		n, metrics, ok := figures(rest)
		if !ok {
			continue
		}
		res := result{name: pending, n: n, metrics: metrics}
		if i := slices.IndexFunc(r.results, func(x result) bool { return x.name == pending }); i >= 0 {
			r.results[i] = res
		} else {
			r.results = append(r.results, res)
		}
		pending = ""
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(r.results) == 0 {
		return nil, errors.New("no benchmark results in the input")
	}
	return r, nil
}

// figures parses "N \t V UNIT \t V UNIT ...".
func figures(s string) (int, map[string]float64, bool) {
	fields := strings.Split(s, "\t")
	if len(fields) < 2 {
		return 0, nil, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(fields[0]))
	if err != nil || n <= 0 {
		return 0, nil, false
	}
	metrics := map[string]float64{}
	for _, f := range fields[1:] {
		v, unit, ok := strings.Cut(strings.TrimSpace(f), " ")
		if !ok {
			return 0, nil, false
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, nil, false
		}
		metrics[strings.TrimSpace(unit)] = x
	}
	return n, metrics, len(metrics) > 0
}

// replaceSection puts tables between the markers of doc.
func replaceSection(doc []byte, begin, end, tables string) ([]byte, error) {
	i, j := bytes.Index(doc, []byte(begin)), bytes.Index(doc, []byte(end))
	if i < 0 || j < i {
		return nil, fmt.Errorf("no %s … %s section", begin, end)
	}
	var out bytes.Buffer
	out.Write(doc[:i+len(begin)])
	out.WriteString("\n" + tables)
	out.Write(doc[j:])
	return out.Bytes(), nil
}
