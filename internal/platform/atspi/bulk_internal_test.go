//go:build linux

package atspi

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/uiscope/uiscope/internal/dbusx"
	"github.com/uiscope/uiscope/internal/platform"
)

// TestBulkLimit: an app never answered may take its caller's deadline
// (the ceiling bounds it); one that answered may take its answers' time
// four times over, at least the floor and at most the ceiling; one
// that left a call unanswered until the ceiling gets the floor.
func TestBulkLimit(t *testing.T) {
	r := defaultBulkRule
	for _, c := range []struct {
		h    bulkHistory
		want time.Duration
	}{
		{bulkHistory{}, 30 * time.Second},
		{bulkHistory{took: 8 * time.Millisecond}, 3 * time.Second},
		{bulkHistory{took: 750 * time.Millisecond}, 3 * time.Second},
		{bulkHistory{took: 2 * time.Second}, 8 * time.Second},
		{bulkHistory{took: 6 * time.Second}, 24 * time.Second},
		{bulkHistory{took: 38 * time.Second}, 30 * time.Second},
		{bulkHistory{took: 6 * time.Second, silent: true}, 3 * time.Second},
		{bulkHistory{silent: true}, 3 * time.Second},
	} {
		if got := r.limit(c.h); got != c.want {
			t.Errorf("limit after %+v: %v, want %v", c.h, got, c.want)
		}
	}
}

// TestBulkLearn: an answer sets the app's time (or keeps an earlier,
// slower one's, halved for each answer since) and ends its silence; a
// call unanswered until its deadline makes it silent, keeping the time it
// had; other errors change nothing.
func TestBulkLearn(t *testing.T) {
	r := defaultBulkRule
	sent := time.Now()
	h := bulkHistory{silent: true}
	r.learn(&h, sent, sent.Add(5*time.Second), nil)
	if h != (bulkHistory{took: 5 * time.Second}) {
		t.Errorf("after an answer in 5 s: %+v", h)
	}
	r.learn(&h, sent, sent.Add(30*time.Second), fmt.Errorf("call: %w", context.DeadlineExceeded))
	if h != (bulkHistory{took: 5 * time.Second, silent: true}) {
		t.Errorf("after no answer: %+v", h)
	}
	r.learn(&h, sent, sent.Add(time.Second), nil)
	r.learn(&h, sent, sent.Add(2*time.Second), dbus.Error{Name: "org.freedesktop.DBus.Error.UnknownMethod"})
	if h != (bulkHistory{took: 2500 * time.Millisecond}) {
		t.Errorf("after answers in 5 s and 1 s and an error: %+v", h)
	}
	for _, s := range []time.Duration{time.Second, time.Second, 1500 * time.Millisecond} {
		r.learn(&h, sent, sent.Add(s), nil)
	}
	if h != (bulkHistory{took: 1500 * time.Millisecond}) {
		t.Errorf("after answers in 5, 1, 1, 1 and 1.5 s: %+v", h)
	}
}

// cacheApp serves org.a11y.atspi.Cache.GetItems on a bus of its own as an
// application does: one call at a time (one main loop), each taking delay,
// none while frozen. Each answer names its call's number in its one item.
type cacheApp struct {
	loop  sync.Mutex // the main loop
	mu    sync.Mutex
	calls int
	// queued: calls sent and not answered; beside: calls that came while
	// another was queued.
	queued, beside int
	delay          time.Duration
	gate           chan struct{} // closed: not frozen
}

func (a *cacheApp) GetItems() ([]cacheItem, *dbus.Error) {
	a.mu.Lock()
	a.calls++
	if a.queued > 0 {
		a.beside++
	}
	a.queued++
	n, gate := a.calls, a.gate
	a.mu.Unlock()
	a.loop.Lock()
	defer a.loop.Unlock()
	defer func() {
		a.mu.Lock()
		a.queued--
		a.mu.Unlock()
	}()
	<-gate
	a.mu.Lock()
	delay := a.delay
	a.mu.Unlock()
	time.Sleep(delay)
	self := objRef{"app", "/org/a11y/atspi/accessible/root"}
	return []cacheItem{{Self: self, App: self, Parent: objRef{"app", nullPath}, Index: -1,
		Interfaces: []string{ifaceAccessible}, Name: fmt.Sprint("call ", n), Role: 75, States: []uint32{0, 0}}}, nil
}

func (a *cacheApp) set(delay time.Duration, frozen bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.delay = delay
	if frozen && a.gate != nil {
		select {
		case <-a.gate:
			a.gate = make(chan struct{})
		default:
		}
	}
	if !frozen {
		select {
		case <-a.gate:
		default:
			close(a.gate)
		}
	}
}

