package core

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
	"github.com/uiscope/uiscope/internal/security"
)

// The action-safety tests run the core against the fake desktop
// (internal/platform/fake): an editor (pid editorPid) with one window, and
// a second application whose window can cover it or take the focus.
const (
	editorPid = 4242
	otherPid  = 5151
)

// safetyEditorTree: a frame holding a button with an action, a button without
// any (only a real click presses it) and a text field.
func safetyEditorTree() *platform.Node {
	el := func(key, r, name string, b platform.Rect, ifaces []string, actions []string, kids ...*platform.Node) *platform.Node {
		return &platform.Node{Key: key, Role: fake.Role(r), Name: name, States: fake.Shown, Bounds: &b,
			Interfaces: ifaces, Actions: actions, ChildCount: len(kids), Children: kids}
	}
	body := el("body", "text", "Body", platform.Rect{X: 20, Y: 200, Width: 600, Height: 300}, []string{"component", "text", "editabletext"}, nil)
	body.States |= fake.States("focusable", "editable")
	frame := el("frame", "frame", "Editor", platform.Rect{Width: 800, Height: 600}, []string{"component"}, nil,
		el("save", "push button", "Save", platform.Rect{X: 20, Y: 20, Width: 80, Height: 30}, []string{"component", "action"}, []string{"click"}),
		el("plain", "push button", "Pointer only", platform.Rect{X: 100, Y: 100, Width: 80, Height: 30}, []string{"component"}, nil),
		body)
	return fake.Root("editor", frame)
}

type safetyDesk struct {
	*fake.Desktop
	editorWin, otherWin platform.WindowID
}

// newSafetyDesk: the editor's window at 0,0 800x600, active; the other
// application's window at 400,300, below it.
func newSafetyDesk() safetyDesk {
	d := fake.New()
	d.AddApp(fake.App{Pid: otherPid, Name: "other", Tree: &platform.Node{Key: "oroot", Role: platform.RoleApplication, Name: "other"}})
	other := d.AddWindow(otherPid, "Other", platform.Rect{X: 400, Y: 300, Width: 400, Height: 300})
	d.AddApp(fake.App{Pid: editorPid, Name: "editor", Toolkit: "GTK", ToolkitVersion: "3.24", Tree: safetyEditorTree()})
	editor := d.AddWindow(editorPid, "Editor", platform.Rect{Width: 800, Height: 600})
	d.SetActive(editor)
	return safetyDesk{Desktop: d, editorWin: editor, otherWin: other}
}

// connectEditor opens a session on the editor with input allowed and reads its
// tree.
func connectEditor(t *testing.T, d safetyDesk) (*Sessions, *Session, *Tree) {
	t.Helper()
	return formSession(t, d.Platform())
}

func wantErrCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if e := AsError(err); e == nil || e.Code != code {
		t.Fatalf("%s: %v, want errorCode %s", what, err, code)
	}
}

// TestClickCoveredByAnotherWindow: a pointer click whose point another
// application's window covers is refused with errorCode covered, and no
// click is sent; the same click with nothing on top lands.
func TestClickCoveredByAnotherWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newSafetyDesk()
		m, s, tr := connectEditor(t, d)
		ref := refOf(t, tr, "Pointer only")
		ctx := context.Background()

		// Another app's window kept above the others (a popup, an "always on
		// top" window) covers the button's centre (140,115), however the
		// editor is raised.
		cover := d.AddWindow(otherPid, "Always on top", platform.Rect{X: 120, Y: 90, Width: 200, Height: 100})
		d.SetAbove(cover, true)

		_, err := m.Click(ctx, s.ID, ref)
		wantErrCode(t, "click on a covered point", err, CodeCovered)
		if c := d.Clicks(); len(c) != 0 {
			t.Fatalf("a covered click was sent anyway: %+v", c)
		}

		// Uncovered, the same click is sent, at the centre, to the editor.
		d.WindowAction(ctx, platform.Window{ID: cover}, "close")
		r, err := m.Click(ctx, s.ID, ref)
		if err != nil {
			t.Fatalf("click with nothing on top: %v", err)
		}
		if r.Method != MethodPointer {
			t.Errorf("method %q, want %q (the button has no action)", r.Method, MethodPointer)
		}
		if c := d.Clicks(); len(c) != 1 || c[0].X != 140 || c[0].Y != 115 || c[0].Window != d.editorWin {
			t.Errorf("clicks %+v, want one at 140,115 on the editor's window %s", c, d.editorWin)
		}
	})
}

