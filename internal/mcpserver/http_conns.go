package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// What an HTTP client may hold without the token, and for how long
// (docs/security.md). A connection costs the server a goroutine
// and a file descriptor, a request body being read a buffer, a 2025-era
// MCP session its state for an hour: each is bounded, so that whoever can
// reach the port but has no token cannot hold them all, and a client with
// the token cannot hold them forever.
var (
	// maxHTTPConns bounds the connections open at once: past it, a new
	// one waits to be accepted until another closes.
	maxHTTPConns = 1024
	// unauthIdle closes a kept-alive connection that has carried no
	// request with the token once it has been idle this long (those that
	// have idle for http.Server's IdleTimeout).
	unauthIdle = 10 * time.Second
	// bodyReadTimeout bounds reading one request's body, from the end of
	// its headers: a client that announces a body and sends it slowly, or
	// not at all, is cut off (408) instead of holding its connection.
	bodyReadTimeout = 30 * time.Second
	// maxHTTPSessions bounds the 2025-era MCP sessions open at once
	// (about 4 KB each, kept up to statefulIdle): a new one past it is
	// refused (503) until one ends (DELETE, or idle for statefulIdle).
	maxHTTPSessions = 256
)

// limitListener accepts at most n connections open at once; Accept waits
// for a free place.
type limitListener struct {
	net.Listener
	places chan struct{}
}

func newLimitListener(ln net.Listener, n int) net.Listener {
	return &limitListener{Listener: ln, places: make(chan struct{}, n)}
}

func (l *limitListener) Accept() (net.Conn, error) {
	l.places <- struct{}{}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.places
		return nil, err
	}
	return &limitConn{Conn: c, free: func() { <-l.places }}, nil
}

type limitConn struct {
	net.Conn
	once sync.Once
	free func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.free)
	return err
}

// connWatch closes idle connections that never carried the token after
// unauthIdle. Its hooks go on the http.Server (ConnContext, ConnState);
// the handler marks a connection once a request on it passed the token.
type connWatch struct {
	idle  time.Duration
	mu    sync.Mutex
	conns map[net.Conn]*watched
}

type watched struct {
	authed bool
	timer  *time.Timer
}

type connKey struct{}

func newConnWatch(idle time.Duration) *connWatch {
	return &connWatch{idle: idle, conns: map[net.Conn]*watched{}}
}

// context puts the connection in its requests' context, for authed.
func (w *connWatch) context(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// authed marks the connection of a request that passed the token.
func (w *connWatch) authed(r *http.Request) {
	c, _ := r.Context().Value(connKey{}).(net.Conn)
	if w == nil || c == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if st := w.conns[c]; st != nil {
		st.authed = true
	}
}

func (w *connWatch) state(c net.Conn, s http.ConnState) {
	w.mu.Lock()
	defer w.mu.Unlock()
	st := w.conns[c]
	switch s {
	case http.StateNew:
		w.conns[c] = &watched{}
	case http.StateActive:
		if st != nil && st.timer != nil {
			st.timer.Stop()
			st.timer = nil
		}
	case http.StateIdle:
		if st != nil && !st.authed && st.timer == nil {
			st.timer = time.AfterFunc(w.idle, func() { c.Close() })
		}
	case http.StateClosed, http.StateHijacked:
		if st != nil && st.timer != nil {
			st.timer.Stop()
		}
		delete(w.conns, c)
	}
}

// readBody reads an authenticated request's whole body (at most
// MaxRequestBytes) within bodyReadTimeout, so that the handlers behind
// read it from memory. It writes the refusal and returns false when the
// body is too large (413) or too slow (408).
func readBody(w http.ResponseWriter, r *http.Request) bool {
	if r.Body == nil || r.Body == http.NoBody {
		return true
	}
	rc := http.NewResponseController(w)
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBytes))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		http.Error(w, fmt.Sprintf("request body exceeds %d bytes", MaxRequestBytes), http.StatusRequestEntityTooLarge)
		return false
	case errors.Is(err, os.ErrDeadlineExceeded):
		w.Header().Set("Connection", "close")
		http.Error(w, fmt.Sprintf("the request body did not arrive within %v", bodyReadTimeout), http.StatusRequestTimeout)
		return false
	case err != nil:
		http.Error(w, "the request body could not be read", http.StatusBadRequest)
		return false
	}
	// The body is in: no deadline on the connection while the call runs
	// (the server reads on in the background to see a client hang up).
	_ = rc.SetReadDeadline(time.Time{})
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
	return true
}

// sessionCap refuses a new 2025-era MCP session past maxHTTPSessions. New
// sessions are let in one at a time, so that two at once cannot both pass
// the count.
type sessionCap struct {
	srv *mcp.Server
	mu  sync.Mutex
}

func (c *sessionCap) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" {
		next.ServeHTTP(w, r)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	open := 0
	for ss := range c.srv.Sessions() {
		if ss.ID() != "" {
			open++
		}
	}
	if open >= maxHTTPSessions {
		w.Header().Set("Retry-After", "60")
		http.Error(w, fmt.Sprintf("%d MCP sessions are open, the most this server keeps: close one (DELETE with its Mcp-Session-Id) or speak protocol %s, which needs none", open, sessionlessEra), http.StatusServiceUnavailable)
		return
	}
	next.ServeHTTP(w, r)
}
