//go:build linux

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/sandbox"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// BenchmarkMCPDesktops measures the same calls on each desktop, side by
// side: starting the sandbox desktop itself (sandbox.Start until it is
// ready, then closed), and through the real MCP client and `uiscope mcp
// --allow-input` on the GTK 3 fixture: type_text of 100 characters, a
// screenshot of the fixture's window made 1280x800 (the tool call until
// its answer is decoded by the client's SDK; the test's own PNG decoding
// is not counted), and a pointer click round trip (a slider, which has no
// action). On sway the window floats with no border, at 1280x800: sway's
// tabs fill the output, so a tiled window would be the output's size less
// the tab bar. It reports medians, never asserts.
//
//	go test -run '^$' -bench MCPDesktops -benchtime 10x ./e2e/
func BenchmarkMCPDesktops(b *testing.B) {
	for _, kind := range testdesk.Desktops {
		b.Run(kind, func(b *testing.B) {
			report := func(b *testing.B, what string, runs []time.Duration) {
				slices.Sort(runs)
				med := float64(runs[len(runs)/2].Microseconds()) / 1000
				b.ReportMetric(med, "median-ms/call")
				fmt.Fprintf(os.Stderr, "%s: %s: median %.1f ms over %d (min %.1f, max %.1f)\n", kind, what, med, len(runs),
					float64(runs[0].Microseconds())/1000, float64(runs[len(runs)-1].Microseconds())/1000)
			}
			b.Run("start", func(b *testing.B) {
				testdesk.SkipShort(b)
				var runs []time.Duration
				for range b.N {
					ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
					start := time.Now()
					sd, err := sandbox.Start(ctx, sandbox.Options{Desktop: kind, Log: io.Discard})
					took := time.Since(start)
					cancel()
					if err != nil {
						b.Fatal(err)
					}
					sd.Close()
					runs = append(runs, took)
				}
				report(b, "sandbox start", runs)
			})
			d := testdesk.On(b, kind)
			app := d.Launch(b, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "bench desktops")
			windowSize(b, d, app.Pid, "bench desktops", 1280, 800)
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
			b.Run("type_text", func(b *testing.B) {
				text := strings.Repeat("The quick brown fox, 42! ", 4) // 100 characters
				var runs []time.Duration
				for range b.N {
					timed("set_value", map[string]any{"element": entry, "value": ""})
					runs = append(runs, timed("type_text", map[string]any{"element": entry, "text": text}))
				}
				report(b, "mcp type_text of 100 characters", runs)
			})
			b.Run("screenshot", func(b *testing.B) {
				var runs []time.Duration
				var cfg image.Config
				for range b.N {
					start := time.Now()
					res, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "screenshot", Arguments: map[string]any{"session": sess, "annotate": false}})
					runs = append(runs, time.Since(start))
					if err != nil || res.IsError || len(res.Content) != 2 {
						b.Fatalf("screenshot: %v %+v", err, res)
					}
					ic, ok := res.Content[1].(*mcp.ImageContent)
					if !ok {
						b.Fatalf("screenshot: no image: %+v", res.Content[1])
					}
					if cfg, err = png.DecodeConfig(bytes.NewReader(ic.Data)); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(cfg.Width), "width-px")
				b.ReportMetric(float64(cfg.Height), "height-px")
				report(b, fmt.Sprintf("mcp screenshot of the %dx%d window", cfg.Width, cfg.Height), runs)
			})
			b.Run("click", func(b *testing.B) {
				var runs []time.Duration
				for range b.N {
					runs = append(runs, timed("click", map[string]any{"element": slider}))
				}
				report(b, "mcp click by pointer (a slider)", runs)
			})
		})
	}
}

// windowSize gives pid's window (titled title) an interior of w x h and
// waits until the display server has it so: on X11 through the window
// manager (xdotool windowsize); on sway floating with no border, at the
// output's top-left corner.
func windowSize(t testing.TB, d *testdesk.Desk, pid int, title string, w, h int) {
	t.Helper()
	if d.Sway != nil {
		v := oneView(t, d, pid)
		swayRun(t, d, fmt.Sprintf("[con_id=%d] border none, floating enable, resize set %d %d, move position 0 0", v.con, w, h))
		until(t, fmt.Sprintf("the window is %dx%d", w, h), func(context.Context) (bool, string) {
			v := oneView(t, d, pid)
			return v.content.Width == w && v.content.Height == h && v.visible, fmt.Sprint(v.content)
		})
		return
	}
	xc := xclient(t, d)
	win := findXWindow(t, d, xc, pid, title)
	cmd := exec.Command("xdotool", "windowsize", strconv.Itoa(int(win.id)), strconv.Itoa(w), strconv.Itoa(h))
	cmd.Env = d.Env()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("xdotool windowsize: %v %s", err, out)
	}
	until(t, fmt.Sprintf("the window is %dx%d", w, h), func(context.Context) (bool, string) {
		r := xRect(t, xc, win.id)
		return r.Width == w && r.Height == h, fmt.Sprint(r)
	})
}
