package core

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/security"
)

// waitNoButtons waits until the fake reports no button down.
func waitNoButtons(t *testing.T, d safetyDesk, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(d.ButtonsDown()) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%s: buttons %v still down", what, d.ButtonsDown())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHeldSequences: the sequences that do not fit are refused with a
// reason, and a press / move / release leaves nothing down.
func TestHeldSequences(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newSafetyDesk()
		m, s, _ := connectEditor(t, d)
		ctx := context.Background()

		_, err := m.Release(ctx, s.ID, 1)
		wantErrCode(t, "release with nothing held", err, CodeHoldConflict)
		_, err = m.Move(ctx, s.ID, "", &Point{50, 50})
		wantErrCode(t, "move with nothing held", err, CodeHoldConflict)
		_, err = m.Press(ctx, s.ID, "", nil, 1)
		wantErrCode(t, "press with neither element nor point", err, CodeInvalidArgument)
		_, err = m.Press(ctx, s.ID, "", &Point{50, 50}, 4)
		wantErrCode(t, "press of the wheel", err, CodeInvalidArgument)

		r, err := m.Press(ctx, s.ID, "", &Point{50, 50}, 1)
		if err != nil {
			t.Fatalf("press: %v", err)
		}
		if len(r.Held) != 1 || r.Held[0].Button != 1 || r.Held[0].Window != d.editorWin.String() {
			t.Errorf("press: held %+v, want button 1 in %s", r.Held, d.editorWin)
		}
		if got := d.ButtonsDown(); len(got) != 1 || got[0] != 1 {
			t.Fatalf("after press the fake has %v down", got)
		}
		_, err = m.Press(ctx, s.ID, "", &Point{60, 60}, 1)
		wantErrCode(t, "press of a held button", err, CodeHoldConflict)
		if e := AsError(err); !strings.Contains(e.Msg, "already held") {
			t.Errorf("refusal does not say why: %s", e.Msg)
		}
		_, err = m.Release(ctx, s.ID, 3)
		wantErrCode(t, "release of a button not held", err, CodeHoldConflict)

		if r, err = m.Move(ctx, s.ID, "", &Point{200, 80}); err != nil {
			t.Fatalf("move: %v", err)
		}
		if x, y := d.Pointer(); x != 200 || y != 80 || r.Held[0].At == nil || r.Held[0].At.X != 200 {
			t.Errorf("move: pointer at %d,%d, held %+v", x, y, r.Held)
		}
		if r, err = m.Release(ctx, s.ID, 0); err != nil {
			t.Fatalf("release: %v", err)
		}
		if len(r.Held) != 0 || len(d.ButtonsDown()) != 0 {
			t.Errorf("after release: held %+v, fake down %v", r.Held, d.ButtonsDown())
		}
		_, err = m.Release(ctx, s.ID, 1)
		wantErrCode(t, "second release", err, CodeHoldConflict)
	})
}

// TestHeldReleasedWhenItsOwnerGoes: disconnecting the session, its client
// going, and the server exiting each release what it held.
func TestHeldReleasedWhenItsOwnerGoes(t *testing.T) {
	ctx := context.Background()
	ends := map[string]func(m *Sessions, s *Session){
		"disconnect":  func(m *Sessions, s *Session) { _ = m.Disconnect(ctx, s.ID) },
		"client gone": func(m *Sessions, s *Session) { m.CloseClient(s.Client) },
		"server exit": func(m *Sessions, s *Session) { m.ReleaseAll() },
	}
	for name, end := range ends {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				d := newSafetyDesk()
				m, s, _ := connectEditor(t, d)
				if _, err := m.Press(ctx, s.ID, "", &Point{50, 50}, 3); err != nil {
					t.Fatalf("press: %v", err)
				}
				end(m, s)
				if got := d.ButtonsDown(); len(got) != 0 {
					t.Errorf("buttons %v left down", got)
				}
				if h := m.Held(); len(h) != 0 {
					t.Errorf("holds %+v left listed", h)
				}
			})
		})
	}
}

