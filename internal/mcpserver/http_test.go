//go:build linux

package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
	"github.com/uiscope/uiscope/internal/security"
)

func TestCheckBind(t *testing.T) {
	t.Parallel()
	for addr, ok := range map[string]bool{
		"127.0.0.1:0": true, "127.0.0.1:8080": true, "[::1]:0": true, "localhost:0": true, "127.1.2.3:0": true,
		"0.0.0.0:0": false, ":0": false, "[::]:0": false, "192.0.2.1:0": false, "example.com:0": false,
		"127.0.0.1": false, "127.0.0.1:99999": false, "": false,
	} {
		if err := CheckBind(addr, false); (err == nil) != ok {
			t.Errorf("CheckBind(%q) = %v, want ok=%v", addr, err, ok)
		}
	}
	for addr, ok := range map[string]bool{"0.0.0.0:0": true, ":0": true, "192.0.2.1:0": true, "example.com:0": false} {
		if err := CheckBind(addr, true); (err == nil) != ok {
			t.Errorf("CheckBind(%q, unsafe) = %v, want ok=%v", addr, err, ok)
		}
	}
}

func TestHostAndOriginChecks(t *testing.T) {
	t.Parallel()
	for host, ok := range map[string]bool{
		"127.0.0.1:4000": true, "localhost:4000": true, "LOCALHOST:4000": true, "[::1]:4000": true, "127.0.0.1": true,
		"127.0.0.1:4001": false, "evil.example:4000": false, "192.0.2.1:4000": false, "localhost.evil.example:4000": false,
		"[fe80::1%25eth0]:4000": false, "": false,
	} {
		if got := hostAllowed(host, 4000, false); got != ok {
			t.Errorf("hostAllowed(%q) = %v, want %v", host, got, ok)
		}
	}
	if !hostAllowed("192.0.2.1:4000", 4000, true) || hostAllowed("evil.example:4000", 4000, true) {
		t.Error("unsafe bind: an IP literal must pass and a name must not")
	}
	for origin, ok := range map[string]bool{
		"http://127.0.0.1:4000": true, "http://127.0.0.1:4001": false, "https://127.0.0.1:4000": false,
		"http://evil.example": false, "null": false, "http://127.0.0.1:4000/x": false,
	} {
		if got := originAllowed(origin, "127.0.0.1:4000"); got != ok {
			t.Errorf("originAllowed(%q) = %v, want %v", origin, got, ok)
		}
	}
}

