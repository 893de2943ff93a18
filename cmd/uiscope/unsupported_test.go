package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/mcpserver"
	"github.com/uiscope/uiscope/internal/platform/unsupported"
	"github.com/uiscope/uiscope/internal/security"
)

// TestServerOnUnsupportedSystem: the server a system without a backend
// runs (desktop_other.go: the unsupported desktop) starts, answers every
// tool with ok:false data (notSupported, or the session error that comes
// first), and keeps serving.
func TestServerOnUnsupportedSystem(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := mcpserver.New(mcpserver.Config{Caps: security.Input}, core.NewSessions(unsupported.Desktop()))
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "unit", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var out map[string]any
		raw, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, raw, err)
		}
		return out
	}
	for range 2 { // and again: the server is still there
		for name, args := range map[string]map[string]any{
			"list_apps": {},
			"connect":   {"pid": 1},
		} {
			out := call(name, args)
			msg, _ := out["error"].(string)
			if out["ok"] != false || out["errorCode"] != core.CodeNotSupported || !strings.Contains(msg, "only on Linux") {
				t.Errorf("%s: %v; want ok:false, errorCode notSupported, a message saying only Linux is supported", name, out)
			}
		}
		if out := call("click", map[string]any{"session": "s1", "element": "a11y:e1"}); out["ok"] != false || out["errorCode"] == "" {
			t.Errorf("click: %v; want ok:false with an errorCode", out)
		}
	}
}

// TestCommandsOnUnsupportedSystem: the CLI's reads fail with the same
// error, printed the CLI way, exit status 1.
func TestCommandsOnUnsupportedSystem(t *testing.T) {
	sessions := core.NewSessions(unsupported.Desktop())
	_, err := sessions.Connect(context.Background(), core.AppSpec{Pid: 1}, "")
	var stderr strings.Builder
	var ee exitError
	if !errors.As(cliError(&cli{stderr: &stderr}, "tree", err), &ee) || ee.code != 1 ||
		!strings.Contains(stderr.String(), "only on Linux") || !strings.Contains(stderr.String(), "[notSupported]") {
		t.Errorf("exit %d, stderr %q; want exit 1 and the notSupported error", ee.code, stderr.String())
	}
}
