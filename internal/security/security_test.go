package security

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestParseInput(t *testing.T) {
	for in, want := range map[string]Caps{
		"": Input, "true": Input, "false": 0, "interact": Interact, "keyboard": Keyboard,
		"interact,keyboard": Input, " Interact , keyboard ": Input,
	} {
		got, err := ParseInput(in)
		if err != nil || got != want {
			t.Errorf("ParseInput(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseInput("interact,mouse"); err == nil {
		t.Error("ParseInput accepted an unknown capability")
	}
}

func TestRequire(t *testing.T) {
	if err := Require(Interact, Interact, "clicking"); err != nil {
		t.Errorf("interact granted, clicking refused: %v", err)
	}
	for _, c := range []struct {
		have, need Caps
		says       string
	}{
		{0, Interact, "without --allow-input"},
		{Interact, Keyboard, "--allow-input=interact"},
		{Keyboard, Interact, "interact"},
	} {
		err := Require(c.have, c.need, "doing it")
		var r *Refusal
		if !errors.As(err, &r) || r.Code != CodeInputNotAllowed || !strings.Contains(r.Msg, c.says) || r.RetryAfter != 0 {
			t.Errorf("Require(%v, %v) = %v; want an inputNotAllowed refusal saying %q", c.have, c.need, err, c.says)
		}
	}
}

func TestParseRate(t *testing.T) {
	for in, want := range map[string]struct {
		c Class
		n int
	}{
		"actions=10/min": {Actions, 10}, "inspection=2/s": {Inspection, 120}, "Discovery = 30": {Discovery, 30}, "actions=0/min": {Actions, 0},
	} {
		c, n, err := ParseRate(in)
		if err != nil || c != want.c || n != want.n {
			t.Errorf("ParseRate(%q) = %v, %d, %v; want %v, %d", in, c, n, err, want.c, want.n)
		}
	}
	for _, bad := range []string{"actions", "typing=3/min", "actions=-1/min", "actions=x/min", "actions=3/fortnight", "actions=99999999999/s"} {
		if _, _, err := ParseRate(bad); err == nil {
			t.Errorf("ParseRate(%q) accepted", bad)
		}
	}
}

// TestLimiter: a client spends its class's minute, is refused with the
// wait until the next call is free, and other classes and clients are not
// touched.
func TestLimiter(t *testing.T) {
	now := time.Unix(1000, 0)
	l := NewLimiter(Limits{Actions: 10, Discovery: 0})
	l.now = func() time.Time { return now }
	for i := range 10 {
		if err := l.Allow("a", Actions); err != nil {
			t.Fatalf("call %d of 10 refused: %v", i+1, err)
		}
	}
	err := l.Allow("a", Actions)
	var r *Refusal
	if !errors.As(err, &r) || r.Code != CodeRateLimited || r.RetryAfter != 6*time.Second {
		t.Fatalf("the 11th call: %v; want rateLimited with RetryAfter 6s", err)
	}
	if err := l.Allow("b", Actions); err != nil {
		t.Errorf("another client was limited by the first's calls: %v", err)
	}
	for range 100 {
		if err := l.Allow("a", Discovery); err != nil {
			t.Fatalf("an unlimited class was limited: %v", err)
		}
	}
	now = now.Add(5 * time.Second)
	if err := l.Allow("a", Actions); !errors.As(err, &r) || r.RetryAfter != time.Second {
		t.Errorf("5 s later: %v; want a refusal to wait 1 s more", err)
	}
	now = now.Add(time.Second)
	if err := l.Allow("a", Actions); err != nil {
		t.Errorf("once the wait passed: %v", err)
	}
}

func TestLimiterForgetsFullBuckets(t *testing.T) {
	now := time.Unix(1000, 0)
	l := NewLimiter(Limits{Actions: 60})
	l.now = func() time.Time { return now }
	for i := range maxBuckets {
		_ = l.Allow(string(rune(i)), Actions)
	}
	now = now.Add(time.Minute)
	_ = l.Allow("new", Actions)
	if n := len(l.buckets); n > 2 {
		t.Errorf("%d buckets kept after all refilled; want the full ones forgotten", n)
	}
}

func TestAllowlist(t *testing.T) {
	a, err := ParseAllowlist("mousepad, firefox*,/usr/bin/python3*")
	if err != nil {
		t.Fatal(err)
	}
	for exe, want := range map[string]bool{
		"/usr/bin/mousepad": true, "/usr/lib/firefox-esr/firefox-esr": true, "/usr/bin/python3.11": true,
		"/opt/python3.11": false, "/usr/bin/gedit": false, "": false, "/usr/bin/mousepad-evil": false,
	} {
		if got := a.Allows(exe); got != want {
			t.Errorf("Allows(%q) = %v, want %v", exe, got, want)
		}
	}
	var r *Refusal
	if err := a.Check(42, "/usr/bin/gedit"); !errors.As(err, &r) || r.Code != CodeAppNotAllowed {
		t.Errorf("Check of gedit = %v, want appNotAllowed", err)
	}
	for _, bad := range []string{"", " , ", "[a-"} {
		if _, err := ParseAllowlist(bad); err == nil {
			t.Errorf("ParseAllowlist(%q) accepted", bad)
		}
	}
	if !(*Allowlist)(nil).Allows("/anything") {
		t.Error("no allowlist refused an app")
	}
}

// TestAudit: the log is created 0600, appended to (never truncated), one
// whole JSON object a line under concurrent writers; a log others can read,
// or a symbolic link, is refused.
func TestAudit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	if err := os.WriteFile(path, []byte(`{"earlier":"line"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := OpenAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := a.Write(Record{Time: time.Now(), Client: a.Client("c"), Pid: i + 1, StartTime: 7, Operation: "click", Outcome: OutcomeOK}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %04o, want 0600", fi.Mode().Perm())
	}
	f, _ := os.Open(path)
	defer f.Close()
	sc := bufio.NewScanner(f)
	lines := 0
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Errorf("line %d is not one JSON object: %q", lines+1, sc.Text())
		}
		lines++
	}
	if lines != 51 {
		t.Errorf("%d lines, want the earlier one and 50", lines)
	}

	created := filepath.Join(dir, "new.jsonl")
	if a, err := OpenAudit(created); err != nil {
		t.Fatal(err)
	} else {
		a.Close()
	}
	if fi, err := os.Stat(created); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("a created log: %v, mode %v; want 0600", err, fi.Mode())
	}
	open := filepath.Join(dir, "open.jsonl")
	os.WriteFile(open, nil, 0o644)
	if _, err := OpenAudit(open); err == nil || !strings.Contains(err.Error(), "0644") {
		t.Errorf("a world-readable log was accepted: %v", err)
	}
	link := filepath.Join(dir, "link.jsonl")
	os.Symlink(created, link)
	if _, err := OpenAudit(link); err == nil {
		t.Error("a symbolic link was followed")
	}
}

// TestAuditClientHashed: a client's identity is never written as is, and
// the hash differs between runs (salted).
func TestAuditClientHashed(t *testing.T) {
	dir := t.TempDir()
	a, _ := OpenAudit(filepath.Join(dir, "a"))
	b, _ := OpenAudit(filepath.Join(dir, "b"))
	defer a.Close()
	defer b.Close()
	if first, again := a.Client("token-abc"), a.Client("token-abc"); first != again {
		t.Error("one client hashed two ways in a run")
	}
	if a.Client("token-abc") == a.Client("token-abd") {
		t.Error("two clients hashed alike")
	}
	if a.Client("token-abc") == b.Client("token-abc") {
		t.Error("the hash is not salted per run")
	}
	// The identity, not a part of it: "abc" is hex, and one hash in a few
	// hundred holds it by chance.
	if strings.Contains(a.Client("token-abc"), "token-abc") {
		t.Error("the identity is written as is")
	}
}
