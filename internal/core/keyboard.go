package core

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/security"
)

// maxTypeRunes bounds one type_text call.
const maxTypeRunes = 5000

// typeBatch is how many characters are typed between checks that the
// target window is still in front.
const typeBatch = 16

// TypeText types text into the session's app: into element when given
// (focused first), else wherever its focus is. The window must be in
// front, checked again before every batch of keys: text never goes to
// another window. With an element, success is the element holding the
// text once the app has settled.
func (m *Sessions) TypeText(ctx context.Context, sessionID, ref, text string) (*ActResult, error) {
	if err := m.require(security.Keyboard, "typing text"); err != nil {
		return nil, err
	}
	if text == "" {
		return nil, Errorf(CodeInvalidArgument, "text is empty")
	}
	if utf8.RuneCountInString(text) > maxTypeRunes {
		return nil, Errorf(CodeInvalidArgument, "text is longer than %d characters; split it", maxTypeRunes)
	}
	if err := m.textAllowed("type_text", text); err != nil {
		return nil, err
	}
	t, err := m.keyboardTarget(ctx, sessionID, ref)
	if err != nil {
		return nil, err
	}
	defer t.done()
	t.once = true
	// Into a document: the paragraph that has its keys is typed into.
	inside := m.typeIntoFocused(ctx, t)
	typedText := strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	readable := t.node != nil && !t.det.Node.Secret() && t.det.Text != nil
	// contains is the read-back of typing: the element contains what was
	// typed (where the caret was is the app's business; that the
	// characters arrived is ours). A text longer than a read holds is
	// checked by its count.
	contains := func(typed string) func(*platform.Details) bool {
		before, n := t.det.Text.Length, utf8.RuneCountInString(typed)
		return func(d *platform.Details) bool {
			if d.Text == nil {
				return false
			}
			return strings.Contains(d.Text.Text, typed) || d.Text.Truncated && d.Text.Length >= before+n
		}
	}
	// A line break is an Enter, which may submit the field (a form, a
	// calculator that evaluates and clears it): the text is checked up
	// to the first line break before the rest is typed, and what the
	// rest did is reported, not failed.
	first, rest := text, ""
	if i := strings.IndexAny(text, "\r\n"); readable && i >= 0 {
		first, rest = text[:i], text[i:]
	}
	var typed int
	var win platform.Window
	typeSome := func(part string) error {
		return m.withKeyboard(ctx, t, func(w platform.Window) error {
			win = w
			// The whole text, with the keys held now (key_down).
			if err := m.textAllowed("type_text", text); err != nil {
				return err
			}
			n, err := m.typeBatched(ctx, t, w, part)
			typed += n
			return err
		})
	}
	if first != "" {
		if err := typeSome(first); err != nil {
			return nil, err
		}
	}
	if rest != "" {
		if first != "" {
			if d := m.await(ctx, t, contains(first)); d == nil || !contains(first)(d) {
				return nil, m.noEffect(t, "typing "+Quote(first)+" (the text before its first line break; the rest was not typed)", d)
			}
		}
		if err := typeSome(rest); err != nil {
			// The text before the line break went in: never retried as a
			// whole.
			e := *AsError(err)
			e.Retryable, e.Disposition = false, DispositionTerminal
			e.Msg += fmt.Sprintf("; %s, the text before the first line break, had been typed and read back", Quote(first))
			return nil, &e
		}
		t.submits = true
	}
	detail := fmt.Sprintf("%d characters into window %s", typed, win.ID)
	if inside != nil {
		detail += fmt.Sprintf(", to %s inside %s, which had its keys", t.ref, inside.ref)
	}
	var want func(*platform.Details) bool
	claim := ""
	if readable {
		want, claim = contains(typedText), "typing "+Quote(text)
	}
	r, err := m.finish(ctx, t, MethodKeyboard, detail, want, claim)
	if _, _, held := m.heldDown(); r != nil && !r.Verified && len(held) > 0 && r.Note != "" {
		// The session's own keys held (key_down) went with every
		// character: Shift made them capitals, Ctrl chords.
		r.Note = fmt.Sprintf("%s held (key_down) went with every key typed; release it with key_up to type the text as given. %s", strings.Join(held, " and "), r.Note)
	}
	switch {
	case r != nil && t.s.Mode == ModeVisual:
		r.Note = visualKeysNote
	case r == nil:
	case t.node == nil:
		r.Window = t.windowRef(win)
	case t.det.Node.Secret():
		r.Note = "password field: the keys went to it while it had the focus; its text is never read back, so what it holds is not verified"
		r.Verified = false
	case t.submits && !r.Verified && inside != nil:
		if last := m.lastLineTyped(ctx, t, inside, typedText); last != "" {
			r.Verified = true
			r.Note = fmt.Sprintf("the line breaks started new paragraphs: the first line was read back in %s, the last in %s, which has the keys now", t.ref, last)
		} else {
			r.Note = fmt.Sprintf("the first line was read back in %s; after its line break (an Enter) the last line was not found in the paragraph that has the keys now: read %s again to see what it holds", t.ref, inside.ref)
		}
	case t.submits && !r.Verified:
		r.Note = "the text up to its first line break was read back in the element; then the line break (an Enter) and the rest were typed, and the element does not hold the whole text now (after): the Enter submitted or activated it, as a form or a calculator does. Do not type it again: see after and effects"
	}
	return r, err
}

