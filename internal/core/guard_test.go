package core

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
	"github.com/uiscope/uiscope/internal/security"
)

// TestInteractWithoutKeyboard: with interact granted and keyboard not,
// typing and key chords are refused before anything reaches the desktop;
// a set_value whose text call the toolkit ignored does not fall back to
// typing; pointer and semantic actions work.
func TestInteractWithoutKeyboard(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newSafetyDesk()
		m, s, tr := connectEditor(t, d)
		m.Caps = security.Interact
		ctx := context.Background()
		save, body := refOf(t, tr, "Save"), refOf(t, tr, "Body")
		before := len(d.Calls())
		_, err := m.TypeText(ctx, s.ID, body, "secret")
		wantErrCode(t, "type_text without keyboard", err, CodeInputNotAllowed)
		_, err = m.TypeText(ctx, s.ID, "", "secret")
		wantErrCode(t, "type_text to the app without keyboard", err, CodeInputNotAllowed)
		_, err = m.PressKey(ctx, s.ID, "", "Enter")
		wantErrCode(t, "press_key without keyboard", err, CodeInputNotAllowed)
		if got := d.Calls()[before:]; len(got) != 0 {
			t.Errorf("calls reached the desktop past the keyboard gate: %+v", got)
		}

		d.SetHook(func(_ context.Context, c fake.Call) error {
			if c.Name == "SetText" {
				return platform.ErrNoEffect
			}
			return nil
		})
		_, err = m.SetValue(ctx, s.ID, body, "typed-instead")
		wantErrCode(t, "set_value needing keystrokes without keyboard", err, CodeInputNotAllowed)
		d.SetHook(nil)
		if d.Typed(d.editorWin) != "" || len(d.Keys(d.editorWin)) != 0 {
			t.Error("keys were sent without the keyboard capability")
		}

		if _, err := m.Click(ctx, s.ID, save); err != nil {
			t.Errorf("click with interact granted: %v", err)
		}
		if _, err := m.SetValue(ctx, s.ID, body, "semantic"); err != nil {
			t.Errorf("a semantic set_value with interact granted: %v", err)
		}
	})
}

// TestKeyboardWithoutInteract: keys alone go; clicks are refused.
func TestKeyboardWithoutInteract(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newSafetyDesk()
		m, s, tr := connectEditor(t, d)
		m.Caps = security.Keyboard
		ctx := context.Background()
		_, err := m.Click(ctx, s.ID, refOf(t, tr, "Save"))
		wantErrCode(t, "click without interact", err, CodeInputNotAllowed)
		_, err = m.WindowAction(ctx, s.ID, "close")
		wantErrCode(t, "window_action without interact", err, CodeInputNotAllowed)
		if _, err := m.PressKey(ctx, s.ID, "", "Enter"); err != nil {
			t.Errorf("press_key with keyboard granted: %v", err)
		}
	})
}

