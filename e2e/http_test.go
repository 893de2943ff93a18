//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/mcpserver"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// httpProc is one real `uiscope mcp --http` process.
type httpProc struct {
	cmd    *exec.Cmd
	disc   mcpserver.Discovery
	path   string // of the discovery file
	stderr *syncBuffer
	exited chan struct{}
	err    error // of Wait, once exited is closed
}

// startHTTP runs `uiscope mcp --http 127.0.0.1:0 args...` in the desktop
// with a fresh XDG_RUNTIME_DIR and waits for its discovery file. It is
// stopped (SIGTERM) when the test ends. On sway the compositor's socket,
// which WAYLAND_DISPLAY names inside the desktop's runtime dir, is given
// by its path.
func startHTTP(t testing.TB, d *testdesk.Desk, args ...string) *httpProc {
	t.Helper()
	rt := t.TempDir()
	cmd := exec.Command(uiscopeBin, append([]string{"mcp", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(d.Env(), "XDG_RUNTIME_DIR="+rt)
	if d.Sway != nil {
		cmd.Env = append(cmd.Env, "WAYLAND_DISPLAY="+filepath.Join(d.RuntimeDir, d.WaylandDisplay))
	}
	p := &httpProc{cmd: cmd, stderr: &syncBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() { p.stop(t, syscall.SIGTERM) })
	p.path = filepath.Join(rt, "uiscope", "mcp", fmt.Sprintf("%d.json", cmd.Process.Pid))
	deadline := time.After(60 * time.Second)
	for {
		b, err := os.ReadFile(p.path)
		if err == nil {
			if err := json.Unmarshal(b, &p.disc); err != nil {
				// Written atomically: a reader never sees part of it.
				t.Fatalf("discovery file %s is not whole JSON: %v\n%s", p.path, err, b)
			}
			return p
		}
		select {
		case <-p.exited:
			t.Fatalf("uiscope mcp --http exited before listening: %v\nstderr:\n%s", p.err, p.stderr.String())
		case <-deadline:
			t.Fatalf("no discovery file %s within 60 s\nstderr:\n%s", p.path, p.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// stop signals the process and waits for it to exit.
func (p *httpProc) stop(t testing.TB, sig os.Signal) {
	t.Helper()
	select {
	case <-p.exited:
		return
	default:
	}
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.exited:
	case <-time.After(60 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
		t.Errorf("uiscope mcp --http did not exit within 60 s of %v\nstderr:\n%s", sig, p.stderr.String())
	}
}

// bearerTransport adds a bearer token to every request.
type bearerTransport struct {
	token string
	next  http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// client connects an SDK client over HTTP with the token (and a client
// key after it, if key is not "") in the given era.
func (p *httpProc) client(t testing.TB, key, version string) *mcpServer {
	t.Helper()
	token := p.disc.Token
	if key != "" {
		token += "." + key
	}
	// Each client its own connections, as separate agents have.
	hc := &http.Client{Transport: bearerTransport{token, &http.Transport{}}}
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e-http", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: p.disc.URL, HTTPClient: hc}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting over HTTP (protocol %q): %v\nstderr:\n%s", version, err, p.stderr.String())
	}
	t.Cleanup(func() { cs.Close() })
	return &mcpServer{cs: cs, stderr: p.stderr}
}

// post sends one raw initialize request and returns the status.
func (p *httpProc) post(t testing.TB, edit func(*http.Request)) int {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	req, err := http.NewRequest("POST", p.disc.URL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+p.disc.Token)
	edit(req)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", p.disc.URL, err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

// The gate in front of the MCP endpoint, and the discovery file's life.
func TestHTTPGate(t *testing.T) { testdesk.ForEach(t, testHTTPGate) }

func testHTTPGate(t *testing.T, d *testdesk.Desk) {
	for _, sig := range []os.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			p := startHTTP(t, d)
			fi, err := os.Stat(p.path)
			if err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("discovery file %s: mode %v (%v), want 0600", p.path, fi.Mode(), err)
			}
			if di, err := os.Stat(filepath.Dir(p.path)); err != nil || di.Mode().Perm() != 0o700 {
				t.Errorf("discovery directory: mode %v (%v), want 0700", di.Mode(), err)
			}
			want := fmt.Sprintf("http://127.0.0.1:%d/mcp", p.disc.Port)
			if p.disc.Version != 1 || p.disc.Pid != p.cmd.Process.Pid || p.disc.Transport != "streamable-http" ||
				p.disc.URL != want || p.disc.Port == 0 || len(p.disc.Token) < 43 {
				t.Errorf("discovery file: %+v; want version 1, pid %d, streamable-http, url %s, a port and a 256-bit token", p.disc, p.cmd.Process.Pid, want)
			}
			port := fmt.Sprint(p.disc.Port)
			for name, c := range map[string]struct {
				edit func(*http.Request)
				want int
			}{
				"with the token":        {func(*http.Request) {}, 200},
				"without a token":       {func(r *http.Request) { r.Header.Del("Authorization") }, 401},
				"with another token":    {func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+otherToken(p.disc.Token)) }, 401},
				"Host a rebound name":   {func(r *http.Request) { r.Host = "attacker.example:" + port }, 403},
				"Host another port":     {func(r *http.Request) { r.Host = "127.0.0.1:1" }, 403},
				"Host localhost":        {func(r *http.Request) { r.Host = "localhost:" + port }, 200},
				"a web page's Origin":   {func(r *http.Request) { r.Header.Set("Origin", "http://attacker.example") }, 403},
				"a local page's Origin": {func(r *http.Request) { r.Header.Set("Origin", "http://127.0.0.1:1") }, 403},
				"its own Origin":        {func(r *http.Request) { r.Header.Set("Origin", "http://127.0.0.1:"+port) }, 200},
			} {
				if got := p.post(t, c.edit); got != c.want {
					t.Errorf("POST %s: HTTP %d, want %d", name, got, c.want)
				}
			}
			// A body past the bound is refused before it is parsed.
			big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 2<<20) + `"}}`
			req, err := http.NewRequest("POST", p.disc.URL, strings.NewReader(big))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", "Bearer "+p.disc.Token)
			if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusRequestEntityTooLarge {
				t.Errorf("POST of a 2 MiB body: %v %v, want 413", res, err)
			} else {
				res.Body.Close()
			}
			p.stop(t, sig)
			if _, err := os.Stat(p.path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("discovery file after %v: %v, want it removed", sig, err)
			}
			if ents, _ := os.ReadDir(filepath.Dir(p.path)); len(ents) != 0 {
				t.Errorf("left in the discovery directory: %v", ents)
			}
			if _, err := http.Get(p.disc.URL); err == nil {
				t.Errorf("still answering after %v", sig)
			}
		})
	}
}

