package core

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
	"github.com/uiscope/uiscope/internal/security"
)

// lateActions is the fake's Actions whose element actions are answered
// only when the test says (Qt answering a menu item's action once the
// modal dialog it ran has closed); run is called when the action starts.
type lateActions struct {
	platform.Actions
	run    func()
	answer *atomic.Bool // answer at once, rather than never
}

func (l lateActions) StartAction(ctx context.Context, app platform.App, key string, names ...string) (string, <-chan error, error) {
	l.run()
	out := make(chan error, 1)
	if l.answer.Load() {
		out <- nil
		return names[0], out, nil
	}
	go func() {
		<-ctx.Done()
		out <- platform.ErrTimeout
	}()
	return names[0], out, nil
}

// connectLate connects to the fake editor with its actions answered late.
func connectLate(t *testing.T, run func(d safetyDesk)) (*Sessions, *Session, *Tree, *atomic.Bool) {
	t.Helper()
	d := newSafetyDesk()
	answer := &atomic.Bool{}
	desk := d.Platform()
	desk.Actions = lateActions{Actions: desk.Actions, run: func() { run(d) }, answer: answer}
	m, s, tr := formSession(t, desk)
	return m, s, tr, answer
}

// An action whose reply does not come while a window of the app opens is
// delivered, unverified, with the window in its effects, and answered
// without waiting out the reply's deadline.
func TestLateReplyWithWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, s, tr, _ := connectLate(t, func(d safetyDesk) {
			d.AddWindow(editorPid, "Save File", platform.Rect{X: 100, Y: 100, Width: 300, Height: 200})
		})
		start := time.Now()
		r, err := m.ClickWait(context.Background(), s.ID, refOf(t, tr, "Save"), MaxReplyWait)
		if err != nil {
			t.Fatalf("click: %v", err)
		}
		if r.Verified || len(r.Effects.WindowsOpened) != 1 || r.Effects.WindowsOpened[0].Title != "Save File" {
			t.Errorf("click: verified %v, effects %+v; want unverified, the window \"Save File\" opened", r.Verified, r.Effects)
		}
		if took := time.Since(start); took >= MaxReplyWait {
			t.Errorf("the click waited %v, the whole reply deadline, though a window opened", took)
		}
	})
}

// An action not answered in time after which nothing changed is
// effectUnknown, never a retryable timeout; one answered in time is
// verified.
func TestLateReplyWithoutEffect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, s, tr, answer := connectLate(t, func(safetyDesk) {})
		_, err := m.InvokeWait(context.Background(), s.ID, refOf(t, tr, "Save"), "", 50*time.Millisecond)
		e := AsError(err)
		if e == nil || e.Code != CodeEffectUnknown || e.Retryable {
			t.Fatalf("invoke without a reply or an effect: %v; want effectUnknown, not retryable", err)
		}
		answer.Store(true)
		r, err := m.InvokeWait(context.Background(), s.ID, refOf(t, tr, "Save"), "", time.Second)
		if err != nil || !r.Verified {
			t.Fatalf("invoke answered at once: %+v, %v; want verified", r, err)
		}
	})
}

// An observed action answers with the tree changes it caused, refs
// included; an action not observed carries none.
func TestObservedChanges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := fake.New()
		cb := &platform.Node{Key: "cb", Role: fake.Role("check box"), Name: "Remember me", States: fake.Shown | fake.States("checkable"),
			Bounds: &platform.Rect{X: 10, Y: 10, Width: 100, Height: 20}, Interfaces: []string{"component", "action"}, Actions: []string{"toggle"}}
		frame := &platform.Node{Key: "frame", Role: fake.Role("frame"), Name: "Form", States: fake.Shown, Bounds: &platform.Rect{Width: 400, Height: 300},
			Interfaces: []string{"component"}, ChildCount: 1, Children: []*platform.Node{cb}}
		d.AddApp(fake.App{Pid: editorPid, Name: "form", Tree: fake.Root("form", frame)})
		d.SetActive(d.AddWindow(editorPid, "Form", platform.Rect{Width: 400, Height: 300}))
		m := NewSessions(d.Platform())
		m.Caps = security.Input
		ctx := context.Background()
		s, err := m.Connect(ctx, AppSpec{Pid: editorPid}, "")
		if err != nil {
			t.Fatal(err)
		}
		tr, _, err := m.Fetch(ctx, s, 5*time.Second, platform.TreeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ref := refOf(t, tr, "Remember me")
		r, err := m.Toggle(ctx, s.ID, ref)
		if err != nil || r.Changes != nil {
			t.Fatalf("toggle, not observed: %+v, %v; want no changes", r, err)
		}
		r, err = m.Toggle(WithObserve(ctx, 0), s.ID, ref)
		if err != nil || r.Changes == nil {
			t.Fatalf("toggle, observed: %+v, %v; want changes", r, err)
		}
		var got []string
		for _, c := range *r.Changes {
			got = append(got, c.Type+" "+c.Ref)
			if c.Type == ChangeChanged && c.Key == "cb" && c.Ref == ref {
				if _, ok := c.Changes["states"]; ok {
					return
				}
			}
		}
		t.Errorf("toggle, observed: changes %v; want the check box's states changed, under its ref %s", got, ref)
	})
}

