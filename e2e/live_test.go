//go:build linux

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// Live changes through a real `uiscope mcp` process: subscriptions to a
// session's resource in both protocol eras, the patches read back after
// each notifications/resources/updated, compared with what the app did.

// liveMCP is a `uiscope mcp` process whose client records resource updates
// and subscription acknowledgements.
type liveMCP struct {
	*mcpServer
	version string
	updates chan liveUpdate
	acks    chan struct{}
	pid     int
}

type liveUpdate struct {
	uri string
	at  time.Time
}

func startLiveMCP(t testing.TB, d *testdesk.Desk, version string, args ...string) *liveMCP {
	t.Helper()
	cmd := exec.Command(uiscopeBin, append([]string{"mcp"}, args...)...)
	cmd.Env = d.Env()
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	l := &liveMCP{version: version, updates: make(chan liveUpdate, 4096), acks: make(chan struct{}, 64)}
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-live", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			select {
			case l.updates <- liveUpdate{r.Params.URI, time.Now()}:
			default:
			}
		},
	})
	// A 2026-07-28 subscription is a subscriptions/listen request that
	// stays open; the server says it holds with
	// notifications/subscriptions/acknowledged.
	client.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "notifications/subscriptions/acknowledged" {
				l.acks <- struct{}{}
			}
			return next(ctx, method, req)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting to uiscope mcp (protocol %q): %v\nstderr:\n%s", version, err, stderr.String())
	}
	t.Cleanup(func() { cs.Close() })
	l.mcpServer = &mcpServer{cs: cs, stderr: stderr}
	l.pid = cmd.Process.Pid
	return l
}

// subscribe returns once the server holds the subscription.
func (l *liveMCP) subscribe(t testing.TB, uri string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), mcpCallLimit)
	defer cancel()
	if err := l.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatalf("subscribe %s: %v\nstderr:\n%s", uri, err, l.stderr.String())
	}
	if l.version == "2025-11-25" {
		return // the answer to resources/subscribe says so
	}
	select {
	case <-l.acks:
	case <-ctx.Done():
		t.Fatalf("subscribe %s: no notifications/subscriptions/acknowledged", uri)
	}
}

func (l *liveMCP) unsubscribe(t testing.TB, uri string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), mcpCallLimit)
	defer cancel()
	if err := l.cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
		t.Fatalf("unsubscribe %s: %v", uri, err)
	}
}

// liveChange is one event of a patch, as the resource shows it.
type liveChange struct {
	Type      string                     `json:"type"`
	Key       string                     `json:"key"`
	Ref       string                     `json:"ref"`
	ParentKey string                     `json:"parentKey"`
	Index     int                        `json:"index"`
	Path      []int                      `json:"path"`
	Element   *elem                      `json:"element"`
	Changes   map[string]json.RawMessage `json:"changes"`
}

type liveTree struct {
	Session   string       `json:"session"`
	Snapshot  bool         `json:"snapshot"`
	Tree      string       `json:"tree"`
	NodeCount int          `json:"nodeCount"`
	Events    []liveChange `json:"events"`
	More      bool         `json:"more"`
}

// read reads uri as a client should: again while more says events were
// held back for size, each read within the default budget (32000 bytes);
// the pages' events joined, snapshot as the first page says.
func (l *liveMCP) read(t testing.TB, uri string) liveTree {
	t.Helper()
	var all liveTree
	for i := 0; ; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), mcpCallLimit)
		res, err := l.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		cancel()
		if err != nil {
			t.Fatalf("read %s: %v\nstderr:\n%s", uri, err, l.stderr.String())
		}
		if len(res.Contents) != 1 || res.Contents[0].MIMEType != "application/json" {
			t.Fatalf("read %s: %d contents, want one JSON text", uri, len(res.Contents))
		}
		if n := len(res.Contents[0].Text); n > 32000 {
			t.Fatalf("read %s: %d bytes, over the default budget of 32000", uri, n)
		}
		var out liveTree
		if err := json.Unmarshal([]byte(res.Contents[0].Text), &out); err != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		if i == 0 {
			all = out
		} else {
			if out.Snapshot {
				t.Fatalf("read %s: page %d says snapshot", uri, i)
			}
			all.Events = append(all.Events, out.Events...)
			all.Tree, all.NodeCount, all.More = out.Tree, out.NodeCount, out.More
		}
		if !out.More {
			return all
		}
		if i > 10000 {
			t.Fatalf("read %s: paging never ends", uri)
		}
	}
}

