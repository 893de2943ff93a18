//go:build linux

package e2e

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// BenchmarkMCPTree measures tool round trips through the real MCP client
// and a real `uiscope mcp` process on the benchmarks' apps (the widget
// factories, the generated page in Firefox and Chromium): "cold" is the first call after connect in a fresh
// server process, "warm" a repeated call on one session once it is in a
// steady state (which GTK 3's mirror serves). The warm json read is set
// against pyatspi's walk of the same app in the same run (cache kept). It
// reports, never asserts.
//
//	go test -run '^$' -bench MCPTree -benchtime 5x ./e2e/
func BenchmarkMCPTree(b *testing.B) {
	d := testdesk.Shared(b)
	for _, target := range benchApps {
		app := target.launch(b, d)
		b.Run(target.name, func(b *testing.B) { benchMCPTree(b, d, app, target.name) })
		_ = app.Proc.Stop()
	}
}

func benchMCPTree(b *testing.B, d *testdesk.Desk, app *testdesk.App, appName string) {
	cases := []struct {
		name string
		tool string
		args map[string]any
	}{
		{"outline", "get_a11y_tree", map[string]any{"format": "outline", "maxNodes": 100000, "maxBytes": 100000000, "timeoutMs": 60000}},
		{"json", "get_a11y_tree", map[string]any{"format": "json", "maxNodes": 100000, "maxBytes": 100000000, "timeoutMs": 60000}},
		{"find", "find_elements", map[string]any{"role": "push button", "limit": 1000, "timeoutMs": 60000}},
	}
	// once makes one call with the session filled in and checks it worked;
	// the check (the test's own decoding) is not timed.
	once := func(b *testing.B, s *mcpServer, session, tool string, args map[string]any) time.Duration {
		a := map[string]any{"session": session}
		for k, v := range args {
			a[k] = v
		}
		ctx, cancel := context.WithTimeout(context.Background(), mcpCallLimit)
		defer cancel()
		start := time.Now()
		res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: a})
		took := time.Since(start)
		if err != nil {
			b.Fatalf("%s: %v", tool, err)
		}
		out := s.check(b, tool, res)
		if out == nil || out["ok"] != true {
			b.Fatalf("%s: failed: %v", tool, out)
		}
		if out["truncated"] == true {
			b.Fatalf("%s: truncated: %v", tool, out["truncatedReason"])
		}
		return took
	}
	for _, c := range cases {
		b.Run(c.name+"/cold", func(b *testing.B) {
			runs := make([]time.Duration, 0, b.N)
			for range b.N {
				b.StopTimer()
				s := startMCP(b, d, "")
				session := s.connect(b, map[string]any{"pid": app.Pid})
				b.StartTimer()
				runs = append(runs, once(b, s, session, c.tool, c.args))
				b.StopTimer()
				s.cs.Close()
				b.StartTimer()
			}
			reportMCP(b, appName, "cold", c.name, runs)
		})
		b.Run(c.name+"/warm", func(b *testing.B) {
			b.StopTimer()
			s := startMCP(b, d, "")
			session := s.connect(b, map[string]any{"pid": app.Pid})
			// Steady state: a GTK 3 mirror reads every bound again for a
			// second after it was filled (see atspi's mirror.go).
			for start := time.Now(); time.Since(start) < 1500*time.Millisecond; {
				once(b, s, session, c.tool, c.args)
			}
			b.StartTimer()
			runs := make([]time.Duration, 0, b.N)
			for range b.N {
				runs = append(runs, once(b, s, session, c.tool, c.args))
			}
			b.StopTimer()
			reportMCP(b, appName, "warm", c.name, runs)
			if c.name == "json" {
				// pyatspi's walk of the same app in the same run, with its
				// client cache kept (a warm read, like this one) and cleared.
				for _, keep := range []bool{true, false} {
					peer := runPeer(b, d, app.Pid, keep)
					kind := map[bool]string{true: "kept", false: "cleared"}[keep]
					b.ReportMetric(peer.MedianMs/medianMs(runs), "ratio-pyatspi-cache-"+kind)
					fmt.Fprintf(os.Stderr, "pyatspi walk (cache %s) on %s: median %.1f ms (%d nodes, %d runs); ratio to the warm MCP json read %.1f\n",
						kind, appName, peer.MedianMs, peer.Nodes, len(peer.RunsMs), peer.MedianMs/medianMs(runs))
				}
			}
		})
	}
}

// reportMCP reports the median call as a metric and a line on stderr.
func reportMCP(b *testing.B, app, kind, name string, runs []time.Duration) {
	sorted := slices.Clone(runs)
	slices.Sort(sorted)
	med := float64(sorted[len(sorted)/2].Microseconds()) / 1000
	if len(sorted)%2 == 0 {
		med = float64((sorted[len(sorted)/2-1] + sorted[len(sorted)/2]).Microseconds()) / 2000
	}
	b.ReportMetric(med, "median-ms/call")
	fmt.Fprintf(os.Stderr, "mcp %s %s on %s: median %.1f ms over %d calls (min %.1f, max %.1f)\n",
		name, kind, app, med, len(runs), float64(sorted[0].Microseconds())/1000, float64(sorted[len(sorted)-1].Microseconds())/1000)
}
