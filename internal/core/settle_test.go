package core

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
)

// textApp is one element whose text a test changes, read through Element.
type textApp struct {
	mu    sync.Mutex
	text  string
	reads int
	gone  bool
}

func (a *textApp) set(s string) {
	a.mu.Lock()
	a.text = s
	a.mu.Unlock()
}

func (a *textApp) Element(context.Context, platform.App, string) (*platform.Details, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reads++
	if a.gone {
		return nil, platform.ErrElementGone
	}
	return &platform.Details{Node: platform.Node{Key: "k"}, Text: &platform.TextContent{Text: a.text}}, nil
}

func TestSettleWaitsForTheAskedText(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		app := &textApp{text: "/t"}
		m := settleSessions(app)
		changes := make(chan struct{}, 1)
		// The app completes the text a little later, announcing each step.
		go func() {
			for _, s := range []string{"/tm", "/tmp/fi", "/tmp/file.txt"} {
				time.Sleep(20 * time.Millisecond)
				app.set(s)
				select {
				case changes <- struct{}{}:
				default:
				}
			}
		}()
		d, held := m.settle(context.Background(), &Session{}, "k", changes, textIs("/tmp/file.txt"))
		if !held || d == nil || d.Text.Text != "/tmp/file.txt" {
			t.Fatalf("settle: held %v, read %+v; want the whole text", held, d)
		}
	})
}

func TestSettleGivesUpAtTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		app := &textApp{text: "something else"}
		m := settleSessions(app)
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		d, held := m.settle(ctx, &Session{}, "k", nil, textIs("never"))
		if held {
			t.Fatalf("settle claims %q holds", "never")
		}
		if d == nil || d.Text.Text != "something else" {
			t.Errorf("settle's last read: %+v, want what the element holds", d)
		}
		if ctx.Err() == nil {
			t.Errorf("settle returned before its deadline without the text")
		}
	})
}

// TestSettleOnAGoneElement: an action that made its element go (the OK
// button of the dialog it closed) is settled once the app is quiet, with
// nothing to read; an effect asked of a gone element did not show.
func TestSettleOnAGoneElement(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		app := &textApp{gone: true}
		m := settleSessions(app)
		if d, held := m.settle(context.Background(), &Session{}, "k", nil, nil); !held || d != nil {
			t.Errorf("settle after the element went: %+v, %v; want nothing read and settled", d, held)
		}
		if _, held := m.settle(context.Background(), &Session{}, "k", nil, textIs("x")); held {
			t.Errorf("settle says a gone element holds the text")
		}
	})
}

func TestValueIsWithinIncrement(t *testing.T) {
	at := func(cur, inc float64) *platform.Details {
		return &platform.Details{Value: &platform.ValueInfo{Current: cur, Increment: inc, Maximum: 100}}
	}
	cases := []struct {
		want, cur, inc float64
		ok             bool
	}{
		{42, 42, 1, true},
		{42.4, 42, 1, true},
		{42, 43.5, 1, false},
		{0.3, 0.1 + 0.2, 0, true},
		{150, 100, 1, false},
		{0.5, 0.25, 0, false},
		{75, 75, 0, true},
	}
	for _, c := range cases {
		if got := valueIs(c.want)(at(c.cur, c.inc)); got != c.ok {
			t.Errorf("want %v, holds %v, increment %v: %v, want %v", c.want, c.cur, c.inc, got, c.ok)
		}
	}
	if valueIs(1)(&platform.Details{}) {
		t.Errorf("an element without a value holds 1")
	}
}

func TestTextIsExact(t *testing.T) {
	d := func(s string, redacted bool) *platform.Details {
		return &platform.Details{Node: platform.Node{Redacted: redacted}, Text: &platform.TextContent{Text: s}}
	}
	if !textIs("abc")(d("abc", false)) || textIs("abc")(d("abc ", false)) || textIs("abc")(d("ab", false)) {
		t.Errorf("text must be exactly what was asked")
	}
	long := strings.Repeat("x", 5000)
	cut := &platform.Details{Text: &platform.TextContent{Text: long[:4000], Length: 5000, Truncated: true}}
	if !textIs(long)(cut) || textIs(long+"y")(cut) || textIs(strings.Repeat("y", 5000))(cut) {
		t.Errorf("a text longer than a read is checked by its prefix and count")
	}
	if textIs("")(d("", true)) {
		t.Errorf("a redacted field's text is never taken as read back")
	}
	if textIs("")(&platform.Details{}) {
		t.Errorf("an element without text holds \"\"")
	}
}

