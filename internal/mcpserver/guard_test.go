package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/security"
)

// TestCapabilityToolsets: --allow-input=interact registers the interact
// toolset and not the keyboard one; the keyboard alone the reverse.
func TestCapabilityToolsets(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		for _, c := range []struct {
			caps      security.Caps
			want, not []string
		}{
			{security.Interact, []string{"click", "set_value", "window_action"}, []string{"type_text", "press_key"}},
			{security.Keyboard, []string{"type_text", "press_key"}, []string{"click", "set_value"}},
			{0, []string{"get_a11y_tree"}, []string{"click", "type_text"}},
		} {
			var names []string
			for _, tool := range listTools(t, connectClient(t, Config{Caps: c.caps}, "")) {
				names = append(names, tool.Name)
			}
			for _, w := range c.want {
				if !slices.Contains(names, w) {
					t.Errorf("caps %v: %s not listed (%v)", c.caps, w, names)
				}
			}
			for _, n := range c.not {
				if slices.Contains(names, n) {
					t.Errorf("caps %v: %s listed", c.caps, n)
				}
			}
		}
	})
}

// TestGateInCoreWhateverIsRegistered: a server whose MCP layer registered
// the acting tools over sessions that grant nothing refuses every action
// (inputNotAllowed): the core holds the gate, not the tool list.
func TestGateInCoreWhateverIsRegistered(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		cs := connectClient(t, Config{Caps: security.Input}, "")
		conn := mustOK(t, cs, "connect", map[string]any{"pid": os.Getpid()})
		session := conn["session"].(string)
		tree := mustOK(t, cs, "get_a11y_tree", map[string]any{"session": session, "format": "json"})
		submit, _ := findRef(tree["root"].(map[string]any), "push button", "Submit")
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"click", map[string]any{"session": session, "element": submit}},
			{"type_text", map[string]any{"session": session, "text": "x"}},
			{"press_key", map[string]any{"session": session, "keys": "Enter"}},
			{"window_action", map[string]any{"session": session, "action": "close"}},
		} {
			out, _ := call(t, cs, c.tool, c.args)
			if out["ok"] != false || out["errorCode"] != core.CodeInputNotAllowed {
				t.Errorf("%s with the core granting nothing: %v; want inputNotAllowed", c.tool, out)
			}
		}
	})
}

// TestRateLimitRefusal: past its class's limit a client is refused with
// rateLimited, retryable, and retryAfterMs; other classes go on.
func TestRateLimitRefusal(t *testing.T) {
	t.Parallel()
	cs := connectClient(t, Config{Limits: security.NewLimiter(security.Limits{security.Discovery: 2, security.Inspection: 1000})}, "")
	mustOK(t, cs, "list_apps", nil)
	conn := mustOK(t, cs, "connect", map[string]any{"pid": os.Getpid()})
	out, res := call(t, cs, "list_apps", nil)
	if !res.IsError || out["errorCode"] != security.CodeRateLimited || out["retryable"] != true {
		t.Fatalf("the third discovery call of a 2/min limit: %v", out)
	}
	if ms, _ := out["retryAfterMs"].(float64); ms <= 0 || ms > 60000 {
		t.Errorf("retryAfterMs = %v, want a wait within the minute", out["retryAfterMs"])
	}
	if !strings.Contains(out["error"].(string), "2 discovery calls a minute") {
		t.Errorf("the refusal does not say the limit: %v", out["error"])
	}
	mustOK(t, cs, "get_a11y_tree", map[string]any{"session": conn["session"]})
}

// TestScreenshotPathIsAnAction: a screenshot that writes a file spends
// the actions limit as well, and one without path does not.
func TestScreenshotPathIsAnAction(t *testing.T) {
	t.Parallel()
	cs := connectClient(t, Config{Limits: security.NewLimiter(security.Limits{security.Actions: 1})}, "")
	conn := mustOK(t, cs, "connect", map[string]any{"pid": os.Getpid()})
	path := filepath.Join(t.TempDir(), "shot.png")
	for range 2 {
		call(t, cs, "screenshot", map[string]any{"session": conn["session"]})
	}
	if out, _ := call(t, cs, "screenshot", map[string]any{"session": conn["session"], "path": path}); out["errorCode"] == security.CodeRateLimited {
		t.Fatalf("the first screenshot with path, after two without: %v", out)
	}
	out, _ := call(t, cs, "screenshot", map[string]any{"session": conn["session"], "path": path})
	if out["ok"] != false || out["errorCode"] != security.CodeRateLimited {
		t.Errorf("the second screenshot with path under actions 1/min: %v; want rateLimited", out)
	}
}

