package security

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/uiscope/uiscope/internal/quote"
)

// More reason codes, for consent.
const (
	CodeConsentTimeout = "consentTimeout"
)

// ConsentRequest is what the user is asked about: one client, one exact
// process instance (pid and start time), and what the server could grant.
type ConsentRequest struct {
	Client string
	// Credential is what the client authenticated with, which other
	// clients may share: over HTTP the run's bearer token (every client
	// key and MCP session holds it), over stdio the pipe. A denial holds
	// for the credential, not only the client: a new MCP session or client
	// key is no way around it. "" is a credential too.
	Credential string
	// Via says in the dialog how the client reached the server ("over
	// HTTP with the server's token, client key 1a2b3c4d"); "" for stdio.
	Via        string
	Pid        int
	StartTime  uint64
	Executable string
	// Offer is what approval can grant beyond inspection (the server's
	// input capabilities); reading alone is always a choice.
	Offer Caps
}

// Prompt is what the dialog shows: every word chosen here.
type Prompt struct {
	Title   string      `json:"title"`
	Lines   []string    `json:"lines"`
	Buttons [][2]string `json:"buttons"` // key, label; the first is the default (deny)
}

// A Prompter shows a prompt and returns the key of the button the user
// chose. It reports the pid of the dialog process through started as soon
// as it has one, so that the dialog can be kept out of reach, and calls
// shown once its window is on the screen. It ends the dialog when ctx
// ends.
type Prompter func(ctx context.Context, p Prompt, started func(pid int), shown func()) (string, error)

// Dialogs a minute, most: per client, per credential and per process
// instance. Past one, a request that would show a new dialog is refused
// (rateLimited) instead: an agent cannot bury the user in dialogs by
// opening new MCP sessions or client keys.
const (
	dialogsPerClient     = 3
	dialogsPerCredential = 6
	dialogsPerProcess    = 3
)

// showLimit bounds how long the input lock is held for a dialog that does
// not say it is shown.
const showLimit = 5 * time.Second

// Consent asks the user, through a dialog the server owns, before a
// client reads an application, and remembers the answer for the server's
// run: once per client and exact process instance. A denial and the set
// approved hold until the server exits; asking for more is refused without
// a new dialog. Grants live in memory only. Safe for concurrent use.
type Consent struct {
	// Timeout bounds a dialog: no answer in time is a refusal, and a later
	// request asks again.
	Timeout time.Duration
	prompt  Prompter
	// hash names the client in the dialog without its identity.
	hash func(string) string

	mu      sync.Mutex
	asks    map[consentKey]*ask
	dialogs map[int]bool
	denied  map[credentialKey]*Refusal      // denials, per credential and process instance
	showing map[credentialKey]chan struct{} // the dialog up for a credential and process instance
	shownAt map[string][]time.Time          // when dialogs were shown, per client, credential, process
	now     func() time.Time
}

type consentKey struct {
	client    string
	pid       int
	startTime uint64
}

type credentialKey struct {
	credential string
	pid        int
	startTime  uint64
}

// ask is one question: pending until done is closed, then its answer.
type ask struct {
	done    chan struct{}
	granted Caps
	err     error
}

// NewConsent asks through prompt; timeout 0 is a minute.
func NewConsent(prompt Prompter, timeout time.Duration) *Consent {
	if timeout <= 0 {
		timeout = time.Minute
	}
	salt := fmt.Sprint(time.Now().UnixNano())
	return &Consent{Timeout: timeout, prompt: prompt, asks: map[consentKey]*ask{}, dialogs: map[int]bool{},
		denied: map[credentialKey]*Refusal{}, showing: map[credentialKey]chan struct{}{}, shownAt: map[string][]time.Time{},
		now: time.Now, hash: func(s string) string { return hashHex(salt, s)[:8] }}
}

// IsDialog reports whether pid is a consent dialog: it is never listed,
// connected to or acted on, so that an agent cannot answer for the user.
func (c *Consent) IsDialog(pid int) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dialogs[pid]
}

