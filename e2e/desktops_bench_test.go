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

// BenchmarkMCPDesktops measures the same calls on each desktop, side by
// side, through the real MCP client and `uiscope mcp --allow-input` on the
// GTK 3 fixture: type_text of 100 characters, a screenshot of the fixture's
// window, and a pointer click round trip (a slider, which has no action).
// It reports medians, never asserts.
//
//	go test -run '^$' -bench MCPDesktops -benchtime 10x ./e2e/
func BenchmarkMCPDesktops(b *testing.B) {
	for _, kind := range testdesk.Desktops {
		b.Run(kind, func(b *testing.B) {
			d := testdesk.On(b, kind)
			app := d.Launch(b, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "bench desktops")
			s := startMCP(b, d, "", "--allow-input")
			sess := s.connect(b, map[string]any{"pid": app.Pid})
			find := func(args map[string]any) string {
				args["session"] = sess
				els := decode[[]elem](b, s.ok(b, "find_elements", args)["elements"])
				if len(els) == 0 {
					b.Fatalf("no %v", args)
				}
				return els[0].Ref
			}
			entry := find(map[string]any{"name": "Name", "nameMatch": "exact", "role": "text"})
			slider := find(map[string]any{"name": "Volume", "role": "slider"})
			timed := func(tool string, args map[string]any) time.Duration {
				args["session"] = sess
				start := time.Now()
				s.ok(b, tool, args)
				return time.Since(start)
			}
			report := func(b *testing.B, what string, runs []time.Duration) {
				slices.Sort(runs)
				med := float64(runs[len(runs)/2].Microseconds()) / 1000
				b.ReportMetric(med, "median-ms/call")
				fmt.Fprintf(os.Stderr, "%s: mcp %s: median %.1f ms over %d calls (min %.1f, max %.1f)\n", kind, what, med, len(runs),
					float64(runs[0].Microseconds())/1000, float64(runs[len(runs)-1].Microseconds())/1000)
			}
			b.Run("type_text", func(b *testing.B) {
				text := strings.Repeat("The quick brown fox, 42! ", 4) // 100 characters
				var runs []time.Duration
				for range b.N {
					timed("set_value", map[string]any{"element": entry, "value": ""})
					runs = append(runs, timed("type_text", map[string]any{"element": entry, "text": text}))
				}
				report(b, "type_text of 100 characters", runs)
			})
			b.Run("screenshot", func(b *testing.B) {
				var runs []time.Duration
				var size string
				for range b.N {
					start := time.Now()
					out, img, _ := s.screenshot(b, map[string]any{"session": sess, "annotate": false})
					runs = append(runs, time.Since(start))
					if out["ok"] != true || img == nil {
						b.Fatalf("screenshot: %v", out)
					}
					size = fmt.Sprintf("%dx%d", img.Bounds().Dx(), img.Bounds().Dy())
				}
				report(b, "screenshot of the "+size+" window", runs)
			})
			b.Run("click", func(b *testing.B) {
				var runs []time.Duration
				for range b.N {
					runs = append(runs, timed("click", map[string]any{"element": slider}))
				}
				report(b, "click by pointer (a slider)", runs)
			})
		})
	}
}
