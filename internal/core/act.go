package core

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uiscope/uiscope/internal/platform"
)

// More error codes, for acting.
const (
	CodeInputNotAllowed = "inputNotAllowed"
	CodeDisabled        = "elementDisabled"
	CodeNotActivated    = "windowNotActivated"
	CodeOffscreen       = "offscreen"
	CodeCovered         = "covered"
	CodeNoEffect        = "noEffect"
	CodeNoWindowManager = "noWindowManager"
)

// Methods an action reports, so the agent knows how it landed.
const (
	MethodAction   = "action"   // an AT-SPI action (DoAction)
	MethodSemantic = "semantic" // a semantic interface (EditableText, Value, Selection, Component)
	MethodPointer  = "pointer"  // real pointer input (XTest)
	MethodKeyboard = "keyboard" // real key input (XTest)
	MethodNone     = "none"     // already in the asked state
)

// Summary is an element's state before or after an action.
type Summary struct {
	States []string `json:"states"`
	Name   string   `json:"name"`
	Value  *float64 `json:"value,omitempty"`
	Text   *string  `json:"text,omitempty"` // never for password fields
}

// ActResult says what an action did.
type ActResult struct {
	Element string   `json:"element,omitempty"`
	Method  string   `json:"method"`
	Detail  string   `json:"detail,omitempty"` // action name, keys, window...
	Before  *Summary `json:"before,omitempty"`
	After   *Summary `json:"after,omitempty"`
	Note    string   `json:"note,omitempty"`
}

// actor is the platform's acting side: its windows, input and semantic
// actions.
type actor struct {
	platform.Windows
	platform.Input
	platform.Actions
}

// actor gives the sessions' platform's acting side, or an error when the
// platform cannot act or input was not allowed. The core checks the gate
// itself: an MCP layer that registered a tool by mistake still cannot act.
func (m *Sessions) actor() (actor, error) {
	if err := m.inputAllowed(); err != nil {
		return actor{}, err
	}
	d := m.desk
	if d.Windows == nil || d.Input == nil || d.Actions == nil {
		return actor{}, Errorf(CodeNotSupported, "this platform cannot act on applications")
	}
	return actor{d.Windows, d.Input, d.Actions}, nil
}

func (m *Sessions) inputAllowed() error {
	if !m.AllowInput {
		return Errorf(CodeInputNotAllowed, "acting on applications is not allowed: the server runs without --allow-input")
	}
	return nil
}

// target is a resolved element, ready to act on.
type target struct {
	s       *Session
	ref     string
	node    *platform.Node
	det     *platform.Details
	actor   actor
	changes <-chan struct{} // the app's events; nil when the platform has none
	stop    func()
}

// done ends the target's event watch.
func (t *target) done() {
	if t.stop != nil {
		t.stop()
	}
}