// typeBatched types text, checking before every typeBatch characters that
// the window is still the active one: a window that took the focus
// meanwhile (the user, a dialog of another app) stops the typing. The
// caller holds the input lock.
func (m *Sessions) typeBatched(ctx context.Context, t *actTarget, win platform.Window, text string) (int, error) {
	runes := []rune(text)
	errLost := errors.New("the target window lost the focus")
	lost := func(ctx context.Context) error {
		if active, err := t.actor.ActiveWindow(ctx); err != nil || active != win.ID {
			return errLost
		}
		return nil
	}
	stopped := func(typed int) error {
		e := Errorf(CodeNotActivated, "the target window lost the focus after %d of %d characters; typing stopped", typed, len(runes))
		if typed == 0 {
			e.Retryable, e.Disposition = true, DispositionTransient
		} else {
			// Typing it all again would type those twice.
			e.Msg += ": read what the field holds before typing the rest"
		}
		return e
	}
	if ct, ok := t.actor.Input.(platform.CheckedTyper); ok {
		n, err := ct.TypeTextChecked(ctx, text, typeBatch, lost)
		if errors.Is(err, errLost) {
			return n, stopped(n)
		}
		return n, mapActErr(err)
	}
	typed := 0
	for typed < len(runes) {
		if lost(ctx) != nil {
			return typed, stopped(typed)
		}
		end := min(typed+typeBatch, len(runes))
		if _, err := t.actor.TypeText(ctx, string(runes[typed:end])); err != nil {
			return typed, mapActErr(err)
		}
		typed = end
	}
	return typed, nil
}

// PressKey sends one key chord (Ctrl+S, Alt+F4, Shift+Tab, F5) to the
// session's app: to element when given (focused first), else to the app's
// window that has the focus. Chords the desktop acts on are refused unless
// the server allows them.
func (m *Sessions) PressKey(ctx context.Context, sessionID, ref, keys string) (*ActResult, error) {
	if err := m.require(security.Keyboard, "pressing keys"); err != nil {
		return nil, err
	}
	if strings.TrimSpace(keys) == "" {
		return nil, Errorf(CodeInvalidArgument, "keys is empty; give a chord like Enter, Ctrl+S, Alt+F4")
	}
	if a, err := m.actor(); err != nil {
		return nil, err
	} else if err := a.ValidateChord(keys); err != nil {
		return nil, AsError(err)
	}
	if err := m.chordsAllowed("press_key", keys); err != nil {
		return nil, err
	}
	t, err := m.keyboardTarget(ctx, sessionID, ref)
	if err != nil {
		return nil, err
	}
	defer t.done()
	var win platform.Window
	if err := m.withKeyboard(ctx, t, func(w platform.Window) error {
		win = w
		if err := m.chordsAllowed("press_key", keys); err != nil {
			return err
		}
		return mapActErr(t.actor.KeyChord(ctx, keys))
	}); err != nil {
		return nil, err
	}
	r, err := m.finish(ctx, t, MethodKeyboard, fmt.Sprintf("%s to window %s", keys, win.ID), nil, "")
	if r != nil && activates(keys) && m.dialogClosing(ctx, t, win.ID, r.Effects) {
		r.Effects = m.effects(ctx, t.s, t.before, t.key())
	}
	if r != nil && t.s.Mode == ModeVisual {
		r.Note = visualKeysNote
	}
	if r != nil && t.node == nil {
		r.Window = t.windowRef(win)
	}
	return r, err
}

