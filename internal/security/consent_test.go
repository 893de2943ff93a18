package security

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// scripted is a prompter that answers from a channel, counting dialogs.
type scripted struct {
	shown   atomic.Int32
	answers chan string
	last    chan Prompt
}

func newScripted() *scripted {
	return &scripted{answers: make(chan string, 8), last: make(chan Prompt, 8)}
}

func (s *scripted) prompt(ctx context.Context, p Prompt, started func(int), shown func()) (string, error) {
	s.shown.Add(1)
	started(4000 + int(s.shown.Load()))
	shown()
	s.last <- p
	select {
	case a := <-s.answers:
		return a, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func alwaysAlive(context.Context) bool { return true }

func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	var r *Refusal
	if !errors.As(err, &r) || r.Code != code {
		t.Errorf("%s: %v; want a %s refusal", what, err, code)
	}
}

func TestConsentOncePerClientAndInstance(t *testing.T) {
	s := newScripted()
	c := NewConsent(s.prompt, time.Minute)
	ctx := context.Background()
	req := ConsentRequest{Client: "a", Pid: 10, StartTime: 1, Executable: "/usr/bin/app", Offer: Input}
	s.answers <- "read"
	got, err := c.Ask(ctx, req, alwaysAlive, nil)
	if err != nil || got != Inspect {
		t.Fatalf("approved for reading: %v, %v", got, err)
	}
	if got, err := c.Ask(ctx, req, alwaysAlive, nil); err != nil || got != Inspect || s.shown.Load() != 1 {
		t.Errorf("asked again: %v, %v, %d dialogs; want the same answer and no new dialog", got, err, s.shown.Load())
	}
	// Another client, another run of the process: asked apart.
	s.answers <- "deny"
	_, err = c.Ask(ctx, ConsentRequest{Client: "b", Pid: 10, StartTime: 1, Offer: Input}, alwaysAlive, nil)
	wantCode(t, "another client denied", err, CodeConsentDenied)
	s.answers <- "act"
	if got, err := c.Ask(ctx, ConsentRequest{Client: "a", Pid: 10, StartTime: 2, Offer: Input}, alwaysAlive, nil); err != nil || got != Inspect|Input {
		t.Errorf("a new process instance approved for acting: %v, %v", got, err)
	}
	if s.shown.Load() != 3 {
		t.Errorf("%d dialogs, want 3", s.shown.Load())
	}
	// The denial holds.
	_, err = c.Ask(ctx, ConsentRequest{Client: "b", Pid: 10, StartTime: 1, Offer: Input}, alwaysAlive, nil)
	wantCode(t, "the denied client again", err, CodeConsentDenied)
	if s.shown.Load() != 3 {
		t.Errorf("a denial was asked again")
	}
}

func TestConsentConcurrentShareOneDialog(t *testing.T) {
	s := newScripted()
	c := NewConsent(s.prompt, time.Minute)
	req := ConsentRequest{Client: "a", Pid: 10, StartTime: 1, Offer: Interact}
	var wg sync.WaitGroup
	results := make([]Caps, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], _ = c.Ask(context.Background(), req, alwaysAlive, nil)
		}()
	}
	<-s.last
	if !c.IsDialog(4001) {
		t.Error("the dialog's pid is not known while it shows")
	}
	s.answers <- "act"
	wg.Wait()
	for i, r := range results {
		if r != Inspect|Interact {
			t.Errorf("request %d got %v", i, r)
		}
	}
	if s.shown.Load() != 1 {
		t.Errorf("%d dialogs for concurrent requests, want 1", s.shown.Load())
	}
	if c.IsDialog(4001) {
		t.Error("the dialog's pid is still excluded after it closed")
	}
}

func TestConsentTimeoutAsksAgain(t *testing.T) {
	s := newScripted()
	c := NewConsent(s.prompt, 50*time.Millisecond)
	req := ConsentRequest{Client: "a", Pid: 10, StartTime: 1}
	_, err := c.Ask(context.Background(), req, alwaysAlive, nil)
	wantCode(t, "no answer", err, CodeConsentTimeout)
	c.Timeout = time.Minute
	s.answers <- "read"
	if got, err := c.Ask(context.Background(), req, alwaysAlive, nil); err != nil || got != Inspect {
		t.Errorf("after a timeout: %v, %v; want a new dialog's answer", got, err)
	}
	if s.shown.Load() != 2 {
		t.Errorf("%d dialogs, want 2", s.shown.Load())
	}
}

func TestConsentTargetExitRefuses(t *testing.T) {
	s := newScripted()
	c := NewConsent(s.prompt, time.Minute)
	var gone atomic.Bool
	alive := func(context.Context) bool { return !gone.Load() }
	done := make(chan error, 1)
	go func() {
		_, err := c.Ask(context.Background(), ConsentRequest{Client: "a", Pid: 10, StartTime: 1}, alive, nil)
		done <- err
	}()
	<-s.last
	gone.Store(true)
	wantCode(t, "target exited", <-done, CodeConsentDenied)
}

// TestConsentHoldsInputOnlyUntilShown: the input lock is held while the
// dialog comes up, and let go once it is on the screen: other clients'
// input goes on while the user decides.
func TestConsentHoldsInputOnlyUntilShown(t *testing.T) {
	s := newScripted()
	c := NewConsent(s.prompt, time.Minute)
	var held, taken atomic.Int32
	hold := func(context.Context) (func(), error) {
		held.Add(1)
		taken.Add(1)
		return func() { held.Add(-1) }, nil
	}
	done := make(chan struct{})
	go func() {
		c.Ask(context.Background(), ConsentRequest{Client: "a", Pid: 1, StartTime: 1}, alwaysAlive, hold)
		close(done)
	}()
	<-s.last
	if taken.Load() != 1 || held.Load() != 0 {
		t.Errorf("the dialog is up: the input lock taken %d times, held %d; want taken once and let go", taken.Load(), held.Load())
	}
	s.answers <- "deny"
	<-done
	if held.Load() != 0 {
		t.Error("the input lock is held after the dialog closed")
	}
}

