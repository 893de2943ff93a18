//go:build linux

package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// rawMCP is a `uiscope mcp` process spoken to over raw pipes, without the
// SDK client: the tests below send what no well-behaved client would.
type rawMCP struct {
	stdin  io.WriteCloser
	lines  chan rawLine
	stderr *syncBuffer
}

type rawLine struct {
	raw string
	msg map[string]any
}

func startRawMCP(t *testing.T, d *testdesk.Desk, args ...string) *rawMCP {
	t.Helper()
	cmd := exec.Command(uiscopeBin, append([]string{"mcp"}, args...)...)
	cmd.Env = d.Env()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	r := &rawMCP{stdin: stdin, lines: make(chan rawLine, 100), stderr: &syncBuffer{}}
	cmd.Stderr = r.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(r.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			l := rawLine{raw: sc.Text()}
			if err := json.Unmarshal(sc.Bytes(), &l.msg); err != nil {
				l.msg = nil
			}
			r.lines <- l
		}
	}()
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
		<-done
		cmd.Wait()
	})
	return r
}

// send writes one line as is.
func (r *rawMCP) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(r.stdin, line+"\n"); err != nil {
		t.Fatalf("writing to uiscope mcp: %v\nstderr:\n%s", err, r.stderr.String())
	}
}

// next returns the next stdout line, which must be a JSON-RPC 2.0 message.
func (r *rawMCP) next(t *testing.T) map[string]any {
	t.Helper()
	select {
	case l, ok := <-r.lines:
		if !ok {
			t.Fatalf("uiscope mcp closed stdout (it exited); stderr:\n%s", r.stderr.String())
		}
		if l.msg == nil || l.msg["jsonrpc"] != "2.0" {
			t.Fatalf("stdout line is not JSON-RPC 2.0: %.300q", l.raw)
		}
		return l.msg
	case <-time.After(60 * time.Second):
		t.Fatalf("no stdout line within 60 s; stderr:\n%s", r.stderr.String())
	}
	return nil
}

// TestMCPMalformedLine: a line that is not JSON-RPC is answered with a
// JSON-RPC error and the server keeps serving (before, the first such line
// ended the process: "stdout closed").
func TestMCPMalformedLine(t *testing.T) { testdesk.ForEach(t, testMCPMalformedLine) }

func testMCPMalformedLine(t *testing.T, d *testdesk.Desk) {
	s := startRawMCP(t, d)
	s.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := s.next(t); m["id"] != float64(1) || m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, bad := range []struct{ name, line string }{
		{"garbage", "hello, is this the MCP server?"},
		{"cut short", `{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"list_apps"`},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":78,\"method\":\"tools/list\",\"params\":{\"x\":\"\xc3\x28\"}}"},
	} {
		s.send(t, bad.line)
		m := s.next(t)
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != float64(-32700) {
			t.Errorf("%s: want a -32700 parse error, got %v", bad.name, m)
		}
		if id, present := m["id"]; !present || id != nil {
			t.Errorf("%s: want id null, got %v", bad.name, m)
		}
		id := 10 + i
		s.send(t, `{"jsonrpc":"2.0","id":`+jsonNumber(id)+`,"method":"tools/call","params":{"name":"list_apps","arguments":{}}}`)
		m = s.next(t)
		if m["id"] != float64(id) || m["error"] != nil {
			t.Fatalf("after the %s line: want the answer to request %d, got %.500v", bad.name, id, m)
		}
		res, _ := m["result"].(map[string]any)
		if sc, _ := res["structuredContent"].(map[string]any); sc["ok"] != true {
			t.Errorf("after the %s line: list_apps: %.500v", bad.name, m)
		}
	}
	// JSON that is not a message object: invalid request, and on.
	s.send(t, `[1,2,3]`)
	if m := s.next(t); m["error"] == nil || m["error"].(map[string]any)["code"] != float64(-32600) {
		t.Errorf("a batch of numbers: want -32600, got %v", m)
	}
	s.send(t, `{"jsonrpc":"2.0","id":20,"method":"tools/list"}`)
	if m := s.next(t); m["id"] != float64(20) || m["result"] == nil {
		t.Fatalf("tools/list after the batch: %.300v", m)
	}
	if strings.Contains(s.stderr.String(), "panic") {
		t.Errorf("stderr mentions a panic:\n%s", s.stderr.String())
	}
}

