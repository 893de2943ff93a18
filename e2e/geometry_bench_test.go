//go:build linux

package e2e

import (
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// BenchmarkGeometryGTK4 measures what live geometry costs the reads that
// place GTK 4 elements on the screen: an element read (the application's
// X windows read, the element's ancestors climbed for a popover), a
// whole-tree search and a hit test, through a real `uiscope mcp`, on the
// GTK 4 dialog fixture with its dialog open. It reports, never asserts.
//
//	go test -run '^$' -bench GeometryGTK4 -benchtime 30x ./e2e/
func BenchmarkGeometryGTK4(b *testing.B) {
	g := openGTK4Dialog(b, testdesk.Shared(b), "bench geometry")
	s, sess := g.s, g.early
	keep := findOne(b, s, sess, map[string]any{"name": "Keep format", "role": "push button"})
	timed := func(tool string, args map[string]any) time.Duration {
		args["session"] = sess
		start := time.Now()
		s.ok(b, tool, args)
		return time.Since(start)
	}
	for _, c := range []struct {
		name, tool string
		args       map[string]any
	}{
		{"get_element_properties", "get_element_properties", map[string]any{"element": keep.Ref}},
		{"find_elements", "find_elements", map[string]any{"name": "Keep format"}},
		{"hit_test", "hit_test", map[string]any{"x": keep.Bounds.X + 2, "y": keep.Bounds.Y + 2}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var runs []time.Duration
			for range b.N {
				runs = append(runs, timed(c.tool, c.args))
			}
			slices.Sort(runs)
			med := runs[len(runs)/2]
			b.ReportMetric(float64(med.Microseconds())/1000, "median-ms")
			fmt.Fprintf(os.Stderr, "gtk4 dialog fixture: %s median %.2f ms over %d calls\n", c.name, float64(med.Microseconds())/1000, len(runs))
		})
	}
}