// next waits for the next update of uri (others are skipped).
func (l *liveMCP) next(t testing.TB, uri string) liveUpdate {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case u := <-l.updates:
			if u.uri == uri {
				return u
			}
		case <-deadline:
			t.Fatalf("no notifications/resources/updated for %s within 60 s\nstderr:\n%s", uri, l.stderr.String())
		}
	}
}

// drain forgets the updates received so far.
func (l *liveMCP) drain() int {
	n := 0
	for {
		select {
		case <-l.updates:
			n++
		default:
			return n
		}
	}
}

func (l *liveMCP) resources(t testing.TB) []string {
	t.Helper()
	var uris []string
	for r, err := range l.cs.Resources(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		uris = append(uris, r.URI)
	}
	return uris
}

var tickName = regexp.MustCompile(`^Tick (\d+)$`)

// tickLabel finds the timer label in a snapshot.
func tickLabel(t testing.TB, snap liveTree) (key string, n int) {
	t.Helper()
	for _, e := range snap.Events {
		if e.Type == "added" && e.Element != nil && e.Element.Role == "label" {
			if m := tickName.FindStringSubmatch(e.Element.Name); m != nil {
				n, _ = strconv.Atoi(m[1])
				return e.Key, n
			}
		}
	}
	t.Fatalf("no Tick label among the snapshot's %d elements", len(snap.Events))
	return "", 0
}

// checkTicks asserts that a patch is the label's ticks and nothing else:
// changed events of its key, of its name alone, each from the last one's
// new name, the first from prev. It returns the last number. A patch may
// be empty: a read after one notification takes what a later one was
// about to announce.
func checkTicks(t testing.TB, p liveTree, key string, prev int) int {
	t.Helper()
	if p.Snapshot {
		t.Fatalf("after an update: a snapshot of %d events, want the tick's change", len(p.Events))
	}
	for _, e := range p.Events {
		var name struct{ Old, New string }
		if e.Type != "changed" || e.Key != key || len(e.Changes) != 1 || json.Unmarshal(e.Changes["name"], &name) != nil {
			t.Fatalf("an event that is not the tick: %+v (changes %s)", e, fmt.Sprint(e.Changes))
		}
		if name.Old != fmt.Sprintf("Tick %d", prev) {
			t.Fatalf("tick went from %q, want from Tick %d", name.Old, prev)
		}
		m := tickName.FindStringSubmatch(name.New)
		if m == nil {
			t.Fatalf("tick became %q", name.New)
		}
		n, _ := strconv.Atoi(m[1])
		if n <= prev {
			t.Fatalf("tick went back from %d to %d", prev, n)
		}
		prev = n
	}
	return prev
}

// ticksLogged is the last tick the fixture logged.
func ticksLogged(t testing.TB, path string) int {
	t.Helper()
	n := 0
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, err := strconv.Atoi(strings.Fields(sc.Text())[0]); err == nil {
			n = k
		}
	}
	return n
}

