package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
)

// Streamable HTTP (docs/security.md). What a request passes, in order:
//
//  1. its Host names this server on a loopback name (localhost, 127.0.0.0/8,
//     ::1) or, with UnsafeBind, an IP address: never a DNS name that could
//     have been rebound to 127.0.0.1 (403);
//  2. its Origin, if any, is this server's own (403): no web page can call;
//  3. its bearer token is the run's token (401), compared in constant time
//     (http_auth.go);
//  4. its body is at most MaxRequestBytes (413), and arrives within
//     bodyReadTimeout (408);
//  5. a new 2025-era MCP session finds fewer than maxHTTPSessions open (503)
//
// (and the connection it came on is one of at most maxHTTPConns, closed
// after unauthIdle idle unless it carried the token: http_conns.go), and
// then the SDK's streamable handler serves it: a request in the
// 2026-07-28 era (its Mcp-Protocol-Version header says so) by a stateless
// handler, which is the only way the SDK serves that era over HTTP; any
// other by a stateful one with Mcp-Session-Id sessions, as the 2025 eras
// want. Both serve the same server, so a client's sessions, resources and
// tools are the same whichever it speaks; who the client is is clients.go's
// rule.

// MaxRequestBytes bounds one HTTP request body: a tool call's arguments are
// small, and a larger body is refused (413) before it is parsed.
const MaxRequestBytes = 1 << 20

// HTTPPath is where the MCP endpoint is served.
const HTTPPath = "/mcp"

// statefulIdle closes an HTTP MCP session (2025 eras) nobody has sent a
// request on for this long; its uiscope sessions close with it.
const statefulIdle = time.Hour

// HTTPOptions say where and how to listen.
type HTTPOptions struct {
	// Addr is host:port; port 0 picks a free one.
	Addr string
	// UnsafeBind allows an address that is not loopback (":port",
	// 0.0.0.0, a LAN address). Off, such addresses are refused.
	UnsafeBind bool
	// Discovery is the directory of the discovery file; "" is
	// DiscoveryDir().
	Discovery string
	// Ready, if set, is called once the server listens, with what the
	// discovery file says.
	Ready func(Discovery)
}

// CheckBind refuses an address that is not loopback, unless unsafe. A host
// name other than localhost is refused either way: what it resolves to is
// not known until it is resolved, and could change.
func CheckBind(addr string, unsafe bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %s: want host:port, like 127.0.0.1:0 (%v)", addr, err)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Errorf("--http %s: the port must be a number from 0 to 65535", addr)
	}
	if host == "localhost" {
		return nil
	}
	ip, err := netip.ParseAddr(host)
	switch {
	case host == "" && unsafe:
		return nil
	case host == "":
		return fmt.Errorf("--http %s: no host means every interface; bind 127.0.0.1:%s (or ::1), or pass --http-unsafe-bind to expose the server beyond this machine", addr, port)
	case err != nil:
		return fmt.Errorf("--http %s: the host must be an IP address or localhost, not a name", addr)
	case ip.IsLoopback() || unsafe:
		return nil
	}
	return fmt.Errorf("--http %s: %s is not a loopback address; bind 127.0.0.1:%s (or ::1), or pass --http-unsafe-bind to expose the server beyond this machine", addr, host, port)
}