// TestWindowRefPopup: an open menu is named as one, never matched to a
// top-level accessible by its size or its title.
func TestWindowRefPopup(t *testing.T) {
	tops := []platform.Node{{Role: platform.RoleFrame, Name: "app", States: platform.StateSet(1) << platform.StateShowing,
		Bounds: &platform.Rect{Width: 120, Height: 90}}}
	menu := platform.Window{ID: 0x1a, Title: "app", Bounds: platform.Rect{X: 5, Y: 5, Width: 120, Height: 90}, Mapped: true, Popup: true}
	if got, want := windowRef(menu, tops), (WindowRef{Window: "0x1a", Role: "menu", Popup: true}); got != want {
		t.Errorf("windowRef(popup) = %+v, want %+v", got, want)
	}
	menu.Popup = false
	if got := windowRef(menu, tops); got.Role != "frame" || got.Popup || got.Title != "app" {
		t.Errorf("windowRef(top level) = %+v", got)
	}
}

// TestWindowRefFramed: a window without a title whose accessible's box is
// its own with the window manager's frame around it (GTK 3's "Save
// changes?" question) is named by that accessible's role and name; the
// main window's box, which holds it too, is no match.
func TestWindowRefFramed(t *testing.T) {
	shown := platform.StateSet(1) << platform.StateShowing
	tops := []platform.Node{
		{Role: platform.RoleFrame, Name: "*x.txt - gedit", States: shown, Bounds: &platform.Rect{X: 505, Y: 162, Width: 910, Height: 756}},
		{Role: fake.Role("alert"), Name: "Question", States: shown, Bounds: &platform.Rect{X: 697, Y: 475, Width: 528, Height: 150}},
	}
	w := platform.Window{ID: 0x2b, Bounds: platform.Rect{X: 698, Y: 495, Width: 526, Height: 129}, Mapped: true}
	if got, want := windowRef(w, tops), (WindowRef{Window: "0x2b", Title: "Question", Role: "alert"}); got != want {
		t.Errorf("windowRef(untitled alert) = %+v, want %+v", got, want)
	}
	w.Bounds = platform.Rect{X: 600, Y: 300, Width: 300, Height: 200}
	if got := windowRef(w, tops); got.Role != "window" || got.Title != "" {
		t.Errorf("windowRef(a window no accessible matches) = %+v, want role window, no title", got)
	}
}

// TestWindowRefBordered: on sway an untitled window's accessible has the
// window's box with a client-side decoration's invisible border on every
// side (GTK 3's "Save changes?" question: 10 px); it is named by that
// accessible's role and name, and the main window, which holds it too, is
// no match; a border deeper below than above (a shadow) is one, a margin
// deeper down than across is not.
func TestWindowRefBordered(t *testing.T) {
	shown := platform.StateSet(1) << platform.StateShowing
	tops := []platform.Node{
		{Role: platform.RoleFrame, Name: "*Untitled Document 1 - gedit", States: shown, Bounds: &platform.Rect{X: 2, Y: 25, Width: 1916, Height: 1053}},
		{Role: fake.Role("alert"), Name: "Question", States: shown, Bounds: &platform.Rect{X: 653, Y: 436, Width: 614, Height: 207}},
	}
	w := platform.Window{ID: platform.SwayWindowID(7), Bounds: platform.Rect{X: 663, Y: 446, Width: 594, Height: 187}, Mapped: true}
	if got, want := windowRef(w, tops), (WindowRef{Window: "sway:7", Title: "Question", Role: "alert"}); got != want {
		t.Errorf("windowRef(untitled alert on sway) = %+v, want %+v", got, want)
	}
	w.Bounds.Y = 443 // a shadow cast downwards: 7 px above, 13 below, as deep in all
	if got, want := windowRef(w, tops), (WindowRef{Window: "sway:7", Title: "Question", Role: "alert"}); got != want {
		t.Errorf("windowRef(untitled alert in a shadow deeper below) = %+v, want %+v", got, want)
	}
	w.Bounds = platform.Rect{X: 663, Y: 456, Width: 594, Height: 177} // 20 px above, 10 below
	if got := windowRef(w, tops); got.Role != "window" || got.Title != "" {
		t.Errorf("windowRef(a window inside an uneven margin) = %+v, want role window, no title", got)
	}
}

