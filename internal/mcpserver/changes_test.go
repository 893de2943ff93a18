//go:build linux

package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
)

const tickerPid = 5151

func tickerTree(label string) *platform.Node {
	frame := fake.Keyed("t/frame", "frame", "Ticker", fake.Keyed("t/label", "label", label))
	return &platform.Node{Key: "t/root", Role: platform.RoleApplication, Name: "ticker", ChildCount: 1, Children: []*platform.Node{frame}}
}

// liveServer is a server over a fake desktop whose ticker app the test
// changes, and a way to connect clients to it.
type liveServer struct {
	acks     chan struct{} // the last client's
	desk     *fake.Desktop
	sessions *core.Sessions
	srv      *mcp.Server
}

func newLiveServer() *liveServer {
	d := fake.New()
	d.AddApp(fake.App{Pid: tickerPid, Name: "ticker", Tree: tickerTree("Tick 0")})
	m := core.NewSessions(d.Platform())
	return &liveServer{desk: d, sessions: m, srv: New(Config{}, m)}
}

// client connects a client in an era; updates receives the URIs of
// notifications/resources/updated.
func (l *liveServer) client(t *testing.T, version string) (*mcp.ClientSession, chan string, func()) {
	t.Helper()
	ctx := context.Background()
	t1, t2 := memTransports()
	ss, err := l.srv.Connect(ctx, t1, nil)
	if err != nil {
		t.Fatal(err)
	}
	updates := make(chan string, 64)
	c := mcp.NewClient(&mcp.Implementation{Name: "unit", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			select {
			case updates <- r.Params.URI:
			default:
			}
		},
	})
	// A 2026-07-28 subscription is a subscriptions/listen request that
	// stays open: the server says it holds with
	// notifications/subscriptions/acknowledged, after which updates flow.
	acks := make(chan struct{}, 64)
	c.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "notifications/subscriptions/acknowledged" {
				acks <- struct{}{}
			}
			return next(ctx, method, req)
		}
	})
	l.acks = acks
	cs, err := c.Connect(ctx, t2, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	end := func() {
		if !closed {
			closed = true
			cs.Close()
			ss.Wait()
		}
	}
	t.Cleanup(end)
	return cs, updates, end
}

func readTree(t *testing.T, cs *mcp.ClientSession, uri string) treeContents {
	t.Helper()
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	var out treeContents
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// subscribe subscribes in the client's era and returns once the server
// holds the subscription.
func (l *liveServer) subscribe(t *testing.T, cs *mcp.ClientSession, version, uri string) {
	t.Helper()
	if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatalf("subscribe %s: %v", uri, err)
	}
	if version == "2025-11-25" {
		return // the answer to resources/subscribe says so
	}
	select {
	case <-l.acks:
	case <-time.After(10 * time.Second):
		t.Fatalf("subscribe %s: no notifications/subscriptions/acknowledged", uri)
	}
}

func waitUpdate(t *testing.T, updates chan string, uri string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case u := <-updates:
			if u == uri {
				return
			}
		case <-deadline:
			buf := make([]byte, 1<<20)
			t.Fatalf("no notifications/resources/updated for %s\n%s", uri, buf[:runtime.Stack(buf, true)])
		}
	}
}

