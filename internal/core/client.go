package core

import (
	"context"
	"crypto/rand"
	"strings"
	"time"
)

// Session handles and their owners (docs/security.md).
//
// A session id is 130 random bits (crypto/rand), so one client cannot
// guess another's, and it is bound to the client that opened it: every
// lookup by another client answers unknownSession, worded exactly as for
// an id that never existed, so that a refusal does not confirm that a
// handle is live.
//
// Who a client is, is for the transport to say (mcpserver decides it per
// request and puts it in the context with WithClient); the core only
// compares. The zero Client is a caller that names none (the command line,
// tests): its sessions are visible to it alone as well, like anyone's.

// Client identifies the party a session belongs to. It is opaque to the
// core and never secret: it names a client, it does not authenticate one.
type Client string

type clientKey struct{}

// WithClient returns ctx carrying c as the calling client.
func WithClient(ctx context.Context, c Client) context.Context {
	return context.WithValue(ctx, clientKey{}, c)
}

// ClientOf is the calling client ctx carries, or the zero Client.
func ClientOf(ctx context.Context) Client {
	c, _ := ctx.Value(clientKey{}).(Client)
	return c
}

// Credential is what a client authenticated with, which other clients may
// share (the run's bearer token over HTTP; "" over stdio), and how it is
// named to the user (consent dialogs). The transport sets it per request.
type Credential struct {
	ID  string
	Via string
	// Describe, when set, is Via with what is slower to find out (the
	// client's process), asked only when a dialog is to show it.
	Describe func() string
}

type credentialKey struct{}

// WithCredential returns ctx carrying c as the calling client's credential.
func WithCredential(ctx context.Context, c Credential) context.Context {
	return context.WithValue(ctx, credentialKey{}, c)
}

// CredentialOf is the credential ctx carries, or the zero Credential.
func CredentialOf(ctx context.Context) Credential {
	c, _ := ctx.Value(credentialKey{}).(Credential)
	return c
}

// newSessionID is "s" and 26 lowercase base32 characters (130 random
// bits). The characters are safe in a resource URI
// (uiscope://session/<id>/a11y-tree) as they are.
func newSessionID() string {
	return "s" + strings.ToLower(rand.Text())
}

// unknownSession is the one refusal for an id the caller may not use,
// whether it never existed, was closed, or belongs to another client.
func unknownSession(id string) error {
	return Errorf(CodeUnknownSession, "no session %s; open one with connect (sessions end with disconnect, when the client that opened them leaves, or when the server restarts)", Quote(id))
}

// lookup returns the session id names if the calling client owns it.
func (m *Sessions) lookup(ctx context.Context, id string) (*Session, error) {
	m.mu.Lock()
	s, ok := m.sessions[id]
	m.mu.Unlock()
	if !ok || s.Client != ClientOf(ctx) {
		return nil, unknownSession(id)
	}
	s.used.Store(time.Now().UnixNano())
	return s, nil
}

// CloseClient disconnects every session c opened: the transport calls it
// when the client is gone for good (its MCP session ended), so that its
// sessions do not hold places under MaxSessions. It returns the ids closed.
func (m *Sessions) CloseClient(c Client) []string {
	return m.closeWhere(func(s *Session) bool { return s.Client == c })
}

// closeWhere closes the open sessions pick chooses (called under m.mu):
// their watchers stop and what they hold is released. It returns their ids.
func (m *Sessions) closeWhere(pick func(*Session) bool) []string {
	m.mu.Lock()
	var gone []*Session
	for id, s := range m.sessions {
		if pick(s) {
			gone = append(gone, s)
			delete(m.sessions, id)
		}
	}
	m.mu.Unlock()
	ids := make([]string, 0, len(gone))
	for _, s := range gone {
		s.live.close()
		m.releaseSession(s.ID, "the session closed")
		ids = append(ids, s.ID)
	}
	return ids
}

// Owns reports whether id is an open session of the calling client. It
// does not check the session's application (Get does).
func (m *Sessions) Owns(ctx context.Context, id string) bool {
	_, err := m.lookup(ctx, id)
	return err == nil
}

// Open is how many sessions are open, every client's.
func (m *Sessions) Open() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sessions)
}

// CloseIdle closes the sessions of the clients whose matches, unused (no
// lookup) for idle or longer at now, unless a subscriber follows them (it
// waits on their watcher; the event log's alone does not hold them). It is
// for clients that have no end the server could see (sessionless HTTP):
// an agent that stops without disconnecting
// would otherwise hold its places under MaxSessions until the server
// exits. It returns the ids closed.
func (m *Sessions) CloseIdle(whose func(Client) bool, idle time.Duration, now time.Time) []string {
	return m.closeWhere(func(s *Session) bool {
		return whose(s.Client) && now.Sub(time.Unix(0, s.used.Load())) >= idle && !m.subscribed(s)
	})
}