// TestHeldReleasedOnFocusLoss: a hold is released when its window stops
// being the active one, and the next move says why it is refused.
func TestHeldReleasedOnFocusLoss(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newSafetyDesk()
		m, s, _ := connectEditor(t, d)
		ctx := context.Background()
		if _, err := m.Press(ctx, s.ID, "", &Point{50, 50}, 1); err != nil {
			t.Fatalf("press: %v", err)
		}
		d.SetActive(d.otherWin)
		waitNoButtons(t, d, "focus moved to another window")
		_, err := m.Move(ctx, s.ID, "", &Point{60, 60})
		wantErrCode(t, "move after the focus loss", err, CodeHoldConflict)
		if e := AsError(err); !strings.Contains(e.Msg, "lost the focus") {
			t.Errorf("refusal does not say the hold was released on focus loss: %s", e.Msg)
		}
	})
}

// TestHeldNeedsInteract: without the interact capability nothing is held.
func TestHeldNeedsInteract(t *testing.T) {
	d := newSafetyDesk()
	m, s, _ := connectEditor(t, d)
	m.Caps = security.Keyboard
	_, err := m.Press(context.Background(), s.ID, "", &Point{50, 50}, 1)
	wantErrCode(t, "press with keyboard rights only", err, CodeInputNotAllowed)
	if len(d.ButtonsDown()) != 0 {
		t.Error("a button went down")
	}
}

var _ platform.ButtonHolder = safetyDesk{}

// TestHeldKeys: key_down / key_up refusals, the desktop-chord rule with
// held modifiers, and release when the session ends.
func TestHeldKeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newSafetyDesk()
		m, s, _ := connectEditor(t, d)
		ctx := context.Background()

		_, err := m.KeyUp(ctx, s.ID, "Shift")
		wantErrCode(t, "key_up with nothing held", err, CodeHoldConflict)
		_, err = m.KeyDown(ctx, s.ID, "Ctrl+a")
		wantErrCode(t, "key_down of a chord", err, CodeInvalidArgument)
		_, err = m.KeyDown(ctx, s.ID, "Super")
		wantErrCode(t, "key_down of Super", err, CodeInvalidArgument)

		r, err := m.KeyDown(ctx, s.ID, "shift")
		if err != nil {
			t.Fatalf("key_down: %v", err)
		}
		if len(r.Held) != 1 || r.Held[0].Key != "Shift" || r.Held[0].Window != d.editorWin.String() {
			t.Errorf("key_down: held %+v", r.Held)
		}
		if got := d.KeysDown(); len(got) != 1 {
			t.Fatalf("after key_down the fake has %v down", got)
		}
		_, err = m.KeyDown(ctx, s.ID, "Shift_L")
		wantErrCode(t, "key_down of a held key", err, CodeHoldConflict)
		_, err = m.KeyUp(ctx, s.ID, "Ctrl")
		wantErrCode(t, "key_up of a key not held", err, CodeHoldConflict)

		if _, err := m.KeyDown(ctx, s.ID, "Alt"); err != nil {
			t.Fatalf("key_down Alt: %v", err)
		}
		_, err = m.PressKey(ctx, s.ID, "", "Tab")
		wantErrCode(t, "press_key Tab with Alt held", err, CodeInvalidArgument)
		_, err = m.KeyDown(ctx, s.ID, "Tab")
		wantErrCode(t, "key_down Tab with Alt held", err, CodeInvalidArgument)

		if r, err = m.KeyUp(ctx, s.ID, "Alt"); err != nil || len(r.Held) != 1 {
			t.Fatalf("key_up Alt: %v, held %+v", err, r)
		}
		if err := m.Disconnect(ctx, s.ID); err != nil {
			t.Fatal(err)
		}
		if got := d.KeysDown(); len(got) != 0 {
			t.Errorf("keys %v left down after disconnect", got)
		}
	})
}

// TestHeldReleasedWhenTheWindowCloses: the app exiting closes the window
// the hold was pressed in; the button and the key are released.
func TestHeldReleasedWhenTheWindowCloses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newSafetyDesk()
		m, s, _ := connectEditor(t, d)
		ctx := context.Background()
		if _, err := m.Press(ctx, s.ID, "", &Point{50, 50}, 1); err != nil {
			t.Fatalf("press: %v", err)
		}
		if _, err := m.KeyDown(ctx, s.ID, "Shift"); err != nil {
			t.Fatalf("key_down: %v", err)
		}
		d.Exit(editorPid)
		waitNoButtons(t, d, "the window closed")
		deadline := time.Now().Add(10 * time.Second)
		for len(d.KeysDown()) > 0 || len(m.Held()) > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("keys %v down, holds %+v listed after the window closed", d.KeysDown(), m.Held())
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}
