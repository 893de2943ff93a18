package core

import (
	"context"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
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
