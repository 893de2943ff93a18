package core

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/security"
)

// chooseActions are the action names that choose an item: a click, or
// "select", the one action browsers give the options of an HTML select
// (Firefox and Chromium alike).
var chooseActions = append(slices.Clone(clickActions), "select")

// SetExpanded expands or collapses a tree row, expander or combo box.
func (m *Sessions) SetExpanded(ctx context.Context, sessionID, ref string, expanded bool) (*ActResult, error) {
	t, err := m.prepare(ctx, sessionID, ref)
	if err != nil {
		return nil, err
	}
	defer t.done()
	st := t.det.Node.States
	word := map[bool]string{true: "expanded", false: "collapsed"}[expanded]
	if st.Has(platform.StateExpanded) == expanded {
		r := &ActResult{Element: t.ref, Method: MethodNone, Verified: true, Before: summarize(t.det), Note: "already " + word}
		return r, nil
	}
	if !st.Has(platform.StateExpandable) && !st.Has(platform.StateExpanded) {
		return nil, Errorf(CodeNotSupported, "%s (%s) is not expandable", t.ref, t.det.Node.Role)
	}
	names := []string{"expand or contract", "expand", "activate", "click", "press"}
	if !expanded {
		names = []string{"expand or contract", "collapse", "activate", "click", "press"}
	}
	used, err := m.doAction(ctx, t, 0, names...)
	if err != nil {
		return nil, mapActErr(err)
	}
	done := func(d *platform.Details) bool { return d.Node.States.Has(platform.StateExpanded) == expanded }
	return m.finish(ctx, t, MethodAction, used, done, fmt.Sprintf("making it %s (action %q)", word, used))
}

// Select changes an item's selection through its container's Selection
// interface (mode replace, add or remove); items without one (menu items of
// a closed combo box) are clicked by action. Success is the container (or
// the item, or for a combo box's menu item the combo box) reporting the
// item selected as asked.
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
	claim := map[bool]string{true: "selecting it", false: "deselecting it"}[want]
	// Menu items are chosen by activating them: a GTK 3 combo box's menu
	// accepts Selection calls and changes nothing.
	if t.det.Node.Role == platform.RoleMenuItem && want {
		// Gecko's options answer their action and change nothing: the
		// keys at once, not after the action's read-back has waited out.
		if t.s.App.OptionActionIgnored() {
			if r, kerr, ok := m.chooseByKeys(ctx, t, claim); ok {
				if r != nil {
					r.Note = "Gecko's options do not take their own action, so it was chosen with the keyboard on its combo box"
				}
				return r, kerr
			}
		}
		used, err := m.doAction(ctx, t, 0, chooseActions...)
		if err != nil && !errors.Is(err, platform.ErrNotSupported) {
			return nil, mapActErr(err)
		}
		var r *ActResult
		if err == nil {
			r, err = m.finish(ctx, t, MethodAction, used, m.chosen(ctx, t), claim)
			if err == nil || AsError(err).Code != CodeNoEffect {
				return r, err
			}
		}
		if r, kerr, ok := m.chooseByKeys(ctx, t, claim); ok {
			return r, kerr
		}
		return nil, mapActErr(err)
	}
	if t.det.ParentKey != "" {
		err := t.actor.Select(ctx, t.s.App, t.det.ParentKey, t.det.IndexInParent, want, mode == "replace")
		switch {
		case err == nil:
			// Some containers (GTK 3 combo menus) accept the call and
			// select nothing: believe the container's answer, not the call's.
			if m.selected(ctx, t, want) {
				return m.finish(ctx, t, MethodSemantic, "Selection on the container", nil, "")
			}
		case !errors.Is(err, platform.ErrNotSupported) && !errors.Is(err, platform.ErrNoEffect):
			return nil, mapActErr(err)
		}
	}
	if !want {
		return nil, Errorf(CodeNotSupported, "%s's container has no Selection interface, so it cannot be deselected", t.ref)
	}
	used, err := m.doAction(ctx, t, 0, chooseActions...)
	if err != nil {
		return nil, mapActErr(err)
	}
	return m.finish(ctx, t, MethodAction, used, m.chosen(ctx, t), claim+" by its action "+strconv.Quote(used))
}

