//go:build linux

package e2e

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// BenchmarkLiveNotify measures live changes end to end through a real
// `uiscope mcp` process: the latency from a change in the application
// (the fixture's timer label, the moment it logs right after setting the
// text) to notifications/resources/updated at the client, over 50
// changes (p50 and p90); and the server's CPU while an application changes
// ten times a second with a subscriber reading every patch. It reports,
// never asserts, and measures the same whatever b.N:
//
//	go test -run '^$' -bench LiveNotify -benchtime 1x ./e2e/
func BenchmarkLiveNotify(b *testing.B) {
	d := testdesk.Shared(b)
	log := filepath.Join(b.TempDir(), "ticks")
	app := d.Launch(b, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "live bench", "--timer-label", "250", "--tick-log", log)
	s := startLiveMCP(b, d, "")
	session := s.connect(b, map[string]any{"pid": app.Pid})
	uri := "uiscope://session/" + session + "/a11y-tree"
	s.subscribe(b, uri)
	key, n := tickLabel(b, s.read(b, uri))
	s.drain()

	// Each update is matched to the tick its patch brings: a patch of one
	// tick gives one sample (a read that took a later tick's change along
	// gives none).
	type sample struct {
		tick int
		at   time.Time
	}
	var samples []sample
	for len(samples) < 50 {
		u := s.next(b, uri)
		p := s.read(b, uri)
		before := n
		n = checkTicks(b, p, key, n)
		if len(p.Events) == 1 && n == before+1 {
			samples = append(samples, sample{n, u.at})
		}
	}
	waitTicks(b, log, n, 1) // the log has every sampled tick
	ticks := readTickLog(b, log)
	var lat []time.Duration
	for _, x := range samples {
		lat = append(lat, x.at.Sub(ticks[x.tick]))
	}
	slices.Sort(lat)
	p50, p90 := lat[len(lat)/2], lat[len(lat)*9/10]
	fmt.Fprintf(os.Stderr, "live notify latency over %d changes: p50 %.1f ms, p90 %.1f ms (min %.1f, max %.1f)\n", len(lat),
		ms(p50), ms(p90), ms(lat[0]), ms(lat[len(lat)-1]))
	s.unsubscribe(b, uri)
	s.ok(b, "disconnect", map[string]any{"session": session})
	_ = app.Proc.Stop()

	// CPU at ten changes a second, a subscriber reading every patch.
	fast := d.Launch(b, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "live cpu", "--timer-label", "100")
	session = s.connect(b, map[string]any{"pid": fast.Pid})
	uri = "uiscope://session/" + session + "/a11y-tree"
	s.subscribe(b, uri)
	s.read(b, uri)
	const window = 10 * time.Second
	cpu0, start := cpuTicks(b, s.pid), time.Now()
	reads := 0
	for time.Since(start) < window {
		select {
		case u := <-s.updates:
			if u.uri == uri {
				s.read(b, uri)
				reads++
			}
		case <-time.After(time.Until(start.Add(window))):
		}
	}
	used := float64(cpuTicks(b, s.pid)-cpu0) / clockTicks / time.Since(start).Seconds() * 100
	fmt.Fprintf(os.Stderr, "live server CPU with an app changing 10 times a second: %.1f%% of one core over %v (%d patches read)\n", used, window, reads)
	for b.Loop() {
	}
	// Reported after the loop, which would reset them.
	b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(p90.Microseconds())/1000, "p90-ms")
	b.ReportMetric(used, "server-cpu-%")
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times (100 on
// Linux everywhere Go runs).
const clockTicks = 100

// cpuTicks is a process's user and system time, in clock ticks.
func cpuTicks(b *testing.B, pid int) int64 {
	b.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// Fields after the command (which may hold spaces) start after ") ".
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return ut + st
}

// readTickLog maps each tick to when the fixture made it.
func readTickLog(b *testing.B, path string) map[int]time.Time {
	b.Helper()
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	out := map[int]time.Time{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 2 {
			continue
		}
		n, _ := strconv.Atoi(fs[0])
		ns, _ := strconv.ParseInt(fs[1], 10, 64)
		out[n] = time.Unix(0, ns)
	}
	return out
}
