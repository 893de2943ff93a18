package core

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
)

// twoClients: client a's session on the editor, client b's on the other
// application, each call made with its client's context.
func twoClients(t *testing.T, d safetyDesk) (m *Sessions, a, b *Session, ca, cb context.Context) {
	t.Helper()
	m, _, _ = connectEditor(t, d)
	ca, cb = WithClient(context.Background(), "a"), WithClient(context.Background(), "b")
	var err error
	if a, err = m.Connect(ca, AppSpec{Pid: editorPid}, ""); err != nil {
		t.Fatal(err)
	}
	if b, err = m.Connect(cb, AppSpec{Pid: otherPid}, ""); err != nil {
		t.Fatal(err)
	}
	return m, a, b, ca, cb
}

// wantHolds checks a holdConflict refusal lists holds of holder.
func wantHolds(t *testing.T, what string, err error, holder string) {
	t.Helper()
	wantErrCode(t, what, err, CodeHoldConflict)
	e := AsError(err)
	if len(e.Holds) == 0 {
		t.Fatalf("%s: the refusal lists no holds: %+v", what, e)
	}
	for _, h := range e.Holds {
		if h.Holder != holder {
			t.Errorf("%s: hold %+v, want holder %q", what, h, holder)
		}
	}
}

// TestHoldsOfAnotherSessionRefuseInput: while one client's session holds
// a button or a key, every input sequence of another client's session is
// refused before anything is activated or sent, and goes through once the
// hold is released.
func TestHoldsOfAnotherSessionRefuseInput(t *testing.T) {
	for _, hold := range []string{"button", "Shift"} {
		t.Run(hold, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				d := newSafetyDesk()
				m, a, b, ca, cb := twoClients(t, d)
				if hold == "button" {
					if _, err := m.Press(ca, a.ID, "", &Point{50, 50}, 1); err != nil {
						t.Fatalf("press: %v", err)
					}
				} else if _, err := m.KeyDown(ca, a.ID, "Shift"); err != nil {
					t.Fatalf("key_down: %v", err)
				}
				calls := map[string]func() error{
					"type_text": func() error { _, err := m.TypeText(cb, b.ID, "", "abc"); return err },
					"press_key": func() error { _, err := m.PressKey(cb, b.ID, "", "a"); return err },
					"press":     func() error { _, err := m.Press(cb, b.ID, "", &Point{500, 400}, 3); return err },
					"key_down":  func() error { _, err := m.KeyDown(cb, b.ID, "Ctrl"); return err },
				}
				for name, call := range calls {
					wantHolds(t, name+" while another session holds "+hold, call(), holderOther)
				}
				if e := AsError(calls["type_text"]()); !e.Retryable || !strings.Contains(e.Msg, "another session holds") {
					t.Errorf("the refusal is not retryable or does not say why: %+v", e)
				}
				if got := d.Typed(d.otherWin); got != "" {
					t.Errorf("typed %q into the other window", got)
				}
				if keys := d.Keys(d.otherWin); len(keys) != 0 {
					t.Errorf("keys %v sent to the other window", keys)
				}
				if active, _ := d.ActiveWindow(ca); active != d.editorWin {
					t.Errorf("the refused calls activated window %s", active)
				}
				if h := m.Held(); len(h) != 1 {
					t.Errorf("the holder's hold is gone: %+v", h)
				}
				if hold == "button" {
					if _, err := m.Release(ca, a.ID, 1); err != nil {
						t.Fatal(err)
					}
				} else if _, err := m.KeyUp(ca, a.ID, "Shift"); err != nil {
					t.Fatal(err)
				}
				if _, err := m.TypeText(cb, b.ID, "", "abc"); err != nil {
					t.Fatalf("type_text once released: %v", err)
				}
				if got := d.Typed(d.otherWin); got != "abc" {
					t.Errorf("typed %q once released, want abc", got)
				}
			})
		})
	}
}

// TestHoldInAnotherWindowRefusesInput: a session's own hold in one of its
// app's windows refuses its input to another, before that one is
// activated.
func TestHoldInAnotherWindowRefusesInput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newSafetyDesk()
		m, s, _ := connectEditor(t, d)
		m.held.mu.Lock()
		m.held.poll = time.Hour // the focus moves below; the watcher must not release first
		m.held.mu.Unlock()
		second := d.AddWindow(editorPid, "Editor 2", platform.Rect{X: 900, Y: 0, Width: 400, Height: 300})
		ctx := context.Background()
		if _, err := m.KeyDown(ctx, s.ID, "Shift"); err != nil {
			t.Fatalf("key_down: %v", err)
		}
		d.SetActive(second)
		_, err := m.TypeText(ctx, s.ID, "", "abc")
		wantHolds(t, "type_text into another window of the session's app", err, holderSelf)
		if got := d.Typed(second); got != "" {
			t.Errorf("typed %q with the session's Shift held in another window", got)
		}
		if e := AsError(err); !strings.Contains(e.Msg, "release it first") {
			t.Errorf("the refusal does not say what to do: %s", e.Msg)
		}
		d.SetActive(d.editorWin)
		if _, err := m.TypeText(ctx, s.ID, "", "abc"); err != nil {
			t.Errorf("type_text in the window the key is held in: %v", err)
		}
	})
}

