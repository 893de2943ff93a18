//go:build linux

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/procinfo"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// toolNames lists what a server registered.
func toolNames(t *testing.T, s *mcpServer) []string {
	t.Helper()
	var names []string
	for tool, err := range s.cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	return names
}

// TestGuardInteractOnly: `--allow-input=interact` acts on a real GTK 3 app
// by pointer and semantic actions and has no way to type: the keyboard
// tools are not listed, and a set_value stays semantic.
func TestGuardInteractOnly(t *testing.T) { testdesk.ForEach(t, testGuardInteractOnly) }

func testGuardInteractOnly(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "guard interact")
	s := startMCP(t, d, "", "--allow-input=interact")
	names := toolNames(t, s)
	for _, want := range []string{"click", "set_value", "toggle"} {
		if !slices.Contains(names, want) {
			t.Errorf("--allow-input=interact does not list %s: %v", want, names)
		}
	}
	for _, not := range []string{"type_text", "press_key"} {
		if slices.Contains(names, not) {
			t.Errorf("--allow-input=interact lists %s", not)
		}
		s.refused(t, not, map[string]any{"session": "x", "text": "x", "keys": "Enter"})
	}
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	entry := findKeyed(t, s, sess, map[string]any{"name": "Name", "nameMatch": "exact", "role": "text"})
	out := s.ok(t, "set_value", map[string]any{"session": sess, "element": entry.Ref, "value": "Grace"})
	if out["method"] != "semantic" {
		t.Errorf("set_value without keyboard: method %v", out["method"])
	}
	until(t, "entry text", func(ctx context.Context) (bool, string) {
		got := liveText(ctx, d, entry.Key)
		return got == "Grace", got
	})
}

// TestGuardRateLimit: past --rate-limit a real server refuses with
// rateLimited and retryAfterMs, and serves the other classes on.
func TestGuardRateLimit(t *testing.T) { testdesk.ForEach(t, testGuardRateLimit) }

func testGuardRateLimit(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "guard rate")
	s := startMCP(t, d, "", "--strict", "--rate-limit", "discovery=3/min")
	s.ok(t, "list_apps", nil)
	s.ok(t, "list_apps", nil)
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	out := s.fail(t, "list_apps", nil, "rateLimited")
	if ms, _ := out["retryAfterMs"].(float64); ms <= 0 || ms > 60000 || out["retryable"] != true {
		t.Errorf("the refusal: %v; want retryable with retryAfterMs within the minute", out)
	}
	s.ok(t, "get_a11y_tree", map[string]any{"session": sess})
	// --strict's inspection limit (60/min) holds where --rate-limit did not override.
	refused := 0
	for range 70 {
		if out := s.call(t, "find_elements", map[string]any{"session": sess, "name": "Submit"}); out["ok"] == false {
			if out["errorCode"] != "rateLimited" {
				t.Fatalf("find_elements: %v", out)
			}
			refused++
		}
	}
	if refused == 0 {
		t.Error("71 inspection calls under --strict (60/min) were all served")
	}
}

// TestGuardAuditNoSecret: a session that types a secret and sets a
// password leaves lines that say who did what to which process instance,
// with the log 0600, and not a trace of the secret, the field or the UI.
func TestGuardAuditNoSecret(t *testing.T) { testdesk.ForEach(t, testGuardAuditNoSecret) }

