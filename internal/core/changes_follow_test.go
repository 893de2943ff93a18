package core

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
)

const livePid = 4242

func liveDesk(label string) *fake.Desktop {
	d := fake.New()
	d.AddApp(fake.App{Pid: livePid, Name: "ticker", Tree: appTree(label)})
	return d
}

func liveSession(t *testing.T, d *fake.Desktop) (*Sessions, *Session) {
	t.Helper()
	m := NewSessions(d.Platform())
	s, err := m.Connect(context.Background(), AppSpec{Pid: livePid}, "")
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = m.Disconnect(context.Background(), s.ID) }) // stops a watcher a failed test left
	return m, s
}

// recv waits for a notification (never on a fixed sleep: the condition).
func recv(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("no notification: %s", what)
	}
}

func TestFollowCachesThePatchBeforeNotifying(t *testing.T) {
	d := liveDesk("Tick 0")
	m, s := liveSession(t, d)
	notified := make(chan struct{}, 16)
	var mu sync.Mutex
	var sawAtNotify []int
	stop, err := m.Follow(context.Background(), s.ID, "", func() {
		_, res, _ := s.live.feeds()
		mu.Lock()
		sawAtNotify = append(sawAtNotify, res.Pending())
		mu.Unlock()
		notified <- struct{}{}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	recv(t, notified, "the first read")
	p, err := m.ResourcePatch(context.Background(), s.ID, "", time.Second, 0)
	if err != nil || !p.Snapshot || len(p.Events) != 5 {
		t.Fatalf("first resource read: %v snapshot=%v %d events", err, p.Snapshot, len(p.Events))
	}
	d.SetTree(livePid, appTree("Tick 1"))
	recv(t, notified, "after the label changed")
	p, _ = m.ResourcePatch(context.Background(), s.ID, "", time.Second, 0)
	if len(p.Events) != 1 || p.Events[0].Changes["name"].New != "Tick 1" {
		t.Fatalf("after a rename: %q", summaries(p.Events))
	}
	mu.Lock()
	defer mu.Unlock()
	for i, n := range sawAtNotify {
		if n == 0 {
			t.Fatalf("notification %d came before its patch was cached", i)
		}
	}
	// The semantic log saw the rename.
	_, _, log := s.live.feeds()
	r := log.Take(nil, 10, EventFilter{})
	if len(r.Events) != 1 || r.Events[0].Type != EventNameChanged || *r.Events[0].New != "Tick 1" {
		t.Fatalf("events: %+v", r.Events)
	}
}

func TestFollowStopsWithDisconnectAndUnfollow(t *testing.T) {
	d := liveDesk("x")
	m, s := liveSession(t, d)
	first := make(chan struct{}, 16)
	stop, err := m.Follow(context.Background(), s.ID, "", func() { first <- struct{}{} })
	if err != nil {
		t.Fatal(err)
	}
	recv(t, first, "the first read") // the watch is open by then
	stop2, _ := m.Follow(context.Background(), s.ID, "", func() {})
	if !m.Following(s) || d.Watchers(livePid) != 1 {
		t.Fatalf("two listeners: following=%v, %d watches; want one watcher", m.Following(s), d.Watchers(livePid))
	}
	stop()
	if !m.Following(s) {
		t.Fatal("the watcher stopped while a listener remained")
	}
	stop2()
	if m.Following(s) || d.Watchers(livePid) != 0 {
		t.Fatalf("after the last unfollow: following=%v, %d watches", m.Following(s), d.Watchers(livePid))
	}
	if _, err := m.Follow(context.Background(), s.ID, "", func() {}); err != nil {
		t.Fatal(err)
	}
	if err := m.Disconnect(context.Background(), s.ID); err != nil {
		t.Fatal(err)
	}
	if m.Following(s) || d.Watchers(livePid) != 0 {
		t.Fatalf("after disconnect: following=%v, %d watches", m.Following(s), d.Watchers(livePid))
	}
	if _, err := m.Follow(context.Background(), s.ID, "", func() {}); err == nil || AsError(err).Code != CodeUnknownSession {
		t.Fatalf("following a disconnected session: %v", err)
	}
}

func TestFollowEndsWhenTheAppExits(t *testing.T) {
	old := FollowPoll
	FollowPoll = 20 * time.Millisecond // the exit raises no event in the fake
	defer func() { FollowPoll = old }()
	d := liveDesk("x")
	m, s := liveSession(t, d)
	notified := make(chan struct{}, 16)
	stop, _ := m.Follow(context.Background(), s.ID, "", func() { notified <- struct{}{} })
	defer stop()
	recv(t, notified, "the first read")
	d.Exit(livePid)
	recv(t, notified, "the app's exit")
	deadline := time.Now().Add(10 * time.Second)
	for m.Following(s) && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if m.Following(s) {
		t.Fatal("the watcher outlived its application")
	}
	if e := m.FollowErr(s); e == nil || AsError(e).Code != CodeOwnershipLost {
		t.Fatalf("FollowErr = %v", e)
	}
}

func TestFollowLeavesNoGoroutines(t *testing.T) {
	d := liveDesk("x")
	m := NewSessions(d.Platform())
	before := runtime.NumGoroutine()
	for i := range 200 {
		s, err := m.Connect(context.Background(), AppSpec{Pid: livePid}, "")
		if err != nil {
			t.Fatal(err)
		}
		notified := make(chan struct{}, 1)
		stop, _ := m.Follow(context.Background(), s.ID, "", func() {
			select {
			case notified <- struct{}{}:
			default:
			}
		})
		recv(t, notified, "a cycle's first read")
		if i%2 == 0 {
			stop()
		}
		if err := m.Disconnect(context.Background(), s.ID); err != nil {
			t.Fatal(err)
		}
	}
	// Goroutines of the test framework may come and go meanwhile: the count
	// must come back, not be there at once.
	after := runtime.NumGoroutine()
	for deadline := time.Now().Add(10 * time.Second); after > before && time.Now().Before(deadline); after = runtime.NumGoroutine() {
		time.Sleep(time.Millisecond)
	}
	if after > before || d.Watchers(livePid) != 0 {
		buf := make([]byte, 1<<20)
		t.Fatalf("after 200 cycles: %d goroutines (from %d), %d watches open\n%s", after, before, d.Watchers(livePid), buf[:runtime.Stack(buf, true)])
	}
}

func TestTreeChangesTool(t *testing.T) {
	d := liveDesk("Tick 0")
	m, s := liveSession(t, d)
	ctx := context.Background()
	second := 1000
	changes := func(view string) ChangesRequest {
		return ChangesRequest{Kind: KindA11y, View: view, TimeoutMs: &second}
	}
	p, err := m.TreeChanges(ctx, s.ID, changes(""))
	if err != nil || !p.Snapshot || len(p.Events) != 5 {
		t.Fatalf("first call: %v snapshot=%v %d", err, p.Snapshot, len(p.Events))
	}
	d.SetTree(livePid, appTree("Tick 1"))
	p, _ = m.TreeChanges(ctx, s.ID, changes(""))
	if p.Snapshot || len(p.Events) != 1 {
		t.Fatalf("second call: %q", summaries(p.Events))
	}
	// The event's ref resolves in the session.
	if n, _, _, err := s.Resolve(p.Events[0].Ref); err != nil || n.Name != "Tick 1" {
		t.Fatalf("resolving %s: %v", p.Events[0].Ref, err)
	}
	if p, _ = m.TreeChanges(ctx, s.ID, changes(ViewControl)); !p.Snapshot {
		t.Fatal("another view did not start a snapshot")
	}
	if _, err := m.TreeChanges(ctx, s.ID, changes("bogus")); err == nil || !strings.Contains(err.Error(), "view") {
		t.Fatalf("bad view: %v", err)
	}
}

func TestEventLogDerivesAndBounds(t *testing.T) {
	var ids IDs
	f := NewFeed("")
	log := NewEventLog(3)
	root := appTree("x")
	f.update(numbered(&ids, root))
	dlg := fake.Keyed("test:dlg", "dialog", "Save changes?", fake.Keyed("test:yes", "push button", "Yes"))
	dlg.Children[0].States = fake.States("enabled", "focused")
	root = appTree("y")
	root.Children = append(root.Children, dlg)
	t2 := numbered(&ids, root)
	evs, _ := f.update(t2)
	log.derive(evs, t2)
	r := log.Take(nil, 10, EventFilter{})
	var got []string
	for _, e := range r.Events {
		got = append(got, e.Type+" "+e.Name)
	}
	want := "nameChanged y,windowOpened Save changes?,focusMoved Yes"
	if strings.Join(got, ",") != want {
		t.Fatalf("events %q, want %q", strings.Join(got, ","), want)
	}
	// The dialog closes: one more event, and the log keeps the last three.
	t3 := numbered(&ids, appTree("y"))
	evs, _ = f.update(t3)
	log.derive(evs, t3)
	r = log.Take(nil, 10, EventFilter{})
	if len(r.Events) != 1 || r.Events[0].Type != EventWindowClosed || r.Events[0].Name != "Save changes?" {
		t.Fatalf("after close: %+v", r.Events)
	}
	since := int64(0)
	r = log.Take(&since, 10, EventFilter{})
	if !r.Missed || len(r.Events) != 3 || r.Events[0].Seq != 2 {
		t.Fatalf("from the start of a bounded log: missed=%v %d events first %d", r.Missed, len(r.Events), r.Events[0].Seq)
	}
}

// An application that never stops changing is read at most every
// followMinGap, however many events it raises.
func TestFollowReadsAtMostEveryGap(t *testing.T) {
	d := liveDesk("x")
	m, s := liveSession(t, d)
	stop, _ := m.Follow(context.Background(), s.ID, "", func() {})
	defer stop()
	start := time.Now()
	for i := 0; time.Since(start) < 300*time.Millisecond; i++ {
		d.SetTree(livePid, appTree(fmt.Sprint("Tick ", i)))
	}
	elapsed := time.Since(start)
	s.live.mu.Lock()
	reads := s.live.reads
	s.live.mu.Unlock()
	if most := int(elapsed/followMinGap) + 2; reads > most {
		t.Fatalf("%d reads in %v of constant change; at most %d", reads, elapsed, most)
	}
}

// TestEventsSeeWhatFollowsTheFirstCall: a change made right after the
// first get_events returns is an event, never part of the watcher's
// baseline (a dialog opened at once was lost that way, while a loaded
// machine took its time over the first read).
func TestEventsSeeWhatFollowsTheFirstCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for i := range 5 {
			d := liveDesk("Tick 0")
			m, s := liveSession(t, d)
			// A slow application: every tree read takes a while to begin.
			d.SetHook(func(ctx context.Context, c fake.Call) error {
				if c.Name == "Tree" {
					select {
					case <-time.After(50 * time.Millisecond):
					case <-ctx.Done():
					}
				}
				return nil
			})
			if a, err := m.Events(context.Background(), s.ID, EventsRequest{}); err != nil || !a.Started {
				t.Fatalf("first get_events: started=%v %v", a.Started, err)
			}
			d.SetTree(livePid, appTree(fmt.Sprintf("Tick %d", i+1)))
			deadline := time.Now().Add(10 * time.Second)
			for {
				r, err := m.Events(context.Background(), s.ID, EventsRequest{})
				if err != nil {
					t.Fatal(err)
				}
				if len(r.Events) > 0 {
					if e := r.Events[0]; e.Type != EventNameChanged || *e.New != fmt.Sprintf("Tick %d", i+1) {
						t.Fatalf("round %d: %+v", i, r.Events)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("round %d: the rename made after the first get_events was never an event", i)
				}
				time.Sleep(5 * time.Millisecond)
			}
			_ = m.Disconnect(context.Background(), s.ID)
		}
	})
}