// prepare checks the gate, the session's identity, the ref and that the
// element is enabled, and reads its live state.
func (m *Sessions) prepare(ctx context.Context, sessionID, ref string) (*target, error) {
	if err := m.inputAllowed(); err != nil {
		return nil, err
	}
	s, err := m.Get(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	a, err := m.actor()
	if err != nil {
		return nil, err
	}
	n, id, t, err := s.Resolve(ref)
	if err != nil {
		return nil, err
	}
	det, err := m.Element(ctx, s, n.Key)
	if err != nil {
		return nil, err
	}
	st := det.Node.States
	if !st.Has(platform.StateSensitive) && !st.Has(platform.StateEnabled) {
		return nil, Errorf(CodeDisabled, "%s (%s %q) is disabled (neither sensitive nor enabled); nothing was done", t.RefString(id), det.Node.Role, det.Node.Name)
	}
	// Listen before acting, so that the change the action causes is seen.
	changes, stop := m.Watch(ctx, s)
	return &target{s: s, ref: t.RefString(id), node: n, det: det, actor: a, changes: changes, stop: stop}, nil
}

func summarize(d *platform.Details) *Summary {
	s := &Summary{States: d.Node.States.Names(), Name: d.Node.Name}
	if d.Value != nil {
		v := d.Value.Current
		s.Value = &v
	}
	if d.Text != nil && !d.Node.Redacted {
		t := d.Text.Text
		s.Text = &t
	}
	return s
}

// after reads the element again once the app has had the event. Without a
// condition it waits for the app's first event after the action (or
// settleTime when none comes) and reads once; with one it re-reads on
// every event, and at least every 50 ms, until the condition holds or
// changeTime passes.
func (m *Sessions) after(ctx context.Context, t *target, changed func(*platform.Details) bool) *platform.Details {
	read := func() *platform.Details {
		d, err := m.desk.Accessibility.Element(ctx, t.s.App, t.node.Key)
		if err != nil {
			return nil
		}
		return d
	}
	if changed == nil {
		select {
		case <-t.changes:
		case <-time.After(settleTime):
		case <-ctx.Done():
		}
		return read()
	}
	deadline := time.Now().Add(changeTime)
	var last *platform.Details
	for {
		if d := read(); d != nil {
			last = d
			if changed(d) {
				return d
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return last
		}
		select {
		case <-t.changes:
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
		}
	}
}

// How long an action's read-back waits: for the first event when nothing
// in particular is expected, for the expected change otherwise.
const (
	settleTime = 120 * time.Millisecond
	changeTime = 2 * time.Second
)

func (t *target) result(method, detail string, after *platform.Details) *ActResult {
	r := &ActResult{Element: t.ref, Method: method, Detail: detail, Before: summarize(t.det)}
	if after != nil {
		r.After = summarize(after)
	}
	return r
}

// mapActErr turns platform errors of acting into agent-facing ones.
func mapActErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, platform.ErrNotActivated):
		return &Error{Code: CodeNotActivated, Retryable: true, Disposition: "transient", Err: err,
			Msg: "the target window could not be brought to the front, so no input was sent (another window may hold focus): " + err.Error()}
	case errors.Is(err, platform.ErrNoWindowManager):
		return &Error{Code: CodeNoWindowManager, Disposition: "terminal", Err: err, Msg: err.Error() + "; window actions need one"}
	case errors.Is(err, platform.ErrOffscreen):
		return &Error{Code: CodeOffscreen, Disposition: "terminal", Err: err, Msg: err.Error() + "; scroll the element into view first"}
	}
	return AsError(err)
}

// clickActions are the action names that mean "press this".
var clickActions = []string{"click", "press", "activate", "jump", "open", "toggle"}

// Click presses an element: its own action when it has one, else a real
// pointer click at its centre after checking the window is in front and
// nothing covers the point.
func (m *Sessions) Click(ctx context.Context, sessionID, ref string) (*ActResult, error) {
	t, err := m.prepare(ctx, sessionID, ref)
	if err != nil {
		return nil, err
	}
	defer t.done()
	if used, err := t.actor.DoAction(ctx, t.s.App, t.node.Key, clickActions...); err == nil {
		return t.result(MethodAction, used, m.after(ctx, t, nil)), nil
	} else if !errors.Is(err, platform.ErrNotSupported) {
		return nil, mapActErr(err)
	}
	x, y, err := m.pointAt(ctx, t)
	if err != nil {
		return nil, err
	}
	if err := t.actor.Click(ctx, x, y, 1, 1); err != nil {
		return nil, mapActErr(err)
	}
	r := t.result(MethodPointer, fmt.Sprintf("left click at %d,%d", x, y), m.after(ctx, t, nil))
	r.Note = "the element has no click action; a real pointer click was sent"
	return r, nil
}