func TestVerifyToken(t *testing.T) {
	t.Parallel()
	tok, err := newToken()
	if err != nil {
		t.Fatal(err)
	}
	if len(tok) < 43 {
		t.Fatalf("token %q: fewer than 256 bits", tok)
	}
	v := verifyToken(tok)
	bare, err := v(context.Background(), tok, nil)
	if err != nil || bare.UserID != tokenUser {
		t.Fatalf("the token itself: %v %+v", err, bare)
	}
	a, err := v(context.Background(), tok+".alice-key-0123456789", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := v(context.Background(), tok+".bob-key-0123456789ab", nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.UserID == b.UserID || a.UserID == tokenUser || strings.Contains(a.UserID, "alice") {
		t.Errorf("client keys: alice %q, bob %q: want distinct names that do not show the key", a.UserID, b.UserID)
	}
	for _, bad := range []string{"", tok[:len(tok)-1], tok + "x", "x" + tok, tok + ".short", tok + ".with space in it here", strings.ToUpper(tok)} {
		if _, err := v(context.Background(), bad, nil); err == nil {
			t.Errorf("token %q accepted", bad)
		}
	}
}

func TestWriteDiscovery(t *testing.T) {
	startTime := func(pid int) uint64 {
		return core.NewSessions(fakePlatform()).StartTime(context.Background(), pid)
	}
	dir := filepath.Join(t.TempDir(), "uiscope", "mcp")
	d := Discovery{Version: 1, Pid: 4242, Transport: "streamable-http", URL: "http://127.0.0.1:1/mcp", Port: 1, Token: "t"}
	// A server that died without cleaning up left its file: it goes. A
	// live server's file stays.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, fmt.Sprintf("%d.json", dead.Process.Pid))
	live := filepath.Join(dir, fmt.Sprintf("%d.json", os.Getpid()))
	for _, f := range []string{stale, live} {
		if err := os.WriteFile(f, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A file whose pid is alive, but under a process that started at
	// another time than the server that wrote it, is stale too (the pid
	// was reused); one that says the live process's start time stays.
	var reusedFile string
	if st := startTime(os.Getppid()); st != 0 {
		reusedFile = filepath.Join(dir, fmt.Sprintf("%d.json", os.Getppid()))
		b, _ := json.Marshal(Discovery{Version: 1, Pid: os.Getppid(), StartTime: st + 1})
		if err := os.WriteFile(reusedFile, b, 0o600); err != nil {
			t.Fatal(err)
		}
		b, _ = json.Marshal(Discovery{Version: 1, Pid: os.Getpid(), StartTime: startTime(os.Getpid())})
		if err := os.WriteFile(live, b, 0o600); err != nil {
			t.Fatal(err)
		}
	} else if runtime.GOOS == "linux" {
		t.Error("no start time for the parent process")
	}
	path, err := writeDiscovery(dir, d, startTime)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("a dead server's discovery file survived: %v", err)
	}
	if reusedFile != "" {
		if _, err := os.Stat(reusedFile); !os.IsNotExist(err) {
			t.Errorf("a discovery file whose pid another process took over survived: %v", err)
		}
	}
	if err := os.Remove(live); err != nil {
		t.Errorf("a live server's discovery file: %v", err)
	}
	if path != filepath.Join(dir, "4242.json") {
		t.Errorf("path %s", path)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("file mode: %v %v", fi.Mode(), err)
	}
	if di, _ := os.Stat(dir); di.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v", di.Mode())
	}
	var got Discovery
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &got); err != nil || got != d {
		t.Errorf("content %s: %v", b, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
	t.Setenv("XDG_RUNTIME_DIR", "")
	if _, err := DiscoveryDir(); err == nil {
		t.Error("no XDG_RUNTIME_DIR, yet a discovery directory")
	}
}

// bearer adds a token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// httpTestServer serves the live server's handler on loopback.
func httpTestServer(t *testing.T, l *liveServer) (endpoint, token string) {
	t.Helper()
	token, err := newToken()
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(nil)
	port := hs.Listener.Addr().(*net.TCPAddr).Port
	hs.Config.Handler = newHTTPHandler(l.srv, token, port, false, nil)
	hs.Start()
	t.Cleanup(hs.Close)
	return hs.URL + HTTPPath, token
}

// pipeHTTPServer serves the live server's handler as httpTestServer does,
// on in-memory connections (net.Pipe) in place of a socket, and returns
// the transport that dials them: unlike a socket's, its reads and writes
// block durably, so the exchange can run in a synctest bubble, where the
// server's idle and expiry times take no real time.
func pipeHTTPServer(t *testing.T, l *liveServer) (endpoint, token string, rt *http.Transport) {
	t.Helper()
	token, err := newToken()
	if err != nil {
		t.Fatal(err)
	}
	ln := newPipeListener()
	hs := &http.Server{Handler: newHTTPHandler(l.srv, token, pipePort, false, nil)}
	go hs.Serve(ln)
	rt = &http.Transport{DialContext: ln.dial}
	t.Cleanup(func() {
		hs.Close()
		rt.CloseIdleConnections()
	})
	return "http://" + ln.Addr().String() + HTTPPath, token, rt
}

// pipePort is the port pipeHTTPServer's address and Host header name.
const pipePort = 8123

// pipeGuardedServer is guardedHTTPServer on in-memory connections, as
// pipeHTTPServer's; raw requests reach it through rawRequest(ln.dial).
func pipeGuardedServer(t *testing.T, l *liveServer, conns int) (endpoint, token string, ln *pipeListener) {
	t.Helper()
	token, err := newToken()
	if err != nil {
		t.Fatal(err)
	}
	ln = newPipeListener()
	hs := newHTTPServer(l.srv, token, pipePort, false, io.Discard)
	go hs.Serve(newLimitListener(ln, conns))
	t.Cleanup(func() { hs.Close() })
	return "http://" + ln.Addr().String() + HTTPPath, token, ln
}

// pipeListener accepts the server ends of the pipes its dial makes.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: pipePort}
}

func (l *pipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		client.Close()
		return nil, net.ErrClosed
	case <-ctx.Done():
		client.Close()
		return nil, ctx.Err()
	}
}

func httpClient(t *testing.T, endpoint, token, version string) *mcp.ClientSession {
	t.Helper()
	return httpClientVia(t, &http.Transport{}, endpoint, token, version)
}

// httpClientVia is httpClient over the given transport.
func httpClientVia(t *testing.T, rt http.RoundTripper, endpoint, token, version string) *mcp.ClientSession {
	t.Helper()
	hc := &http.Client{Transport: bearer{token, rt}}
	c := mcp.NewClient(&mcp.Implementation{Name: "unit-http", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect over HTTP (%q): %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestHTTPRefusals(t *testing.T) {
	t.Parallel()
	endpoint, token := httpTestServer(t, newLiveServer())
	u, _ := url.Parse(endpoint)
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	post := func(mod func(*http.Request), b string) int {
		t.Helper()
		req, _ := http.NewRequest("POST", endpoint, strings.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		mod(req)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for name, c := range map[string]struct {
		mod  func(*http.Request)
		body string
		want int
	}{
		"ok":             {func(*http.Request) {}, body, 200},
		"no token":       {func(r *http.Request) { r.Header.Del("Authorization") }, body, 401},
		"wrong token":    {func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token+"x") }, body, 401},
		"foreign Host":   {func(r *http.Request) { r.Host = "evil.example:" + u.Port() }, body, 403},
		"Host, no token": {func(r *http.Request) { r.Host = "evil.example"; r.Header.Del("Authorization") }, body, 403},
		"foreign Origin": {func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") }, body, 403},
		"own Origin":     {func(r *http.Request) { r.Header.Set("Origin", "http://"+u.Host) }, body, 200},
		"huge body":      {func(*http.Request) {}, body[:len(body)-1] + `,"x":"` + strings.Repeat("a", MaxRequestBytes) + `"}`, 413},
		"other path":     {func(r *http.Request) { r.URL.Path = "/other" }, body, 404},
	} {
		if got := post(c.mod, c.body); got != c.want {
			t.Errorf("%s: HTTP %d, want %d", name, got, c.want)
		}
	}
	// A chunked body has no length to refuse up front: it is cut where
	// it passes the bound.
	req, _ := http.NewRequest("POST", endpoint, struct{ *bytes.Reader }{bytes.NewReader([]byte(body[:len(body)-1] + `,"x":"` + strings.Repeat("a", MaxRequestBytes) + `"}`))})
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode == 200 {
		t.Errorf("chunked huge body: %v %v", res, err)
	}
}

// Both eras over HTTP, and their clients kept apart: stateful clients by
// their MCP session, sessionless ones by their bearer identity.
func TestHTTPErasAndIsolation(t *testing.T) {
	t.Parallel()
	l := newLiveServer()
	endpoint, token := httpTestServer(t, l)
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			aliceToken, bobToken := token, token
			if era.version == "" {
				aliceToken, bobToken = token+".alice-0123456789abcdef", token+".bob-0123456789abcdef"
			}
			alice := httpClient(t, endpoint, aliceToken, era.version)
			bob := httpClient(t, endpoint, bobToken, era.version)
			want := era.version
			if want == "" {
				want = "2026-07-28"
			}
			if got := alice.InitializeResult().ProtocolVersion; got != want {
				t.Fatalf("negotiated %s, want %s", got, want)
			}
			id := mustOK(t, alice, "connect", map[string]any{"pid": tickerPid})["session"].(string)
			mustOK(t, alice, "get_a11y_tree", map[string]any{"session": id})
			mustFail(t, bob, "get_a11y_tree", map[string]any{"session": id}, core.CodeUnknownSession)
			mustFail(t, bob, "disconnect", map[string]any{"session": id}, core.CodeUnknownSession)
			mustOK(t, alice, "disconnect", map[string]any{"session": id})
		})
	}
	// Two sessionless clients on the bare token are one client: the rule
	// docs/security.md states.
	a := httpClient(t, endpoint, token, "")
	b := httpClient(t, endpoint, token, "")
	id := mustOK(t, a, "connect", map[string]any{"pid": tickerPid})["session"].(string)
	mustOK(t, b, "disconnect", map[string]any{"session": id})
}

// Resource subscriptions work over HTTP in both eras: the 2025 eras'
// notifications come on the session's event stream, 2026-07-28's on the
// open subscriptions/listen request.
func TestHTTPSubscription(t *testing.T) {
	t.Parallel()
	l := newLiveServer()
	endpoint, token := httpTestServer(t, l)
	for i, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			updates := make(chan string, 64)
			l.acks = make(chan struct{}, 64)
			c := mcp.NewClient(&mcp.Implementation{Name: "unit-http", Version: "1"}, &mcp.ClientOptions{
				ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
					select {
					case updates <- r.Params.URI:
					default:
					}
				},
			})
			acks := l.acks
			c.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
					if method == "notifications/subscriptions/acknowledged" {
						acks <- struct{}{}
					}
					return next(ctx, method, req)
				}
			})
			hc := &http.Client{Transport: bearer{token + ".subscriber-0123456789", &http.Transport{}}}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc}, &mcp.ClientSessionOptions{ProtocolVersion: era.version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			id := mustOK(t, cs, "connect", map[string]any{"pid": tickerPid})["session"].(string)
			uri := resourceURI(id, core.ModeA11y)
			l.subscribe(t, cs, era.version, uri)
			if first := readTree(t, cs, uri); !first.Snapshot {
				t.Fatal("the first read is no snapshot")
			}
			l.desk.SetTree(tickerPid, tickerTree(fmt.Sprint("HTTP tick ", i)))
			// An update may also come from before the change (the watcher's
			// first read): read on each until the change is in.
			for {
				waitUpdate(t, updates, uri)
				got := readTree(t, cs, uri)
				if got.Snapshot || len(got.Events) > 1 {
					t.Fatalf("after the change: %+v", got)
				}
				if len(got.Events) == 1 {
					break
				}
			}
			mustOK(t, cs, "disconnect", map[string]any{"session": id})
		})
	}
}