// Ask returns what the user granted r's client on r's process: inspection
// and possibly r.Offer, or a refusal. The first request for a client and
// process instance shows the dialog; requests meanwhile wait for the same
// answer; later ones get it without a dialog. A denial holds for every
// client of r's credential; one dialog at a time shows for a credential
// and process, and new dialogs are rate-limited per client, credential
// and process (rateLimited). alive says whether the process is still the
// one asked about (the dialog is ended, and the request refused, when it
// exits); hold, when set, is taken while the dialog comes up (the server's
// input lock: no synthetic input can land on it as it appears), and let go
// once it is on the screen, so that other clients' input goes on while the
// user decides.
func (c *Consent) Ask(ctx context.Context, r ConsentRequest, alive func(context.Context) bool, hold func(context.Context) (func(), error)) (Caps, error) {
	k := consentKey{r.Client, r.Pid, r.StartTime}
	c.mu.Lock()
	if d := c.denied[credentialKey{r.Credential, r.Pid, r.StartTime}]; d != nil {
		c.mu.Unlock()
		return 0, d
	}
	a := c.asks[k]
	if a == nil {
		if err := c.spendDialog(r); err != nil {
			c.mu.Unlock()
			return 0, err
		}
		a = &ask{done: make(chan struct{})}
		c.asks[k] = a
		go c.run(k, a, r, alive, hold)
	}
	c.mu.Unlock()
	select {
	case <-a.done:
		return a.granted, a.err
	case <-ctx.Done():
		return 0, &Refusal{Code: CodeConsentTimeout, RetryAfter: time.Second, Msg: "the request ended while the user was being asked for consent; ask again to wait for the answer"}
	}
}

// spendDialog takes a new dialog from the minute's allowance of r's
// client, credential and process, or refuses. Called under c.mu.
func (c *Consent) spendDialog(r ConsentRequest) error {
	now := c.now()
	keys := []struct {
		key, what string
		most      int
	}{
		{"client\x00" + r.Client, "this client", dialogsPerClient},
		{"credential\x00" + r.Credential, "clients with this client's credential (" + c.via(r) + ")", dialogsPerCredential},
		{fmt.Sprintf("process\x00%d.%d", r.Pid, r.StartTime), fmt.Sprintf("pid %d", r.Pid), dialogsPerProcess},
	}
	for _, k := range keys {
		recent := c.shownAt[k.key][:0]
		for _, t := range c.shownAt[k.key] {
			if now.Sub(t) < time.Minute {
				recent = append(recent, t)
			}
		}
		c.shownAt[k.key] = recent
		if len(recent) >= k.most {
			return &Refusal{Code: CodeRateLimited, RetryAfter: max(time.Millisecond, time.Minute-now.Sub(recent[0])), Msg: fmt.Sprintf(
				"%d consent dialogs were shown for %s in the last minute, the most the server shows; nothing was granted: ask again later", k.most, k.what)}
		}
	}
	for _, k := range keys {
		c.shownAt[k.key] = append(c.shownAt[k.key], now)
	}
	if len(c.shownAt) > 4096 {
		for key, ts := range c.shownAt {
			if len(ts) == 0 || now.Sub(ts[len(ts)-1]) >= time.Minute {
				delete(c.shownAt, key)
			}
		}
	}
	return nil
}