// pointAt finds the element's centre, brings its window to the front and
// checks that the window is what lies on top at that point.
func (m *Sessions) pointAt(ctx context.Context, t *target) (int, int, error) {
	b := t.det.Node.Bounds
	if b == nil || b.Empty() {
		return 0, 0, Errorf(CodeOffscreen, "%s has no on-screen bounds to click; it may be hidden or scrolled away", t.ref)
	}
	x, y := b.X+b.Width/2, b.Y+b.Height/2
	if scr, err := t.actor.Screen(ctx); err != nil {
		return 0, 0, mapActErr(err)
	} else if !scr.Contains(x, y) {
		return 0, 0, Errorf(CodeOffscreen, "%s's centre %d,%d is outside the screen; scroll it into view first", t.ref, x, y)
	}
	win, err := m.activate(ctx, t)
	if err != nil {
		return 0, 0, err
	}
	top, err := t.actor.TopmostAt(ctx, x, y)
	if err != nil {
		return 0, 0, mapActErr(err)
	}
	if top != win.ID {
		// The app's own popups (menus) are override-redirect windows of
		// the same process: clicking them is clicking the app.
		if pid, err := t.actor.WindowPid(ctx, top); err == nil && pid == t.s.App.Pid {
			return x, y, nil
		}
		return 0, 0, Errorf(CodeCovered, "the point %d,%d of %s is covered by another window (%s); nothing was clicked", x, y, t.ref, top)
	}
	return x, y, nil
}

// activate brings the element's window to the front, verified.
func (m *Sessions) activate(ctx context.Context, t *target) (platform.Window, error) {
	win, err := t.actor.Window(ctx, t.s.App, t.node.Key)
	if err != nil {
		return win, mapActErr(err)
	}
	if err := t.actor.Activate(ctx, win); err != nil {
		return win, mapActErr(err)
	}
	return win, nil
}

// Invoke runs an element's action, semantically only: it never moves the
// pointer. action names one; empty means the element's click-like action.
func (m *Sessions) Invoke(ctx context.Context, sessionID, ref, action string) (*ActResult, error) {
	t, err := m.prepare(ctx, sessionID, ref)
	if err != nil {
		return nil, err
	}
	defer t.done()
	names := clickActions
	if action != "" {
		names = []string{action}
	}
	used, err := t.actor.DoAction(ctx, t.s.App, t.node.Key, names...)
	if err != nil {
		return nil, mapActErr(err)
	}
	return t.result(MethodAction, used, m.after(ctx, t, nil)), nil
}

// Toggle flips a check box, toggle button or switch and verifies it.
func (m *Sessions) Toggle(ctx context.Context, sessionID, ref string) (*ActResult, error) {
	t, err := m.prepare(ctx, sessionID, ref)
	if err != nil {
		return nil, err
	}
	defer t.done()
	was := t.det.Node.States.Has(platform.StateChecked)
	flipped := func(d *platform.Details) bool { return d.Node.States.Has(platform.StateChecked) != was }
	method, detail := MethodAction, ""
	if used, err := t.actor.DoAction(ctx, t.s.App, t.node.Key, "toggle", "click", "press", "activate"); err == nil {
		detail = used
	} else if errors.Is(err, platform.ErrNotSupported) {
		x, y, err := m.pointAt(ctx, t)
		if err != nil {
			return nil, err
		}
		if err := t.actor.Click(ctx, x, y, 1, 1); err != nil {
			return nil, mapActErr(err)
		}
		method, detail = MethodPointer, fmt.Sprintf("left click at %d,%d", x, y)
	} else {
		return nil, mapActErr(err)
	}
	after := m.after(ctx, t, flipped)
	r := t.result(method, detail, after)
	if after == nil || !flipped(after) {
		r.Note = "the checked state did not change; the element may not be a toggle"
	}
	return r, nil
}