// TestConsentDenialPerCredential: a denial holds for every client of the
// credential (another MCP session, another client key), without a dialog;
// a client of another credential is asked; a grant is the client's alone.
func TestConsentDenialPerCredential(t *testing.T) {
	s := newScripted()
	c := NewConsent(s.prompt, time.Minute)
	ctx := context.Background()
	req := func(client, cred string) ConsentRequest {
		return ConsentRequest{Client: client, Credential: cred, Via: "over HTTP with the server's token", Pid: 10, StartTime: 1, Offer: Input}
	}
	s.answers <- "deny"
	_, err := c.Ask(ctx, req("key-a", "http"), alwaysAlive, nil)
	wantCode(t, "denied", err, CodeConsentDenied)
	_, err = c.Ask(ctx, req("key-b", "http"), alwaysAlive, nil)
	wantCode(t, "another client of the credential", err, CodeConsentDenied)
	_, err = c.Ask(ctx, req("mcp:new-session", "http"), alwaysAlive, nil)
	wantCode(t, "a new MCP session of the credential", err, CodeConsentDenied)
	if n := s.shown.Load(); n != 1 {
		t.Errorf("%d dialogs after one denial and two more clients of its credential, want 1", n)
	}
	if p := <-s.last; !strings.Contains(strings.Join(p.Lines, "\n"), "over HTTP with the server's token") {
		t.Errorf("the dialog does not say how the client connected: %q", p.Lines)
	}
	s.answers <- "read"
	if got, err := c.Ask(ctx, req("stdio", ""), alwaysAlive, nil); err != nil || got != Inspect {
		t.Errorf("a client of another credential: %v, %v; want its own dialog's answer", got, err)
	}
	<-s.last
	s.answers <- "act"
	if _, err := c.Ask(ctx, ConsentRequest{Client: "key-c", Credential: "http", Pid: 11, StartTime: 1, Offer: Input}, alwaysAlive, nil); err != nil {
		t.Fatal(err)
	}
	<-s.last
	s.answers <- "read"
	if got, err := c.Ask(ctx, ConsentRequest{Client: "key-d", Credential: "http", Pid: 11, StartTime: 1, Offer: Input}, alwaysAlive, nil); err != nil || got != Inspect {
		t.Errorf("another client of a credential granted acting: %v, %v; want its own dialog", got, err)
	}
}

// TestConsentDialogsRateLimited: past the minute's dialogs for a
// credential, a request that would show one more is refused, rateLimited
// with a wait, and no dialog shows; a minute later it asks again.
func TestConsentDialogsRateLimited(t *testing.T) {
	s := newScripted()
	c := NewConsent(s.prompt, time.Minute)
	now := time.Unix(1000, 0)
	c.now = func() time.Time { return now }
	ctx := context.Background()
	for i := range dialogsPerCredential {
		s.answers <- "read"
		if _, err := c.Ask(ctx, ConsentRequest{Client: "key-" + string(rune('a'+i)), Credential: "http", Pid: 100 + i, StartTime: 1}, alwaysAlive, nil); err != nil {
			t.Fatal(err)
		}
		<-s.last
	}
	_, err := c.Ask(ctx, ConsentRequest{Client: "key-z", Credential: "http", Pid: 99, StartTime: 1}, alwaysAlive, nil)
	wantCode(t, "one dialog past the credential's minute", err, CodeRateLimited)
	var r *Refusal
	if errors.As(err, &r) && (r.RetryAfter <= 0 || r.RetryAfter > time.Minute) {
		t.Errorf("retry after %v", r.RetryAfter)
	}
	if n := s.shown.Load(); n != dialogsPerCredential {
		t.Errorf("%d dialogs, want %d", n, dialogsPerCredential)
	}
	now = now.Add(time.Minute)
	s.answers <- "read"
	if _, err := c.Ask(ctx, ConsentRequest{Client: "key-z", Credential: "http", Pid: 99, StartTime: 1}, alwaysAlive, nil); err != nil {
		t.Errorf("a minute later: %v", err)
	}
}

// TestConsentText: deny first (the default), acting offered only when the
// server can act, and the target's path quoted with control characters
// escaped.
func TestConsentText(t *testing.T) {
	c := NewConsent(nil, 0)
	p := c.text(ConsentRequest{Client: "secret-client-id", Pid: 77, Executable: "/tmp/evil\n<b>Allow</b>\x1b[0m", Offer: Input})
	if p.Buttons[0] != [2]string{"deny", "Deny"} || len(p.Buttons) != 3 {
		t.Errorf("buttons %v", p.Buttons)
	}
	all := strings.Join(p.Lines, "\n")
	if strings.Contains(all, "secret-client-id") || strings.Contains(all, "\x1b") || strings.Contains(all, "evil\n") {
		t.Errorf("the text holds the client's identity or raw control characters: %q", all)
	}
	if !strings.Contains(all, `evil\n<b>Allow</b>\x1b[0m`) {
		t.Errorf("the path is not quoted: %q", all)
	}
	if p := c.text(ConsentRequest{Pid: 1}); len(p.Buttons) != 2 {
		t.Errorf("acting offered by a server that cannot act: %v", p.Buttons)
	}
}