// chooseByKeys chooses a combo box's item with the keyboard, as a user
// would on a closed one: focus the combo box, Home, then Down to the item.
// Firefox's options of an HTML select answer their "select" action and
// change nothing (Select goes here first on Gecko). ok is false when the item is not in a combo box (or the
// server does not allow keys): the caller's own failure stands then.
func (m *Sessions) chooseByKeys(ctx context.Context, t *actTarget, claim string) (*ActResult, error, bool) {
	if !m.Caps.Has(security.Keyboard) || t.det.ParentKey == "" {
		return nil, nil, false
	}
	menu, err := m.desk.Accessibility.Element(ctx, t.s.App, t.det.ParentKey)
	if err != nil || menu.ParentKey == "" {
		return nil, nil, false
	}
	combo, err := m.desk.Accessibility.Element(ctx, t.s.App, menu.ParentKey)
	if err != nil || combo.Node.Role != platform.RoleComboBox {
		return nil, nil, false
	}
	// The keys go to the combo box: aim, activate and focus it instead.
	ct := *t
	ct.node, ct.det = &combo.Node, combo
	keys := []string{"Home"}
	for range t.det.IndexInParent {
		keys = append(keys, "Down")
	}
	if err := m.withKeyboard(ctx, &ct, func(platform.Window) error {
		if err := m.chordsAllowed("select (keys)", keys...); err != nil {
			return err
		}
		for _, k := range keys {
			if err := t.actor.KeyChord(ctx, k); err != nil {
				return mapActErr(err)
			}
		}
		return nil
	}); err != nil {
		return nil, err, true
	}
	detail := fmt.Sprintf("the combo box focused, then Home and Down x%d", t.det.IndexInParent)
	r, err := m.finish(ctx, t, MethodKeyboard, detail, m.chosen(ctx, t), claim+" with the keyboard ("+detail+")")
	if r != nil {
		r.Note = "the item's own action changed nothing, so it was chosen with the keyboard on its combo box"
	}
	return r, err, true
}

// chosen is the read-back for an item selected by its action: the item
// has the selected state, or its container says it is selected, or (a
// combo box's menu item) the combo box now shows the item's name.
func (m *Sessions) chosen(ctx context.Context, t *actTarget) func(*platform.Details) bool {
	name := t.det.Node.Name
	return func(d *platform.Details) bool {
		if d.Node.States.Has(platform.StateSelected) {
			return true
		}
		if t.det.ParentKey == "" {
			return false
		}
		if sel, err := t.actor.IsSelected(ctx, t.s.App, t.det.ParentKey, t.det.IndexInParent); err == nil && sel {
			return true
		}
		// menu item -> menu -> combo box
		menu, err := m.desk.Accessibility.Element(ctx, t.s.App, t.det.ParentKey)
		if err != nil || menu.ParentKey == "" {
			return false
		}
		combo, err := m.desk.Accessibility.Element(ctx, t.s.App, menu.ParentKey)
		if err != nil || combo.Node.Role != platform.RoleComboBox {
			return false
		}
		if name != "" && combo.Node.Name == name {
			return true
		}
		// GTK 3: the combo box's own Selection holds its menu's active item.
		sel, err := t.actor.IsSelected(ctx, t.s.App, menu.ParentKey, t.det.IndexInParent)
		return err == nil && sel
	}
}

// selected polls the container until the item's selection is as wanted.
func (m *Sessions) selected(ctx context.Context, t *actTarget, want bool) bool {
	deadline := time.Now().Add(time.Second)
	for {
		got, err := t.actor.IsSelected(ctx, t.s.App, t.det.ParentKey, t.det.IndexInParent)
		if err == nil && got == want {
			return true
		}
		if err != nil || time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		select {
		case <-time.After(pollGap):
		case <-ctx.Done():
		}
	}
}

// focused is the read-back for focus.
func focused(d *platform.Details) bool { return d.Node.States.Has(platform.StateFocused) }

// movedElsewhere reports that the app's last focus event named another
// element than key.
func movedElsewhere(ctx context.Context, ft platform.FocusTracker, app platform.App, key string) bool {
	k, _ := ft.Focus(ctx, app)
	return k != "" && k != key
}