// SetValue sets an element's text (EditableText) or number (Value) and
// reports what it holds afterwards. When the toolkit accepts the text call
// but changes nothing (GTK 4.8), it falls back to select-all and typing.
func (m *Sessions) SetValue(ctx context.Context, sessionID, ref, value string) (*ActResult, error) {
	t, err := m.prepare(ctx, sessionID, ref)
	if err != nil {
		return nil, err
	}
	defer t.done()
	n := &t.det.Node
	num, numErr := strconv.ParseFloat(strings.TrimSpace(value), 64)
	switch {
	case hasInterface(n, "value") && numErr != nil:
		return nil, Errorf(CodeInvalidArgument, "%s takes a number (Value interface), not %s", t.ref, Quote(value))
	case hasInterface(n, "value"):
		// Spin buttons also have editable text, but typing into it does not
		// change their value until activated: the Value interface does.
		if _, err := t.actor.SetValue(ctx, t.s.App, t.node.Key, num); err != nil {
			return nil, mapActErr(err)
		}
		return t.result(MethodSemantic, "Value.CurrentValue", m.after(ctx, t, nil)), nil
	case hasInterface(n, "editabletext"):
		eff, method, err := t.actor.SetText(ctx, t.s.App, t.node.Key, value)
		if err == nil {
			r := t.result(MethodSemantic, method, m.after(ctx, t, nil))
			if n.Redacted {
				r.Note = "password field: the text was set but is never read back"
			}
			return r, nil
		}
		if !errors.Is(err, platform.ErrNoEffect) {
			return nil, mapActErr(err)
		}
		// Keystrokes: front, focus, select all, type.
		if _, err := m.activate(ctx, t); err != nil {
			return nil, err
		}
		if err := m.focus(ctx, t); err != nil {
			return nil, err
		}
		if err := t.actor.KeyChord(ctx, "Ctrl+a"); err != nil {
			return nil, mapActErr(err)
		}
		if value == "" {
			err = t.actor.KeyChord(ctx, "BackSpace")
		} else {
			_, err = t.actor.TypeText(ctx, value)
		}
		if err != nil {
			return nil, mapActErr(err)
		}
		after := m.after(ctx, t, func(d *platform.Details) bool { return d.Text != nil && d.Text.Text == value })
		r := t.result(MethodKeyboard, "Ctrl+A, then typed", after)
		r.Note = fmt.Sprintf("the toolkit accepted the text call but kept %s; the text was typed instead", Quote(eff))
		return r, nil
	}
	return nil, Errorf(CodeNotSupported, "%s (%s) has neither editable text nor a value; use type_text or select", t.ref, n.Role)
}

// SetExpanded expands or collapses a tree row, expander or combo box.
func (m *Sessions) SetExpanded(ctx context.Context, sessionID, ref string, expanded bool) (*ActResult, error) {
	t, err := m.prepare(ctx, sessionID, ref)
	if err != nil {
		return nil, err
	}
	defer t.done()
	st := t.det.Node.States
	if st.Has(platform.StateExpanded) == expanded {
		r := t.result(MethodNone, "", nil)
		r.Note = fmt.Sprintf("already %s", map[bool]string{true: "expanded", false: "collapsed"}[expanded])
		return r, nil
	}
	if !st.Has(platform.StateExpandable) && !st.Has(platform.StateExpanded) {
		return nil, Errorf(CodeNotSupported, "%s (%s) is not expandable", t.ref, t.det.Node.Role)
	}
	names := []string{"expand or contract", "expand", "activate", "click", "press"}
	if !expanded {
		names = []string{"expand or contract", "collapse", "activate", "click", "press"}
	}
	used, err := t.actor.DoAction(ctx, t.s.App, t.node.Key, names...)
	if err != nil {
		return nil, mapActErr(err)
	}
	done := func(d *platform.Details) bool { return d.Node.States.Has(platform.StateExpanded) == expanded }
	after := m.after(ctx, t, done)
	r := t.result(MethodAction, used, after)
	if after == nil || !done(after) {
		r.Note = "the expanded state did not change"
	}
	return r, nil
}