// TestAllowlist: an app the list does not allow is neither listed nor
// connected (appNotAllowed, by pid, name or title), whatever name it gave
// the bus: the executable the process runs decides.
func TestAllowlist(t *testing.T) {
	d := newSafetyDesk()
	ctx := context.Background()
	m := NewSessions(d.Platform())
	var err error
	if m.Allow, err = security.ParseAllowlist("edit*"); err != nil {
		t.Fatal(err)
	}
	apps, err := m.Apps(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(apps) != 1 || apps[0].Pid != editorPid {
		t.Errorf("listed %+v; want the editor only", apps)
	}
	for _, tgt := range []AppSpec{{Pid: otherPid}, {Name: "other"}, {Title: "Other"}} {
		_, err := m.Connect(ctx, tgt, "")
		wantErrCode(t, "connect to "+tgt.String(), err, security.CodeAppNotAllowed)
	}
	if _, err := m.Connect(ctx, AppSpec{Pid: editorPid}, ""); err != nil {
		t.Errorf("connect to the allowed editor: %v", err)
	}
	_, err = m.Connect(ctx, AppSpec{Name: "nothing-like-it"}, "")
	wantErrCode(t, "connect to no app", err, CodeNotFound)
}

// TestIdentityPinsWindow: a session opened on a window whose id now
// belongs to another process is ownershipLost.
func TestIdentityPinsWindow(t *testing.T) {
	d := newSafetyDesk()
	ctx := context.Background()
	m := NewSessions(d.Platform())
	s, err := m.Connect(ctx, AppSpec{Window: d.editorWin.String()}, "")
	if err != nil {
		t.Fatal(err)
	}
	if s.Identity.Window == "" {
		t.Fatal("a session opened by window did not pin it")
	}
	s.Identity.Window = d.otherWin.String() // as if the X server handed the id on
	_, err = m.Get(ctx, s.ID)
	wantErrCode(t, "a window now another process's", err, CodeOwnershipLost)
}

// TestNoStartTimeNoSession: a process whose start time cannot be read is
// not pinned by its pid alone.
func TestNoStartTimeNoSession(t *testing.T) {
	_, err := NewSessions(platform.Desktop{Accessibility: newSafetyDesk().Desktop, Processes: zeroStart{}}).Connect(context.Background(), AppSpec{Pid: editorPid}, "")
	wantErrCode(t, "connect without a start time", err, CodeNotSupported)
}

type zeroStart struct{}

func (zeroStart) Process(_ context.Context, pid int) (platform.Process, error) {
	return platform.Process{Pid: pid, Executable: "/usr/bin/editor"}, nil
}
func (zeroStart) Frameworks(context.Context, int) ([]platform.Framework, error) { return nil, nil }

// TestConsentGrantsReadingOnly: with consent prompts, a session the user
// allowed to read is refused every action (consentDenied) although the
// server grants input, and the dialog's process is never listed.
func TestConsentGrantsReadingOnly(t *testing.T) {
	d := newSafetyDesk()
	ctx := context.Background()
	m := NewSessions(d.Platform())
	m.Caps = security.Input
	shown := make(chan struct{}, 4)
	m.Consent = security.NewConsent(func(ctx context.Context, p security.Prompt, started func(int), _ func()) (string, error) {
		started(otherPid) // as if the dialog were the other app
		apps, err := m.Apps(ctx)
		if err != nil {
			return "", err
		}
		for _, a := range apps {
			if a.Pid == otherPid {
				t.Error("the consent dialog's process is listed while it shows")
			}
		}
		if _, err := m.Connect(ctx, AppSpec{Pid: otherPid}, ""); err == nil {
			t.Error("the consent dialog's process could be connected")
		}
		shown <- struct{}{}
		return "read", nil
	}, time.Minute)
	s, err := m.Connect(ctx, AppSpec{Pid: editorPid}, "")
	if err != nil {
		t.Fatal(err)
	}
	tr, _, err := m.Fetch(ctx, s, 5*time.Second, platform.TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	before := len(d.Calls())
	_, err = m.Click(ctx, s.ID, refOf(t, tr, "Save"))
	wantErrCode(t, "click with reading consented", err, security.CodeConsentDenied)
	_, err = m.TypeText(ctx, s.ID, "", "x")
	wantErrCode(t, "typing with reading consented", err, security.CodeConsentDenied)
	_, err = m.WindowAction(ctx, s.ID, "close")
	wantErrCode(t, "window_action with reading consented", err, security.CodeConsentDenied)
	for _, c := range d.Calls()[before:] {
		if c.Name != "Process" && c.Name != "Owner" && c.Name != "WindowPid" && c.Name != "Element" {
			t.Errorf("an action reached the desktop: %+v", c)
		}
	}
	if _, err := m.Connect(ctx, AppSpec{Pid: editorPid}, ""); err != nil {
		t.Errorf("a second connect: %v", err)
	}
	if len(shown) != 1 {
		t.Errorf("%d dialogs, want 1", len(shown))
	}
}
