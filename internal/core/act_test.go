package core

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
	"github.com/uiscope/uiscope/internal/security"
)

// nullDesktop is a platform that cannot be reached: any call into it is a
// test failure, which shows the gate stops calls before the platform.
type nullDesktop struct{ t *testing.T }

func (d nullDesktop) Apps(context.Context) ([]platform.App, error) {
	d.t.Error("Apps called past the input gate")
	return nil, nil
}
func (d nullDesktop) Tree(context.Context, platform.App, platform.TreeOptions) (*platform.Node, platform.TreeStats, error) {
	d.t.Error("Tree called past the input gate")
	return nil, platform.TreeStats{}, nil
}
func (d nullDesktop) Element(context.Context, platform.App, string) (*platform.Details, error) {
	d.t.Error("Element called past the input gate")
	return nil, nil
}
func (d nullDesktop) Owner(context.Context, platform.App) (int, error) {
	d.t.Error("Owner called past the input gate")
	return 0, nil
}

// TestActionsRefusedWithoutInput: the core refuses every action when input
// was not allowed, whatever the MCP layer registered.
func TestActionsRefusedWithoutInput(t *testing.T) {
	m := NewSessions(platform.Desktop{Accessibility: nullDesktop{t}})
	ctx := context.Background()
	calls := map[string]func() (*ActResult, error){
		"click":         func() (*ActResult, error) { return m.Click(ctx, "s1", "a11y:e1") },
		"invoke":        func() (*ActResult, error) { return m.Invoke(ctx, "s1", "a11y:e1", "") },
		"toggle":        func() (*ActResult, error) { return m.Toggle(ctx, "s1", "a11y:e1") },
		"set_value":     func() (*ActResult, error) { return m.SetValue(ctx, "s1", "a11y:e1", "x") },
		"set_expanded":  func() (*ActResult, error) { return m.SetExpanded(ctx, "s1", "a11y:e1", true) },
		"select":        func() (*ActResult, error) { return m.Select(ctx, "s1", "a11y:e1", "") },
		"focus":         func() (*ActResult, error) { return m.Focus(ctx, "s1", "a11y:e1") },
		"select_text":   func() (*ActResult, error) { return m.SelectText(ctx, "s1", "a11y:e1", 0, -1) },
		"scroll":        func() (*ActResult, error) { return m.Scroll(ctx, "s1", "a11y:e1", "down", 1) },
		"type_text":     func() (*ActResult, error) { return m.TypeText(ctx, "s1", "", "hello") },
		"press_key":     func() (*ActResult, error) { return m.PressKey(ctx, "s1", "", "Enter") },
		"window_action": func() (*ActResult, error) { return m.WindowAction(ctx, "s1", "close") },
	}
	for name, call := range calls {
		_, err := call()
		if e := AsError(err); e == nil || e.Code != CodeInputNotAllowed {
			t.Errorf("%s without input allowed: %v, want %s", name, err, CodeInputNotAllowed)
		}
	}
}

// TestActionsNeedAnActor: with input allowed on a platform that cannot act,
// actions fail clearly instead of panicking.
func TestActionsNeedAnActor(t *testing.T) {
	m := NewSessions(platform.Desktop{Accessibility: nullDesktop{t}})
	m.Caps = security.Input
	_, err := m.WindowAction(context.Background(), "s1", "close")
	if e := AsError(err); e == nil || e.Code != CodeNotSupported {
		t.Errorf("window_action on a platform without an actor: %v", err)
	}
}

// inertActions accepts every semantic call and changes nothing: a toolkit
// that answers "done" to what it ignores (GTK 4.8's text calls, Firefox's
// SetTextContents, a GTK 3 combo menu's Selection).
type inertActions struct{ platform.Actions }

func (inertActions) DoAction(_ context.Context, _ platform.App, _ string, names ...string) (string, error) {
	return names[0], nil
}

func (inertActions) SetText(_ context.Context, _ platform.App, _, text string) (string, string, error) {
	return text, "EditableText.SetTextContents", nil
}

func (inertActions) SetValue(_ context.Context, _ platform.App, _ string, v float64) (float64, error) {
	return v, nil
}

func (inertActions) GrabFocus(context.Context, platform.App, string) error { return nil }

// formDesk: a form with a check box, a slider, an expandable row and a
// text field, its window active.
func formDesk() *fake.Desktop {
	el := func(key, role, name string, st platform.StateSet, ifaces, actions []string) *platform.Node {
		b := platform.Rect{X: 10, Y: 10 + 40*len(key), Width: 100, Height: 30}
		return &platform.Node{Key: key, Role: fake.Role(role), Name: name, States: fake.Shown | st, Bounds: &b, Interfaces: ifaces, Actions: actions}
	}
	kids := []*platform.Node{
		el("cb", "check box", "Remember", fake.States("checkable", "focusable"), []string{"component", "action"}, []string{"toggle"}),
		el("vol", "slider", "Volume", fake.States("focusable"), []string{"component", "value"}, nil),
		el("row", "table cell", "Fruits", fake.States("expandable"), []string{"component", "action"}, []string{"expand or contract"}),
		el("name", "text", "Name", fake.States("focusable", "editable"), []string{"component", "text", "editabletext"}, nil),
	}
	frame := &platform.Node{Key: "frame", Role: fake.Role("frame"), Name: "Form", States: fake.Shown, ChildCount: len(kids), Children: kids,
		Bounds: &platform.Rect{Width: 800, Height: 600}, Interfaces: []string{"component"}}
	d := fake.New()
	d.AddApp(fake.App{Pid: editorPid, Name: "form", Tree: fake.Root("form", frame)})
	d.SetActive(d.AddWindow(editorPid, "Form", platform.Rect{Width: 800, Height: 600}))
	return d
}