// waitTicks waits until the app has ticked k more times than from.
func waitTicks(t testing.TB, log string, from, k int) int {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if n := ticksLogged(t, log); n >= from+k {
			return n
		} else if time.Now().After(deadline) {
			t.Fatalf("the fixture did not tick %d times past %d (at %d)", k, from, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestLiveTimerLabel: subscribe, let the fixture's own 500 ms timer change
// its label, receive resources/updated, read back exactly that change;
// unsubscribing stops the notifications; disconnect removes the resource.
func TestLiveTimerLabel(t *testing.T) { testdesk.ForEach(t, testLiveTimerLabel) }

func testLiveTimerLabel(t *testing.T, d *testdesk.Desk) {
	log := filepath.Join(t.TempDir(), "ticks")
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "live ticks", "--timer-label", "500", "--tick-log", log)
	for _, era := range mcpEras {
		t.Run(era.name, func(t *testing.T) {
			s := startLiveMCP(t, d, era.version)
			session := s.connect(t, map[string]any{"pid": app.Pid})
			uri := "uiscope://session/" + session + "/a11y-tree"
			if uris := s.resources(t); !contains(uris, uri) {
				t.Fatalf("resources/list %v lacks %s", uris, uri)
			}
			s.subscribe(t, uri)
			snap := s.read(t, uri)
			if !snap.Snapshot || snap.NodeCount < 10 || len(snap.Events) != snap.NodeCount || !strings.Contains(snap.Tree, "Tick") {
				t.Fatalf("first read: snapshot=%v, %d events for %d nodes; tree:\n%.500s", snap.Snapshot, len(snap.Events), snap.NodeCount, snap.Tree)
			}
			key, n := tickLabel(t, snap)
			s.drain() // what came before the snapshot's read is in it
			for start := n; n < start+3; {
				s.next(t, uri)
				n = checkTicks(t, s.read(t, uri), key, n)
			}

			// Unsubscribed, nothing more comes: one window of ticks for
			// what was on its way, a second that must stay quiet.
			s.unsubscribe(t, uri)
			at := waitTicks(t, log, ticksLogged(t, log), 3)
			s.drain()
			waitTicks(t, log, at, 3)
			if k := s.drain(); k != 0 {
				t.Fatalf("%d notifications after unsubscribing", k)
			}

			s.ok(t, "disconnect", map[string]any{"session": session})
			if contains(s.resources(t), uri) {
				t.Fatalf("resources/list still has %s after disconnect", uri)
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestLiveDialog: opening a dialog in gtk3-widget-factory (its About
// button) arrives as one added dialog under the application with its
// subtree; closing it as its removal.
func TestLiveDialog(t *testing.T) { testdesk.ForEach(t, testLiveDialog) }

func testLiveDialog(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, "gtk3-widget-factory")
	for _, era := range mcpEras {
		t.Run(era.name, func(t *testing.T) {
			s := startLiveMCP(t, d, era.version, "--allow-input")
			session := s.connect(t, map[string]any{"pid": app.Pid})
			uri := "uiscope://session/" + session + "/a11y-tree"
			s.subscribe(t, uri)
			snap := s.read(t, uri)
			rootKey := snap.Events[0].Key
			about := findOne(t, s.mcpServer, session, map[string]any{"name": "About Widget Factory", "role": "push button"})
			s.drain()
			s.ok(t, "invoke", map[string]any{"session": session, "element": about.Ref})

			// The dialog may arrive over several patches as it builds.
			var dialog string
			added := map[string]bool{}
			for dialog == "" {
				s.next(t, uri)
				p := s.read(t, uri)
				if p.Snapshot {
					t.Fatalf("a dialog opening made a snapshot (%d events)", len(p.Events))
				}
				for _, e := range p.Events {
					if e.Type != "added" {
						continue
					}
					if e.ParentKey != rootKey && !added[e.ParentKey] && e.Element.Role != "dialog" {
						// An element added inside the existing tree is
						// fine (a focus ring, a tooltip), but never
						// hanging from an unknown parent.
						if !strings.HasPrefix(e.ParentKey, "atspi:") {
							t.Errorf("added %s under %q", e.Key, e.ParentKey)
						}
					}
					added[e.Key] = true
					if e.Element.Role == "dialog" && e.ParentKey == rootKey {
						dialog = e.Key
						if !strings.Contains(e.Element.Name, "About") {
							t.Errorf("the dialog is named %q", e.Element.Name)
						}
					}
				}
			}
			if len(added) < 5 {
				t.Errorf("the About dialog came with %d elements; want its subtree", len(added))
			}

			// Close it: its removal arrives.
			s.ok(t, "press_key", map[string]any{"session": session, "keys": "Escape"})
			for gone := false; !gone; {
				s.next(t, uri)
				for _, e := range s.read(t, uri).Events {
					gone = gone || (e.Type == "removed" && e.Key == dialog)
				}
			}
		})
	}
}

// TestLiveTenSessions: ten sessions on two ticking apps, all subscribed at
// once, each receive their own patches: their own app's label, from their
// own snapshot on.
func TestLiveTenSessions(t *testing.T) { testdesk.ForEach(t, testLiveTenSessions) }

func testLiveTenSessions(t *testing.T, d *testdesk.Desk) {
	apps := []*testdesk.App{
		d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "live ten A", "--timer-label", "500"),
		d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "live ten B", "--timer-label", "700", "--x", "400"),
	}
	s := startLiveMCP(t, d, "")
	type sub struct {
		uri, key string
		app      *testdesk.App
		tick     int
	}
	var subs []*sub
	for i := range 10 {
		app := apps[i%2]
		session := s.connect(t, map[string]any{"pid": app.Pid})
		uri := "uiscope://session/" + session + "/a11y-tree"
		s.subscribe(t, uri)
		snap := s.read(t, uri)
		key, n := tickLabel(t, snap)
		if !strings.Contains(key, app.Bus+"/") {
			t.Fatalf("session %s on pid %d: its label's key %s is not its app's (%s)", session, app.Pid, key, app.Bus)
		}
		subs = append(subs, &sub{uri: uri, key: key, app: app, tick: n})
	}
	// Each session hears of its app's next ticks and reads exactly them.
	pending := map[string]*sub{}
	for _, x := range subs {
		pending[x.uri] = x
	}
	deadline := time.After(120 * time.Second)
	got := map[string]int{}
	for len(pending) > 0 {
		select {
		case u := <-s.updates:
			x := pending[u.uri]
			if x == nil {
				continue
			}
			before := x.tick
			if x.tick = checkTicks(t, s.read(t, x.uri), x.key, x.tick); x.tick == before {
				continue
			}
			if got[x.uri]++; got[x.uri] == 2 {
				delete(pending, x.uri)
			}
		case <-deadline:
			t.Fatalf("%d of 10 sessions got no two patches: %v", len(pending), got)
		}
	}
}

// TestLiveOverflow: more pending events than the cap (10,000) turn into a
// snapshot: 5,001 labels renamed twice while nobody reads.
func TestLiveOverflow(t *testing.T) { testdesk.ForEach(t, testLiveOverflow) }

func testLiveOverflow(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "live overflow", "--many-labels", "5001")
	s := startLiveMCP(t, d, "2025-11-25")
	session := s.connect(t, map[string]any{"pid": app.Pid})
	uri := "uiscope://session/" + session + "/a11y-tree"
	s.subscribe(t, uri)
	snap := s.read(t, uri)
	if !snap.Snapshot || snap.NodeCount < 5001 {
		t.Fatalf("first read: snapshot=%v of %d nodes", snap.Snapshot, snap.NodeCount)
	}
	// Each rename is waited for through the tool's own read (a feed of its
	// own), so the watcher diffs each separately: 5,001 events each. That
	// read takes its turn after the watcher's of the same 5,001 labels
	// (seconds each on a loaded machine), hence a minute to read in.
	for k := 1; k <= 2; k++ {
		s.drain()
		if err := syscall.Kill(app.Pid, syscall.SIGUSR2); err != nil {
			t.Fatal(err)
		}
		until(t, fmt.Sprintf("rename %d seen by the server", k), func(ctx context.Context) (bool, string) {
			out := s.ok(t, "find_elements", map[string]any{"session": session, "name": fmt.Sprintf("Item 5001 (%d)", k), "nameMatch": "exact", "timeoutMs": 60000})
			return out["matched"] == float64(1), fmt.Sprint(out["matched"])
		})
		s.next(t, uri)
	}
	p := s.read(t, uri)
	if !p.Snapshot || len(p.Events) != p.NodeCount {
		t.Fatalf("past the cap: snapshot=%v with %d events for %d nodes; want a snapshot", p.Snapshot, len(p.Events), p.NodeCount)
	}
	for _, e := range p.Events {
		if e.Element != nil && strings.HasPrefix(e.Element.Name, "Item 7 ") && e.Element.Name != "Item 7 (2)" {
			t.Fatalf("the snapshot is not of the latest tree: %q", e.Element.Name)
		}
	}
}

// TestLiveWatchCLI: `uiscope watch` prints a snapshot and then the label's
// ticks, as JSON lines and with --outline; Ctrl+C ends it with 0, the
// application's exit with 1.
func TestLiveWatchCLI(t *testing.T) { testdesk.ForEach(t, testLiveWatchCLI) }

func testLiveWatchCLI(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "live watch", "--timer-label", "300")
	start := func(args ...string) (*exec.Cmd, *bufio.Scanner, *syncBuffer) {
		cmd := exec.Command(uiscopeBin, append([]string{"watch", "--pid", strconv.Itoa(app.Pid)}, args...)...)
		cmd.Env = d.Env()
		stderr := &syncBuffer{}
		cmd.Stderr = stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		return cmd, sc, stderr
	}
	line := func(sc *bufio.Scanner, stderr *syncBuffer) string {
		t.Helper()
		got := make(chan bool, 1)
		go func() { got <- sc.Scan() }()
		select {
		case ok := <-got:
			if !ok {
				t.Fatalf("uiscope watch ended; stderr:\n%s", stderr.String())
			}
			return sc.Text()
		case <-time.After(60 * time.Second):
			t.Fatalf("uiscope watch printed nothing for 60 s; stderr:\n%s", stderr.String())
		}
		return ""
	}

	cmd, sc, stderr := start()
	var first struct {
		Snapshot bool         `json:"snapshot"`
		Events   []liveChange `json:"events"`
	}
	if err := json.Unmarshal([]byte(line(sc, stderr)), &first); err != nil || !first.Snapshot {
		t.Fatalf("first line: %v snapshot=%v", err, first.Snapshot)
	}
	key, n := tickLabel(t, liveTree{Snapshot: true, Events: first.Events})
	for start := n; n < start+2; {
		var p liveTree
		if err := json.Unmarshal([]byte(line(sc, stderr)), &p); err != nil {
			t.Fatal(err)
		}
		n = checkTicks(t, p, key, n)
	}
	_ = cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("watch after Ctrl+C: %v; stderr:\n%s", err, stderr.String())
	}

	cmd, sc, stderr = start("--outline")
	if l := line(sc, stderr); !strings.HasPrefix(l, "# snapshot, ") {
		t.Fatalf("outline's first line: %q", l)
	}
	tick := regexp.MustCompile(`^~ \[a11y:e\d+\] name "Tick \d+" -> "Tick \d+"$`)
	for seen := 0; seen < 2; {
		if l := line(sc, stderr); tick.MatchString(l) {
			seen++
		} else if strings.HasPrefix(l, "~") || strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-") {
			t.Fatalf("a change that is not the tick: %q", l)
		}
	}
	_ = app.Proc.Stop()
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "[ownershipLost]") {
		t.Fatalf("watch after the app exited: %v; stderr:\n%s", err, stderr.String())
	}
}