func (a *cacheApp) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.calls
}

// privateBus starts a dbus-daemon of the test's own and returns its
// address.
func privateBus(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		t.Skip("no dbus-daemon")
	}
	cmd := exec.Command("dbus-daemon", "--session", "--nofork", "--nopidfile",
		"--address=unix:path="+filepath.Join(t.TempDir(), "bus"), "--print-address=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(out).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case addr := <-line:
		if addr == "" {
			t.Fatal("dbus-daemon printed no address")
		}
		return addr
	case <-time.After(30 * time.Second):
		t.Fatal("dbus-daemon printed no address in 30 s")
	}
	return ""
}

// bulkCase is a connection to a private bus with one cacheApp on it.
type bulkCase struct {
	t   *testing.T
	c   *Conn
	app *cacheApp
	bus string
}

func newBulkCase(t *testing.T, rule bulkRule) *bulkCase {
	addr := privateBus(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	appConn, err := dbusx.Connect(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { appConn.Close() })
	app := &cacheApp{gate: make(chan struct{})}
	close(app.gate)
	if err := appConn.Export(app, cachePath, ifaceCache); err != nil {
		t.Fatal(err)
	}
	bus, err := dbusx.Connect(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	c := &Conn{bus: bus, appLocks: map[string]appLock{}, bulkRule: rule}
	t.Cleanup(func() { c.Close() })
	return &bulkCase{t: t, c: c, app: app, bus: appConn.Names()[0]}
}

// read reads the app's cache within timeout (0: no deadline of the
// caller's) and returns the number of the call that answered.
func (b *bulkCase) read(timeout time.Duration) (string, time.Duration, error) {
	ctx := context.Background()
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	start := time.Now()
	items, err := b.c.readCache(ctx, b.bus)
	took := time.Since(start)
	if err != nil {
		return "", took, err
	}
	for _, it := range items {
		return it.node.Name, took, nil
	}
	return "", took, errors.New("no items")
}

func (b *bulkCase) history() bulkHistory {
	b.c.mu.Lock()
	defer b.c.mu.Unlock()
	if h := b.c.bulks[b.bus]; h != nil {
		return *h
	}
	return bulkHistory{}
}

// settled waits until no bulk call of the app is in flight.
func (b *bulkCase) settled() bulkHistory {
	b.t.Helper()
	for start := time.Now(); time.Since(start) < 60*time.Second; time.Sleep(20 * time.Millisecond) {
		if h := b.history(); h.flight == nil {
			return h
		}
	}
	b.t.Fatal("a bulk call still in flight after 60 s")
	return bulkHistory{}
}

// TestBulkCallsLearn: on a real bus, an app slower than the floor is read
// (its first call waits for the caller's deadline, the next ones for four
// times its last answer), a frozen app fails by that limit and not by a
// caller's longer context, readers behind its unanswered call send no
// call of their own and fail by their own deadlines, and once the call
// went unanswered until the ceiling the app gets the floor until it
// answers again.
func TestBulkCallsLearn(t *testing.T) {
	rule := bulkRule{floor: 200 * time.Millisecond, factor: 4, ceiling: 6 * time.Second}
	b := newBulkCase(t, rule)
	b.app.set(400*time.Millisecond, false)
	// Never answered: the caller's 10 s, not the floor.
	if name, _, err := b.read(10 * time.Second); err != nil || name != "call 1" {
		t.Fatalf("first read of an app slower than the floor: %q, %v", name, err)
	}
	h := b.settled()
	if h.took < 400*time.Millisecond || h.silent {
		t.Fatalf("after an answer in 400 ms: %+v", h)
	}
	// Learned: a read without a deadline of its own reads it again.
	if name, _, err := b.read(0); err != nil || name != "call 2" {
		t.Fatalf("second read: %q, %v", name, err)
	}
	h = b.settled()
	limit := rule.limit(h)
	if limit < 1600*time.Millisecond || limit >= rule.ceiling {
		t.Fatalf("the limit after answers of 400 ms: %v (%+v)", limit, h)
	}

	// Frozen: a read with no deadline of its own fails by the app's limit,
	// long before the ceiling.
	b.app.set(0, true)
	defer b.app.set(0, false)
	_, took, err := b.read(0)
	if !errors.Is(err, platform.ErrTimeout) {
		t.Fatalf("a read of a frozen app: %v, want ErrTimeout", err)
	}
	if took < limit || took > rule.ceiling-time.Second {
		t.Errorf("a read of a frozen app whose limit is %v gave up after %v (ceiling %v)", limit, took, rule.ceiling)
	}
	// Behind the unanswered call, readers wait within their own deadlines
	// and send nothing.
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, err := b.read(300 * time.Millisecond)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, platform.ErrTimeout) {
			t.Errorf("a read behind an unanswered call: %v, want ErrTimeout", err)
		}
	}
	if n := b.app.count(); n != 3 {
		t.Errorf("the frozen app was sent %d calls in all, want 3 (two answered, one not)", n)
	}
	// Unanswered until the ceiling: silent, the floor.
	h = b.settled()
	if !h.silent || rule.limit(h) != rule.floor {
		t.Errorf("after a call unanswered until the ceiling: %+v, limit %v", h, rule.limit(h))
	}
	// Answering again, quickly: no longer silent, and its 400 ms answers
	// still count, for half (4 x 200 ms, over the floor).
	b.app.set(0, false)
	if name, _, err := b.read(10 * time.Second); err != nil || name != "call 4" {
		t.Fatalf("a read once the app answers again: %q, %v", name, err)
	}
	if h = b.settled(); h.silent || rule.limit(h) <= rule.floor {
		t.Errorf("after a quick answer: %+v, limit %v (%v before)", h, rule.limit(h), limit)
	}
}

