package core

import (
	"context"
	"strings"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
)

// Where an element's keys go. An element has the keys when it has the
// keyboard focus or a descendant of it has: LibreOffice's document text
// hands its focus to the paragraph with the caret, whose keys then edit
// the document. AT-SPI cannot be asked where an application's focus is,
// so the descendant is found two cheap ways: the element that last
// announced it took the focus (a focus event seen while watched), walked
// up to the element; and the focused state of the element's children,
// read in one round trip where they are few (Writer's document manages
// its descendants but holds only the paragraphs on screen as children;
// Calc's grid, which reports 2^31-1, is never listed).

const (
	// maxFocusChildren bounds the children whose states are read.
	maxFocusChildren = 512
	// maxFocusDepth bounds the walk up from the announced focus.
	maxFocusDepth = 8
)

// focusQuiet is how long an application that announces its focus changes
// may stay silent after a focus request on an element that is not
// focusable before the request counts as refused: such an element takes
// the keys only through a descendant, which announces it at once, so a
// genuine failure is known in a fraction of a second, not at changeTime.
// A focusable element is waited for changeTime: a browser moves the focus
// into its page asynchronously, silent meanwhile.
var focusQuiet = 300 * time.Millisecond

// hasKeys reports whether the element read as d, or a descendant of it,
// has the keyboard focus; a descendant that has it is kept in t.keysTo.
func (m *Sessions) hasKeys(ctx context.Context, t *actTarget, d *platform.Details) bool {
	t.keysTo = ""
	if focused(d) {
		return true
	}
	if k := m.focusedDescendant(ctx, t, d); k != "" {
		t.keysTo = k
		return true
	}
	return false
}

// focusedDescendant is the key of the element's descendant that has the
// focus, "" when none is found.
func (m *Sessions) focusedDescendant(ctx context.Context, t *actTarget, d *platform.Details) string {
	if d.Node.ChildCount == 0 {
		return ""
	}
	if ft, ok := m.desk.Accessibility.(platform.FocusTracker); ok {
		if k, _ := ft.Focus(ctx, t.s.App); k != "" && k != t.node.Key && m.descends(ctx, t, k) {
			return k
		}
	}
	if fc, ok := m.desk.Accessibility.(platform.FocusedChildReader); ok && d.Node.ChildCount <= maxFocusChildren {
		if k, err := fc.FocusedChild(ctx, t.s.App, t.node.Key); err == nil && k != "" {
			return k
		}
	}
	return ""
}

// descends reports whether key is focused and the target's element is
// among its ancestors, near enough.
func (m *Sessions) descends(ctx context.Context, t *actTarget, key string) bool {
	d, err := m.desk.Accessibility.Element(ctx, t.s.App, key)
	if err != nil || !focused(d) {
		return false
	}
	for range maxFocusDepth {
		switch d.ParentKey {
		case "":
			return false
		case t.node.Key:
			return true
		}
		if d, err = m.desk.Accessibility.Element(ctx, t.s.App, d.ParentKey); err != nil {
			return false
		}
	}
	return false
}

// awaitKeys waits after a focus request until the element or a
// descendant has the keys: on every event of the app, at least every
// pollGap, until changeTime passes or — for an element that is not
// focusable, where the app announces its changes — until it has been
// silent for focusQuiet.
func (m *Sessions) awaitKeys(ctx context.Context, t *actTarget) bool {
	deadline := time.Now().Add(changeTime)
	quiet := time.Time{}
	if t.changes != nil && !t.det.Node.States.Has(platform.StateFocusable) && !m.eventPoor(t.s) {
		quiet = time.Now().Add(focusQuiet)
	}
	for {
		if d, err := m.desk.Accessibility.Element(ctx, t.s.App, t.node.Key); err == nil && m.hasKeys(ctx, t, d) {
			return true
		}
		now := time.Now()
		if now.After(deadline) || !quiet.IsZero() && now.After(quiet) || ctx.Err() != nil {
			return false
		}
		select {
		case <-t.changes:
			if !quiet.IsZero() {
				quiet = time.Now().Add(focusQuiet)
			}
		case <-time.After(pollGap):
		case <-ctx.Done():
		}
	}
}

// eventPoor reports an app whose silence says nothing (GTK 4.8).
func (m *Sessions) eventPoor(s *Session) bool {
	sr, ok := m.desk.Accessibility.(platform.StillReader)
	return ok && sr.EventPoor(s.App)
}

// keysToRef names the descendant that took the keys: its ref when the
// session's last read holds it, else its role and name.
func (m *Sessions) keysToRef(ctx context.Context, t *actTarget) string {
	if tr := t.s.Tree(); tr != nil {
		if id, ok := tr.ByKey(t.keysTo); ok {
			return tr.RefString(id)
		}
	}
	if d, err := m.desk.Accessibility.Element(ctx, t.s.App, t.keysTo); err == nil {
		if d.Node.Secret() {
			return d.Node.Role.String()
		}
		return d.Node.Role.String() + " " + Quote(d.Node.Name)
	}
	return "a descendant"
}

// asked is the element an action named, kept when typing is read back in
// the descendant that has its keys.
type asked struct {
	ref  string
	node *platform.Node
}

// typeIntoFocused retargets typing into an element without text of its
// own to the descendant that has its keys (a document's paragraph), whose
// text is then what is checked: the keys go there, and the paragraph, not
// the document, holds what was typed. It returns the element asked for,
// nil when the element keeps its keys itself.
func (m *Sessions) typeIntoFocused(ctx context.Context, t *actTarget) *asked {
	if t.node == nil || t.det.Text != nil || t.det.Node.Secret() || !m.hasKeys(ctx, t, t.det) || t.keysTo == "" {
		return nil
	}
	d, err := m.desk.Accessibility.Element(ctx, t.s.App, t.keysTo)
	if err != nil || d.Text == nil || d.Node.Secret() {
		return nil
	}
	a := &asked{ref: t.ref, node: t.node}
	n := d.Node
	n.Key = t.keysTo
	t.ref, t.node, t.det = m.keysToRef(ctx, t), &n, d
	if !isRef(t.ref) {
		t.ref = a.ref
	}
	return a
}

// isRef reports a session ref ("a11y:e12"), not a description.
func isRef(s string) bool {
	_, err := ParseRef(s)
	return err == nil
}

// lastLineTyped checks typing that went on past a line break into the
// descendant that had the keys: the element asked for hands its keys to
// another descendant after an Enter (a document's new paragraph), which
// must hold the text's last line. It returns that descendant's name, ""
// when it was not found holding it.
func (m *Sessions) lastLineTyped(ctx context.Context, t *actTarget, a *asked, text string) string {
	last := text
	if i := lastBreak(text); i >= 0 {
		last = text[i+1:]
	}
	if last == "" {
		return ""
	}
	o := &actTarget{s: t.s, node: a.node}
	d, err := m.desk.Accessibility.Element(ctx, t.s.App, a.node.Key)
	if err != nil || !m.hasKeys(ctx, o, d) || o.keysTo == "" {
		return ""
	}
	k, err := m.desk.Accessibility.Element(ctx, t.s.App, o.keysTo)
	if err != nil || k.Text == nil || k.Node.Secret() || !containsText(k.Text, last) {
		return ""
	}
	return m.keysToRef(ctx, o)
}

func lastBreak(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '\n' || s[i] == '\r' {
			return i
		}
	}
	return -1
}

func containsText(tc *platform.TextContent, s string) bool {
	return tc != nil && strings.Contains(tc.Text, s)
}