// keyboardTarget resolves where keys go: an element, or with ref empty the
// session's app as a whole. It only reads; withKeyboard aims.
func (m *Sessions) keyboardTarget(ctx context.Context, sessionID, ref string) (*actTarget, error) {
	if ref != "" && m.modeOf(ctx, sessionID) == ModeVisual {
		return m.prepareVisual(ctx, sessionID, ref)
	}
	if ref != "" {
		return m.prepareFor(ctx, security.Keyboard, "sending keys", sessionID, ref)
	}
	if err := m.require(security.Keyboard, "sending keys"); err != nil {
		return nil, err
	}
	s, a, err := m.actingSession(ctx, sessionID, security.Keyboard)
	if err != nil {
		return nil, err
	}
	changes, stop := m.Watch(ctx, s)
	return &actTarget{s: s, actor: a, changes: changes, stop: stop, before: m.look(ctx, s), beforeTree: m.observeBefore(ctx, s)}, nil
}

// withKeyboard runs send under the input lock, once the keys' window is
// the active one, verified, and the element (if any) has the focus:
// choosing the window, activating it, checking it and sending are one
// sequence no other call's input can enter.
func (m *Sessions) withKeyboard(ctx context.Context, t *actTarget, send func(win platform.Window) error) error {
	unlock, err := m.lockInputFor(ctx, t.s)
	if err != nil {
		return err
	}
	defer unlock()
	var win platform.Window
	if t.visual != nil {
		if win, err = m.aimKeysVisual(ctx, t); err != nil {
			return err
		}
	} else if t.node != nil {
		if win, err = m.activate(ctx, t); err != nil {
			return err
		}
		if err := m.focus(ctx, t); err != nil {
			return err
		}
		if err := m.stillThere(ctx, t); err != nil {
			return err
		}
	} else if win, err = m.appWindow(ctx, t); err != nil {
		return err
	}
	// The last check before the keys: focus can move while they are aimed
	// (a dialog opening, the user clicking elsewhere).
	if active, err := t.actor.ActiveWindow(ctx); err != nil {
		return mapActErr(err)
	} else if active != win.ID {
		e := Errorf(CodeNotActivated, "window %s lost the focus to %s before the keys were sent; nothing was sent", win.ID, active)
		e.Retryable, e.Disposition = true, DispositionTransient
		return e
	}
	return send(win)
}

// stillThere reads the element afresh just before its keys are sent: it
// must be on screen (not hidden) and hold the focus. A page in a browser's background tab
// keeps its elements, and Firefox may call one focused there, while the
// keys go to the tab in front (Ctrl+T, or a first start's welcome tab,
// put one there). The caller holds the input lock.
func (m *Sessions) stillThere(ctx context.Context, t *actTarget) error {
	d, err := m.desk.Accessibility.Element(ctx, t.s.App, t.node.Key)
	if err != nil {
		return mapActErr(err)
	}
	if m.hidden(ctx, t, d) {
		return Errorf(CodeOffscreen, "%s is not showing (in a browser's background tab, or a hidden part of the window), so its keys would go elsewhere; nothing was sent: bring it into view (select its tab) and read the tree again", t.ref)
	}
	if !m.hasKeys(ctx, t, d) {
		e := Errorf(CodeNoEffect, "%s lost the keyboard focus before the keys were sent; nothing was sent", t.ref)
		e.Retryable, e.Disposition = true, DispositionTransient
		return e
	}
	return nil
}

// hidden reports an element that is not on screen: not showing, and
// without extents or on a web page whose document does not show (Firefox
// keeps the elements of a background tab, with their last extents). The
// showing state alone is not enough: GTK 4.8 leaves it off elements that
// are on screen.
func (m *Sessions) hidden(ctx context.Context, t *actTarget, d *platform.Details) bool {
	if d.Node.States.Has(platform.StateShowing) {
		return false
	}
	if b := d.Node.Bounds; b == nil || b.Empty() {
		return true
	}
	key := d.ParentKey
	for range maxAncestors {
		if key == "" {
			return false
		}
		p, err := m.desk.Accessibility.Element(ctx, t.s.App, key)
		if err != nil {
			return false
		}
		if r := p.Node.Role; r == platform.RoleDocumentWeb || r == platform.RoleDocumentFrame {
			return !p.Node.States.Has(platform.StateShowing)
		}
		key = p.ParentKey
	}
	return false
}

// maxAncestors bounds the walk up to an element's document.
const maxAncestors = 64
