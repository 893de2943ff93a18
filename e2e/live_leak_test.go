//go:build linux

package e2e

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/dbusx"
	"github.com/uiscope/uiscope/internal/mcpserver"
	"github.com/uiscope/uiscope/internal/platform/atspi"
	"github.com/uiscope/uiscope/internal/platform/linux"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// matchRules counts the match rules on the accessibility bus, every
// connection's (the bus's Debug.Stats interface).
func matchRules(t *testing.T, bus *dbusx.Conn) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var rules map[string][]string
	if err := bus.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.Debug.Stats.GetAllMatchRules", 0).Store(&rules); err != nil {
		t.Fatalf("GetAllMatchRules: %v", err)
	}
	n := 0
	for _, r := range rules {
		n += len(r)
	}
	return n
}

// TestLiveLeak: 200 connect, subscribe, disconnect cycles against a real
// application leave the server's goroutines and the bus's match rules
// where they started. The server runs in this process (so its goroutines
// can be counted) over the real desktop, each cycle a new MCP client in
// one of the two eras; half end with unsubscribe and disconnect, half with
// the client's transport closing under an open subscription.
func TestLiveLeak(t *testing.T) { testdesk.ForEach(t, testLiveLeak) }

// leakMu runs the desktops' leak tests one after the other: the goroutines
// counted are the whole process's.
var leakMu sync.Mutex

func testLiveLeak(t *testing.T, d *testdesk.Desk) {
	leakMu.Lock()
	defer leakMu.Unlock()
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "live leak", "--timer-label", "100")
	ctx := context.Background()
	a11y, err := atspi.Dial(ctx, d.A11y.Address, d.A11y.Source)
	if err != nil {
		t.Fatal(err)
	}
	defer a11y.Close()
	sessions := core.NewSessions((&linux.Desktop{A11y: a11y, X: d.X, Sway: d.Sway, Mirror: true}).Platform())
	srv := mcpserver.New(mcpserver.Config{}, sessions)
	probe, err := dbusx.Connect(ctx, d.A11y.Address)
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close()

	cycle := func(i int) {
		version := mcpEras[i%2].version
		t1, t2 := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, t1, nil)
		if err != nil {
			t.Fatal(err)
		}
		updates, acks := make(chan string, 64), make(chan struct{}, 4)
		c := mcp.NewClient(&mcp.Implementation{Name: "leak", Version: "1"}, &mcp.ClientOptions{
			ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
				select {
				case updates <- r.Params.URI:
				default:
				}
			},
		})
		c.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "notifications/subscriptions/acknowledged" {
					acks <- struct{}{}
				}
				return next(ctx, method, req)
			}
		})
		cs, err := c.Connect(ctx, t2, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "connect", Arguments: map[string]any{"pid": app.Pid}})
		if err != nil || res.IsError {
			t.Fatalf("cycle %d: connect: %v %+v", i, err, res)
		}
		id := res.StructuredContent.(map[string]any)["session"].(string)
		uri := "uiscope://session/" + id + "/a11y-tree"
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatalf("cycle %d: subscribe: %v", i, err)
		}
		if version != "2025-11-25" {
			select {
			case <-acks:
			case <-time.After(60 * time.Second):
				t.Fatalf("cycle %d: no acknowledgement", i)
			}
		}
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err != nil {
			t.Fatalf("cycle %d: read: %v", i, err)
		}
		select {
		case <-updates: // the label ticked, and the watcher said so
		case <-time.After(60 * time.Second):
			t.Fatalf("cycle %d: no update", i)
		}
		if i%4 < 2 {
			if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
				t.Fatal(err)
			}
			if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "disconnect", Arguments: map[string]any{"session": id}}); err != nil || res.IsError {
				t.Fatalf("cycle %d: disconnect: %v %+v", i, err, res)
			}
			cs.Close()
			ss.Wait()
		} else {
			cs.Close() // the transport ends with the subscription open
			ss.Wait()
			// The session, and its watcher with it, closes with its
			// client's MCP session (mcpserver/clients.go).
			deadline := time.Now().Add(60 * time.Second)
			for sessions.Open() != 0 && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			if n := sessions.Open(); n != 0 {
				t.Fatalf("cycle %d: %d sessions outlived their client's transport", i, n)
			}
		}
	}

	// The first cycle starts what the server keeps for its whole run (the
	// connection's event dispatcher and its match rules, the mirror).
	cycle(0)
	runtime.GC()
	goroutines, rules := runtime.NumGoroutine(), matchRules(t, probe)
	for i := 1; i <= 200; i++ {
		cycle(i)
	}
	after := runtime.NumGoroutine()
	for deadline := time.Now().Add(30 * time.Second); after > goroutines && time.Now().Before(deadline); after = runtime.NumGoroutine() {
		time.Sleep(10 * time.Millisecond)
	}
	afterRules := matchRules(t, probe)
	t.Logf("goroutines %d -> %d, match rules on the bus %d -> %d", goroutines, after, rules, afterRules)
	if after > goroutines || afterRules != rules {
		buf := make([]byte, 1<<20)
		t.Fatalf("after 200 cycles: goroutines %d (from %d), match rules %d (from %d)\n%s", after, goroutines, afterRules, rules, buf[:runtime.Stack(buf, true)])
	}
}