func TestLockInputHonoursTheDeadline(t *testing.T) {
	unlock, err := lockInput(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := lockInput(ctx); err == nil {
		t.Fatal("took the input lock while another call held it")
	} else if e := AsError(err); e.Code != CodeTimeout || !e.Retryable {
		t.Errorf("waiting past the deadline: %+v, want a retryable timeout", e)
	}
	unlock()
	unlock2, err := lockInput(context.Background())
	if err != nil {
		t.Fatalf("the lock was not released: %v", err)
	}
	unlock2()
}

// settleSessions is a Sessions over an app that only answers Element.
func settleSessions(app *textApp) *Sessions {
	return NewSessions(platform.Desktop{Accessibility: elementDesk{app}})
}

type elementDesk struct{ *textApp }

func (elementDesk) Apps(context.Context) ([]platform.App, error) { return nil, nil }
func (elementDesk) Tree(context.Context, platform.App, platform.TreeOptions) (*platform.Node, platform.TreeStats, error) {
	return nil, platform.TreeStats{}, nil
}
func (elementDesk) Owner(context.Context, platform.App) (int, error) { return 0, nil }

// quietDesk is an app that announces nothing (GTK 4.8): its fingerprint is
// its text, which is all that shows a change.
type quietDesk struct{ elementDesk }

func (quietDesk) EventPoor(platform.App) bool { return true }
func (q quietDesk) Fingerprint(context.Context, platform.App) (uint64, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return uint64(len(q.text)), nil
}

// TestSettleHoldsStillWithoutEvents: an app that changes without a single
// event is read back only once its changes have stopped.
func TestSettleHoldsStillWithoutEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		app := &textApp{text: "one two one two"}
		m := NewSessions(platform.Desktop{Accessibility: quietDesk{elementDesk{app}}})
		changes := make(chan struct{}) // never fires
		started := make(chan struct{})
		go func() {
			<-started
			// After the quiet time, when settle without events would read.
			time.Sleep(quietTime)
			for _, s := range []string{"1 two one two", "1 two 1 two"} {
				time.Sleep(stillTime / 3)
				app.set(s)
			}
		}()
		close(started)
		d, held := m.settle(context.Background(), &Session{}, "k", changes, nil)
		if !held || d == nil || d.Text.Text != "1 two 1 two" {
			t.Fatalf("settle: held %v, read %+v; want the text after the last change", held, d)
		}
	})
}

// busyDesk is an app that, busy until done closes, answers a call only
// then, after the event of what it finished (a window it showed).
type busyDesk struct {
	elementDesk
	done    <-chan struct{}
	changes chan<- struct{}
	once    *sync.Once
	// first, when set, is closed by the first call, answered at once:
	// the app starts its work only then.
	first     chan struct{}
	firstOnce *sync.Once
}

func (b busyDesk) TopLevels(ctx context.Context, _ platform.App) ([]platform.Node, error) {
	if b.first != nil {
		// The app answers its first call before it takes the keys.
		first := false
		b.firstOnce.Do(func() { first = true })
		if first {
			close(b.first)
			return nil, nil
		}
	}
	select {
	case <-b.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	b.once.Do(func() { b.changes <- struct{}{} })
	return nil, nil
}

// TestSettleWaitsOutABusyApp: an app that falls silent for longer than
// the quiet time while still at work on the action (a starved GTK 3 app
// building a file chooser) is settled only once it answers a call and
// has sent nothing meanwhile: the event it sent before its answer keeps
// settle waiting. Without an element to read back, too.
func TestSettleWaitsOutABusyApp(t *testing.T) {
	cases := []struct {
		name, key string
		lateKeys  bool // the app takes the keys after it answered a call
	}{
		{"no element", "", false},
		{"an element", "k", false},
		{"keys taken after a call", "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				done := make(chan struct{})
				changes := make(chan struct{}, 1)
				app := &textApp{text: "x"}
				desk := busyDesk{elementDesk: elementDesk{app}, done: done, changes: changes, once: &sync.Once{}}
				started := make(chan struct{})
				if c.lateKeys {
					desk.first, desk.firstOnce = started, &sync.Once{}
				} else {
					close(started)
				}
				m := NewSessions(platform.Desktop{Accessibility: busyElementDesk{desk}})
				busy := 3 * quietTime
				go func() {
					<-started
					time.Sleep(busy)
					close(done)
				}()
				start := time.Now()
				m.settle(context.Background(), &Session{}, c.key, changes, nil)
				if took, least := time.Since(start), busy+quietTime; took < least {
					t.Errorf("settled after %v; want %v at least: the app was busy for %v, then sent an event", took, least, busy)
				}
				<-done
			})
		})
	}
}

// busyElementDesk reads its element only once the app is done, as
// TopLevels does.
type busyElementDesk struct{ busyDesk }

func (b busyElementDesk) Element(ctx context.Context, a platform.App, key string) (*platform.Details, error) {
	if _, err := b.TopLevels(ctx, a); err != nil {
		return nil, err
	}
	return b.textApp.Element(ctx, a, key)
}