func formSession(t *testing.T, p platform.Desktop) (*Sessions, *Session, *Tree) {
	t.Helper()
	m := NewSessions(p)
	m.Caps = security.Input
	t.Cleanup(func() { endHolds(m) })
	ctx := context.Background()
	s, err := m.Connect(ctx, AppSpec{Pid: editorPid}, "")
	if err != nil {
		t.Fatal(err)
	}
	tr, _, err := m.Fetch(ctx, s, 5*time.Second, platform.TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return m, s, tr
}

// TestSuccessIsReadBack: each action that claims an effect succeeds when
// the element shows it, and fails with noEffect — saying what the element
// holds — when the toolkit accepted the call and changed nothing.
func TestSuccessIsReadBack(t *testing.T) {
	type act func(m *Sessions, s *Session, tr *Tree) (*ActResult, error)
	ctx := context.Background()
	cases := []struct {
		name  string
		do    act
		holds string // in the failure's message
	}{
		{"toggle", func(m *Sessions, s *Session, tr *Tree) (*ActResult, error) {
			return m.Toggle(ctx, s.ID, refOf(t, tr, "Remember"))
		}, "states ["},
		{"set_value number", func(m *Sessions, s *Session, tr *Tree) (*ActResult, error) {
			return m.SetValue(ctx, s.ID, refOf(t, tr, "Volume"), "42")
		}, "the value 0"},
		{"set_expanded", func(m *Sessions, s *Session, tr *Tree) (*ActResult, error) {
			return m.SetExpanded(ctx, s.ID, refOf(t, tr, "Fruits"), true)
		}, "states ["},
		{"set_value text", func(m *Sessions, s *Session, tr *Tree) (*ActResult, error) {
			return m.SetValue(ctx, s.ID, refOf(t, tr, "Name"), "Ada Lovelace")
		}, `the text "Name"`},
		{"focus", func(m *Sessions, s *Session, tr *Tree) (*ActResult, error) {
			return m.Focus(ctx, s.ID, refOf(t, tr, "Name"))
		}, "did not take the keyboard focus"},
	}
	// A change that never comes is waited for up to the caps: short here.
	oldCap, oldChange := settleCap, changeTime
	settleCap, changeTime = 300*time.Millisecond, 300*time.Millisecond
	t.Cleanup(func() { settleCap, changeTime = oldCap, oldChange })
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m, s, tr := formSession(t, formDesk().Platform())
				if r, err := c.do(m, s, tr); err != nil || r.After == nil {
					t.Fatalf("with a toolkit that does what it is asked: %+v, %v", r, err)
				}

				p := formDesk().Platform()
				p.Actions = inertActions{p.Actions}
				m, s, tr = formSession(t, p)
				r, err := c.do(m, s, tr)
				if err == nil {
					t.Fatalf("ok although nothing changed: %+v", r)
				}
				wantErrCode(t, c.name, err, CodeNoEffect)
				if msg := err.Error(); !strings.Contains(msg, c.holds) {
					t.Errorf("the failure does not say what the element holds (%q): %s", c.holds, msg)
				}
			})
		})
	}
}

// shiftedInput types every character as Shift would make it: keys that
// reach the element, but not as the text asked.
type shiftedInput struct{ platform.Input }

func (s shiftedInput) TypeText(ctx context.Context, text string) (int, error) {
	return s.Input.TypeText(ctx, strings.ToUpper(text))
}

// lostInput types nothing: keys that reach no element.
type lostInput struct{ platform.Input }

func (lostInput) TypeText(_ context.Context, text string) (int, error) {
	return len([]rune(text)), nil
}

// TestTypedOtherwiseIsDelivered: typing that changed the element's text,
// but not into what was asked, was delivered: ok, unverified, with what
// the element holds (never noEffect, which an agent may answer by typing
// it again). Typing that changed nothing is still noEffect.
func TestTypedOtherwiseIsDelivered(t *testing.T) {
	oldCap, oldChange := settleCap, changeTime
	settleCap, changeTime = 300*time.Millisecond, 300*time.Millisecond
	t.Cleanup(func() { settleCap, changeTime = oldCap, oldChange })
	synctest.Test(t, func(t *testing.T) {
		d := formDesk()
		p := d.Platform()
		p.Input = shiftedInput{p.Input}
		m, s, tr := formSession(t, p)
		r, err := m.TypeText(context.Background(), s.ID, refOf(t, tr, "Name"), "abc")
		if err != nil {
			t.Fatalf("typing that reached the field as capitals: %v", err)
		}
		if r.Verified || !strings.Contains(r.Note, "not to what was asked") || !strings.Contains(r.Note, `"NameABC"`) {
			t.Errorf("typing that reached the field as capitals: verified %v, note %q; want unverified, saying what it holds", r.Verified, r.Note)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		p := formDesk().Platform()
		p.Input = lostInput{p.Input}
		m, s, tr := formSession(t, p)
		r, err := m.TypeText(context.Background(), s.ID, refOf(t, tr, "Name"), "abc")
		if err == nil {
			t.Fatalf("ok although the field did not change: %+v", r)
		}
		wantErrCode(t, "typing lost", err, CodeNoEffect)
	})
}
