//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/atspi"
	"github.com/uiscope/uiscope/internal/platform/linux"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// Benchmarks compare uiscope's full tree read with the pyatspi peer
// (bench/pyatspi_walk.py) on the same app in the same run. They report,
// never assert: the machine may be shared.
//
//	go test -run '^$' -bench . -benchtime 10x ./e2e/

// benchTarget is an app the benchmarks read: how to start it and wait until
// it shows what is measured.
type benchTarget struct {
	name   string
	launch func(b *testing.B, d *testdesk.Desk) *testdesk.App
}

// benchApps are the apps read: the widget factories, a generated page of
// about 4,000 nodes in Chromium (2,400 in Firefox), read once the page is
// loaded and exported, and a generated sheet in LibreOffice Calc.
var benchApps = []benchTarget{
	{"gtk4-widget-factory", func(b *testing.B, d *testdesk.Desk) *testdesk.App { return d.Launch(b, "gtk4-widget-factory") }},
	{"gtk3-widget-factory", func(b *testing.B, d *testdesk.Desk) *testdesk.App { return d.Launch(b, "gtk3-widget-factory") }},
	{"firefox-page", func(b *testing.B, d *testdesk.Desk) *testdesk.App { return benchPage(b, d, launchFirefox) }},
	{"chromium-page", func(b *testing.B, d *testdesk.Desk) *testdesk.App { return benchPage(b, d, launchChromium) }},
	// A 200-row sheet: uiscope reads the grid's cells on screen with their
	// contents; pyatspi does not walk into an element that manages its
	// descendants, so its walk holds no cells at all.
	{"calc-sheet", func(b *testing.B, d *testdesk.Desk) *testdesk.App { return launchCalc(b, d, sheetData(200)) }},
}

// benchPage opens the generated page in a browser and waits until it is
// in the accessible tree.
func benchPage(b *testing.B, d *testdesk.Desk, launch func(testing.TB, *testdesk.Desk, string) *testdesk.App) *testdesk.App {
	url, last := bigPage(b, pageSections)
	app := launch(b, d, url)
	waitForNamed(b, d, app.Bus, last)
	return app
}

// peerRuns is how many measured walks the peer makes (once per app).
const peerRuns = 10

// BenchmarkTree reads each app's whole raw tree in process through the
// product's path (linux.Desktop.Tree: bulk cache, completeness check,
// pipelined walk, bounds corrected to the screen), then runs the peer once.
//
// "walk" is a cold read, every time from the app, against pyatspi with its
// cache cleared before every walk. "mirror" (apps whose tree uiscope
// mirrors) is a repeated read on one connection, as an MCP session
// makes, served from the mirror kept current by events; against it pyatspi
// walks with its client cache kept (--keep-cache), which libatspi keeps
// current by events the same way.
func BenchmarkTree(b *testing.B) {
	d := testdesk.Shared(b)
	for _, target := range benchApps {
		name := target.name
		launched := target.launch(b, d)
		ld := &linux.Desktop{A11y: d.A11y, X: d.X}
		app := benchApp(b, ld, launched.Pid)
		b.Run(name+"/walk", func(b *testing.B) {
			benchTree(b, d, ld, app, launched.Pid, name, false)
		})
		if linux.Mirrorable(app) {
			b.Run(name+"/mirror", func(b *testing.B) {
				// Its own connection: the mirror lives as long as it.
				a11y, err := atspi.Dial(context.Background(), d.A11y.Address, d.A11y.Source)
				if err != nil {
					b.Fatal(err)
				}
				defer a11y.Close()
				benchTree(b, d, &linux.Desktop{A11y: a11y, X: d.X, Mirror: true}, app, launched.Pid, name, true)
			})
		}
		_ = launched.Proc.Stop() // the next app is measured alone
	}
}

func benchTree(b *testing.B, d *testdesk.Desk, ld *linux.Desktop, app platform.App, pid int, name string, warm bool) {
	ctx := context.Background()
	read := func() (time.Duration, platform.TreeStats) {
		start := time.Now()
		tctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		_, st, err := ld.Tree(tctx, app, platform.TreeOptions{})
		took := time.Since(start)
		if err != nil {
			b.Fatalf("tree: %v", err)
		}
		if st.Truncated {
			b.Fatalf("tree truncated: %s", st.Reason)
		}
		return took, st
	}
	if warm {
		// Fill the mirror, then read until it has settled: for a second
		// after a whole read it reads every bound again, in case the read
		// caught a transition (see atspi's mirror.go).
		for start := time.Now(); time.Since(start) < 1500*time.Millisecond; {
			read()
		}
	}
	runs := make([]time.Duration, 0, b.N)
	var st platform.TreeStats
	b.ResetTimer()
	for range b.N {
		var took time.Duration
		took, st = read()
		runs = append(runs, took)
	}
	b.StopTimer()
	peer := runPeer(b, d, pid, warm)
	kind, peerKind := "cold walk", "cache cleared"
	if warm {
		kind, peerKind = "repeated read ("+st.Strategy+")", "cache kept"
	}
	med := medianMs(runs)
	b.ReportMetric(meanMs(runs), "ms/op")
	b.ReportMetric(med, "median-ms")
	b.ReportMetric(peer.MedianMs, "pyatspi-median-ms")
	b.ReportMetric(peer.MedianMs/med, "ratio")
	b.ReportMetric(float64(st.Nodes), "nodes")
	b.ReportMetric(float64(peer.Nodes), "pyatspi-nodes")
	b.ReportMetric(float64(st.Calls), "calls")
	b.Logf("%s: %s, %d nodes, uiscope median %.1f ms (%d runs, %d D-Bus calls each); pyatspi (%s) median %.1f ms (%d nodes, %d runs); ratio %.1f",
		name, kind, st.Nodes, med, len(runs), st.Calls, peerKind, peer.MedianMs, peer.Nodes, len(peer.RunsMs), peer.MedianMs/med)
}