// TestClickOnOwnPopup: a window of the same application on top (its menu)
// is the application: the click goes through.
func TestClickOnOwnPopup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newSafetyDesk()
		m, s, tr := connectEditor(t, d)
		menu := d.AddWindow(editorPid, "", platform.Rect{X: 120, Y: 90, Width: 200, Height: 100})
		d.SetAbove(menu, true)
		if _, err := m.Click(context.Background(), s.ID, refOf(t, tr, "Pointer only")); err != nil {
			t.Fatalf("click under the app's own popup: %v", err)
		}
		if c := d.Clicks(); len(c) != 1 || c[0].Window != menu {
			t.Errorf("clicks %+v, want one on the popup %s", c, menu)
		}
	})
}

// TestTypingStopsWhenFocusMoves: another window taking the focus while
// text is typed stops the typing with windowNotActivated; the rest of the
// text is not typed anywhere, and what reached the other window is less
// than one batch.
func TestTypingStopsWhenFocusMoves(t *testing.T) {
	d := newSafetyDesk()
	m, s, _ := connectEditor(t, d)
	text := strings.Repeat("secret-", 20) // 140 characters
	const after = 20
	d.StealFocusAfter(after, d.otherWin)

	_, err := m.TypeText(context.Background(), s.ID, "", text)
	wantErrCode(t, "typing while the focus moves", err, CodeNotActivated)
	if e := AsError(err); e != nil && e.Retryable {
		t.Errorf("typing stopped after %d characters is retryable: the whole text again would type them twice", after)
	}
	toEditor, toOther := d.Typed(d.editorWin), d.Typed(d.otherWin)
	if toEditor != text[:after] {
		t.Errorf("the editor got %q, want the first %d characters %q", toEditor, after, text[:after])
	}
	if len(toOther) >= typeBatch {
		t.Errorf("%d characters went to the other window after it took the focus, want fewer than one batch (%d)", len(toOther), typeBatch)
	}
	if sent := len(toEditor) + len(toOther); sent >= len(text) {
		t.Errorf("%d of %d characters were typed although the focus moved", sent, len(text))
	}
	if !strings.HasPrefix(text, toEditor+toOther) {
		t.Errorf("typed %q then %q: not the text's beginning", toEditor, toOther)
	}
}

// TestActionsReturnByTheirDeadline: an application that stops answering,
// before the action or in the middle of it, never holds the action past
// its context's deadline; the action fails with errorCode timeout
// (retryable), not a false ownershipLost.
func TestActionsReturnByTheirDeadline(t *testing.T) {
	cases := []struct {
		name  string
		stuck string // the call that blocks; "" freezes the app throughout
		act   func(ctx context.Context, m *Sessions, s *Session, tr *Tree) (*ActResult, error)
	}{
		{"click, frozen app", "", func(ctx context.Context, m *Sessions, s *Session, tr *Tree) (*ActResult, error) {
			return m.Click(ctx, s.ID, refOf(t, tr, "Save"))
		}},
		{"click, action hangs", "DoAction", func(ctx context.Context, m *Sessions, s *Session, tr *Tree) (*ActResult, error) {
			return m.Click(ctx, s.ID, refOf(t, tr, "Save"))
		}},
		{"pointer click, window manager hangs", "Activate", func(ctx context.Context, m *Sessions, s *Session, tr *Tree) (*ActResult, error) {
			return m.Click(ctx, s.ID, refOf(t, tr, "Pointer only"))
		}},
		{"set_value, text call hangs", "SetText", func(ctx context.Context, m *Sessions, s *Session, tr *Tree) (*ActResult, error) {
			return m.SetValue(ctx, s.ID, refOf(t, tr, "Body"), "x")
		}},
		{"type_text, typing hangs", "TypeText", func(ctx context.Context, m *Sessions, s *Session, tr *Tree) (*ActResult, error) {
			return m.TypeText(ctx, s.ID, "", "abc")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				d := newSafetyDesk()
				m, s, tr := connectEditor(t, d)
				if c.stuck == "" {
					d.Freeze(editorPid, true)
				} else {
					d.SetHook(func(ctx context.Context, call fake.Call) error {
						if call.Name == c.stuck {
							<-ctx.Done()
							return fmt.Errorf("%w: %v", platform.ErrTimeout, ctx.Err())
						}
						return nil
					})
				}
				ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
				defer cancel()
				done := make(chan error, 1)
				go func() {
					_, err := c.act(ctx, m, s, tr)
					done <- err
				}()
				select {
				case err := <-done:
					wantErrCode(t, c.name, err, CodeTimeout)
					if !AsError(err).Retryable {
						t.Errorf("%s: a timeout should be retryable", c.name)
					}
				case <-time.After(time.Minute):
					// Not a timing assertion: a minute past a 200 ms deadline
					// means the deadline was ignored.
					t.Fatalf("%s did not return a minute after its deadline", c.name)
				}
			})
		})
	}
}

