//go:build linux

package mcpserver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
)

// Two clients of one server, in each era: neither can use, list, read,
// subscribe to or close the other's session, and a client that leaves
// takes its sessions with it.
func TestClientsIsolated(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			l := newLiveServer()
			alice, _, aliceLeaves := l.client(t, era.version)
			bob, _, _ := l.client(t, era.version)
			ctx := context.Background()
			id := mustOK(t, alice, "connect", map[string]any{"pid": tickerPid})["session"].(string)
			if len(id) < 20 || strings.Trim(id, "s0123456789") == "" {
				t.Fatalf("session id %q is guessable", id)
			}
			uri := resourceURI(id, core.ModeA11y)
			for _, tool := range []string{"get_a11y_tree", "get_events", "get_a11y_tree_changes", "disconnect"} {
				out := mustFail(t, bob, tool, map[string]any{"session": id}, core.CodeUnknownSession)
				if msg, _ := out["error"].(string); !strings.Contains(msg, "no session") {
					t.Errorf("bob's %s of alice's session: %q, want the unknown-session wording", tool, msg)
				}
			}
			for r, err := range bob.Resources(ctx, nil) {
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(r.URI, id) {
					t.Errorf("bob's resources/list shows alice's %s", r.URI)
				}
			}
			if _, err := bob.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil {
				t.Error("bob read alice's session resource")
			}
			if era.version != "" { // 2026-07-28 subscribes through subscriptions/listen (changes_test.go)
				if err := bob.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err == nil {
					t.Error("bob subscribed to alice's session resource")
				}
			}
			// Alice still has it, whole.
			mustOK(t, alice, "get_a11y_tree", map[string]any{"session": id})
			if _, err := alice.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err != nil {
				t.Errorf("alice's own resource: %v", err)
			}
			mustOK(t, bob, "connect", map[string]any{"pid": tickerPid})
			if n := l.sessions.Open(); n != 2 {
				t.Fatalf("%d sessions open, want alice's and bob's", n)
			}
			aliceLeaves()
			deadline := time.Now().Add(10 * time.Second)
			for l.sessions.Open() != 1 && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if n := l.sessions.Open(); n != 1 {
				t.Errorf("%d sessions open after alice left, want bob's alone", n)
			}
			for r, err := range bob.Resources(ctx, nil) {
				if err == nil && r.URI == uri {
					t.Errorf("alice's resource outlived her: %s", r.URI)
				}
			}
		})
	}
}
