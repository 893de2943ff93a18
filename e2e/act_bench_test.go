//go:build linux

package e2e

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// BenchmarkMCPAct measures actions through the real MCP client and a real
// `uiscope mcp --allow-input` on the GTK 3 fixture: invoke and toggle
// latency (including the read-back that reports their effect), and typing
// speed in characters per second. It reports, never asserts.
//
//	go test -run '^$' -bench MCPAct -benchtime 10x ./e2e/
func BenchmarkMCPAct(b *testing.B) {
	d := testdesk.Shared(b)
	app := d.Launch(b, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "bench act")
	s := startMCP(b, d, "", "--allow-input")
	sess := s.connect(b, map[string]any{"pid": app.Pid})
	find := func(args map[string]any) string {
		args["session"] = sess
		out := s.ok(b, "find_elements", args)
		els := decode[[]elem](b, out["elements"])
		if len(els) == 0 {
			b.Fatalf("no %v", args)
		}
		return els[0].Ref
	}
	submit := find(map[string]any{"name": "Submit", "role": "push button"})
	check := find(map[string]any{"name": "Remember me", "role": "check box"})
	entry := find(map[string]any{"name": "Name", "nameMatch": "exact", "role": "text"})
	timed := func(tool string, args map[string]any) time.Duration {
		args["session"] = sess
		start := time.Now()
		s.ok(b, tool, args)
		return time.Since(start)
	}
	// invoke on the check button changes it, invoke on Submit after the
	// first time changes nothing the app reports: either answers once the
	// app has been quiet for the settle time, which is what an agent sees.
	b.Run("invoke", func(b *testing.B) {
		var runs []time.Duration
		for range b.N {
			runs = append(runs, timed("invoke", map[string]any{"element": check}))
		}
		reportAct(b, "invoke (a change)", runs)
	})
	b.Run("invoke-no-change", func(b *testing.B) {
		var runs []time.Duration
		for range b.N {
			runs = append(runs, timed("invoke", map[string]any{"element": submit}))
		}
		reportAct(b, "invoke (no change)", runs)
	})
	b.Run("toggle", func(b *testing.B) {
		var runs []time.Duration
		for range b.N {
			runs = append(runs, timed("toggle", map[string]any{"element": check}))
		}
		reportAct(b, "toggle", runs)
	})
	b.Run("type_text", func(b *testing.B) {
		text := strings.Repeat("The quick brown fox, 42! ", 4) // 100 characters
		var cps []float64
		for range b.N {
			timed("set_value", map[string]any{"element": entry, "value": ""})
			took := timed("type_text", map[string]any{"element": entry, "text": text})
			cps = append(cps, float64(len(text))/took.Seconds())
		}
		slices.Sort(cps)
		med := cps[len(cps)/2]
		b.ReportMetric(med, "median-chars/s")
		fmt.Fprintf(os.Stderr, "mcp type_text on gtk3_fixture: median %.0f characters/s over %d runs of %d characters\n", med, len(cps), len(text))
	})
}

func reportAct(b *testing.B, name string, runs []time.Duration) {
	slices.Sort(runs)
	med := float64(runs[len(runs)/2].Microseconds()) / 1000
	b.ReportMetric(med, "median-ms/call")
	fmt.Fprintf(os.Stderr, "mcp %s on gtk3_fixture: median %.1f ms over %d calls (min %.1f, max %.1f)\n",
		name, med, len(runs), float64(runs[0].Microseconds())/1000, float64(runs[len(runs)-1].Microseconds())/1000)
}