// detachedA11y is the fake's Accessibility that calls every element but
// the root's detached from the app's tree (GTK 4's widgets of a window it
// destroyed, which still answer).
type detachedA11y struct {
	platform.Accessibility
	asked *atomic.Int32
	keeps bool // KeepsDetached
}

func (d detachedA11y) Attached(ctx context.Context, app platform.App, key string) (bool, error) {
	d.asked.Add(1)
	return false, nil
}

func (d detachedA11y) KeepsDetached(app platform.App) bool { return d.keeps }

// TestGoneWithItsWindow: an element that still answers but is no longer
// in the app's tree once a window closed (a dialog's button that closed
// it) is gone; without a window closing, it is not asked.
func TestGoneWithItsWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newSafetyDesk()
		dialog := d.AddWindow(editorPid, "Save File", platform.Rect{X: 100, Y: 100, Width: 300, Height: 200})
		closeIt := &atomic.Bool{}
		answer := &atomic.Bool{}
		answer.Store(true)
		desk := d.Platform()
		asked := &atomic.Int32{}
		desk.Accessibility = detachedA11y{Accessibility: desk.Accessibility, asked: asked}
		desk.Actions = lateActions{Actions: desk.Actions, answer: answer, run: func() {
			if closeIt.Load() {
				_ = d.WindowAction(context.Background(), platform.Window{ID: dialog, Pid: editorPid}, "close")
			}
		}}
		m, s, tr := formSession(t, desk)
		ctx := context.Background()
		r, err := m.Click(ctx, s.ID, refOf(t, tr, "Save"))
		if err != nil || r.Effects.Gone || asked.Load() != 0 {
			t.Fatalf("click, no window closed: %+v, %v, Attached asked %d times; want not gone, not asked", r, err, asked.Load())
		}
		closeIt.Store(true)
		r, err = m.Click(ctx, s.ID, refOf(t, tr, "Save"))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := findClosed(r.Effects.WindowsClosed, "Save File"); !ok || !r.Effects.Gone {
			t.Errorf("click that closed the dialog: effects %+v; want \"Save File\" closed and the button gone", r.Effects)
		}
	})
}

func findClosed(ws []WindowRef, title string) (WindowRef, bool) {
	for _, w := range ws {
		if w.Title == title {
			return w, true
		}
	}
	return WindowRef{}, false
}

// TestActOnDetachedRefused: on a toolkit that keeps answering for a closed
// window's widgets, an action on an element no longer in the tree is
// refused as gone, nothing sent; elsewhere the element is not asked about.
func TestActOnDetachedRefused(t *testing.T) {
	for _, keeps := range []bool{true, false} {
		d := newSafetyDesk()
		desk := d.Platform()
		asked := &atomic.Int32{}
		desk.Accessibility = detachedA11y{Accessibility: desk.Accessibility, asked: asked, keeps: keeps}
		sent := &atomic.Int32{}
		answer := &atomic.Bool{}
		answer.Store(true)
		desk.Actions = lateActions{Actions: desk.Actions, answer: answer, run: func() { sent.Add(1) }}
		m, s, tr := formSession(t, desk)
		ctx := context.Background()
		_, err := m.Click(ctx, s.ID, refOf(t, tr, "Save"))
		if keeps {
			if e := AsError(err); e == nil || e.Code != CodeElementGone || sent.Load() != 0 {
				t.Errorf("click on a detached element: %v, %d actions sent; want elementGone, none sent", err, sent.Load())
			}
		} else if err != nil || asked.Load() != 0 || sent.Load() != 1 {
			t.Errorf("click where the toolkit keeps no detached elements: %v, Attached asked %d times, %d actions sent; want done, not asked", err, asked.Load(), sent.Load())
		}
	}
}