// liveEvent is one get_events event.
type liveEvent struct {
	Seq   int64  `json:"seq"`
	Type  string `json:"type"`
	Ref   string `json:"ref"`
	Key   string `json:"key"`
	Role  string `json:"role"`
	Name  string `json:"name"`
	State string `json:"state"`
	On    *bool  `json:"on"`
}

// TestLiveEvents: get_events tells what happened since the last call in
// gtk3-widget-factory: the About dialog opened and closed (with its title),
// the focus moved to the entry the focus tool focused.
func TestLiveEvents(t *testing.T) { testdesk.ForEach(t, testLiveEvents) }

func testLiveEvents(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, "gtk3-widget-factory")
	s := startLiveMCP(t, d, "", "--allow-input")
	session := s.connect(t, map[string]any{"pid": app.Pid})
	// The queue runs from connect: the first call says nothing of starting.
	first := s.ok(t, "get_events", map[string]any{"session": session})
	if first["note"] != nil {
		t.Fatalf("the first get_events: %v", first)
	}
	// waitEvent calls get_events until one of type typ satisfies ok.
	waitEvent := func(typ string, ok func(e liveEvent) bool) liveEvent {
		t.Helper()
		var seen []string
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			out := s.ok(t, "get_events", map[string]any{"session": session})
			for _, e := range decode[[]liveEvent](t, out["events"]) {
				if e.Type == typ && ok(e) {
					return e
				}
				seen = append(seen, e.Type+" "+e.Role+" "+e.Name)
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("no %s event; saw %q", typ, seen)
		return liveEvent{}
	}

	about := findOne(t, s.mcpServer, session, map[string]any{"name": "About Widget Factory", "role": "push button"})
	s.ok(t, "invoke", map[string]any{"session": session, "element": about.Ref})
	opened := waitEvent("windowOpened", func(e liveEvent) bool { return e.Role == "dialog" })
	if !strings.Contains(opened.Name, "About") {
		t.Errorf("the dialog opened as %q", opened.Name)
	}
	s.ok(t, "press_key", map[string]any{"session": session, "keys": "Escape"})
	waitEvent("windowClosed", func(e liveEvent) bool { return e.Ref == opened.Ref && e.Name == opened.Name })
	// Events name elements by ref; their keys only when asked for.
	if opened.Key != "" {
		t.Errorf("windowOpened carries key %q without fields", opened.Key)
	}
	keyed := decode[[]liveEvent](t, s.ok(t, "get_events", map[string]any{"session": session, "since": 0, "limit": 1000, "fields": []string{"key"}})["events"])
	if i := slices.IndexFunc(keyed, func(e liveEvent) bool { return e.Seq == opened.Seq }); i < 0 || keyed[i].Key == "" {
		t.Errorf("with fields [key], the windowOpened event (seq %d) has no key: %+v", opened.Seq, keyed)
	}

	entry := findOne(t, s.mcpServer, session, map[string]any{"role": "text", "states": []string{"editable", "showing", "sensitive", "focusable", "!focused"}})
	s.ok(t, "focus", map[string]any{"session": session, "element": entry.Ref})
	// The element has its ref for the whole session (find leaves its key
	// out unless asked for).
	waitEvent("focusMoved", func(e liveEvent) bool { return e.Ref == entry.Ref })

	// since re-reads from a seq; the queue keeps what was read.
	again := s.ok(t, "get_events", map[string]any{"session": session, "since": 0, "limit": 1000})
	if evs := decode[[]liveEvent](t, again["events"]); len(evs) == 0 || evs[0].Seq != 1 {
		t.Errorf("get_events since 0: %v", again)
	}
}

