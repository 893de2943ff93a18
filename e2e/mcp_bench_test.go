//go:build linux

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
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
				// The same read as bytes on the wire: from the request
				// written to the answer's last byte read, without a
				// client's decoding and checking of the answer.
				wire := wireTimes(b, d, app.Pid, c.args, b.N)
				reportMCP(b, appName, "warm (wire)", c.name, wire)
				// pyatspi's walk of the same app in the same run, with its
				// client cache kept (a warm read, like this one) and cleared.
				for _, keep := range []bool{true, false} {
					peer := runPeer(b, d, app.Pid, keep)
					kind := map[bool]string{true: "kept", false: "cleared"}[keep]
					b.ReportMetric(peer.MedianMs/medianMs(runs), "ratio-pyatspi-cache-"+kind)
					b.ReportMetric(peer.MedianMs/medianMs(wire), "wire-ratio-pyatspi-cache-"+kind)
					fmt.Fprintf(os.Stderr, "pyatspi walk (cache %s) on %s: median %.1f ms (%d nodes, %d runs); ratio to the warm MCP json read %.1f (SDK client), %.1f (wire)\n",
						kind, appName, peer.MedianMs, peer.Nodes, len(peer.RunsMs), peer.MedianMs/medianMs(runs), peer.MedianMs/medianMs(wire))
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

// wireTimes times n warm get_a11y_tree calls (args) to a `uiscope mcp`
// process on its stdio, as bytes: each from the request line written to
// the answer line read whole, after a second and a half of the same calls
// (the steady state). The answer is checked, untimed.
func wireTimes(b *testing.B, d *testdesk.Desk, pid int, args map[string]any, n int) []time.Duration {
	b.Helper()
	cmd := exec.Command(uiscopeBin, "mcp")
	cmd.Env = d.Env()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { stdin.Close(); _ = cmd.Wait() }()
	out := bufio.NewReaderSize(stdout, 1<<20)
	id := 0
	call := func(method string, params any) (json.RawMessage, time.Duration) {
		id++
		req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if _, err := stdin.Write(append(req, '\n')); err != nil {
			b.Fatal(err)
		}
		for {
			line, err := out.ReadBytes('\n')
			if err != nil {
				b.Fatalf("%s: %v", method, err)
			}
			took := time.Since(start)
			var resp struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(line, &resp) != nil || resp.ID == nil || *resp.ID != id {
				continue // a notification
			}
			if resp.Error != nil {
				b.Fatalf("%s: %s", method, resp.Error)
			}
			return resp.Result, took
		}
	}
	call("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "wire", "version": "1"}})
	if _, err := io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		b.Fatal(err)
	}
	type toolResult struct {
		StructuredContent struct {
			OK        bool   `json:"ok"`
			Session   string `json:"session"`
			Truncated bool   `json:"truncated"`
		} `json:"structuredContent"`
	}
	tool := func(name string, a map[string]any) (toolResult, time.Duration) {
		raw, took := call("tools/call", map[string]any{"name": name, "arguments": a})
		var r toolResult
		if err := json.Unmarshal(raw, &r); err != nil || !r.StructuredContent.OK || r.StructuredContent.Truncated {
			b.Fatalf("%s: %.300s", name, raw)
		}
		return r, took
	}
	conn, _ := tool("connect", map[string]any{"pid": pid})
	a := map[string]any{"session": conn.StructuredContent.Session}
	for k, v := range args {
		a[k] = v
	}
	for start := time.Now(); time.Since(start) < 1500*time.Millisecond; {
		tool("get_a11y_tree", a)
	}
	runs := make([]time.Duration, 0, n)
	for range n {
		_, took := tool("get_a11y_tree", a)
		runs = append(runs, took)
	}
	return runs
}