// focus gives an element the keyboard focus and checks it took: through
// Component.GrabFocus, else the element's own focus action (Qt's
// "SetFocus"), else a pointer click on it (GTK 4.8 answers GrabFocus with
// NotSupported). Keys are never sent to an element that did not take
// focus. The caller holds the input lock.
func (m *Sessions) focus(ctx context.Context, t *actTarget) error {
	if !focused(t.det) && m.hasKeys(ctx, t, t.det) {
		return nil // a descendant has them
	}
	if focused(t.det) {
		// Asked again when the app's last focus move was to another
		// element: a browser keeps a page element's focused state while
		// its own UI (the address bar) has the keys, and Chromium's
		// GrabFocus gives them back to the page. Not otherwise: a GTK 3
		// entry asked again selects all its text, which the keys would
		// then replace.
		if ft, ok := m.desk.Accessibility.(platform.FocusTracker); !ok || movedElsewhere(ctx, ft, t.s.App, t.node.Key) {
			_ = t.actor.GrabFocus(ctx, t.s.App, t.node.Key)
			return nil
		}
		// Read live: the window was just activated, and its toolkit gives
		// the element its focus back once it hears of it (GTK 3 on sway,
		// a moment later); one that does not have it then is asked.
		if m.awaitKeys(ctx, t) {
			return nil
		}
	}
	if err := t.actor.GrabFocus(ctx, t.s.App, t.node.Key); err == nil {
		if m.awaitKeys(ctx, t) {
			return nil
		}
	}
	if _, err := t.actor.DoAction(ctx, t.s.App, t.node.Key, "setfocus", "focus"); err == nil {
		if m.awaitKeys(ctx, t) {
			return nil
		}
	}
	if !m.Caps.Has(security.Interact) {
		return Errorf(CodeNoEffect, "%s did not take the keyboard focus through its accessibility interfaces, and a pointer click needs the interact capability the server does not grant; no keys were sent", t.ref)
	}
	// A click where an element is not showing lands on whatever is there
	// instead (the page of a browser's tab in front).
	if d, err := m.desk.Accessibility.Element(ctx, t.s.App, t.node.Key); err == nil && m.hidden(ctx, t, d) {
		return Errorf(CodeOffscreen, "%s is not showing (in a browser's background tab, or a hidden part of the window) and did not take the keyboard focus; nothing was clicked or typed: bring it into view (select its tab) and read the tree again", t.ref)
	}
	if err := m.pointerAllowed("focusing it with a click"); err != nil {
		return err
	}
	if x, y, err := m.pointAt(ctx, t); err == nil && t.actor.Click(ctx, x, y, 1, 1) == nil {
		if m.awaitKeys(ctx, t) {
			return nil
		}
	}
	return Errorf(CodeNoEffect, "%s did not take the keyboard focus, so no keys were sent", t.ref)
}

// Focus gives an element the keyboard focus.
func (m *Sessions) Focus(ctx context.Context, sessionID, ref string) (*ActResult, error) {
	if m.modeOf(ctx, sessionID) == ModeVisual {
		return m.focusVisual(ctx, sessionID, ref)
	}
	t, err := m.prepare(ctx, sessionID, ref)
	if err != nil {
		return nil, err
	}
	defer t.done()
	unlock, err := m.lockInputFor(ctx, t.s)
	if err != nil {
		return nil, err
	}
	_, err = m.activate(ctx, t)
	if err == nil {
		err = m.focus(ctx, t)
	}
	unlock()
	if err != nil {
		return nil, err
	}
	return m.finish(ctx, t, MethodSemantic, "focus", focused, "giving it the keyboard focus")
}

// TextSelection is a range of an element's text that select_text
// selected: character offsets, and the text in it.
type TextSelection struct {
	Start int `json:"start"`
	// End is exclusive; absent for the whole of a field that hides its
	// text, whose length is not told.
	End *int `json:"end,omitempty"`
	// Text is what the range holds, cut at selectionRunes runes (then
	// TextTruncated); never a redacted field's.
	Text          *string `json:"text,omitempty"`
	TextTruncated bool    `json:"textTruncated,omitempty"`
}

// selectionRunes is where a selection's text is cut in an answer.
const selectionRunes = 200

// selection is the TextSelection of start..end (end -1: to the end, its
// length unknown) in the element's text as read before the action, which
// selecting does not change.
func selection(det *platform.Details, start, end int) *TextSelection {
	sel := &TextSelection{Start: start}
	if end < 0 {
		return sel
	}
	sel.End = &end
	if det == nil || det.Text == nil || det.Node.Redacted {
		return sel
	}
	runes := []rune(det.Text.Text)
	if end > len(runes) {
		// The text read was cut short of the range.
		return sel
	}
	part := runes[start:end]
	if len(part) > selectionRunes {
		part, sel.TextTruncated = part[:selectionRunes], true
	}
	text := string(part)
	sel.Text = &text
	return sel
}

// SelectText selects a range of an element's text; end -1 means the end.
// The answer says what got selected (Selection), not the element's states
// and text before and after.
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
	r, err := m.finish(ctx, t, MethodSemantic, "", nil, "")
	if err != nil {
		return nil, err
	}
	r.Before, r.After, r.Selection = nil, nil, selection(t.det, start, end)
	return r, nil
}