// A sessionless client's session that nobody uses closes after the idle
// time (checked on a later request), its resource with it; a session of a
// client with an MCP session does not (it ends with that). Whether a use
// keeps a session open is core's TestCloseIdle, on a clock of its own.
func TestHTTPSessionlessIdle(t *testing.T) {
	// Not parallel: it sets sessionlessIdle, which every server reads.
	synctest.Test(t, func(t *testing.T) {
		drainBubble(t)
		defer func(d time.Duration) { sessionlessIdle = d }(sessionlessIdle)
		sessionlessIdle = 100 * time.Millisecond
		l := newLiveServer()
		endpoint, token, rt := pipeHTTPServer(t, l)
		gone := httpClientVia(t, rt, endpoint, token+".gone-0123456789abcdef", "")
		stays := httpClientVia(t, rt, endpoint, token, "2025-11-25")
		idle := mustOK(t, gone, "connect", map[string]any{"pid": tickerPid})["session"].(string)
		kept := mustOK(t, stays, "connect", map[string]any{"pid": tickerPid})["session"].(string)
		deadline := time.Now().Add(30 * time.Second)
		for l.sessions.Open() == 2 && time.Now().Before(deadline) {
			mustOK(t, stays, "list_apps", nil)
			time.Sleep(20 * time.Millisecond)
		}
		mustFail(t, gone, "get_a11y_tree", map[string]any{"session": idle}, core.CodeUnknownSession)
		time.Sleep(2 * sessionlessIdle) // idle, well past the time
		mustOK(t, stays, "get_a11y_tree", map[string]any{"session": kept})
		if _, err := gone.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: resourceURI(idle, core.ModeA11y)}); err == nil {
			t.Error("the idle session's resource still reads")
		}
	})
}