// TestInputGateStopsBeforeThePlatform: without input capabilities every action
// answers inputNotAllowed, on a live session with valid refs, and nothing
// reaches the desktop's input, window or action parts.
func TestInputGateStopsBeforeThePlatform(t *testing.T) {
	d := newSafetyDesk()
	m, s, tr := connectEditor(t, d)
	m.Caps = 0
	before := len(d.Calls())
	ctx := context.Background()
	save, body := refOf(t, tr, "Save"), refOf(t, tr, "Body")
	calls := map[string]func() (*ActResult, error){
		"click":         func() (*ActResult, error) { return m.Click(ctx, s.ID, save) },
		"invoke":        func() (*ActResult, error) { return m.Invoke(ctx, s.ID, save, "") },
		"toggle":        func() (*ActResult, error) { return m.Toggle(ctx, s.ID, save) },
		"set_value":     func() (*ActResult, error) { return m.SetValue(ctx, s.ID, body, "x") },
		"set_expanded":  func() (*ActResult, error) { return m.SetExpanded(ctx, s.ID, save, true) },
		"select":        func() (*ActResult, error) { return m.Select(ctx, s.ID, save, "") },
		"focus":         func() (*ActResult, error) { return m.Focus(ctx, s.ID, body) },
		"select_text":   func() (*ActResult, error) { return m.SelectText(ctx, s.ID, body, 0, -1) },
		"scroll":        func() (*ActResult, error) { return m.Scroll(ctx, s.ID, save, "down", 1) },
		"type_text":     func() (*ActResult, error) { return m.TypeText(ctx, s.ID, "", "hello") },
		"press_key":     func() (*ActResult, error) { return m.PressKey(ctx, s.ID, "", "Enter") },
		"window_action": func() (*ActResult, error) { return m.WindowAction(ctx, s.ID, "close") },
	}
	for name, call := range calls {
		_, err := call()
		wantErrCode(t, name+" without input allowed", err, CodeInputNotAllowed)
	}
	if got := d.Calls()[before:]; len(got) != 0 {
		t.Errorf("calls reached the desktop past the input gate: %+v", got)
	}
	if len(d.Clicks()) != 0 || d.Typed(d.editorWin) != "" || len(d.Keys(d.editorWin)) != 0 {
		t.Error("input was sent past the input gate")
	}
}

// TestIdentityThroughProcesses: a session whose process was replaced (same
// pid, another start time), or that exited, answers ownershipLost; the
// identity comes from the platform's Processes part.
func TestIdentityThroughProcesses(t *testing.T) {
	ctx := context.Background()
	d := newSafetyDesk()
	m, s, _ := connectEditor(t, d)
	if _, err := m.Get(ctx, s.ID); err != nil {
		t.Fatalf("a live session: %v", err)
	}
	d.Restart(editorPid)
	_, err := m.Get(ctx, s.ID)
	wantErrCode(t, "a restarted process", err, CodeOwnershipLost)

	d = newSafetyDesk()
	m, s, _ = connectEditor(t, d)
	d.Exit(editorPid)
	_, err = m.Get(ctx, s.ID)
	wantErrCode(t, "an exited process", err, CodeOwnershipLost)
}

// TestMissingPartsAreNotSupported: a backend that lacks a part makes what
// needs it answer notSupported; a backend without Processes opens no
// session.
func TestMissingPartsAreNotSupported(t *testing.T) {
	ctx := context.Background()
	d := newSafetyDesk()
	p := d.Platform()
	p.Processes = nil
	_, err := NewSessions(p).Connect(ctx, AppSpec{Pid: editorPid}, "")
	wantErrCode(t, "connect without Processes", err, CodeNotSupported)

	p = d.Platform()
	p.Input = nil
	m := NewSessions(p)
	m.Caps = security.Input
	s, err := m.Connect(ctx, AppSpec{Pid: editorPid}, "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.TypeText(ctx, s.ID, "", "x")
	wantErrCode(t, "typing without Input", err, CodeNotSupported)

	_, err = NewSessions(platform.Desktop{}).Apps(ctx)
	wantErrCode(t, "apps without Accessibility", err, CodeNotSupported)
}