// focusA11y is the fake's Accessibility with a focus tracker: the focus
// is on key, moved moves times.
type focusA11y struct {
	platform.Accessibility
	mu    *sync.Mutex
	key   *string
	moves *uint64
}

func (f focusA11y) Focus(ctx context.Context, app platform.App) (string, uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return *f.key, *f.moves
}

// TestFocusRefOfNewElement: an action that opens a dialog whose name field
// takes the focus answers with the field's ref, though no read of the
// session held it before, and the ref resolves to the field; a focus on
// an element the last read holds keeps that read's ref.
func TestFocusRefOfNewElement(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newSafetyDesk()
		var mu sync.Mutex
		key, moves := "", uint64(0)
		moveTo := func(k string) {
			mu.Lock()
			key, moves = k, moves+1
			mu.Unlock()
		}
		answer := &atomic.Bool{}
		answer.Store(true)
		var run func()
		desk := d.Platform()
		desk.Accessibility = focusA11y{Accessibility: desk.Accessibility, mu: &mu, key: &key, moves: &moves}
		desk.Actions = lateActions{Actions: desk.Actions, answer: answer, run: func() { run() }}
		m, s, tr := formSession(t, desk)
		ctx := context.Background()
		m.KeepEvents(ctx, s)
		t.Cleanup(func() { s.live.close() })

		run = func() { openSaveDialog(d); moveTo("dlg/name") }
		r, err := m.Click(ctx, s.ID, refOf(t, tr, "Save"))
		if err != nil {
			t.Fatal(err)
		}
		f := r.Effects.Focus
		if f == nil || f.Ref == "" || f.Role != "text" || f.Name != "File name" {
			t.Fatalf("click that opened the dialog: focus %+v; want the name field with a ref", f)
		}
		n, _, _, err := s.Resolve(f.Ref)
		if err != nil || n.Key != "dlg/name" {
			t.Fatalf("the focus's ref %s resolves to %v, %v; want the name field", f.Ref, n, err)
		}

		body := refOf(t, tr, "Body")
		run = func() {
			root := safetyEditorTree()
			root.Children[0].Children[2].States |= fake.States("focused")
			d.SetTree(editorPid, root)
			moveTo("body")
		}
		if r, err = m.Click(ctx, s.ID, refOf(t, tr, "Save")); err != nil {
			t.Fatal(err)
		}
		if f := r.Effects.Focus; f == nil || f.Ref != body {
			t.Errorf("click that moved the focus to the body: focus %+v; want its ref %s", f, body)
		}
	})
}

// TestFocusInOpenedWindow: where the toolkit announces no focus moves (GTK
// 4), an action that opens a dialog answers with the dialog's focused
// element, read after it opened, and its ref.
func TestFocusInOpenedWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newSafetyDesk()
		answer := &atomic.Bool{}
		answer.Store(true)
		desk := d.Platform()
		desk.Actions = lateActions{Actions: desk.Actions, answer: answer, run: func() { openSaveDialog(d) }}
		m, s, tr := formSession(t, desk)
		ctx := context.Background()
		m.KeepEvents(ctx, s)
		t.Cleanup(func() { s.live.close() })
		r, err := m.Click(ctx, s.ID, refOf(t, tr, "Save"))
		if err != nil {
			t.Fatal(err)
		}
		f := r.Effects.Focus
		if len(r.Effects.WindowsOpened) != 1 || f == nil || f.Ref == "" || f.Name != "File name" {
			t.Fatalf("click that opened the dialog: effects %+v, focus %+v; want the dialog and its name field with a ref", r.Effects, f)
		}
		if n, _, _, err := s.Resolve(f.Ref); err != nil || n.Key != "dlg/name" {
			t.Errorf("the focus's ref %s resolves to %v, %v; want the name field", f.Ref, n, err)
		}
	})
}

// openSaveDialog opens the editor's Save File dialog, its name field
// focused.
func openSaveDialog(d safetyDesk) {
	field := &platform.Node{Key: "dlg/name", Role: fake.Role("text"), Name: "File name", States: fake.Shown | fake.States("focusable", "editable", "focused"),
		Bounds: &platform.Rect{X: 110, Y: 110, Width: 200, Height: 30}, Interfaces: []string{"component", "text", "editabletext"}}
	dialog := &platform.Node{Key: "dlg", Role: fake.Role("dialog"), Name: "Save File", States: fake.Shown,
		Bounds: &platform.Rect{X: 100, Y: 100, Width: 300, Height: 200}, Interfaces: []string{"component"}, ChildCount: 1, Children: []*platform.Node{field}}
	root := safetyEditorTree()
	root.Children, root.ChildCount = append(root.Children, dialog), len(root.Children)+1
	d.SetTree(editorPid, root)
	d.AddWindow(editorPid, "Save File", platform.Rect{X: 100, Y: 100, Width: 300, Height: 200})
}

