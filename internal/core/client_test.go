package core

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Session ids are random, not s1, s2: a client cannot guess another's.
func TestSessionIDsRandom(t *testing.T) {
	m := NewSessions(liveDesk("Tick 0").Platform())
	form := regexp.MustCompile(`^s[a-z2-7]{26}$`)
	seen := map[string]bool{}
	for range MaxSessions {
		s, err := m.Connect(context.Background(), AppSpec{Pid: livePid}, "")
		if err != nil {
			t.Fatal(err)
		}
		if !form.MatchString(s.ID) {
			t.Errorf("session id %q is not s and 26 base32 characters", s.ID)
		}
		if seen[s.ID] {
			t.Errorf("session id %q handed out twice", s.ID)
		}
		seen[s.ID] = true
	}
	for _, guess := range []string{"s1", "s2", "s64"} {
		if seen[guess] {
			t.Errorf("a sequential id %s was handed out", guess)
		}
	}
}

// A session is its opener's: another client's lookups, disconnects and
// listings answer as if it did not exist.
func TestSessionsBoundToClient(t *testing.T) {
	m := NewSessions(liveDesk("Tick 0").Platform())
	alice := WithClient(context.Background(), "alice")
	bob := WithClient(context.Background(), "bob")
	s, err := m.Connect(alice, AppSpec{Pid: livePid}, "")
	if err != nil {
		t.Fatal(err)
	}
	if s.Client != "alice" {
		t.Fatalf("session's client = %q, want alice", s.Client)
	}
	if _, err := m.Get(alice, s.ID); err != nil {
		t.Fatalf("the opener's own Get: %v", err)
	}
	const missing = "snosuchsession"
	_, never := m.Get(bob, missing)
	for name, ctx := range map[string]context.Context{"bob": bob, "no client": context.Background()} {
		_, err := m.Get(ctx, s.ID)
		if AsError(err).Code != CodeUnknownSession {
			t.Errorf("%s: Get of alice's session: %v, want unknownSession", name, err)
		}
		// The refusal is worded as for an id that never existed, but
		// for the id itself: nothing tells a live handle from a dead one.
		if got, want := strings.ReplaceAll(AsError(err).Msg, s.ID, missing), AsError(never).Msg; got != want {
			t.Errorf("%s: refusal %q differs in form from a missing id's %q", name, got, want)
		}
		if err := m.Disconnect(ctx, s.ID); AsError(err).Code != CodeUnknownSession {
			t.Errorf("%s: Disconnect of alice's session: %v, want unknownSession", name, err)
		}
		if m.Owns(ctx, s.ID) || len(m.List(ctx)) != 0 {
			t.Errorf("%s: sees alice's session", name)
		}
	}
	if _, err := m.Get(alice, s.ID); err != nil {
		t.Fatalf("alice's session after bob's attempts: %v", err)
	}
	if got := m.List(alice); len(got) != 1 || got[0] != s {
		t.Errorf("alice lists %v", got)
	}
	// A client that leaves takes its sessions with it, and no one else's.
	b, err := m.Connect(bob, AppSpec{Pid: livePid}, "")
	if err != nil {
		t.Fatal(err)
	}
	if ids := m.CloseClient("alice"); len(ids) != 1 || ids[0] != s.ID {
		t.Errorf("CloseClient(alice) closed %v, want [%s]", ids, s.ID)
	}
	if m.Open() != 1 || !m.Owns(bob, b.ID) {
		t.Errorf("after alice left: %d open, bob owns his: %v", m.Open(), m.Owns(bob, b.ID))
	}
	if err := m.Disconnect(bob, b.ID); err != nil {
		t.Fatal(err)
	}
}

// Sessions of clients with no visible end close after idle, unless used
// since or followed; other clients' never do.
func TestCloseIdle(t *testing.T) {
	m := NewSessions(liveDesk("Tick 0").Platform())
	open := func(c Client) *Session {
		s, err := m.Connect(WithClient(context.Background(), c), AppSpec{Pid: livePid}, "")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	idle, used, followed, kept := open("web:a"), open("web:b"), open("web:c"), open("pipe")
	stop, err := m.Follow(WithClient(context.Background(), followed.Client), followed.ID, "", func() {})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	web := func(c Client) bool { return strings.HasPrefix(string(c), "web:") }
	if ids := m.CloseIdle(web, time.Hour, time.Now()); len(ids) != 0 {
		t.Fatalf("closed fresh sessions %v", ids)
	}
	later := time.Now().Add(2 * time.Hour)
	used.used.Store(later.Add(-time.Minute).UnixNano()) // as a lookup then would
	ids := m.CloseIdle(web, time.Hour, later)
	if len(ids) != 1 || ids[0] != idle.ID {
		t.Errorf("closed %v, want only the idle session %s", ids, idle.ID)
	}
	for _, s := range []*Session{used, followed, kept} {
		if !m.Owns(WithClient(context.Background(), s.Client), s.ID) {
			t.Errorf("%s's session closed", s.Client)
		}
	}
	if m.Owns(WithClient(context.Background(), "web:a"), idle.ID) {
		t.Error("the idle session still open")
	}
}
