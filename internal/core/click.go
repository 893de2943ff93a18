package core

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
)

// clickActions are the action names that mean "press this".
var clickActions = []string{"click", "press", "activate", "jump", "open", "toggle"}

// Click presses an element: its own action when it has one, else a real
// pointer click at its centre after checking the window is in front and
// nothing covers the point.
func (m *Sessions) Click(ctx context.Context, sessionID, ref string) (*ActResult, error) {
	return m.ClickWait(ctx, sessionID, ref, DefaultReplyWait)
}

// ClickWait is Click where wait bounds the wait for the toolkit's answer
// to the element's action (doAction).
func (m *Sessions) ClickWait(ctx context.Context, sessionID, ref string, wait time.Duration) (*ActResult, error) {
	if m.modeOf(ctx, sessionID) == ModeVisual {
		return m.clickVisual(ctx, sessionID, ref)
	}
	t, err := m.prepare(ctx, sessionID, ref)
	if err != nil {
		return nil, err
	}
	defer t.done()
	if err := m.pasteElement("click", t); err != nil {
		return nil, err
	}
	if used, err := m.doAction(ctx, t, wait, clickActions...); err == nil {
		return m.finish(ctx, t, MethodAction, used, nil, "")
	} else if !errors.Is(err, platform.ErrNotSupported) {
		return nil, mapActErr(err)
	}
	x, y, err := m.pointerClick(ctx, t)
	if err != nil {
		return nil, err
	}
	r, err := m.finish(ctx, t, MethodPointer, fmt.Sprintf("left click at %d,%d", x, y), nil, "")
	if r != nil {
		r.Note = "the element has no click action; a real pointer click was sent"
	}
	return r, err
}

// pointerClick clicks the element's centre with the pointer, under the
// input lock from activating its window to the click.
func (m *Sessions) pointerClick(ctx context.Context, t *actTarget) (int, int, error) {
	return m.pointerInput(ctx, t.s, func() (int, int, error) { return m.pointAt(ctx, t) },
		func(x, y int) error { return t.actor.Click(ctx, x, y, 1, 1) })
}

// Invoke runs an element's action, semantically only: it never moves the
// pointer. action names one; empty means the element's click-like action.
func (m *Sessions) Invoke(ctx context.Context, sessionID, ref, action string) (*ActResult, error) {
	return m.InvokeWait(ctx, sessionID, ref, action, DefaultReplyWait)
}

// InvokeWait is Invoke where wait bounds the wait for the toolkit's
// answer (doAction).
func (m *Sessions) InvokeWait(ctx context.Context, sessionID, ref, action string, wait time.Duration) (*ActResult, error) {
	t, err := m.prepare(ctx, sessionID, ref)
	if err != nil {
		return nil, err
	}
	defer t.done()
	if err := m.pasteElement("invoke", t); err != nil {
		return nil, err
	}
	names := clickActions
	if action != "" {
		names = []string{action}
	}
	used, err := m.doAction(ctx, t, wait, names...)
	if err != nil {
		return nil, mapActErr(err)
	}
	return m.finish(ctx, t, MethodAction, used, nil, "")
}

// Toggle flips a check box, toggle button or switch and verifies it.
func (m *Sessions) Toggle(ctx context.Context, sessionID, ref string) (*ActResult, error) {
	t, err := m.prepare(ctx, sessionID, ref)
	if err != nil {
		return nil, err
	}
	defer t.done()
	t.once = true
	was := t.det.Node.States.Has(platform.StateChecked)
	if role := t.det.Node.Role; was && (role == platform.RoleRadioButton || role == platform.RoleRadioMenuItem) {
		// A radio button is unchecked by checking another: toggling a
		// checked one asks for what already holds.
		return &ActResult{Element: t.ref, Method: MethodNone, Verified: true, Before: summarize(t.det), Note: "already checked; a radio button is unchecked by checking another in its group"}, nil
	}
	flipped := func(d *platform.Details) bool { return d.Node.States.Has(platform.StateChecked) != was }
	method, detail := MethodAction, ""
	if used, err := m.doAction(ctx, t, 0, "toggle", "click", "press", "activate"); err == nil {
		detail = used
	} else if errors.Is(err, platform.ErrNotSupported) {
		x, y, err := m.pointerClick(ctx, t)
		if err != nil {
			return nil, err
		}
		method, detail = MethodPointer, fmt.Sprintf("left click at %d,%d", x, y)
	} else {
		return nil, mapActErr(err)
	}
	claim := fmt.Sprintf("toggling (%s) to %s", detail, map[bool]string{true: "unchecked", false: "checked"}[was])
	return m.finish(ctx, t, method, detail, flipped, claim)
}