// TestFocusOfWaitsForTheApp: connect's focus, where the desktop's active
// window is the app's and the app's read has neither a focused element nor
// an active top level yet (GTK 4 marks both a moment after its tree holds
// still, announcing no focus move), is the element the app focuses once
// it catches up, by a ref the session resolves; when the app never marks
// it, none, after focusWait at most. A read with an active top level and
// no focus, or an active window of another app, answers no focus at once.
func TestFocusOfWaitsForTheApp(t *testing.T) {
	focusedTree := func(active bool) *platform.Node {
		root := safetyEditorTree()
		if active {
			root.Children[0].States |= fake.States("active")
		}
		root.Children[0].Children[2].States |= fake.States("focused")
		return root
	}
	activeNoFocus := func() *platform.Node {
		root := safetyEditorTree()
		root.Children[0].States |= fake.States("active")
		return root
	}
	cases := []struct {
		name  string
		setup func(d safetyDesk)
		later *platform.Node // the tree the app shows after 300 ms
		want  string         // the focus's key, "" for none
		took  time.Duration  // how long FocusOf takes
	}{
		{"the app catches up", nil, focusedTree(true), "body", 300 * time.Millisecond},
		{"the app never marks it", nil, nil, "", focusWait},
		{"an active top level without focus", func(d safetyDesk) { d.SetTree(editorPid, activeNoFocus()) }, focusedTree(true), "", 0},
		{"another app's window active", func(d safetyDesk) { d.SetActive(d.otherWin) }, focusedTree(true), "", 0},
		{"focused at once", func(d safetyDesk) { d.SetTree(editorPid, focusedTree(false)) }, nil, "body", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				d := newSafetyDesk()
				if c.setup != nil {
					c.setup(d)
				}
				m, s, _ := formSession(t, d.Platform())
				ctx := context.Background()
				m.KeepEvents(ctx, s)
				t.Cleanup(func() { s.live.close() })
				changed := make(chan struct{})
				go func() {
					defer close(changed)
					time.Sleep(300 * time.Millisecond)
					if c.later != nil {
						d.SetTree(editorPid, c.later)
					}
				}()
				start := time.Now()
				f := m.FocusOf(ctx, s)
				took := time.Since(start)
				<-changed
				if c.want == "" {
					if f != nil {
						t.Errorf("focus %+v; want none", f)
					}
				} else if f == nil || f.Ref == "" {
					t.Errorf("focus %+v; want %s by ref", f, c.want)
				} else if n, _, _, err := s.Resolve(f.Ref); err != nil || n.Key != c.want {
					t.Errorf("the focus's ref %s resolves to %v, %v; want %s", f.Ref, n, err, c.want)
				}
				if took < c.took || took > c.took+200*time.Millisecond {
					t.Errorf("FocusOf took %v; want %v", took, c.took)
				}
			})
		})
	}
}

// TestFocusRefFromReadUnderWay: the ref of a focused element no read of
// the session held comes from the watcher's read already under way when
// that read holds it (a starved app's read takes seconds), not from a
// whole read more.
func TestFocusRefFromReadUnderWay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newSafetyDesk()
		m, s, _ := formSession(t, d.Platform())
		ctx := context.Background()
		m.KeepEvents(ctx, s)
		t.Cleanup(func() { s.live.close() })
		const readTime = time.Second
		d.SetHook(func(ctx context.Context, c fake.Call) error {
			if c.Name == "Tree" {
				time.Sleep(readTime)
			}
			return nil
		})
		openSaveDialog(d) // wakes the watcher: its next read takes the dialog after readTime
		time.Sleep(logMinGap + 50*time.Millisecond)
		synctest.Wait() // that read is under way
		start := time.Now()
		f := m.focusRef(ctx, s, "dlg/name")
		took := time.Since(start)
		if f == nil || f.Ref == "" {
			t.Fatalf("focus %+v; want the name field by ref", f)
		}
		if took > readTime+100*time.Millisecond {
			t.Errorf("the ref came after %v; want it from the read under way, within %v", took, readTime)
		}
		d.SetHook(nil)
	})
}