// TestAuditRecordsEveryCall: each call leaves one line with the hashed
// client, the target's pid and start time once known, the tool, outcome
// and reason — and nothing the UI showed or the agent sent.
func TestAuditRecordsEveryCall(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "audit.jsonl")
		a, err := security.OpenAudit(path)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		cs := connectClient(t, Config{Caps: security.Input, Audit: a}, "")
		mustOK(t, cs, "list_apps", nil)
		conn := mustOK(t, cs, "connect", map[string]any{"pid": os.Getpid()})
		session := conn["session"].(string)
		tree := mustOK(t, cs, "get_a11y_tree", map[string]any{"session": session, "format": "json"})
		name, _ := findRef(tree["root"].(map[string]any), "text", "Name")
		mustOK(t, cs, "get_element_properties", map[string]any{"session": session, "element": name})
		call(t, cs, "type_text", map[string]any{"session": session, "text": "typed-secret-7731"})
		call(t, cs, "connect", map[string]any{"title": "no-such-window-title-55"})
		call(t, cs, "get_a11y_tree", map[string]any{"session": session, "bogus": "argument-secret-42"})

		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, never := range []string{"typed-secret-7731", "Ada", "Submit", "Fake fixture", "no-such-window-title-55", "argument-secret-42", "mcp:", session} {
			if strings.Contains(string(b), never) {
				t.Errorf("the audit log holds %q:\n%s", never, b)
			}
		}
		var recs []map[string]any
		sc := bufio.NewScanner(strings.NewReader(string(b)))
		for sc.Scan() {
			var r map[string]any
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatalf("not a JSON line: %q", sc.Text())
			}
			recs = append(recs, r)
		}
		want := []struct{ op, outcome, reason string }{
			{"list_apps", "ok", ""}, {"connect", "ok", ""}, {"get_a11y_tree", "ok", ""}, {"get_element_properties", "ok", ""},
			{"type_text", "started", ""}, {"type_text", "refused", core.CodeInputNotAllowed}, {"connect", "failed", core.CodeNotFound}, {"get_a11y_tree", "failed", core.CodeInvalidArgument},
		}
		if len(recs) != len(want) {
			t.Fatalf("%d records, want %d:\n%s", len(recs), len(want), b)
		}
		client := recs[0]["client"]
		for i, w := range want {
			r := recs[i]
			if r["operation"] != w.op || r["outcome"] != w.outcome || (r["reason"] != nil || w.reason != "") && r["reason"] != w.reason {
				t.Errorf("record %d = %v; want %s %s %s", i, r, w.op, w.outcome, w.reason)
			}
			if r["client"] != client || len(client.(string)) != 16 {
				t.Errorf("record %d client %v; want the one hashed client %v", i, r["client"], client)
			}
			if _, ok := r["time"].(string); !ok {
				t.Errorf("record %d has no time", i)
			}
		}
		for _, i := range []int{1, 2, 3} {
			if recs[i]["pid"] != float64(os.Getpid()) || recs[i]["startTime"] == nil {
				t.Errorf("record %d (%s) does not name the target process: %v", i, recs[i]["operation"], recs[i])
			}
		}
		if recs[0]["pid"] != nil {
			t.Errorf("list_apps named a target: %v", recs[0])
		}
	})
}

// TestAuditFailsClosed: with --audit-log set, an action whose record
// cannot be written (the disk full, the file gone bad) is refused before
// it runs, auditFailed; reads are still served.
func TestAuditFailsClosed(t *testing.T) {
	t.Parallel()
	a, err := security.OpenAudit(filepath.Join(t.TempDir(), "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	a.Close() // every write fails from here, as on a full disk
	cs := connectClient(t, Config{Caps: security.Input, Audit: a}, "")
	mustOK(t, cs, "list_apps", nil)
	conn := mustOK(t, cs, "connect", map[string]any{"pid": os.Getpid()})
	session := conn["session"].(string)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"type_text", map[string]any{"session": session, "text": "x"}},
		{"press_key", map[string]any{"session": session, "keys": "Enter"}},
		{"screenshot", map[string]any{"session": session, "path": filepath.Join(t.TempDir(), "shot.png")}},
	} {
		out, _ := call(t, cs, c.tool, c.args)
		if out["ok"] != false || out["errorCode"] != security.CodeAuditFailed {
			t.Errorf("%s with an audit log that cannot be written: %v; want auditFailed", c.tool, out)
		}
	}
}

// TestResourceReadsGuarded: reading a session's resource is an inspection
// like get_a11y_tree: limited per client and audited with its target.
func TestResourceReadsGuarded(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "audit.jsonl")
		a, err := security.OpenAudit(path)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		cs := connectClient(t, Config{Audit: a, Limits: security.NewLimiter(security.Limits{security.Inspection: 1})}, "")
		conn := mustOK(t, cs, "connect", map[string]any{"pid": os.Getpid()})
		uri := resourceURI(conn["session"].(string), core.ModeA11y)
		ctx := context.Background()
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err != nil {
			t.Fatalf("the first read: %v", err)
		}
		_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err == nil || !strings.Contains(err.Error(), "rateLimited") || !strings.Contains(err.Error(), "retryAfterMs") {
			t.Errorf("the second read past 1/min: %v; want a rateLimited refusal with retryAfterMs", err)
		}
		b, _ := os.ReadFile(path)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != 3 || !strings.Contains(lines[1], `"operation":"resources/read","outcome":"ok"`) ||
			!strings.Contains(lines[1], fmt.Sprintf(`"pid":%d`, os.Getpid())) || !strings.Contains(lines[2], `"outcome":"refused","reason":"rateLimited"`) {
			t.Errorf("audit log:\n%s", b)
		}
	})
}