// A sessionless client's held key outlasts its last request by
// sessionlessHoldIdle: every request it sends (any tool) keeps the hold,
// and once it is silent the key goes up and its next key_up says why.
func TestHTTPSessionlessHolds(t *testing.T) {
	// Not parallel: it sets sessionlessHoldIdle, which every server reads.
	synctest.Test(t, func(t *testing.T) {
		drainBubble(t)
		defer func(d time.Duration) { sessionlessHoldIdle = d }(sessionlessHoldIdle)
		// Long enough that no gap between two requests of a loaded machine
		// (the race detector, two cores and a desktop busy) reaches it.
		sessionlessHoldIdle = 5 * time.Second
		d := fake.New()
		d.AddApp(fake.App{Pid: tickerPid, Name: "ticker", Tree: tickerTree("Tick 0")})
		d.SetActive(d.AddWindow(tickerPid, "Ticker", platform.Rect{Width: 400, Height: 300}))
		m := core.NewSessions(d.Platform())
		m.Caps = security.Input
		l := &liveServer{desk: d, sessions: m, srv: New(Config{Caps: security.Input}, m)}
		endpoint, token, rt := pipeHTTPServer(t, l)
		c := httpClientVia(t, rt, endpoint, token+".talker-0123456789abcdef", "")
		id := mustOK(t, c, "connect", map[string]any{"pid": tickerPid})["session"].(string)
		mustOK(t, c, "key_down", map[string]any{"session": id, "key": "Shift"})
		for end := time.Now().Add(2 * sessionlessHoldIdle); time.Now().Before(end); {
			mustOK(t, c, "list_apps", nil)
			time.Sleep(50 * time.Millisecond)
		}
		if got := d.KeysDown(); len(got) != 1 {
			t.Fatalf("a client that kept talking lost its hold: keys down %v", got)
		}
		deadline := time.Now().Add(30 * time.Second)
		for len(d.KeysDown()) > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("a silent client's key is still down: %v", d.KeysDown())
			}
			time.Sleep(20 * time.Millisecond)
		}
		out := mustFail(t, c, "key_up", map[string]any{"session": id, "key": "Shift"}, core.CodeHoldConflict)
		if msg, _ := out["error"].(string); !strings.Contains(msg, "sent no request for 5s") {
			t.Errorf("key_up does not say the hold expired: %q", msg)
		}
		mustOK(t, c, "disconnect", map[string]any{"session": id}) // its event log's watcher ends with it
	})
}