// TestBulkCallsUnseenFrozen: an app frozen before it ever answered fails
// by its caller's deadline.
func TestBulkCallsUnseenFrozen(t *testing.T) {
	rule := bulkRule{floor: 200 * time.Millisecond, factor: 4, ceiling: 3 * time.Second}
	b := newBulkCase(t, rule)
	b.app.set(0, true)
	defer b.app.set(0, false)
	_, took, err := b.read(time.Second)
	if !errors.Is(err, platform.ErrTimeout) {
		t.Fatalf("a read of a frozen app: %v, want ErrTimeout", err)
	}
	if took < time.Second || took > rule.ceiling {
		t.Errorf("a read with 1 s of a frozen app never answered gave up after %v", took)
	}
}

// TestBulkCallsFresh: a read that begins while another's call is in
// flight is answered by a call sent after it began, never by the earlier
// one (which shows what the app showed before it asked), and that call is
// sent once the earlier one is answered, not beside it.
func TestBulkCallsFresh(t *testing.T) {
	b := newBulkCase(t, bulkRule{floor: 5 * time.Second, factor: 4, ceiling: 20 * time.Second})
	b.app.set(500*time.Millisecond, false)
	first := make(chan string, 1)
	go func() {
		name, _, err := b.read(10 * time.Second)
		if err != nil {
			name = err.Error()
		}
		first <- name
	}()
	for b.app.count() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	if n := b.app.count(); n != 1 {
		t.Fatalf("%d calls before the second read", n)
	}
	name, _, err := b.read(10 * time.Second)
	if err != nil || name != "call 2" {
		t.Errorf("a read begun while call 1 was in flight: %q, %v; want call 2", name, err)
	}
	if got := <-first; got != "call 1" {
		t.Errorf("the first read: %q", got)
	}
	b.app.mu.Lock()
	n, beside := b.app.calls, b.app.beside
	b.app.mu.Unlock()
	if n != 2 || beside != 0 {
		t.Errorf("%d calls for two reads, %d sent while another was unanswered", n, beside)
	}
}

// TestBulkCallsResumed: a read begun after an app frozen mid-call has
// resumed is answered, though the call it waits for first was sent long
// enough ago to be past the app's limit.
func TestBulkCallsResumed(t *testing.T) {
	rule := bulkRule{floor: 300 * time.Millisecond, factor: 4, ceiling: 20 * time.Second}
	b := newBulkCase(t, rule)
	if name, _, err := b.read(10 * time.Second); err != nil || name != "call 1" {
		t.Fatalf("first read: %q, %v", name, err)
	}
	b.settled()
	b.app.set(0, true)
	defer b.app.set(0, false)
	if _, _, err := b.read(0); !errors.Is(err, platform.ErrTimeout) {
		t.Fatalf("a read of a frozen app: %v, want ErrTimeout", err)
	}
	time.Sleep(rule.floor) // call 2, still in flight, is now past its limit
	b.app.set(0, false)
	if name, _, err := b.read(0); err != nil || name != "call 3" {
		t.Errorf("a read once the app resumed: %q, %v; want call 3", name, err)
	}
}