// Select changes an item's selection through its container's Selection
// interface (mode replace, add or remove); items without one (menu items of
// a closed combo box) are clicked by action.
func (m *Sessions) Select(ctx context.Context, sessionID, ref, mode string) (*ActResult, error) {
	if mode == "" {
		mode = "replace"
	}
	if mode != "replace" && mode != "add" && mode != "remove" {
		return nil, Errorf(CodeInvalidArgument, "mode must be replace, add or remove, not %s", Quote(mode))
	}
	t, err := m.prepare(ctx, sessionID, ref)
	if err != nil {
		return nil, err
	}
	defer t.done()
	want := mode != "remove"
	// Menu items are chosen by activating them: a GTK 3 combo box's menu
	// accepts Selection calls and changes nothing.
	if t.det.Node.Role.String() == "menu item" && want {
		used, err := t.actor.DoAction(ctx, t.s.App, t.node.Key, clickActions...)
		if err != nil {
			return nil, mapActErr(err)
		}
		return t.result(MethodAction, used, m.after(ctx, t, nil)), nil
	}
	if t.det.ParentKey != "" {
		err := t.actor.Select(ctx, t.s.App, t.det.ParentKey, t.det.IndexInParent, want, mode == "replace")
		switch {
		case err == nil:
			// Some containers (GTK 3 combo menus) accept the call and
			// select nothing: believe the container's answer, not the call's.
			if m.selected(ctx, t, want) {
				return t.result(MethodSemantic, "Selection on the container", m.after(ctx, t, nil)), nil
			}
		case !errors.Is(err, platform.ErrNotSupported) && !errors.Is(err, platform.ErrNoEffect):
			return nil, mapActErr(err)
		}
	}
	if !want {
		return nil, Errorf(CodeNotSupported, "%s's container has no Selection interface, so it cannot be deselected", t.ref)
	}
	used, err := t.actor.DoAction(ctx, t.s.App, t.node.Key, clickActions...)
	if err != nil {
		return nil, mapActErr(err)
	}
	return t.result(MethodAction, used, m.after(ctx, t, nil)), nil
}