// TestEventsFromConnect: with the log kept from connect (KeepEvents), what
// happened before the first get_events is in its answer, and a call right
// after a change holds it: get_events has the watcher read the app first.
func TestEventsFromConnect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := liveDesk("Tick 0")
		m, s := liveSession(t, d)
		m.KeepEvents(context.Background(), s)
		if !m.Following(s) || m.subscribed(s) {
			t.Fatalf("after KeepEvents: following=%v subscribed=%v; want a watcher and no subscriber", m.Following(s), m.subscribed(s))
		}
		for i := 1; i <= 3; i++ {
			d.SetTree(livePid, appTree(fmt.Sprintf("Tick %d", i)))
			a, err := m.Events(context.Background(), s.ID, EventsRequest{})
			if err != nil || a.Started || a.Stale {
				t.Fatalf("get_events %d: %+v %v", i, a, err)
			}
			if len(a.Events) != 1 || a.Events[0].Type != EventNameChanged || *a.Events[0].New != fmt.Sprintf("Tick %d", i) {
				t.Fatalf("get_events %d right after the rename: %+v", i, a.Events)
			}
		}
		_ = m.Disconnect(context.Background(), s.ID)
	})
}

// TestEventsStaleOnAFrozenApp: a get_events whose fresh read does not
// come answers within its deadline with what the log holds, and says so.
func TestEventsStaleOnAFrozenApp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := liveDesk("Tick 0")
		m, s := liveSession(t, d)
		m.KeepEvents(context.Background(), s)
		frozen := make(chan struct{})
		d.SetHook(func(ctx context.Context, c fake.Call) error {
			if c.Name == "Tree" {
				select {
				case <-frozen:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			return nil
		})
		start := time.Now()
		a, err := m.Events(context.Background(), s.ID, EventsRequest{})
		if err != nil || !a.Stale {
			t.Fatalf("get_events on a frozen app: %+v %v", a, err)
		}
		if took := time.Since(start); took > DefaultTimeoutMs*time.Millisecond+time.Second {
			t.Fatalf("get_events took %v on a frozen app", took)
		}
		close(frozen)
		_ = m.Disconnect(context.Background(), s.ID)
	})
}