func jsonNumber(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// TestMCPWaitForFrozenApp: wait_for until a property read live (text),
// over many matches of an app that freezes (SIGSTOP) while the wait reads
// them, returns by its one deadline. Before, each match was read with the
// handler's context, up to 3 s each: 150 matches, minutes.
func TestMCPWaitForFrozenApp(t *testing.T) { testdesk.ForEach(t, testMCPWaitForFrozenApp) }

func testMCPWaitForFrozenApp(t *testing.T, d *testdesk.Desk) {
	// A ticking label keeps the app reporting changes, so the wait polls
	// back to back and is reading matches live most of the time. It starts
	// once the app has been read (SIGUSR2).
	// 150 rows: a list walked whole (a longer one holds only the rows on
	// screen, docs/api.md).
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "frozen wait", "--rows", "150",
		"--timer-label", "100", "--tick-on-signal")
	s := startMCP(t, d, "")
	session := s.connect(t, map[string]any{"pid": app.Pid})
	found := s.ok(t, "find_elements", map[string]any{"session": session, "name": "Row ", "limit": 1000, "timeoutMs": 60000})
	if n, _ := found["matched"].(float64); n < 100 {
		t.Fatalf("want the fixture's rows, found %v", found["matched"])
	}
	if err := syscall.Kill(app.Pid, syscall.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(app.Pid, syscall.SIGCONT)
	const timeoutMs = 4000
	freeze := time.AfterFunc(1500*time.Millisecond, func() { syscall.Kill(app.Pid, syscall.SIGSTOP) })
	defer freeze.Stop()
	start := time.Now()
	out := s.call(t, "wait_for", map[string]any{"session": session, "name": "Row ", "until": "property",
		"property": "text", "value": "never typed", "timeoutMs": timeoutMs})
	took := time.Since(start)
	if out["ok"] != false || out["errorCode"] != "timeout" {
		t.Errorf("wait_for on a frozen app: want errorCode timeout, got %.500v", out)
	}
	if took > 3*timeoutMs*time.Millisecond {
		t.Errorf("wait_for with timeoutMs %d on an app frozen during the wait took %v", timeoutMs, took)
	}
	t.Logf("wait_for with timeoutMs %d, app frozen after 1.5 s: answered in %v: %.300v", timeoutMs, took, out["error"])
	s.ok(t, "list_apps", nil)
}

// TestMCPArgumentErrors: a real server answers wrongly typed and unknown
// arguments with invalidArgument data naming the argument (before, the
// SDK's bare isError text), and quotes huge input short (before, an 8 MiB
// name came back whole, twice: a 16.7 MB answer).
func TestMCPArgumentErrors(t *testing.T) { testdesk.ForEach(t, testMCPArgumentErrors) }

func testMCPArgumentErrors(t *testing.T, d *testdesk.Desk) {
	s := startMCP(t, d, "")
	for _, c := range []struct {
		tool, arg string
		args      map[string]any
	}{
		{"connect", "pid", map[string]any{"pid": "abc"}},
		{"get_a11y_tree", "depth", map[string]any{"session": "x", "depth": "x"}},
		{"get_a11y_tree", "bogus", map[string]any{"session": "x", "bogus": true}},
		{"find_elements", "session", map[string]any{"name": "OK"}},
	} {
		out := s.fail(t, c.tool, c.args, "invalidArgument")
		if msg, _ := out["error"].(string); !strings.Contains(msg, c.arg) {
			t.Errorf("%s %v: the message does not name %s: %q", c.tool, c.args, c.arg, msg)
		}
	}
	huge := strings.Repeat("x", 8<<20)
	for _, args := range []map[string]any{{"name": huge}, {"title": huge}, {"pid": 1, "mode": huge}} {
		_, res, err := s.callRaw(t, "connect", args)
		if err != nil {
			t.Fatalf("connect with an 8 MiB argument: %v", err)
		}
		if n := len(res.Content[0].(*mcp.TextContent).Text); n > 1000 || !res.IsError {
			t.Errorf("connect with an 8 MiB argument: isError %v, a %d-byte answer", res.IsError, n)
		}
	}
}
