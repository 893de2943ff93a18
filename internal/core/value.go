package core

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/security"
)

// textIs is the read-back rule for text: exactly what was asked.
func textIs(want string) func(*platform.Details) bool {
	return func(d *platform.Details) bool {
		if d.Text == nil || d.Node.Secret() {
			return false
		}
		if d.Text.Truncated {
			// A read is cut at MaxTextChars: the part read and the count.
			return strings.HasPrefix(want, d.Text.Text) && d.Text.Length == utf8.RuneCountInString(want)
		}
		return d.Text.Text == want
	}
}

// valueIs is the read-back rule for numbers: within the element's
// increment (a slider with steps of 1 asked for 42.4 holds 42), or a
// rounding error's width when it has none.
func valueIs(want float64) func(*platform.Details) bool {
	return func(d *platform.Details) bool {
		if d.Value == nil {
			return false
		}
		tol := 1e-9 * math.Max(1, math.Abs(want))
		if inc := d.Value.Increment; inc > tol && !math.IsInf(inc, 0) && !math.IsNaN(inc) {
			tol = inc
		}
		return math.Abs(d.Value.Current-want) <= tol
	}
}

// SetValue sets an element's text (EditableText) or number (Value) and
// succeeds only when the element, read back on a settled UI, holds it.
// When the toolkit accepts the text call but changes nothing (GTK 4.8), or
// an editable field has no EditableText at all (Chromium), it falls back to
// select-all and typing, verified the same way.
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
		return m.finish(ctx, t, MethodSemantic, "Value.CurrentValue", valueIs(num), "setting the value to "+strconv.FormatFloat(num, 'g', -1, 64))
	case hasInterface(n, "editabletext"):
		claim := "setting the text"
		if !n.Secret() {
			claim += " to " + Quote(value)
		}
		eff, method, err := t.actor.SetText(ctx, t.s.App, t.node.Key, value)
		switch {
		case err == nil && n.Secret():
			// The backend checked the field's length, the only read-back a
			// password field allows; its characters are never read.
			r, err := m.finish(ctx, t, MethodSemantic, method, nil, "")
			if r != nil {
				r.Note = "password field: its text is never read back; only its length was checked"
			}
			return r, err
		case err == nil:
			return m.finish(ctx, t, MethodSemantic, method, textIs(value), claim)
		case !errors.Is(err, platform.ErrNoEffect):
			return nil, mapActErr(err)
		}
		return m.setByTyping(ctx, t, value, claim,
			fmt.Sprintf("the toolkit accepted the text call but kept %s; the text was typed instead", Quote(eff)))
	case typable(n):
		claim := "setting the text"
		if !n.Secret() {
			claim += " to " + Quote(value)
		}
		return m.setByTyping(ctx, t, value, claim,
			"the field has no EditableText interface (as Chromium's inputs), so the text was typed: focus, Ctrl+A, then the keys, and read back")
	}
	return nil, Errorf(CodeNotSupported, "%s (%s) has neither editable text nor a value; use type_text or select", t.ref, n.Role)
}

// typable reports whether an element is a text field that can be set by
// typing though it has no EditableText: it says it is editable and has a
// Text interface to read the result back with (Chromium's inputs). Without
// a Text interface a typed value could not be verified, so it is not set.
func typable(n *platform.Node) bool {
	return n.States.Has(platform.StateEditable) && hasInterface(n, "text") && !hasInterface(n, "editabletext")
}

// setByTyping sets a field's text with keystrokes — front, focus, select
// all, type, as one input sequence — and succeeds only when the field,
// read back on a settled UI, holds value (a password field: its length).
// note says why the text was typed.
func (m *Sessions) setByTyping(ctx context.Context, t *actTarget, value, claim, note string) (*ActResult, error) {
	n := &t.det.Node
	if err := m.require(security.Keyboard, "setting this field means typing, which"); err != nil {
		return nil, err
	}
	if strings.ContainsAny(value, "\r\n") && slices.Contains(n.States.Names(), "single-line") {
		// Typed, a line break is Enter: it would submit a form rather than
		// land in the field, which keeps no line breaks anyway.
		return nil, Errorf(CodeInvalidArgument, "%s is a single-line field: it holds no line breaks, and typing one would press Enter; set a value without them", t.ref)
	}
	if err := m.withKeyboard(ctx, t, func(win platform.Window) error {
		if err := m.settingAllowed(value); err != nil {
			return err
		}
		if err := t.actor.KeyChord(ctx, "Ctrl+a"); err != nil {
			return mapActErr(err)
		}
		if value == "" {
			return mapActErr(t.actor.KeyChord(ctx, "BackSpace"))
		}
		_, err := m.typeBatched(ctx, t, win, value)
		return err
	}); err != nil {
		return nil, err
	}
	if n.Secret() {
		return m.finishPassword(ctx, t, value, claim+" by typing it")
	}
	r, err := m.finish(ctx, t, MethodKeyboard, "Ctrl+A, then typed", textIs(value), claim+" by typing it")
	if r != nil {
		r.Note = note
	}
	return r, err
}

// finishPassword settles after a password was typed and checks the field's
// length, the one read-back a password field allows. Without that check
// the typing is not claimed to have worked.
func (m *Sessions) finishPassword(ctx context.Context, t *actTarget, value, claim string) (*ActResult, error) {
	n := utf8.RuneCountInString(value)
	lc, _ := m.desk.Actions.(platform.LengthChecker)
	want := func(*platform.Details) bool {
		ok, err := lc.TextLengthIs(ctx, t.s.App, t.node.Key, n)
		return err == nil && ok
	}
	if lc == nil {
		want = func(*platform.Details) bool { return false }
	}
	r, err := m.finish(ctx, t, MethodKeyboard, "Ctrl+A, then typed", want, claim)
	if r != nil {
		r.Note = "password field: the text was typed; its text is never read back, only its length was checked"
	}
	return r, err
}