func TestResourceSubscriptionBothEras(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := newLiveServer()
				cs, updates, _ := l.client(t, era.version)
				ctx := context.Background()
				id := mustOK(t, cs, "connect", map[string]any{"pid": tickerPid})["session"].(string)
				uri := resourceURI(id, core.ModeA11y)
				found := false
				for r, err := range cs.Resources(ctx, nil) {
					if err != nil {
						t.Fatal(err)
					}
					found = found || r.URI == uri
				}
				if !found {
					t.Fatalf("resources/list lacks %s", uri)
				}
				l.subscribe(t, cs, era.version, uri)
				first := readTree(t, cs, uri)
				if !first.Snapshot || len(first.Events) != 3 {
					t.Fatalf("first read: snapshot=%v %d events", first.Snapshot, len(first.Events))
				}
				l.desk.SetTree(tickerPid, tickerTree("Tick 1"))
				// An update may also come from before the change (the
				// watcher's first read, whose events the read above took):
				// read on each until the change is in.
				for {
					waitUpdate(t, updates, uri)
					got := readTree(t, cs, uri)
					if len(got.Events) == 0 && !got.Snapshot {
						continue
					}
					if got.Snapshot || len(got.Events) != 1 || got.Events[0].Key != "t/label" ||
						fmt.Sprint(got.Events[0].Changes["name"]) != "{Tick 0 Tick 1}" {
						t.Fatalf("after the change: %+v", got)
					}
					break
				}
				if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
					t.Fatalf("unsubscribe: %v", err)
				}
				// The session is the MCP client's (clients.go): the test
				// watches the desktop's side of the watcher. The session's
				// event log keeps one watch (from connect); the
				// subscription added none of its own.
				if n := l.desk.Watchers(tickerPid); n != 1 {
					t.Fatalf("%d watches after the unsubscribe, want the event log's one", n)
				}
				// Disconnect removes the resource.
				mustOK(t, cs, "disconnect", map[string]any{"session": id})
				if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil {
					t.Fatal("a disconnected session's resource still reads")
				}
				if n := l.desk.Watchers(tickerPid); n != 0 {
					t.Fatalf("the watcher outlived the disconnect: %d watches", n)
				}
			})
		})
	}
}

func TestTreeChangesAndEventsTools(t *testing.T) {
	t.Parallel()
	l := newLiveServer()
	cs, _, _ := l.client(t, "")
	id := mustOK(t, cs, "connect", map[string]any{"pid": tickerPid})["session"].(string)
	out := mustOK(t, cs, "get_a11y_tree_changes", map[string]any{"session": id})
	if out["snapshot"] != true || out["count"].(float64) != 3 {
		t.Fatalf("first call: %v", out)
	}
	// The log runs from connect: a change made before the first
	// get_events is in its answer, and a call right after a change has it.
	l.desk.SetTree(tickerPid, tickerTree("Tick 1"))
	ev := mustOK(t, cs, "get_events", map[string]any{"session": id})
	got := ev["events"].([]any)
	if ev["note"] != nil || len(got) != 1 || got[0].(map[string]any)["type"] != core.EventNameChanged || got[0].(map[string]any)["new"] != "Tick 1" {
		t.Fatalf("the first get_events after a rename: %v", ev)
	}
	out = mustOK(t, cs, "get_a11y_tree_changes", map[string]any{"session": id})
	evs := out["events"].([]any)
	if out["snapshot"] != false || len(evs) != 1 {
		t.Fatalf("after a change: %v", out)
	}
	// types filters; what it passes over counts as read.
	l.desk.SetTree(tickerPid, tickerTree("Tick 2"))
	if got := mustOK(t, cs, "get_events", map[string]any{"session": id, "types": []string{"windowOpened", "valueChanged"}})["events"].([]any); len(got) != 0 {
		t.Fatalf("types [windowOpened valueChanged] after a rename: %v", got)
	}
	if got := mustOK(t, cs, "get_events", map[string]any{"session": id})["events"].([]any); len(got) != 0 {
		t.Fatalf("after a filtered call: %v", got)
	}
	if got := mustOK(t, cs, "get_events", map[string]any{"session": id, "since": 0, "types": []string{"nameChanged"}})["events"].([]any); len(got) != 2 {
		t.Fatalf("since 0, types [nameChanged]: %v", got)
	}
	// State churn on an unnamed filler is left out and counted, unless asked for.
	filler := fake.Keyed("t/filler", "filler", "")
	withFiller := func(states ...string) *platform.Node {
		root := tickerTree("Tick 2")
		f := *filler
		f.States = fake.States(states...)
		root.Children[0].Children = append(root.Children[0].Children, &f)
		return root
	}
	l.desk.SetTree(tickerPid, withFiller())
	mustOK(t, cs, "get_events", map[string]any{"session": id})
	l.desk.SetTree(tickerPid, withFiller("showing"))
	churn := mustOK(t, cs, "get_events", map[string]any{"session": id})
	if len(churn["events"].([]any)) != 0 || churn["churnLeftOut"] != 1.0 {
		t.Fatalf("a filler shown, by default: %v", churn)
	}
	since := churn["next"].(float64) - 1
	kept := mustOK(t, cs, "get_events", map[string]any{"session": id, "since": since, "churn": true})["events"].([]any)
	if len(kept) != 1 || kept[0].(map[string]any)["type"] != core.EventStateChanged || kept[0].(map[string]any)["state"] != "showing" {
		t.Fatalf("a filler shown, with churn: %v", kept)
	}
	bad := mustFail(t, cs, "get_events", map[string]any{"session": id, "types": []string{"windowOpened", "clicked"}}, core.CodeInvalidArgument)
	if msg, _ := bad["error"].(string); !strings.Contains(msg, `"clicked"`) || !strings.Contains(msg, "focusMoved") {
		t.Errorf("an unknown type: %q", msg)
	}
	mustFail(t, cs, "get_a11y_tree_changes", map[string]any{"session": id, "view": "bogus"}, core.CodeInvalidArgument)
	mustFail(t, cs, "get_visual_tree_changes", map[string]any{"session": id}, core.CodeWrongTree)
	mustFail(t, cs, "get_events", map[string]any{"session": id, "limit": 0}, core.CodeInvalidArgument)
	mustFail(t, cs, "get_events", map[string]any{"session": "nope"}, core.CodeUnknownSession)
}