// ServeHTTP serves the server over streamable HTTP until ctx ends (SIGINT,
// SIGTERM), with its discovery file in place while it listens.
func ServeHTTP(ctx context.Context, cfg Config, sessions *core.Sessions, opts HTTPOptions) error {
	if err := CheckBind(opts.Addr, opts.UnsafeBind); err != nil {
		return err
	}
	token, err := newToken()
	if err != nil {
		return err
	}
	startTime := func(pid int) uint64 {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		return sessions.StartTime(ctx, pid)
	}
	dir := opts.Discovery
	if dir == "" {
		if dir, err = DiscoveryDir(); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	logw := cfg.Log
	if logw == nil {
		logw = os.Stderr
	}
	hs := newHTTPServer(New(cfg, sessions), token, port, opts.UnsafeBind, logw)
	d := Discovery{Version: 1, Pid: os.Getpid(), Transport: "streamable-http",
		URL: "http://" + net.JoinHostPort(urlHost(ln.Addr().(*net.TCPAddr).IP), strconv.Itoa(port)) + HTTPPath, Port: port, Token: token,
		StartTime: startTime(os.Getpid())}
	path, err := writeDiscovery(dir, d, startTime)
	if err != nil {
		return err
	}
	defer os.Remove(path)

	served := make(chan error, 1)
	go func() { served <- hs.Serve(newLimitListener(ln, maxHTTPConns)) }()
	fmt.Fprintf(logw, "uiscope mcp: streamable HTTP at %s; bearer token in %s\n", d.URL, path)
	if opts.Ready != nil {
		opts.Ready(d)
	}
	select {
	case err = <-served:
	case <-ctx.Done():
		// Open event streams never go idle: wait a little for calls in
		// flight, then cut what is left.
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		if hs.Shutdown(sctx) != nil {
			hs.Close()
		}
		cancel()
		err = <-served
	}
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// newHTTPServer is the http.Server in front of srv: the handler's checks,
// timeouts, and the watch on connections that never carried the token.
func newHTTPServer(srv *mcp.Server, token string, port int, unsafe bool, logw io.Writer) *http.Server {
	watch := newConnWatch(unauthIdle)
	return &http.Server{
		Handler:           newHTTPHandler(srv, token, port, unsafe, watch),
		ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes:    64 << 10,
		IdleTimeout:       5 * time.Minute,
		ConnContext:       watch.context,
		ConnState:         watch.state,
		ErrorLog:          log.New(logw, "uiscope mcp: http: ", log.LstdFlags),
	}
}

// urlHost is how the listening address goes in the URL: the unspecified
// address (--http-unsafe-bind :port) as 127.0.0.1, which reaches it too.
func urlHost(ip net.IP) string {
	if ip.IsUnspecified() {
		return "127.0.0.1"
	}
	return ip.String()
}

// newHTTPHandler is the checks above in front of the SDK's handlers;
// watch, when set, learns which connections carried the token.
func newHTTPHandler(srv *mcp.Server, token string, port int, unsafe bool, watch *connWatch) http.Handler {
	getServer := func(*http.Request) *mcp.Server { return srv }
	stateful := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		SessionTimeout:      statefulIdle,
		MaxRequestBodyBytes: MaxRequestBytes,
	})
	stateless := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		MaxRequestBodyBytes: MaxRequestBytes,
		// The POST is the whole request in this era: a client that
		// hangs up has cancelled it.
		PropagateRequestCancellation: true,
	})
	sessions := &sessionCap{srv: srv}
	serveMCP := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		watch.authed(r)
		// Where the request came from, for a consent dialog to name the
		// client's process (clients.go): set here, never the client's.
		r.Header.Del(peerHeader)
		if l, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
			r.Header.Set(peerHeader, r.RemoteAddr+" "+l.String())
		}
		if !readBody(w, r) {
			return
		}
		if r.Header.Get("Mcp-Protocol-Version") >= sessionlessEra {
			stateless.ServeHTTP(w, r)
			return
		}
		sessions.serve(w, r, stateful)
	})
	authed := auth.RequireBearerToken(verifyToken(token), &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(serveMCP)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			// Whoever sends it: a body must arrive in time, read by
			// readBody once the token passed, or discarded by the
			// server after a refusal.
			_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(bodyReadTimeout))
		}
		if !hostAllowed(r.Host, port, unsafe) {
			http.Error(w, "Forbidden: the Host header must name this server by a loopback address (DNS rebinding protection)", http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !originAllowed(o, r.Host) {
			http.Error(w, "Forbidden: requests from web pages (another Origin) are refused", http.StatusForbidden)
			return
		}
		if r.URL.Path != HTTPPath {
			http.NotFound(w, r)
			return
		}
		if r.ContentLength > MaxRequestBytes {
			http.Error(w, fmt.Sprintf("request body exceeds %d bytes", MaxRequestBytes), http.StatusRequestEntityTooLarge)
			return
		}
		authed.ServeHTTP(w, r)
	})
}

// sessionlessEra is the first protocol version without MCP sessions.
const sessionlessEra = "2026-07-28"

// hostAllowed checks a Host header: localhost or an IP literal that is
// loopback (any IP literal with unsafe: a rebound name is never an IP
// literal), with this server's port if it has one.
func hostAllowed(hostport string, port int, unsafe bool) bool {
	host, p, err := net.SplitHostPort(hostport)
	if err != nil {
		host, p = strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]"), ""
	}
	if p != "" && p != strconv.Itoa(port) {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || ip.Zone() != "" {
		return false
	}
	return ip.IsLoopback() || unsafe
}

// originAllowed admits only this server's own origin: http:// and the
// request's (already checked) Host.
func originAllowed(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Scheme == "http" && u.Host != "" && strings.EqualFold(u.Host, host) && u.Path == "" && u.User == nil
}