// run shows the dialog for one question and settles it. An answer stays;
// a timeout or the target's exit forgets the question, so that a later
// request asks again.
func (c *Consent) run(k consentKey, a *ask, r ConsentRequest, alive func(context.Context) bool, hold func(context.Context) (func(), error)) {
	// Deferred first, so run last: the answer is out only once the dialog
	// is gone.
	defer close(a.done)
	ctx, cancel := context.WithTimeout(context.Background(), c.Timeout)
	defer cancel()
	forget := func(err error) {
		c.mu.Lock()
		delete(c.asks, k)
		c.mu.Unlock()
		a.err = err
	}
	timedOut := func() error {
		return &Refusal{Code: CodeConsentTimeout, RetryAfter: time.Second, Msg: fmt.Sprintf(
			"the user did not answer the consent dialog for pid %d within %v, so access is refused; a new request asks again", r.Pid, c.Timeout)}
	}
	// One dialog at a time for a credential and process: another client
	// of the credential waits for the dialog up, and is refused without
	// one of its own if the user denied it.
	ck := credentialKey{r.Credential, r.Pid, r.StartTime}
	for {
		c.mu.Lock()
		if d := c.denied[ck]; d != nil {
			delete(c.asks, k)
			c.mu.Unlock()
			a.err = d
			return
		}
		up := c.showing[ck]
		if up == nil {
			up = make(chan struct{})
			c.showing[ck] = up
			c.mu.Unlock()
			defer func() {
				c.mu.Lock()
				delete(c.showing, ck)
				c.mu.Unlock()
				close(up)
			}()
			break
		}
		c.mu.Unlock()
		select {
		case <-up:
		case <-ctx.Done():
			forget(timedOut())
			return
		}
	}
	shown := func() {}
	if hold != nil {
		release, err := hold(ctx)
		if err != nil {
			forget(timedOut())
			return
		}
		shown = sync.OnceFunc(release)
		defer shown()
		t := time.AfterFunc(showLimit, shown)
		defer t.Stop()
	}
	exited := make(chan struct{})
	pctx, stopPrompt := context.WithCancel(ctx)
	defer stopPrompt()
	go func() {
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-pctx.Done():
				return
			case <-t.C:
				if alive != nil && !alive(pctx) && pctx.Err() == nil {
					close(exited)
					stopPrompt()
					return
				}
			}
		}
	}()
	var pid int
	key, err := c.prompt(pctx, c.text(r), func(p int) {
		c.mu.Lock()
		pid = p
		c.dialogs[p] = true
		c.mu.Unlock()
	}, shown)
	c.mu.Lock()
	delete(c.dialogs, pid)
	c.mu.Unlock()
	select {
	case <-exited:
		forget(refuse(CodeConsentDenied, "pid %d exited while the user was being asked for consent; nothing was granted", r.Pid))
		return
	default:
	}
	if ctx.Err() != nil {
		forget(timedOut())
		return
	}
	if err != nil {
		// A dialog that could not be shown grants nothing, and is not an
		// answer: a later request tries again.
		forget(refuse(CodeConsentDenied, "the consent dialog could not be shown (%v), so access is refused", err))
		return
	}
	switch key {
	case "read":
		a.granted = Inspect
	case "act":
		a.granted = Inspect | r.Offer
	default:
		d := refuse(CodeConsentDenied, "the user denied access to pid %d to this client and every other client with its credential (%s: a new MCP session or client key changes nothing); the answer holds until the server restarts", r.Pid, c.via(r))
		a.err = d
		c.mu.Lock()
		c.denied[ck] = d
		c.mu.Unlock()
	}
}

// via is how the dialog and refusals name r's credential.
func (c *Consent) via(r ConsentRequest) string {
	if r.Via == "" {
		return "over stdio, the program that started uiscope"
	}
	return r.Via
}

// text is the dialog: fixed words, and of the target only its pid and
// its executable's path as the system reports it, quoted with every
// character that is not printable escaped and cut short. Window titles and
// names an application chose are left out.
func (c *Consent) text(r ConsentRequest) Prompt {
	exe := r.Executable
	if exe == "" {
		exe = "(unknown)"
	}
	p := Prompt{
		Title: "uiscope: allow an agent to access an application?",
		Lines: []string{
			fmt.Sprintf("An AI agent connected to uiscope %s (client %s) asks to read an application's windows and everything they show.", c.via(r), c.hash(r.Client)),
			fmt.Sprintf("Application: %s, process %d (%s).", quote.Short(filepath.Base(exe)), r.Pid, quote.Short(exe)),
			"Your answer holds for this run of the application until uiscope exits: Deny for every agent connected the same way, Allow for this client alone.",
		},
		Buttons: [][2]string{{"deny", "Deny"}, {"read", "Allow reading"}},
	}
	if r.Offer&Input != 0 {
		p.Lines = append(p.Lines, fmt.Sprintf("Allowing reading and acting also lets it %s.", actWords(r.Offer)))
		p.Buttons = append(p.Buttons, [2]string{"act", "Allow reading and acting"})
	}
	return p
}

func actWords(c Caps) string {
	switch {
	case c.Has(Input):
		return "click, type and change things in it"
	case c.Has(Interact):
		return "click and change things in it (no typing)"
	}
	return "type into it"
}

// ErrNoDialog is a platform without a way to show the consent dialog.
var ErrNoDialog = errors.New("no consent dialog on this platform")