// guardedHTTPServer serves the live server as ServeHTTP does: its
// http.Server (timeouts, the connection watch) on a listener of at most
// conns connections.
func guardedHTTPServer(t *testing.T, l *liveServer, conns int) (endpoint, token string) {
	t.Helper()
	token, err := newToken()
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(nil)
	port := hs.Listener.Addr().(*net.TCPAddr).Port
	hs.Config = newHTTPServer(l.srv, token, port, false, io.Discard)
	hs.Listener = newLimitListener(hs.Listener, conns)
	hs.Start()
	t.Cleanup(hs.Close)
	return hs.URL + HTTPPath, token
}

// rawRequest writes req on a new connection dial makes and returns the
// connection and the reader of its answers.
func rawRequest(t *testing.T, dial func(ctx context.Context, network, addr string) (net.Conn, error), endpoint, req string) (net.Conn, *bufio.Reader) {
	t.Helper()
	u, _ := url.Parse(endpoint)
	c, err := dial(context.Background(), "tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, strings.ReplaceAll(req, "HOST", u.Host)); err != nil {
		t.Fatal(err)
	}
	return c, bufio.NewReader(c)
}

// closedByServer reads c until the server closes it (EOF), or fails once
// limit has passed: the server kept it.
func closedByServer(t *testing.T, c net.Conn, r *bufio.Reader, limit time.Duration, what string) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(limit))
	_, err := io.Copy(io.Discard, r)
	if err != nil {
		t.Errorf("%s: the server still holds the connection after %v (%v)", what, limit, err)
	}
}

// TestHTTPConnectionsWithoutToken: a kept-alive connection that carried
// only refused requests is closed once idle for unauthIdle, while one that
// carried the token stays and serves again.
func TestHTTPConnectionsWithoutToken(t *testing.T) {
	// Not parallel: it sets unauthIdle, which every HTTP server reads.
	synctest.Test(t, func(t *testing.T) {
		drainBubble(t)
		defer func(d time.Duration) { unauthIdle = d }(unauthIdle)
		unauthIdle = 200 * time.Millisecond
		endpoint, token, ln := pipeGuardedServer(t, newLiveServer(), 16)
		u, _ := url.Parse(endpoint)
		get := func(tok string) string {
			return fmt.Sprintf("GET /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n", u.Host, tok)
		}
		idle, r := rawRequest(t, ln.dial, endpoint, get("not-the-token"))
		res, err := http.ReadResponse(r, nil)
		if err != nil || res.StatusCode != 401 {
			t.Fatalf("no token: %v %v", res, err)
		}
		io.Copy(io.Discard, res.Body)
		closedByServer(t, idle, r, 20*time.Second, "an idle connection that never carried the token")

		// With the token: the 2025 era's GET without a session is refused
		// (400), but the connection carried the token and is kept.
		kept, kr := rawRequest(t, ln.dial, endpoint, get(token))
		res, err = http.ReadResponse(kr, nil)
		if err != nil || res.StatusCode == 401 {
			t.Fatalf("with the token: %v %v", res, err)
		}
		io.Copy(io.Discard, res.Body)
		// Another connection without the token is closed meanwhile: the kept
		// one has been idle at least as long.
		other, or := rawRequest(t, ln.dial, endpoint, get("not-the-token"))
		if res, err := http.ReadResponse(or, nil); err != nil || res.StatusCode != 401 {
			t.Fatalf("no token: %v %v", res, err)
		}
		closedByServer(t, other, or, 20*time.Second, "a second idle connection without the token")
		if _, err := io.WriteString(kept, get(token)); err != nil {
			t.Fatalf("the connection that carried the token was closed: %v", err)
		}
		kept.SetReadDeadline(time.Now().Add(20 * time.Second))
		if res, err := http.ReadResponse(kr, nil); err != nil || res.StatusCode == 401 {
			t.Errorf("a second request on the connection that carried the token: %v %v", res, err)
		}
	})
}