// BenchmarkCLITree is the whole CLI process, end to end, as a script pays
// for it: exec, connect, list apps, read the tree (with action names, as
// --format json does), print JSON.
func BenchmarkCLITree(b *testing.B) {
	d := testdesk.Shared(b)
	name := benchApps[0].name
	launched := benchApps[0].launch(b, d)
	b.Run(name, func(b *testing.B) {
		args := []string{"tree", "--pid", strconv.Itoa(launched.Pid), "--format", "json", "--max-nodes", "100000", "--max-bytes", "100000000"}
		var runs, fetches []time.Duration
		nodes, calls := 0, 0
		b.ResetTimer()
		for range b.N {
			r := runCLI(b, d, 60*time.Second, args...)
			runs = append(runs, r.took)
			if r.code != 0 {
				b.Fatalf("uiscope %v exited %d: %s", args, r.code, r.stderr)
			}
			var tj struct {
				NodeCount int `json:"nodeCount"`
				Fetch     struct {
					Ms    int64 `json:"ms"`
					Calls int   `json:"calls"`
				} `json:"fetch"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &tj); err != nil {
				b.Fatalf("uiscope tree output: %v", err)
			}
			nodes, calls = tj.NodeCount, tj.Fetch.Calls
			fetches = append(fetches, time.Duration(tj.Fetch.Ms)*time.Millisecond)
		}
		b.StopTimer()
		med := medianMs(runs)
		b.ReportMetric(meanMs(runs), "ms/op")
		b.ReportMetric(med, "median-ms")
		b.ReportMetric(medianMs(fetches), "fetch-median-ms")
		b.ReportMetric(float64(nodes), "nodes")
		b.ReportMetric(float64(calls), "calls")
		b.Logf("%s: 'uiscope tree --pid N --format json' end to end: %d nodes, median %.1f ms (%d runs; the tree read itself %.0f ms, %d D-Bus calls)",
			name, nodes, med, len(runs), medianMs(fetches), calls)
	})
}

// benchApp finds the platform.App for pid as the CLI would.
func benchApp(b *testing.B, ld *linux.Desktop, pid int) platform.App {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	apps, err := ld.Apps(ctx)
	if err != nil {
		b.Fatalf("apps: %v", err)
	}
	for _, a := range apps {
		if a.Pid == pid && a.Accessible {
			return a
		}
	}
	b.Fatalf("pid %d is not among the accessible apps", pid)
	return platform.App{}
}

// peerResult is pyatspi_walk.py's JSON line.
type peerResult struct {
	Nodes    int       `json:"nodes"`
	RunsMs   []float64 `json:"runsMs"`
	MedianMs float64   `json:"medianMs"`
	Errors   int       `json:"errors"`
}

// runPeer runs the pyatspi walk on pid; keepCache keeps libatspi's cache
// between walks instead of clearing it.
func runPeer(b testing.TB, d *testdesk.Desk, pid int, keepCache bool) *peerResult {
	b.Helper()
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "..", "bench", "pyatspi_walk.py")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args := []string{script, "--pid", strconv.Itoa(pid), "--runs", strconv.Itoa(peerRuns)}
	if keepCache {
		args = append(args, "--keep-cache")
	}
	cmd := exec.CommandContext(ctx, testdesk.Python, args...)
	cmd.Env = d.Env()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("pyatspi peer: %v", err)
	}
	var r peerResult
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		b.Fatalf("pyatspi peer printed %q: %v", out.String(), err)
	}
	if r.MedianMs <= 0 || r.Nodes == 0 {
		b.Fatalf("pyatspi peer measured nothing: %s", out.String())
	}
	return &r
}

func medianMs(runs []time.Duration) float64 {
	if len(runs) == 0 {
		return 0
	}
	s := slices.Clone(runs)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return ms(m)
}

func meanMs(runs []time.Duration) float64 {
	var sum time.Duration
	for _, r := range runs {
		sum += r
	}
	return ms(sum) / float64(max(len(runs), 1))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
