package mcpserver

import (
	"context"
	"crypto/rand"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
)

// Telling clients apart (docs/security.md). Every request is stamped with
// the client that sent it (core.WithClient) before any handler runs, and the
// core lets a client use only the sessions it opened. Who the client is
// depends on how it reached the server:
//
//   - stdio, and streamable HTTP in a protocol era with sessions (up to
//     2025-11-25, where the SDK keeps one MCP session per Mcp-Session-Id):
//     the MCP session itself. Each MCP session gets its own random client
//     name the first time it is seen; the SDK already refuses an
//     Mcp-Session-Id presented with another bearer identity, and the name
//     dies with the MCP session, whose uiscope sessions are then closed.
//   - streamable HTTP in 2026-07-28, which has no MCP session (every request
//     is served by a throwaway one and there is no Mcp-Session-Id): the
//     bearer identity the request authenticated with (auth.TokenInfo.UserID,
//     see http_auth.go). Two clients presenting the same credential are the
//     same client; a client that wants to be told apart from others holding
//     the run's token presents its own client key with it. Isolation never
//     rests on an Mcp-Session-Id, nor on the TCP connection (a client may
//     use several, and drop and reopen them between calls).
//
// Either way a session id is 130 random bits, never listed to another
// client (resources/list is filtered here), so a client that may not use a
// session cannot name it either.
type clients struct {
	sessions *core.Sessions
	res      *resources
	idle     time.Duration // sessionlessIdle

	mu    sync.Mutex
	names map[*mcp.ServerSession]core.Client
	swept time.Time
}

// sessionlessIdle closes a sessionless client's session nobody used for
// this long: such a client has no end the server can see (no MCP session
// to close), and one that stopped without disconnecting would otherwise
// hold its places under core.MaxSessions until the server exits. It is
// the same hour after which the SDK closes an idle HTTP MCP session. A
// variable for tests alone.
var sessionlessIdle = statefulIdle

// sessionlessHoldIdle is how long a sessionless client's held keys and
// buttons outlast its last request (docs/api.md, "Held input"). Such a
// client has no end the server can see, and a Shift it left down would
// change everything typed on the desktop until the focus moved; an agent
// thinking between the calls of a drag takes seconds, not this long. A
// variable for tests alone.
var sessionlessHoldIdle = 20 * time.Second

func newClients(sessions *core.Sessions, res *resources) *clients {
	sessions.ExpireHolds(isSessionless, sessionlessHoldIdle)
	return &clients{sessions: sessions, res: res, idle: sessionlessIdle, names: map[*mcp.ServerSession]core.Client{}}
}

// middleware stamps every request with its client, and keeps other
// clients' session resources out of resources/list. It must be the
// outermost receiving middleware (added last), so that everything inside it
// can read core.ClientOf.
func (c *clients) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		client := c.identify(req)
		ctx = core.WithClient(ctx, client)
		ctx = core.WithCredential(ctx, credentialOf(req))
		c.sessions.Heard(client)
		c.sweep()
		res, err := next(ctx, method, req)
		if list, ok := res.(*mcp.ListResourcesResult); ok && err == nil {
			list.Resources = c.visible(ctx, list.Resources)
		}
		return res, err
	}
}

// sessionless reports whether a request came over streamable HTTP with no
// MCP session to tell its client by: 2026-07-28 requests, each served by a
// throwaway server session without an id. (stdio's one session has no id
// either, but its requests carry no HTTP header.)
func sessionless(ss *mcp.ServerSession, extra *mcp.RequestExtra) bool {
	return extra != nil && extra.Header != nil && ss.ID() == ""
}

// identify names the client of one request.
func (c *clients) identify(req mcp.Request) core.Client {
	ss, _ := req.GetSession().(*mcp.ServerSession)
	if ss == nil {
		return ""
	}
	if extra := req.GetExtra(); sessionless(ss, extra) {
		if extra.TokenInfo != nil && extra.TokenInfo.UserID != "" {
			return core.Client(sessionlessPrefix + extra.TokenInfo.UserID)
		}
		// Unreachable behind the bearer check (http.go); a handler
		// mounted without it would make every sessionless caller one
		// client.
		return sessionlessPrefix
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if name, ok := c.names[ss]; ok {
		return name
	}
	name := core.Client("mcp:" + strings.ToLower(rand.Text()))
	c.names[ss] = name
	go func() {
		_ = ss.Wait()
		c.gone(ss, name)
	}()
	return name
}

// credentialOf is what a request's client authenticated with: over HTTP
// the run's bearer token, which every HTTP client holds whatever client key
// or MCP session it adds (so a consent denial holds for all of them); over
// stdio the pipe. Via names it in a consent dialog, with the client key's
// hash when there is one.
func credentialOf(req mcp.Request) core.Credential {
	extra := req.GetExtra()
	if extra == nil || extra.Header == nil {
		return core.Credential{Describe: func() string {
			if pid, exe := parentProcess(); exe != "" {
				return fmt.Sprintf("over stdio, from %s (pid %d), the program that started uiscope", filepath.Base(exe), pid)
			}
			return ""
		}}
	}
	via := "over HTTP with the server's token"
	if extra.TokenInfo != nil {
		if key, ok := strings.CutPrefix(extra.TokenInfo.UserID, "key-"); ok {
			via += ", client key " + key[:min(8, len(key))]
		}
	}
	remote, local, _ := strings.Cut(extra.Header.Get(peerHeader), " ")
	return core.Credential{ID: "http-token", Via: via, Describe: func() string {
		if pid, exe := peerProcess(remote, local); pid != 0 {
			return fmt.Sprintf("%s, from %s (pid %d)", via, filepath.Base(exe), pid)
		}
		return via
	}}
}

// peerHeader carries, from the HTTP handler to the MCP layer, the client's
// address and the server's: a header the handler sets, removing any the
// client sent.
const peerHeader = "Uiscope-Peer-Addr"

// sweep closes sessionless clients' idle sessions, at most once per
// tenth of the idle time: a request is the only moment anyone could miss
// a place, so there is no timer.
func (c *clients) sweep() {
	now := time.Now()
	c.mu.Lock()
	due := now.Sub(c.swept) >= c.idle/10
	if due {
		c.swept = now
	}
	c.mu.Unlock()
	if !due {
		return
	}
	for _, id := range c.sessions.CloseIdle(isSessionless, c.idle, now) {
		c.res.closed(id)
	}
}

// isSessionless tells the clients named by their bearer identity.
func isSessionless(c core.Client) bool { return strings.HasPrefix(string(c), sessionlessPrefix) }

const sessionlessPrefix = "bearer:"

// gone forgets an MCP session that ended and closes the sessions its client
// opened: nobody can use them any more.
func (c *clients) gone(ss *mcp.ServerSession, name core.Client) {
	c.mu.Lock()
	delete(c.names, ss)
	c.mu.Unlock()
	for _, id := range c.sessions.CloseClient(name) {
		c.res.closed(id)
	}
}

// visible keeps the resources the calling client may read: its own
// sessions' and any that are not a session's.
func (c *clients) visible(ctx context.Context, list []*mcp.Resource) []*mcp.Resource {
	out := list[:0]
	for _, r := range list {
		rest, ok := strings.CutPrefix(r.URI, resourcePrefix)
		if ok {
			id, _, _ := strings.Cut(rest, "/")
			if !c.sessions.Owns(ctx, id) {
				continue
			}
		}
		out = append(out, r)
	}
	return out
}