// TestEventLogFilters: types keep only the types named; state churn on
// unnamed containers is left out (and counted) unless asked for; a value
// change is an event, a password field's never; what a filter passes
// over counts as read.
func TestEventLogFilters(t *testing.T) {
	var ids IDs
	f := NewFeed("")
	log := NewEventLog(100)
	tree := func(label, value string, fillerStates ...string) *platform.Node {
		entry := fake.Keyed("test:entry", "entry", "Search")
		entry.Value = &value
		pw := fake.Keyed("test:pw", "password text", "")
		pw.Value = &value // a backend never sets it; the tree drops it anyway
		filler := fake.Keyed("test:filler", "filler", "")
		filler.States = fake.States(fillerStates...)
		return appTree(label, entry, pw, filler)
	}
	step := func(root *platform.Node) {
		t := numbered(&ids, root)
		evs, _ := f.update(t)
		log.derive(evs, t)
	}
	step(tree("a", "x"))
	step(tree("b", "xy", "showing"))
	if err := (EventFilter{Types: []string{"stateChanged", "bogus"}}).Validate(); err == nil || AsError(err).Code != CodeInvalidArgument || !strings.Contains(err.Error(), "valueChanged") {
		t.Fatalf("an unknown type: %v", err)
	}
	zero := int64(0)
	all := log.Take(&zero, 100, EventFilter{Churn: true})
	var got []string
	for _, e := range all.Events {
		got = append(got, e.Type+" "+e.Name)
	}
	if want := "nameChanged b,valueChanged Search,stateChanged "; strings.Join(got, ",") != want {
		t.Fatalf("every event: %q, want %q", strings.Join(got, ","), want)
	}
	if v := all.Events[1]; *v.Old != "x" || *v.New != "xy" {
		t.Fatalf("valueChanged: %q -> %q", *v.Old, *v.New)
	}
	plain := log.Take(&zero, 100, EventFilter{})
	if len(plain.Events) != 2 || plain.Churn != 1 || plain.Next != all.Next {
		t.Fatalf("without churn: %+v", plain)
	}
	names := log.Take(&zero, 100, EventFilter{Types: []string{EventNameChanged}})
	if len(names.Events) != 1 || names.Events[0].Type != EventNameChanged || names.Next != all.Next {
		t.Fatalf("types [nameChanged]: %+v", names)
	}
	// Without since, a filtered take passes over what it left out.
	if r := log.Take(nil, 100, EventFilter{Types: []string{EventFocus}}); len(r.Events) != 0 || r.Next != all.Next {
		t.Fatalf("types [focusMoved]: %+v", r)
	}
	if r := log.Take(nil, 100, EventFilter{}); len(r.Events) != 0 {
		t.Fatalf("after a filtered take: %+v", r)
	}
	// limit counts kept events only; more says a kept one is left.
	one := log.Take(&zero, 1, EventFilter{Churn: true})
	if len(one.Events) != 1 || !one.More || one.Next != one.Events[0].Seq {
		t.Fatalf("limit 1: %+v", one)
	}
}