func testGuardAuditNoSecret(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "guard audit window")
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	s := startMCP(t, d, "", "--allow-input", "--audit-log", path)
	const secret = "audit-secret-Zq81x"
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	entry := findKeyed(t, s, sess, map[string]any{"name": "Name", "nameMatch": "exact", "role": "text"})
	s.ok(t, "type_text", map[string]any{"session": sess, "element": entry.Ref, "text": secret})
	until(t, "typed secret", func(ctx context.Context) (bool, string) {
		got := liveText(ctx, d, entry.Key)
		return strings.Contains(got, secret), got
	})
	pw := findKeyed(t, s, sess, map[string]any{"role": "password text"})
	s.call(t, "set_value", map[string]any{"session": sess, "element": pw.Ref, "value": secret + "-pw"})
	s.ok(t, "get_element_properties", map[string]any{"session": sess, "element": entry.Ref})
	s.ok(t, "press_key", map[string]any{"session": sess, "element": entry.Ref, "keys": "Ctrl+a"})
	s.fail(t, "connect", map[string]any{"title": secret + "-title"}, "notFound")

	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("audit log mode %04o, want 0600", fi.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, never := range []string{secret, "guard audit window", "Name", "hunter2", "Ctrl+a", sess, entry.Ref} {
		if strings.Contains(string(b), never) {
			t.Errorf("the audit log holds %q:\n%s", never, b)
		}
	}
	id, err := procinfo.Lookup(app.Pid)
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		var r struct {
			Time, Client, Operation, Outcome, Reason string
			Pid                                      int
			StartTime                                uint64
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("not a JSON line: %q", sc.Text())
		}
		if r.Time == "" || len(r.Client) != 16 {
			t.Errorf("a record without time or hashed client: %s", sc.Text())
		}
		if r.Outcome == "started" {
			// An action's first record, written before it runs: its
			// target is not known yet.
			if r.Pid != 0 {
				t.Errorf("a started record names a target: %s", sc.Text())
			}
			continue
		}
		ops = append(ops, r.Operation+":"+r.Outcome+":"+r.Reason)
		if r.Operation != "connect" || r.Outcome == "ok" {
			if r.Operation != "connect" && (r.Pid != app.Pid || r.StartTime != id.StartTime) {
				t.Errorf("%s does not name the process instance (pid %d, start %d): %s", r.Operation, app.Pid, id.StartTime, sc.Text())
			}
		}
	}
	want := []string{"connect:ok:", "find_elements:ok:", "type_text:ok:", "find_elements:ok:"}
	if len(ops) != 8 || !slices.Equal(ops[:4], want) || ops[5] != "get_element_properties:ok:" || ops[6] != "press_key:ok:" || ops[7] != "connect:failed:notFound" {
		t.Errorf("operations logged: %v", ops)
	}
}

// TestGuardAllowlist: with --apps a real server lists and connects only
// the executables it names.
func TestGuardAllowlist(t *testing.T) { testdesk.ForEach(t, testGuardAllowlist) }

func testGuardAllowlist(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "guard allowlist")
	s := startMCP(t, d, "", "--apps", "mousepad,/nonexistent/*")
	apps := s.ok(t, "list_apps", nil)
	for _, a := range apps["apps"].([]any) {
		if a.(map[string]any)["pid"] == float64(app.Pid) {
			t.Errorf("list_apps lists a python fixture outside --apps: %v", a)
		}
	}
	s.fail(t, "connect", map[string]any{"pid": app.Pid}, "appNotAllowed")
	s.fail(t, "connect", map[string]any{"title": "guard allowlist"}, "appNotAllowed")

	exe := filepath.Base(procinfo.Executable(app.Pid))
	allowed := startMCP(t, d, "", "--apps", "mousepad,"+exe)
	allowed.connect(t, map[string]any{"pid": app.Pid})
}

// TestGuardPidReuse: the fixture is killed and a new one started under the
// very same pid; the old session answers ownershipLost, never the new
// process's tree, and a new connect reads the new one.
func TestGuardPidReuse(t *testing.T) { testdesk.ForEach(t, testGuardPidReuse) }

func testGuardPidReuse(t *testing.T, d *testdesk.Desk) {
	argv := []string{testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "guard pid reuse"}
	old := d.Launch(t, argv...)
	s := startMCP(t, d, "")
	sess := s.connect(t, map[string]any{"pid": old.Pid})
	s.ok(t, "get_a11y_tree", map[string]any{"session": sess})
	if err := old.Proc.Stop(); err != nil {
		t.Fatal(err)
	}
	reborn := d.LaunchAsPid(t, old.Pid, argv...)
	out := s.fail(t, "get_a11y_tree", map[string]any{"session": sess}, "ownershipLost")
	if msg, _ := out["error"].(string); !strings.Contains(msg, "reused") {
		t.Errorf("the refusal does not say the pid was reused: %v", out)
	}
	s.fail(t, "find_elements", map[string]any{"session": sess, "name": "Submit"}, "ownershipLost")
	fresh := s.connect(t, map[string]any{"pid": reborn.Pid})
	s.ok(t, "get_a11y_tree", map[string]any{"session": fresh})
}