// Addresses beyond loopback are refused unless asked for by name.
func TestHTTPBind(t *testing.T) { testdesk.ForEach(t, testHTTPBind) }

func testHTTPBind(t *testing.T, d *testdesk.Desk) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		r := runCLI(t, d, 60*time.Second, "mcp", "--http", addr)
		if r.code != 2 || !strings.Contains(r.stderr, "--http-unsafe-bind") || r.stdout != "" {
			t.Errorf("mcp --http %s: exit %d, stderr %q; want 2 and the refusal naming --http-unsafe-bind", addr, r.code, r.stderr)
		}
	}
	rt := t.TempDir()
	cmd := exec.Command(uiscopeBin, "mcp", "--http", "0.0.0.0:0", "--http-unsafe-bind")
	cmd.Env = append(d.Env(), "XDG_RUNTIME_DIR="+rt)
	p := &httpProc{cmd: cmd, stderr: &syncBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = cmd.Wait(); close(p.exited) }()
	defer p.stop(t, syscall.SIGTERM)
	path := filepath.Join(rt, "uiscope", "mcp", fmt.Sprintf("%d.json", cmd.Process.Pid))
	deadline := time.Now().Add(60 * time.Second)
	for {
		if b, err := os.ReadFile(path); err == nil {
			if err := json.Unmarshal(b, &p.disc); err != nil {
				t.Fatal(err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("--http-unsafe-bind 0.0.0.0:0 did not start\nstderr:\n%s", p.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := p.post(t, func(*http.Request) {}); got != 200 {
		t.Errorf("with --http-unsafe-bind: HTTP %d, want 200", got)
	}
	if got := p.post(t, func(r *http.Request) { r.Header.Del("Authorization") }); got != 401 {
		t.Errorf("with --http-unsafe-bind, no token: HTTP %d, want 401", got)
	}
}

var sessionIDForm = regexp.MustCompile(`^s[a-z2-7]{26}$`)

// Both protocol eras over HTTP, and clients kept apart: a client that
// presents another's session id is told it does not exist, whichever era
// each speaks. (2025 clients are told apart by their MCP session, 2026
// clients, which have none, by their bearer identity: the token and a
// client key each chose: docs/security.md, "Clients, sessions and HTTP".)
func TestHTTPErasAndIsolation(t *testing.T) { testdesk.ForEach(t, testHTTPErasAndIsolation) }

func testHTTPErasAndIsolation(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "uiscope http eras")
	p := startHTTP(t, d)
	clients := map[string]*mcpServer{
		"2025 A": p.client(t, "", "2025-11-25"),
		"2025 B": p.client(t, "", "2025-11-25"),
		"2026 C": p.client(t, "client-c-0123456789abcdef", ""),
		"2026 D": p.client(t, "client-d-0123456789abcdef", ""),
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range clients {
			if !yield(n) {
				return
			}
		}
	})
	ids := map[string]string{}
	for _, name := range names {
		s := clients[name]
		want := "2025-11-25"
		if strings.HasPrefix(name, "2026") {
			want = "2026-07-28"
		}
		if got := s.cs.InitializeResult().ProtocolVersion; got != want {
			t.Fatalf("%s: protocol %s, want %s", name, got, want)
		}
		ids[name] = s.connect(t, map[string]any{"pid": app.Pid})
		if !sessionIDForm.MatchString(ids[name]) {
			t.Errorf("%s: session id %q is not random", name, ids[name])
		}
		out := s.ok(t, "find_elements", map[string]any{"session": ids[name], "role": "push button"})
		if n, _ := out["matched"].(float64); n == 0 {
			t.Errorf("%s: find_elements found no button: %v", name, out)
		}
	}
	for _, user := range names {
		for _, owner := range names {
			if user == owner {
				continue
			}
			out := clients[user].fail(t, "get_a11y_tree", map[string]any{"session": ids[owner]}, "unknownSession")
			if msg, _ := out["error"].(string); !strings.Contains(msg, "no session") {
				t.Errorf("%s using %s's session: %q", user, owner, msg)
			}
			clients[user].fail(t, "disconnect", map[string]any{"session": ids[owner]}, "unknownSession")
		}
	}
	for _, name := range names {
		clients[name].ok(t, "get_a11y_tree", map[string]any{"session": ids[name], "depth": 1})
		clients[name].ok(t, "disconnect", map[string]any{"session": ids[name]})
	}
}

// Over stdio, one client per process: its ids are random all the same,
// so nothing can be learnt or guessed from them.
func TestStdioSessionIDsRandom(t *testing.T) { testdesk.ForEach(t, testStdioSessionIDsRandom) }

func testStdioSessionIDsRandom(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "uiscope stdio ids")
	s := startMCP(t, d, "")
	a := s.connect(t, map[string]any{"pid": app.Pid})
	b := s.connect(t, map[string]any{"pid": app.Pid})
	for _, id := range []string{a, b} {
		if !sessionIDForm.MatchString(id) {
			t.Errorf("stdio session id %q is not s and 26 random base32 characters", id)
		}
	}
	if a == b {
		t.Errorf("two sessions share the id %s", a)
	}
	for _, guess := range []string{"s1", "s2", "s3"} {
		s.fail(t, "get_a11y_tree", map[string]any{"session": guess}, "unknownSession")
	}
}

// loadCalls is what each load-test client asks, in turn.
var loadCalls = []struct {
	name string
	args func(session string) map[string]any
}{
	{"find_elements", func(s string) map[string]any { return map[string]any{"session": s, "role": "push button"} }},
	{"get_a11y_tree", func(s string) map[string]any { return map[string]any{"session": s, "depth": 2} }},
	{"list_apps", func(string) map[string]any { return map[string]any{} }},
	{"get_events", func(s string) map[string]any { return map[string]any{"session": s} }},
}

// 20 HTTP clients at once, half in each era, each with a session on one of
// five apps, 2,000 tool calls in all: every call answers, none fails but
// for a deliberate rate limit, and all within a bound. p50 and p99 are
// logged.
func TestHTTPLoad(t *testing.T) { testdesk.ForEach(t, testHTTPLoad) }

func testHTTPLoad(t *testing.T, d *testdesk.Desk) {
	const clientsN, appsN, calls = 20, 5, 2000
	var apps []*testdesk.App
	for i := range appsN {
		apps = append(apps, d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", fmt.Sprint("uiscope load ", i)))
	}
	p := startHTTP(t, d)
	type client struct {
		s       *mcpServer
		session string
	}
	var cl []client
	for i := range clientsN {
		version, key := "2025-11-25", ""
		if i%2 == 1 {
			version, key = "", fmt.Sprintf("load-client-%02d-0123456789", i)
		}
		s := p.client(t, key, version)
		cl = append(cl, client{s, s.connect(t, map[string]any{"pid": apps[i%appsN].Pid})})
	}
	var (
		mu        sync.Mutex
		latencies []time.Duration
		limited   int
		failures  []string
	)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	for i, c := range cl {
		wg.Go(func() {
			for k := range calls / clientsN {
				call := loadCalls[(i+k)%len(loadCalls)]
				t0 := time.Now()
				res, err := c.s.cs.CallTool(ctx, &mcp.CallToolParams{Name: call.name, Arguments: call.args(c.session)})
				took := time.Since(t0)
				mu.Lock()
				latencies = append(latencies, took)
				switch {
				case err != nil:
					failures = append(failures, fmt.Sprintf("client %d %s: %v", i, call.name, err))
				case res.IsError:
					var out struct {
						Code         string `json:"errorCode"`
						RetryAfterMs int    `json:"retryAfterMs"`
					}
					b, _ := json.Marshal(res.StructuredContent)
					_ = json.Unmarshal(b, &out)
					if out.Code == "rateLimited" && out.RetryAfterMs > 0 {
						limited++
					} else {
						failures = append(failures, fmt.Sprintf("client %d %s: %s", i, call.name, b))
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if ctx.Err() != nil {
		t.Fatalf("the load did not finish within 10 minutes (%d calls answered)", len(latencies))
	}
	if len(failures) > 0 {
		t.Errorf("%d of %d calls failed; first: %s\nstderr:\n%.3000s", len(failures), len(latencies), failures[0], p.stderr.String())
	}
	if len(latencies) != calls {
		t.Fatalf("%d calls answered, want %d", len(latencies), calls)
	}
	slices.Sort(latencies)
	t.Logf("HTTP load: %d clients, %d apps, %d calls in %v (%.0f calls/s); latency p50 %v, p99 %v, max %v; %d rate-limited",
		clientsN, appsN, calls, elapsed.Round(time.Millisecond), float64(calls)/elapsed.Seconds(),
		latencies[calls/2].Round(time.Microsecond), latencies[calls*99/100].Round(time.Microsecond), latencies[calls-1].Round(time.Microsecond), limited)
}

// otherToken is token with its first character changed: a token of the
// same length and alphabet that is not the server's.
func otherToken(token string) string {
	if strings.HasPrefix(token, "A") {
		return "B" + token[1:]
	}
	return "A" + token[1:]
}
