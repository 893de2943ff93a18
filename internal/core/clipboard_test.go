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

func TestPasteChordAndName(t *testing.T) {
	for keys, want := range map[string]bool{
		"Ctrl+V": true, "ctrl+v": true, "Ctrl+Shift+V": true, "Shift+Insert": true, "shift+Insert": true, "Ctrl+Shift+Insert": true,
		"v": false, "Shift+V": false, "Ctrl+C": false, "Insert": false, "Ctrl+Insert": false, "Alt+V": false,
	} {
		ch, err := platform.ParseChord(keys)
		if err != nil {
			t.Fatalf("ParseChord(%q): %v", keys, err)
		}
		if got := pasteChord(ch.Mods, ch.Key); got != want {
			t.Errorf("pasteChord(%s) = %v, want %v", keys, got, want)
		}
	}
	for name, want := range map[string]bool{
		"Paste": true, "_Paste": true, "&Paste": true, "paste": true, "Paste…": true, "Paste...": true, "Paste\tCtrl+V": true,
		"Paste Special…": true, "Paste as Plain Text": true, " Paste ": true,
		"Pasted": false, "Copy": false, "Paste-board": false, "": false, "Tapas": false,
	} {
		if got := pasteName(name); got != want {
			t.Errorf("pasteName(%q) = %v, want %v", name, got, want)
		}
	}
}

// clipboardEditor is the safety desk's editor with a "_Paste" button, and
// sessions that allow only its executable (--apps).
func clipboardEditor(t *testing.T) (safetyDesk, *Sessions, *Session, *Tree) {
	t.Helper()
	d := newSafetyDesk()
	root := safetyEditorTree()
	frame := root.Children[0]
	b := platform.Rect{X: 200, Y: 20, Width: 80, Height: 30}
	frame.Children = append(frame.Children, &platform.Node{Key: "paste", Role: fake.Role("push button"), Name: "_Paste",
		States: fake.Shown, Bounds: &b, Interfaces: []string{"component", "action"}, Actions: []string{"click"}})
	frame.ChildCount = len(frame.Children)
	d.SetTree(editorPid, root)
	m := NewSessions(d.Platform())
	m.Caps = security.Input
	allow, err := security.ParseAllowlist("*")
	if err != nil {
		t.Fatal(err)
	}
	m.Allow = allow
	ctx := context.Background()
	s, err := m.Connect(ctx, AppSpec{Pid: editorPid}, "")
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	tr, _, err := m.Fetch(ctx, s, 5*time.Second, platform.TreeOptions{})
	if err != nil {
		t.Fatalf("fetch: %v", err)
	}
	return d, m, s, tr
}

// TestClipboardRefusedWithApps: with --apps, every way to paste the core
// can tell is refused before anything is sent (clipboardNotAllowed): the
// middle button, paste chords in press_key, type_text and key_down, held
// keys included, and clicking, invoking or pressing an element named
// Paste; --allow-clipboard lets them through, and without --apps they
// were never refused.
func TestClipboardRefusedWithApps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d, m, s, tr := clipboardEditor(t)
		ctx := context.Background()
		body, paste := refOf(t, tr, "Body"), refOf(t, tr, "_Paste")
		refused := func(what string, err error) {
			t.Helper()
			if e := AsError(err); e == nil || e.Code != security.CodeClipboardNotAllowed {
				t.Errorf("%s: %v, want clipboardNotAllowed", what, err)
			}
		}
		_, err := m.Press(ctx, s.ID, body, nil, 2)
		refused("press button 2", err)
		_, err = m.Press(ctx, s.ID, paste, nil, 1)
		refused("press on _Paste", err)
		_, err = m.Click(ctx, s.ID, paste)
		refused("click _Paste", err)
		_, err = m.Invoke(ctx, s.ID, paste, "")
		refused("invoke _Paste", err)
		for _, k := range []string{"Ctrl+V", "Ctrl+Shift+V", "Shift+Insert"} {
			_, err = m.PressKey(ctx, s.ID, body, k)
			refused("press_key "+k, err)
		}
		if _, err := m.KeyDown(ctx, s.ID, "Ctrl"); err != nil {
			t.Fatal(err)
		}
		_, err = m.TypeText(ctx, s.ID, body, "v")
		refused("type_text v with Ctrl held", err)
		_, err = m.PressKey(ctx, s.ID, body, "v")
		refused("press_key v with Ctrl held", err)
		_, err = m.KeyDown(ctx, s.ID, "v")
		refused("key_down v with Ctrl held", err)
		if _, err := m.KeyUp(ctx, s.ID, "Ctrl"); err != nil {
			t.Fatal(err)
		}
		if len(d.Clicks()) != 0 || len(d.ButtonsDown()) != 0 || len(d.Keys(d.editorWin)) != 0 || d.Typed(d.editorWin) != "" {
			t.Errorf("refused, yet sent: clicks %v, buttons %v, keys %v, typed %q", d.Clicks(), d.ButtonsDown(), d.Keys(d.editorWin), d.Typed(d.editorWin))
		}
		// Typing a v alone, and Ctrl+C, are not pastes.
		if _, err := m.PressKey(ctx, s.ID, body, "Ctrl+C"); err != nil {
			t.Errorf("press_key Ctrl+C: %v", err)
		}

		m.AllowClipboard = true
		if _, err := m.PressKey(ctx, s.ID, body, "Ctrl+V"); err != nil {
			t.Errorf("press_key Ctrl+V with --allow-clipboard: %v", err)
		}
		if _, err := m.Invoke(ctx, s.ID, paste, ""); err != nil {
			t.Errorf("invoke _Paste with --allow-clipboard: %v", err)
		}
		if _, err := m.Press(ctx, s.ID, body, nil, 2); err != nil {
			t.Errorf("press button 2 with --allow-clipboard: %v", err)
		} else if _, err := m.Release(ctx, s.ID, 2); err != nil {
			t.Fatal(err)
		}
		m.AllowClipboard, m.Allow = false, nil
		if _, err := m.PressKey(ctx, s.ID, body, "Shift+Insert"); err != nil {
			t.Errorf("press_key Shift+Insert without --apps: %v", err)
		}
	})
}