// selected polls the container until the item's selection is as wanted.
func (m *Sessions) selected(ctx context.Context, t *target, want bool) bool {
	deadline := time.Now().Add(time.Second)
	for {
		got, err := t.actor.IsSelected(ctx, t.s.App, t.det.ParentKey, t.det.IndexInParent)
		if err == nil && got == want {
			return true
		}
		if err != nil || time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// focus gives an element the keyboard focus and checks it took: through
// Component.GrabFocus, else the element's own focus action (Qt's
// "SetFocus"), else a pointer click on it (GTK 4.8 answers GrabFocus with
// NotSupported). Keys are never sent to an element that did not take focus.
func (m *Sessions) focus(ctx context.Context, t *target) error {
	focused := func(d *platform.Details) bool { return d.Node.States.Has(platform.StateFocused) }
	if focused(t.det) {
		return nil
	}
	if err := t.actor.GrabFocus(ctx, t.s.App, t.node.Key); err == nil {
		if d := m.after(ctx, t, focused); d != nil && focused(d) {
			return nil
		}
	}
	if _, err := t.actor.DoAction(ctx, t.s.App, t.node.Key, "setfocus", "focus"); err == nil {
		if d := m.after(ctx, t, focused); d != nil && focused(d) {
			return nil
		}
	}
	if x, y, err := m.pointAt(ctx, t); err == nil && t.actor.Click(ctx, x, y, 1, 1) == nil {
		if d := m.after(ctx, t, focused); d != nil && focused(d) {
			return nil
		}
	}
	return Errorf(CodeNoEffect, "%s did not take the keyboard focus, so no keys were sent", t.ref)
}

// Focus gives an element the keyboard focus.
func (m *Sessions) Focus(ctx context.Context, sessionID, ref string) (*ActResult, error) {
	t, err := m.prepare(ctx, sessionID, ref)
	if err != nil {
		return nil, err
	}
	defer t.done()
	if _, err := m.activate(ctx, t); err != nil {
		return nil, err
	}
	if err := m.focus(ctx, t); err != nil {
		return nil, err
	}
	return t.result(MethodSemantic, "focus", m.after(ctx, t, nil)), nil
}

// SelectText selects a range of an element's text; end -1 means the end.
func (m *Sessions) SelectText(ctx context.Context, sessionID, ref string, start, end int) (*ActResult, error) {
	t, err := m.prepare(ctx, sessionID, ref)
	if err != nil {
		return nil, err
	}
	defer t.done()
	if start < 0 || (end >= 0 && end < start) {
		return nil, Errorf(CodeInvalidArgument, "start must be >= 0 and end >= start (or -1 for the end); got %d..%d", start, end)
	}
	if end < 0 && t.det.Text != nil {
		end = t.det.Text.Length
	}
	if err := t.actor.SelectText(ctx, t.s.App, t.node.Key, start, end); err != nil {
		return nil, mapActErr(err)
	}
	return t.result(MethodSemantic, fmt.Sprintf("Text selection %d..%d", start, end), m.after(ctx, t, nil)), nil
}

// Scroll brings an element into view (direction "intoView", through
// Component.ScrollTo) or turns the wheel over it.
func (m *Sessions) Scroll(ctx context.Context, sessionID, ref, direction string, amount int) (*ActResult, error) {
	dx, dy := 0, 0
	if amount <= 0 {
		amount = 3
	}
	if amount > 50 {
		return nil, Errorf(CodeInvalidArgument, "amount must be at most 50 wheel steps")
	}
	switch direction {
	case "up":
		dy = -amount
	case "down":
		dy = amount
	case "left":
		dx = -amount
	case "right":
		dx = amount
	case "intoView":
	default:
		return nil, Errorf(CodeInvalidArgument, "direction must be up, down, left, right or intoView, not %s", Quote(direction))
	}
	t, err := m.prepare(ctx, sessionID, ref)
	if err != nil {
		return nil, err
	}
	defer t.done()
	if direction == "intoView" {
		if err := t.actor.ScrollTo(ctx, t.s.App, t.node.Key); err != nil {
			return nil, mapActErr(err)
		}
		return t.result(MethodSemantic, "Component.ScrollTo", m.after(ctx, t, nil)), nil
	}
	x, y, err := m.pointAt(ctx, t)
	if err != nil {
		return nil, err
	}
	if err := t.actor.Wheel(ctx, x, y, dx, dy); err != nil {
		return nil, mapActErr(err)
	}
	return t.result(MethodPointer, fmt.Sprintf("wheel %s x%d at %d,%d", direction, amount, x, y), m.after(ctx, t, nil)), nil
}

// maxTypeRunes bounds one type_text call.
const maxTypeRunes = 5000

// typeBatch is how many characters are typed between checks that the
// target window is still in front.
const typeBatch = 16

// TypeText types text into the session's app: into element when given
// (focused first), else wherever its focus is. The window must be in
// front, checked again before every batch of keys: text never goes to
// another window.
func (m *Sessions) TypeText(ctx context.Context, sessionID, ref, text string) (*ActResult, error) {
	if text == "" {
		return nil, Errorf(CodeInvalidArgument, "text is empty")
	}
	if utf8.RuneCountInString(text) > maxTypeRunes {
		return nil, Errorf(CodeInvalidArgument, "text is longer than %d characters; split it", maxTypeRunes)
	}
	t, win, err := m.keyboardTarget(ctx, sessionID, ref)
	if err != nil {
		return nil, err
	}
	defer t.done()
	runes := []rune(text)
	typed := 0
	for typed < len(runes) {
		if active, err := t.actor.ActiveWindow(ctx); err != nil || active != win.ID {
			e := Errorf(CodeNotActivated, "the target window lost the focus after %d of %d characters; typing stopped", typed, len(runes))
			e.Retryable = true
			return nil, e
		}
		end := min(typed+typeBatch, len(runes))
		if _, err := t.actor.TypeText(ctx, string(runes[typed:end])); err != nil {
			return nil, mapActErr(err)
		}
		typed = end
	}
	var after *platform.Details
	if t.node != nil {
		after = m.after(ctx, t, nil)
	}
	r := &ActResult{Element: t.ref, Method: MethodKeyboard, Detail: fmt.Sprintf("%d characters into window %s", typed, win.ID)}
	if t.det != nil {
		r.Before = summarize(t.det)
	}
	if after != nil {
		r.After = summarize(after)
	}
	return r, nil
}

// PressKey sends one key chord (Ctrl+S, Alt+F4, Shift+Tab, F5) to the
// session's app, in front.
func (m *Sessions) PressKey(ctx context.Context, sessionID, ref, keys string) (*ActResult, error) {
	if strings.TrimSpace(keys) == "" {
		return nil, Errorf(CodeInvalidArgument, "keys is empty; give a chord like Enter, Ctrl+S, Alt+F4")
	}
	if a, err := m.actor(); err != nil {
		return nil, err
	} else if err := a.ValidateChord(keys); err != nil {
		return nil, AsError(err)
	}
	t, win, err := m.keyboardTarget(ctx, sessionID, ref)
	if err != nil {
		return nil, err
	}
	defer t.done()
	if err := t.actor.KeyChord(ctx, keys); err != nil {
		return nil, mapActErr(err)
	}
	return &ActResult{Element: t.ref, Method: MethodKeyboard, Detail: fmt.Sprintf("%s to window %s", keys, win.ID)}, nil
}

// keyboardTarget resolves where keys go: an element (focused first) or the
// app's main window, brought to the front.
func (m *Sessions) keyboardTarget(ctx context.Context, sessionID, ref string) (*target, platform.Window, error) {
	if ref != "" {
		t, err := m.prepare(ctx, sessionID, ref)
		if err != nil {
			return nil, platform.Window{}, err
		}
		win, err := m.activate(ctx, t)
		if err != nil {
			return nil, win, err
		}
		if err := m.focus(ctx, t); err != nil {
			return nil, win, err
		}
		return t, win, nil
	}
	a, err := m.actor()
	if err != nil {
		return nil, platform.Window{}, err
	}
	s, err := m.Get(ctx, sessionID)
	if err != nil {
		return nil, platform.Window{}, err
	}
	win, err := m.mainWindow(ctx, s)
	if err != nil {
		return nil, win, err
	}
	if err := a.Activate(ctx, win); err != nil {
		return nil, win, mapActErr(err)
	}
	return &target{s: s, actor: a, stop: func() {}}, win, nil
}

// mainWindow is the session's window: the one it connected by, else the
// app's first mapped window, as listed now.
func (m *Sessions) mainWindow(ctx context.Context, s *Session) (platform.Window, error) {
	apps, err := m.Apps(ctx)
	if err != nil {
		return platform.Window{}, err
	}
	for _, a := range apps {
		if a.Pid != s.App.Pid {
			continue
		}
		for _, w := range a.Windows {
			if s.Identity.Window != "" && w.ID.String() == s.Identity.Window {
				return w, nil
			}
		}
		for _, w := range a.Windows {
			if w.Mapped {
				return w, nil
			}
		}
		if len(a.Windows) > 0 { // minimized: unmapped, still there
			return a.Windows[0], nil
		}
	}
	return platform.Window{}, Errorf(CodeNotFound, "the application has no window")
}

// WindowAction minimizes, maximizes, restores or closes the session's window.
func (m *Sessions) WindowAction(ctx context.Context, sessionID, action string) (*ActResult, error) {
	switch action {
	case "minimize", "maximize", "restore", "close":
	default:
		return nil, Errorf(CodeInvalidArgument, "action must be minimize, maximize, restore or close, not %s", Quote(action))
	}
	a, err := m.actor()
	if err != nil {
		return nil, err
	}
	s, err := m.Get(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	win, err := m.mainWindow(ctx, s)
	if err != nil {
		return nil, err
	}
	if err := a.WindowAction(ctx, win, action); err != nil {
		return nil, mapActErr(err)
	}
	return &ActResult{Method: "window", Detail: fmt.Sprintf("%s window %s", action, win.ID)}, nil
}
