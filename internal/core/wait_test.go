package core

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
)

// waitDesk is one app (this process) with n text elements. Element reads
// block until their context ends when frozen, else answer with text "".
type waitDesk struct {
	n       int
	frozen  bool
	partial bool // the root holds only the fields on screen
	reads   atomic.Int64
}

func (d *waitDesk) Apps(context.Context) ([]platform.App, error) {
	return []platform.App{{Pid: os.Getpid(), Name: "waiter", Executable: "/bin/waiter", Accessible: true, BusName: ":1.9"}}, nil
}

func (d *waitDesk) Owner(_ context.Context, app platform.App) (int, error) { return app.Pid, nil }

func (d *waitDesk) Process(_ context.Context, pid int) (platform.Process, error) {
	return platform.Process{Pid: pid, StartTime: 1, Executable: "/bin/waiter"}, nil
}

func (d *waitDesk) Frameworks(context.Context, int) ([]platform.Framework, error) { return nil, nil }

func (d *waitDesk) Tree(context.Context, platform.App, platform.TreeOptions) (*platform.Node, platform.TreeStats, error) {
	text, _ := platform.RoleByName("text")
	root := &platform.Node{Key: "root", Role: platform.RoleApplication, Name: "waiter"}
	for i := range d.n {
		root.Children = append(root.Children, &platform.Node{Key: fmt.Sprintf("k%d", i), Role: text, Name: fmt.Sprintf("field %d", i),
			Interfaces: []string{"accessible", "text"}})
	}
	root.ChildCount = len(root.Children)
	if d.partial {
		first, count := 0, d.n
		root.ChildCount = 100000
		root.ChildrenPartial, root.ChildrenRange = true, &platform.ChildRange{First: &first, Count: &count}
	}
	return root, platform.TreeStats{Strategy: "fake", Nodes: d.n + 1}, nil
}

func (d *waitDesk) Element(ctx context.Context, _ platform.App, key string) (*platform.Details, error) {
	d.reads.Add(1)
	if d.frozen {
		<-ctx.Done()
		return nil, fmt.Errorf("%w: %v", platform.ErrTimeout, ctx.Err())
	}
	text, _ := platform.RoleByName("text")
	return &platform.Details{Node: platform.Node{Key: key, Role: text}, Text: &platform.TextContent{Text: ""}}, nil
}

func waitSession(t *testing.T, d *waitDesk) (*Sessions, *Session) {
	t.Helper()
	m := NewSessions(platform.Desktop{Accessibility: d, Processes: d})
	s, err := m.Connect(context.Background(), AppSpec{Pid: os.Getpid()}, "")
	if err != nil {
		t.Fatal(err)
	}
	return m, s
}

// TestWaitOneDeadline: on an app whose every element read hangs, a wait for
// a text over many matches ends at its one deadline, not after a read per
// match (before, 1,000 matches cost up to 1,000 reads of the handler's
// whole context).
func TestWaitOneDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &waitDesk{n: 1000, frozen: true}
		m, s := waitSession(t, d)
		const timeout = 300 * time.Millisecond
		start := time.Now()
		done := make(chan error, 1)
		go func() {
			_, err := m.WaitFor(context.Background(), s.ID, WaitRequest{Query: Query{Role: "text"}, Until: UntilProperty, Property: "text", Value: "guess", Timeout: timeout})
			done <- err
		}()
		select {
		case err := <-done:
			if e := AsError(err); e == nil || e.Code != CodeTimeout || !e.Retryable {
				t.Errorf("want a retryable timeout, got %v", err)
			}
		case <-time.After(30 * timeout):
			t.Fatalf("the wait with a %v timeout had not returned after %v (%d element reads so far)", timeout, time.Since(start), d.reads.Load())
		}
		if n := d.reads.Load(); n > 2*MaxLiveReadsPerPoll {
			t.Errorf("%d live reads for a %v wait", n, timeout)
		}
	})
}

// TestWaitCapsLiveReads: each poll reads at most MaxLiveReadsPerPoll
// matches live, and the timeout says the check was cut.
func TestWaitCapsLiveReads(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &waitDesk{n: 1000}
		m, s := waitSession(t, d)
		_, err := m.WaitFor(context.Background(), s.ID, WaitRequest{Query: Query{Role: "text"}, Until: UntilProperty, Property: "text", Value: "never", Timeout: 1200 * time.Millisecond})
		e := AsError(err)
		if e == nil || e.Code != CodeTimeout {
			t.Fatalf("want a timeout, got %v", err)
		}
		if !strings.Contains(e.Msg, fmt.Sprintf("only the first %d of 1000", MaxLiveReadsPerPoll)) {
			t.Errorf("the timeout does not say the live reads were capped: %s", e.Msg)
		}
		polls := int64(1200*time.Millisecond/WaitSafetyPoll) + 2
		if n := d.reads.Load(); n > polls*MaxLiveReadsPerPoll || n == 0 {
			t.Errorf("%d live reads in at most %d polls", n, polls)
		}
	})
}

// TestWaitSatisfied: the conditions that need no live read.
func TestWaitSatisfied(t *testing.T) {
	d := &waitDesk{n: 3}
	m, s := waitSession(t, d)
	for _, r := range []WaitRequest{
		{Query: Query{Name: "field 1", NameMatch: MatchExact}, Until: UntilAppears},
		{Query: Query{Name: "nothing like it"}, Until: UntilDisappears},
		{Query: Query{Role: "text"}, Until: UntilProperty, Property: "name", Value: "field 2"},
		{Query: Query{Role: "text"}, Until: UntilProperty, Property: "state", Value: "!focused"},
		{Query: Query{Role: "text"}, Until: UntilProperty, Property: "text", Value: ""},
	} {
		r.Timeout = 5 * time.Second
		res, err := m.WaitFor(context.Background(), s.ID, r)
		if err != nil || res.Polls != 1 {
			t.Errorf("%+v: %v, %+v", r, err, res)
		}
	}
	for _, r := range []WaitRequest{
		{Until: "soon"},
		{Until: UntilProperty, Property: "colour"},
		{Until: UntilProperty, Property: "state", Value: "shiny"},
		{Until: UntilAppears, Query: Query{Role: "no such role"}},
	} {
		r.Timeout = time.Second
		if _, err := m.WaitFor(context.Background(), s.ID, r); AsError(err).Code != CodeInvalidArgument {
			t.Errorf("%+v: want invalidArgument, got %v", r, err)
		}
	}
}

// A wait over a tree with a partial container says that it saw only the
// visible part, and a timeout says so too; a complete tree says nothing.
func TestWaitSaysVisibleOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, partial := range []bool{false, true} {
			d := &waitDesk{n: 3, partial: partial}
			m, s := waitSession(t, d)
			res, err := m.WaitFor(context.Background(), s.ID, WaitRequest{Query: Query{Name: "nothing like it"}, Until: UntilDisappears, Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(res.Partial) > 0; got != partial || partial != strings.Contains(res.PartialNote, "scrolled out of view") {
				t.Errorf("partial %v: result %+v", partial, res)
			}
			_, err = m.WaitFor(context.Background(), s.ID, WaitRequest{Query: Query{Name: "nothing like it"}, Until: UntilAppears, Timeout: 300 * time.Millisecond})
			if e := AsError(err); e.Code != CodeTimeout || strings.Contains(e.Msg, "only the visible part") != partial {
				t.Errorf("partial %v: timeout %v", partial, err)
			}
		}
	})
}
