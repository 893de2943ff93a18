package core

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
	"github.com/uiscope/uiscope/internal/security"
)

// TestVisualActions: in a visual session on an app without an
// accessibility tree, a click lands at the centre of the window's
// geometry after its top-level window is brought to the front, never when
// another application's window covers the point; semantic actions are
// refused before anything is sent.
func TestVisualActions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		d := fake.New()
		const tkPid, otherPid = 40, 41
		d.AddApp(fake.App{Pid: tkPid, Name: "tk", StartTime: 7})
		d.AddApp(fake.App{Pid: otherPid, Name: "other", StartTime: 8, Tree: &platform.Node{Key: "o", Role: platform.RoleApplication}})
		top := d.AddWindow(tkPid, "tk app", platform.Rect{X: 100, Y: 100, Width: 300, Height: 200})
		button := d.AddChild(top, platform.Rect{X: 150, Y: 150, Width: 60, Height: 30})
		cover := d.AddWindow(otherPid, "cover", platform.Rect{X: 140, Y: 140, Width: 100, Height: 100})
		d.SetAbove(cover, true)

		m := NewSessions(d.Platform())
		m.Caps = security.Input
		if _, err := m.Connect(ctx, AppSpec{Pid: tkPid}, ModeA11y); AsError(err).Code != CodeNotAccessible {
			t.Fatalf("a11y session on an app without a tree: %v", err)
		}
		s, err := m.Connect(ctx, AppSpec{Pid: tkPid}, ModeVisual)
		if err != nil {
			t.Fatal(err)
		}
		r, err := m.ReadVisual(ctx, s.ID, VisualRequest{Depth: -1})
		if err != nil {
			t.Fatal(err)
		}
		pos, ok := r.Tree.ByKey("fake:" + button.String())
		if !ok {
			t.Fatalf("the button window is not in the visual tree")
		}
		ref := r.Tree.RefString(pos)

		_, err = m.Click(ctx, s.ID, ref)
		if e := AsError(err); e == nil || e.Code != CodeCovered {
			t.Errorf("click on a covered window: %v, want covered", err)
		}
		for _, call := range []func() (*ActResult, error){
			func() (*ActResult, error) { return m.Toggle(ctx, s.ID, ref) },
			func() (*ActResult, error) { return m.Invoke(ctx, s.ID, ref, "") },
			func() (*ActResult, error) { return m.SetValue(ctx, s.ID, ref, "x") },
			func() (*ActResult, error) { return m.Select(ctx, s.ID, ref, "replace") },
		} {
			if _, err := call(); AsError(err).Code != CodeNotSupported {
				t.Errorf("a semantic action in a visual session: %v, want notSupported", err)
			}
		}
		if n := len(d.Clicks()); n != 0 {
			t.Fatalf("%d clicks sent while refusing", n)
		}

		d.SetAbove(cover, false)
		res, err := m.Click(ctx, s.ID, ref)
		if err != nil {
			t.Fatal(err)
		}
		clicks := d.Clicks()
		if len(clicks) != 1 || clicks[0].X != 180 || clicks[0].Y != 165 || clicks[0].Window != top {
			t.Errorf("clicks %+v; want one at the button's centre 180,165 on window %s", clicks, top)
		}
		if res.Method != MethodPointer || res.Element != ref || res.After == nil {
			t.Errorf("result %+v", res)
		}
		if d.Active() != top {
			t.Errorf("active window %s after the click, want %s", d.Active(), top)
		}
	})
}

// TestVisualSessionOfAnotherClient: another client's visual session is
// refused as unknown by every action, before any argument of its own is
// judged, so that no answer tells it is a visual session.
func TestVisualSessionOfAnotherClient(t *testing.T) {
	d := fake.New()
	d.AddApp(fake.App{Pid: 50, Name: "tk", StartTime: 1})
	d.AddWindow(50, "tk", platform.Rect{X: 10, Y: 10, Width: 100, Height: 100})
	m := NewSessions(d.Platform())
	m.Caps = security.Input
	owner := WithClient(context.Background(), "a")
	s, err := m.Connect(owner, AppSpec{Pid: 50}, ModeVisual)
	if err != nil {
		t.Fatal(err)
	}
	other := WithClient(context.Background(), "b")
	for name, call := range map[string]func() error{
		"scroll intoView": func() error { _, err := m.Scroll(other, s.ID, "visual:e1", "intoView", 0); return err },
		"click":           func() error { _, err := m.Click(other, s.ID, "visual:e1"); return err },
		"focus":           func() error { _, err := m.Focus(other, s.ID, "visual:e1"); return err },
		"type_text":       func() error { _, err := m.TypeText(other, s.ID, "visual:e1", "x"); return err },
	} {
		if e := AsError(call()); e == nil || e.Code != CodeUnknownSession {
			t.Errorf("%s on another client's visual session: %v, want unknownSession", name, e)
		}
	}
	if n := len(d.Clicks()); n != 0 {
		t.Errorf("%d clicks sent", n)
	}
}

// TestVisualSessionIgnoresA11yConnection: a visual session's identity is
// the process: its app's accessibility connection closing does not end it
// (it ends an a11y session on the same app).
func TestVisualSessionIgnoresA11yConnection(t *testing.T) {
	ctx := context.Background()
	d := fake.New()
	d.AddApp(fake.App{Pid: 60, Name: "gtk", StartTime: 1, Tree: &platform.Node{Key: "r", Role: platform.RoleApplication}})
	d.AddWindow(60, "gtk", platform.Rect{X: 10, Y: 10, Width: 100, Height: 100})
	m := NewSessions(d.Platform())
	vis, err := m.Connect(ctx, AppSpec{Pid: 60}, ModeVisual)
	if err != nil {
		t.Fatal(err)
	}
	a11y, err := m.Connect(ctx, AppSpec{Pid: 60}, ModeA11y)
	if err != nil {
		t.Fatal(err)
	}
	d.SetHook(func(_ context.Context, c fake.Call) error {
		if c.Name == "Owner" {
			return platform.ErrNoBus
		}
		return nil
	})
	if _, err := m.Get(ctx, a11y.ID); AsError(err).Code != CodeOwnershipLost {
		t.Errorf("a11y session after its app's accessibility connection closed: %v, want ownershipLost", err)
	}
	if _, err := m.ReadVisual(ctx, vis.ID, VisualRequest{Depth: -1}); err != nil {
		t.Errorf("visual session after the accessibility connection closed: %v", err)
	}
}