// TestLimitListener: at most n connections are accepted at once (the next
// Accept has no place, so it waits); a closed one frees its place, once
// however often it is closed.
func TestLimitListener(t *testing.T) {
	t.Parallel()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer inner.Close()
	ln := newLimitListener(inner, 2).(*limitListener)
	var conns []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", inner.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		a, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, a)
	}
	if n := len(ln.places); n != cap(ln.places) {
		t.Fatalf("%d of %d places taken after 2 accepts", n, cap(ln.places))
	}
	conns[0].Close()
	conns[0].Close()
	if n := len(ln.places); n != 1 {
		t.Errorf("%d places taken after one of two closed (twice), want 1", n)
	}
	conns[1].Close()
}

// TestHTTPSlowBody: a body announced and not sent is cut off after
// bodyReadTimeout, with the token (408) and without it.
func TestHTTPSlowBody(t *testing.T) {
	// Not parallel: it sets bodyReadTimeout, which every HTTP server reads.
	synctest.Test(t, func(t *testing.T) {
		drainBubble(t)
		defer func(d time.Duration) { bodyReadTimeout = d }(bodyReadTimeout)
		bodyReadTimeout = 200 * time.Millisecond
		endpoint, token, ln := pipeGuardedServer(t, newLiveServer(), 16)
		const post = "POST /mcp HTTP/1.1\r\nHost: HOST\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n" +
			"Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":"
		for _, tok := range []string{token, "not-the-token"} {
			c, r := rawRequest(t, ln.dial, endpoint, fmt.Sprintf(post, tok))
			c.SetReadDeadline(time.Now().Add(20 * time.Second))
			res, err := http.ReadResponse(r, nil)
			if tok == token && (err != nil || res.StatusCode != http.StatusRequestTimeout) {
				t.Errorf("a body that never arrives, with the token: %v %v; want 408", res, err)
			}
			if res != nil {
				io.Copy(io.Discard, res.Body)
			}
			closedByServer(t, c, r, 20*time.Second, "a connection whose body never arrives (token "+fmt.Sprint(tok == token)+")")
		}
	})
}

// TestHTTPSessionCap: past maxHTTPSessions 2025-era MCP sessions, a new
// one is refused (503) until one closes; sessionless clients need none.
func TestHTTPSessionCap(t *testing.T) {
	// Not parallel: it sets maxHTTPSessions, which every HTTP server reads.
	defer func(n int) { maxHTTPSessions = n }(maxHTTPSessions)
	maxHTTPSessions = 2
	endpoint, token := guardedHTTPServer(t, newLiveServer(), 64)
	first := httpClient(t, endpoint, token, "2025-11-25")
	httpClient(t, endpoint, token, "2025-11-25")
	hc := &http.Client{Transport: bearer{token, &http.Transport{}}}
	c := mcp.NewClient(&mcp.Implementation{Name: "unit-http", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}); err == nil {
		cs.Close()
		t.Fatal("a third MCP session past a cap of 2 was opened")
	} else if !strings.Contains(err.Error(), "503") && !strings.Contains(err.Error(), "Service Unavailable") && !strings.Contains(err.Error(), "MCP sessions are open") {
		t.Errorf("the third session's refusal: %v; want 503", err)
	}
	mustOK(t, httpClient(t, endpoint, token, ""), "list_apps", nil)
	first.Close()
	deadline := time.Now().Add(20 * time.Second)
	for {
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err == nil {
			cs.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no new session after one closed: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestPeerProcess: the process at the other end of a loopback connection
// is found from the two addresses the server sees (this test is both
// ends).
func TestPeerProcess(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	srv, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	pid, exe := peerProcess(srv.RemoteAddr().String(), srv.LocalAddr().String())
	if self, _ := os.Executable(); pid != os.Getpid() || exe != self {
		t.Errorf("peerProcess = %d %q, want this test %d %q", pid, exe, os.Getpid(), self)
	}
	if pid, _ := peerProcess("127.0.0.1:1", srv.LocalAddr().String()); pid != 0 {
		t.Errorf("a connection that does not exist has process %d", pid)
	}
}