// TestStrayHoldRefusesInput: a button or modifier the display server has
// down that no session holds refuses input until it goes; one that goes
// while the check waits does not.
func TestStrayHoldRefusesInput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newSafetyDesk()
		m, s, tr := connectEditor(t, d)
		settle := heldSettle
		heldSettle = 50 * time.Millisecond
		defer func() { heldSettle = settle }()
		ctx := context.Background()
		d.HoldForeign(platform.HeldState{Buttons: []int{1}, Modifiers: []string{"Control_L"}})
		_, err := m.TypeText(ctx, s.ID, "", "abc")
		wantHolds(t, "type_text with a stray Ctrl and button", err, holderUnknown)
		if e := AsError(err); !strings.Contains(e.Msg, "Control_L") || !strings.Contains(e.Msg, "button 1") {
			t.Errorf("the refusal does not name what is down: %s", e.Msg)
		}
		_, err = m.Scroll(ctx, s.ID, refOf(t, tr, "Body"), "down", 3)
		wantHolds(t, "scroll with a stray button", err, holderUnknown)
		if got := d.Typed(d.editorWin); got != "" {
			t.Errorf("typed %q with a stray Ctrl down", got)
		}

		// Let go while the check waits: the call goes through.
		heldSettle = 10 * time.Second
		d.SetHook(func(_ context.Context, c fake.Call) error {
			if c.Name == "HeldDown" {
				go d.HoldForeign(platform.HeldState{})
			}
			return nil
		})
		if _, err := m.TypeText(ctx, s.ID, "", "abc"); err != nil {
			t.Fatalf("type_text once the stray hold went: %v", err)
		}
		if got := d.Typed(d.editorWin); got != "abc" {
			t.Errorf("typed %q, want abc", got)
		}
	})
}

// TestOwnHoldsDoNotRefuse: the session's own button and key in its window
// are what its input is meant to go with (Shift+click, a drag).
func TestOwnHoldsDoNotRefuse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newSafetyDesk()
		m, s, tr := connectEditor(t, d)
		ctx := context.Background()
		if _, err := m.KeyDown(ctx, s.ID, "Shift"); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Press(ctx, s.ID, "", &Point{50, 50}, 1); err != nil {
			t.Fatalf("press with the session's Shift held: %v", err)
		}
		if _, err := m.Move(ctx, s.ID, "", &Point{70, 70}); err != nil {
			t.Fatalf("move: %v", err)
		}
		if _, err := m.Release(ctx, s.ID, 1); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Click(ctx, s.ID, refOf(t, tr, "Pointer only")); err != nil {
			t.Fatalf("click with the session's Shift held: %v", err)
		}
	})
}

// TestSessionlessHoldsExpire: an expiring client's holds are released once
// it is silent for the time set; a request in time keeps them.
func TestSessionlessHoldsExpire(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newSafetyDesk()
		m, _, _ := connectEditor(t, d)
		m.ExpireHolds(func(c Client) bool { return strings.HasPrefix(string(c), "quiet") }, 300*time.Millisecond)
		quiet, loud := WithClient(context.Background(), "quiet"), WithClient(context.Background(), "loud")
		qs, err := m.Connect(quiet, AppSpec{Pid: editorPid}, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.KeyDown(quiet, qs.ID, "Shift"); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for len(d.KeysDown()) > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("the silent client's Shift is still down: %v", d.KeysDown())
			}
			time.Sleep(10 * time.Millisecond)
		}
		_, err = m.KeyUp(quiet, qs.ID, "Shift")
		wantErrCode(t, "key_up after the expiry", err, CodeHoldConflict)
		if e := AsError(err); !strings.Contains(e.Msg, "sent no request") {
			t.Errorf("the refusal does not say the hold expired: %s", e.Msg)
		}

		// A client heard in time keeps its hold; one that does not expire
		// keeps it however long it is silent.
		m.ExpireHolds(func(c Client) bool { return strings.HasPrefix(string(c), "quiet") }, time.Hour)
		if _, err := m.KeyDown(quiet, qs.ID, "Shift"); err != nil {
			t.Fatal(err)
		}
		ls, err := m.Connect(loud, AppSpec{Pid: editorPid}, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.KeyUp(quiet, qs.ID, "Shift"); err != nil {
			t.Fatal(err)
		}
		if _, err := m.KeyDown(loud, ls.ID, "Ctrl"); err != nil {
			t.Fatal(err)
		}
		if _, err := m.KeyDown(quiet, qs.ID, "Shift"); err == nil {
			t.Fatal("key_down while another session holds Ctrl went through")
		}
		if _, err := m.KeyUp(loud, ls.ID, "Ctrl"); err != nil {
			t.Fatal(err)
		}
		if _, err := m.KeyDown(quiet, qs.ID, "Shift"); err != nil {
			t.Fatal(err)
		}
		m.held.mu.Lock()
		m.held.heard["quiet"] = time.Now().Add(-2 * time.Hour) // silent for two hours...
		m.held.mu.Unlock()
		m.Heard("quiet") // ...until now
		m.expireSilent(time.Now())
		if len(m.Held()) != 1 {
			t.Errorf("a client heard in time lost its hold: %+v", m.Held())
		}
		m.expireSilent(time.Now().Add(61 * time.Minute))
		if len(m.Held()) != 0 {
			t.Errorf("a client silent past the expiry kept its hold: %+v", m.Held())
		}
		_, _ = m.KeyUp(quiet, qs.ID, "Shift")
		if _, err := m.KeyDown(loud, ls.ID, "Ctrl"); err != nil {
			t.Fatal(err)
		}
		m.expireSilent(time.Now().Add(100 * time.Hour))
		if len(m.Held()) != 1 {
			t.Errorf("a client that does not expire lost its hold: %+v", m.Held())
		}
	})
}