// TestLiveVisualChanges: get_visual_tree_changes on a visual session of
// gtk3-widget-factory: a snapshot of its windows, then the About dialog's
// window added (opened through an a11y session of the same app) and
// removed; the a11y tool is wrongTree there.
func TestLiveVisualChanges(t *testing.T) { testdesk.ForEach(t, testLiveVisualChanges) }

func testLiveVisualChanges(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, "gtk3-widget-factory")
	s := startLiveMCP(t, d, "", "--allow-input")
	visual := s.connect(t, map[string]any{"pid": app.Pid, "mode": "visual"})
	a11y := s.connect(t, map[string]any{"pid": app.Pid})
	snap := s.ok(t, "get_visual_tree_changes", map[string]any{"session": visual})
	if snap["snapshot"] != true || snap["count"].(float64) < 2 {
		t.Fatalf("first call: %v", snap)
	}
	s.fail(t, "get_a11y_tree_changes", map[string]any{"session": visual}, "wrongTree")
	uri := "uiscope://session/" + visual + "/visual-tree"
	if !contains(s.resources(t), uri) {
		t.Fatalf("resources/list lacks %s", uri)
	}

	about := findOne(t, s.mcpServer, a11y, map[string]any{"name": "About Widget Factory", "role": "push button"})
	s.ok(t, "invoke", map[string]any{"session": a11y, "element": about.Ref})
	var window string
	until(t, "the About dialog's window added", func(context.Context) (bool, string) {
		out := s.ok(t, "get_visual_tree_changes", map[string]any{"session": visual})
		for _, e := range decode[[]liveChange](t, out["events"]) {
			if e.Type == "added" && e.Element != nil && strings.Contains(e.Element.Name, "About") {
				window = e.Key
				return true, ""
			}
		}
		return false, fmt.Sprint(out["events"])
	})
	s.ok(t, "press_key", map[string]any{"session": a11y, "keys": "Escape"})
	until(t, "the About dialog's window removed", func(context.Context) (bool, string) {
		out := s.ok(t, "get_visual_tree_changes", map[string]any{"session": visual})
		for _, e := range decode[[]liveChange](t, out["events"]) {
			if e.Type == "removed" && e.Key == window {
				return true, ""
			}
		}
		return false, fmt.Sprint(out["events"])
	})
}
