package core

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
)

// TestInputLockSerializesSessions: two sessions type into two applications
// at once, each activating its own window. The input lock keeps each
// activate → check → type sequence whole, so each window gets exactly its
// own text; without it the second call's activation lands between the
// first call's check and its keys.
func TestInputLockSerializesSessions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newSafetyDesk()
		m, editor, _ := connectEditor(t, d)
		other, err := m.Connect(context.Background(), AppSpec{Pid: otherPid}, "")
		if err != nil {
			t.Fatal(err)
		}
		// Every input call yields, so that two unlocked sequences interleave.
		d.SetHook(func(ctx context.Context, c fake.Call) error {
			switch c.Name {
			case "Activate", "ActiveWindow", "TypeText":
				runtime.Gosched()
			}
			return nil
		})
		texts := map[*Session]string{editor: strings.Repeat("editor. ", 40), other: strings.Repeat("OTHER! ", 40)}
		for range 3 {
			d.SetActive(d.editorWin)
			before := map[platform.WindowID]string{d.editorWin: d.Typed(d.editorWin), d.otherWin: d.Typed(d.otherWin)}
			var wg sync.WaitGroup
			errs := make(map[*Session]error)
			var mu sync.Mutex
			for s, text := range texts {
				wg.Go(func() {
					_, err := m.TypeText(context.Background(), s.ID, "", text)
					mu.Lock()
					errs[s] = err
					mu.Unlock()
				})
			}
			wg.Wait()
			for s, err := range errs {
				if err != nil {
					t.Fatalf("typing into %s: %v", s.App.Name, err)
				}
			}
			if got := strings.TrimPrefix(d.Typed(d.editorWin), before[d.editorWin]); got != texts[editor] {
				t.Fatalf("the editor's window got %q, want exactly %q", got, texts[editor])
			}
			if got := strings.TrimPrefix(d.Typed(d.otherWin), before[d.otherWin]); got != texts[other] {
				t.Fatalf("the other window got %q, want exactly %q", got, texts[other])
			}
		}
	})
}

// TestKeysGoToTheAppsFocusedWindow: press_key without an element goes to
// the app's window that has the focus — its dialog — without raising the
// main window past it; when another application has the focus, the
// session's main window is activated first; never the other app's window.
func TestKeysGoToTheAppsFocusedWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newSafetyDesk()
		m, s, _ := connectEditor(t, d)
		ctx := context.Background()
		dialog := d.AddWindow(editorPid, "Save As", platform.Rect{X: 100, Y: 100, Width: 400, Height: 300})
		d.SetActive(dialog)
		if _, err := m.PressKey(ctx, s.ID, "", "Enter"); err != nil {
			t.Fatalf("Enter while the app's dialog has the focus: %v", err)
		}
		if k := d.Keys(dialog); len(k) != 1 || k[0] != "Enter" {
			t.Errorf("the dialog got keys %v, want [Enter]", k)
		}
		if k := d.Keys(d.editorWin); len(k) != 0 || d.Active() != dialog {
			t.Errorf("the main window got %v and the active window is %s: the dialog should have kept the focus", k, d.Active())
		}

		d.SetActive(d.otherWin)
		if _, err := m.PressKey(ctx, s.ID, "", "Ctrl+s"); err != nil {
			t.Fatalf("Ctrl+s while another app has the focus: %v", err)
		}
		if k := d.Keys(d.otherWin); len(k) != 0 {
			t.Errorf("keys went to another application's window: %v", k)
		}
		if got := append(d.Keys(d.editorWin), d.Keys(dialog)...); len(got) != 2 {
			t.Errorf("keys of the app's windows %v, want Enter and Ctrl+s", got)
		}
	})
}

// TestDesktopChordsRefused: chords the desktop acts on are refused before
// anything is sent, unless the server allows them.
func TestDesktopChordsRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newSafetyDesk()
		m, s, _ := connectEditor(t, d)
		ctx := context.Background()
		for _, k := range []string{"Super+l", "Alt+Tab", "Ctrl+Alt+t", "Ctrl+Alt+F2"} {
			_, err := m.PressKey(ctx, s.ID, "", k)
			wantErrCode(t, "press_key "+k, err, CodeInvalidArgument)
		}
		if k := d.Keys(d.editorWin); len(k) != 0 {
			t.Fatalf("refused chords were sent: %v", k)
		}
		m.AllowDesktopKeys = true
		if _, err := m.PressKey(ctx, s.ID, "", "Super+l"); err != nil {
			t.Fatalf("Super+l with desktop keys allowed: %v", err)
		}
		if k := d.Keys(d.editorWin); len(k) != 1 {
			t.Errorf("keys sent %v, want the allowed chord", k)
		}
	})
}

// countingEvents counts the event watches that are open.
type countingEvents struct {
	platform.Events
	mu   sync.Mutex
	open int
}

func (c *countingEvents) Watch(ctx context.Context, a platform.App) (<-chan struct{}, func(), error) {
	ch, stop, err := c.Events.Watch(ctx, a)
	if err != nil {
		return ch, stop, err
	}
	c.mu.Lock()
	c.open++
	c.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			c.mu.Lock()
			c.open--
			c.mu.Unlock()
		})
		stop()
	}, nil
}

func (c *countingEvents) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.open
}

// TestActionsCloseTheirWatch: every action ends the event watch it opened,
// whether it succeeds or fails early (the window cannot be activated, the
// element does not take the focus).
func TestActionsCloseTheirWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newSafetyDesk()
		p := d.Platform()
		ev := &countingEvents{Events: p.Events}
		p.Events = ev
		m, s, tr := formSession(t, p)
		ctx := context.Background()
		body, save := refOf(t, tr, "Body"), refOf(t, tr, "Save")
		calls := map[string]func() error{
			"press_key":         func() error { _, err := m.PressKey(ctx, s.ID, "", "Enter"); return err },
			"press_key element": func() error { _, err := m.PressKey(ctx, s.ID, body, "Enter"); return err },
			"type_text":         func() error { _, err := m.TypeText(ctx, s.ID, "", "abc"); return err },
			"type_text element": func() error { _, err := m.TypeText(ctx, s.ID, body, "abc"); return err },
			"click":             func() error { _, err := m.Click(ctx, s.ID, save); return err },
			"focus":             func() error { _, err := m.Focus(ctx, s.ID, body); return err },
		}
		for _, failing := range []bool{false, true} {
			d.SetActive(d.otherWin)
			if failing {
				d.SetHook(func(ctx context.Context, c fake.Call) error {
					if c.Name == "Activate" || c.Name == "GrabFocus" {
						return platform.ErrNotActivated
					}
					return nil
				})
			}
			for name, call := range calls {
				err := call()
				if !failing && err != nil {
					t.Errorf("%s: %v", name, err)
				}
				if n := ev.count(); n != 0 {
					t.Errorf("%s (failing %v, err %v): %d event watches left open", name, failing, err, n)
				}
			}
		}
	})
}
