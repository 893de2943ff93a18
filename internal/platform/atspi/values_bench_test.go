//go:build linux

package atspi_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/platform/atspi"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// BenchmarkValuesCost measures what values add to a cold whole read of the
// widget factories: reads with and without values alternate on one
// connection, so that a shared machine's load falls on both alike. It
// reports the medians, their ratio and the calls; it never asserts.
//
//	go test -run '^$' -bench ValuesCost -benchtime 40x ./internal/platform/atspi/
func BenchmarkValuesCost(b *testing.B) {
	d := testdesk.Shared(b)
	for _, app := range []struct {
		name      string
		noShowing bool
	}{{"gtk3-widget-factory", false}, {"gtk4-widget-factory", true}} {
		launched := d.Launch(b, app.name)
		b.Run(app.name, func(b *testing.B) {
			read := func(noValues bool) (time.Duration, int) {
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				start := time.Now()
				_, st, err := d.A11y.Tree(ctx, launched.Bus, atspi.TreeOptions{NoShowing: app.noShowing, NoValues: noValues})
				took := time.Since(start)
				if err != nil || st.Truncated {
					b.Fatalf("tree: %v (truncated %v %s)", err, st.Truncated, st.Reason)
				}
				return took, st.Calls
			}
			read(false) // GTK 4 exports its cache as it is walked
			var with, without []time.Duration
			var callsWith, callsWithout int
			b.ResetTimer()
			for range b.N {
				t, c := read(true)
				without, callsWithout = append(without, t), c
				t, c = read(false)
				with, callsWith = append(with, t), c
			}
			b.StopTimer()
			mw, mo := median(with), median(without)
			b.ReportMetric(mw, "values-median-ms")
			b.ReportMetric(mo, "novalues-median-ms")
			b.ReportMetric(mw/mo, "ratio")
			b.ReportMetric(float64(callsWith), "values-calls")
			b.ReportMetric(float64(callsWithout), "novalues-calls")
			b.Logf("%s: cold read with values median %.1f ms (%d calls), without %.1f ms (%d calls): %+.0f%% time, %+.0f%% calls (%d reads each, alternating)",
				app.name, mw, callsWith, mo, callsWithout, 100*(mw/mo-1), 100*(float64(callsWith)/float64(callsWithout)-1), b.N)
		})
		_ = launched.Proc.Stop()
	}
}

func median(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[len(s)/2]) / float64(time.Millisecond)
}