// TestSubscriptionsLeaveNothingBehind: 200 connect, subscribe, disconnect
// cycles, half ended by unsubscribe and the disconnect tool, half by the
// client's transport closing first, leave no goroutine and no watch.
func TestSubscriptionsLeaveNothingBehind(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		l := newLiveServer()
		ctx := context.Background()
		before := bubbleGoroutines()
		for i := range 200 {
			version := eras[i%2].version
			cs, updates, end := l.client(t, version)
			id := mustOK(t, cs, "connect", map[string]any{"pid": tickerPid})["session"].(string)
			uri := resourceURI(id, core.ModeA11y)
			l.subscribe(t, cs, version, uri)
			if first := readTree(t, cs, uri); !first.Snapshot {
				t.Fatalf("cycle %d: the first read is no snapshot", i)
			}
			l.desk.SetTree(tickerPid, tickerTree(fmt.Sprint("Tick ", i+1)))
			waitUpdate(t, updates, uri)
			if i%4 < 2 {
				if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
					t.Fatal(err)
				}
				mustOK(t, cs, "disconnect", map[string]any{"session": id})
				end()
			} else {
				end() // the transport closes with the subscription open
				deadline := time.Now().Add(10 * time.Second)
				for l.desk.Watchers(tickerPid) != 0 && time.Now().Before(deadline) {
					time.Sleep(time.Millisecond)
				}
				if l.desk.Watchers(tickerPid) != 0 {
					t.Fatalf("cycle %d: the watcher outlived its client's transport", i)
				}
				// The session closes with its client (clients.go).
				for l.sessions.Open() != 0 && time.Now().Before(deadline) {
					time.Sleep(time.Millisecond)
				}
				if n := l.sessions.Open(); n != 0 {
					t.Fatalf("cycle %d: %d sessions outlived their client's transport", i, n)
				}
			}
		}
		deadline := time.Now().Add(10 * time.Second)
		after := bubbleGoroutines()
		for after > before && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
			after = bubbleGoroutines()
		}
		if after > before || l.desk.Watchers(tickerPid) != 0 {
			buf := make([]byte, 1<<20)
			t.Fatalf("after 200 cycles: %d goroutines (from %d), %d watches\n%s", after, before, l.desk.Watchers(tickerPid), buf[:runtime.Stack(buf, true)])
		}
	})
}
