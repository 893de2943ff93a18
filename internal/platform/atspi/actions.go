//go:build linux

package atspi

// Semantic actions: what an agent does to an element through AT-SPI rather
// than through synthetic input. Every operation first asks the element for
// its interfaces, role and states in one pipelined round trip, so that a
// missing interface is reported as platform.ErrNotSupported and a vanished
// element as platform.ErrElementGone before anything is changed.
//
// Effects are verified by reading back wherever AT-SPI allows it, because
// toolkits answer "done" for calls they ignore (GTK 3 "clicks" an
// insensitive button and answers true) and readers can lie too: GTK 4.8
// answers Text.GetText(0, -1) with "" whatever the text, which made its
// working SetTextContents look like a no-op.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/godbus/dbus/v5"

	"github.com/uiscope/uiscope/internal/platform"
)

// Interfaces used only here.
const (
	ifaceEditableText = "org.a11y.atspi.EditableText"
	ifaceSelection    = "org.a11y.atspi.Selection"
)

// Errors of the action layer. They wrap nothing; test with errors.Is.
var (
	// ErrNoEffect: the element accepted the call (or answered false to it)
	// and reading back shows no change. For text it is the cue to fall back
	// to typing.
	ErrNoEffect = platform.ErrNoEffect
	// ErrOutOfRange: a value outside the element's minimum..maximum, a
	// child index or a text range the element does not have.
	ErrOutOfRange = platform.ErrOutOfRange
)

// scrollAnywhere is ATSPI_SCROLL_ANYWHERE: scroll as little as needed to
// bring the element into view (TOP_LEFT 0, BOTTOM_RIGHT 1, TOP_EDGE 2,
// BOTTOM_EDGE 3, LEFT_EDGE 4, RIGHT_EDGE 5, ANYWHERE 6).
const scrollAnywhere uint32 = 6

// settleTime is how long a readback that shows no change is retried before
// the call is declared without effect: some toolkits apply a change from
// their main loop just after answering.
const settleTime = 300 * time.Millisecond

// target is an element resolved for an action.
type target struct {
	ref    objRef
	role   platform.Role
	states platform.StateSet
	ifaces []string // short, lower case: "action", "editabletext"
	hidden bool     // a field that hides its text without being a password field
}

func (t *target) has(iface string) bool {
	for _, i := range t.ifaces {
		if i == iface {
			return true
		}
	}
	return false
}

// password reports a field whose text is never read: a password field, or
// one that hides its text (hidden.go).
func (t *target) password() bool { return t.role == platform.RolePasswordText || t.hidden }

// resolve reads the element's role, states and interfaces in one pipelined
// round trip and checks that it implements need (a short interface name,
// "" for none).
func (c *Conn) resolve(ctx context.Context, key, need string) (*target, error) {
	bus, path, err := ParseKey(key)
	if err != nil {
		return nil, err
	}
	t := &target{ref: objRef{bus, path}}
	var first error
	keep := func(call *dbus.Call) bool {
		if call.Err != nil && first == nil {
			first = call.Err
		}
		return call.Err == nil
	}
	b := c.newBatch(ctx)
	defer b.close()
	b.add(bus, path, ifaceAccessible+".GetRole", func(call *dbus.Call) {
		var r uint32
		if keep(call) && call.Store(&r) == nil {
			t.role = platform.Role(r)
		}
	})
	b.add(bus, path, ifaceAccessible+".GetState", func(call *dbus.Call) {
		var words []uint32
		if keep(call) && call.Store(&words) == nil {
			t.states = platform.StateSetFromWords(words)
		}
	})
	b.add(bus, path, ifaceAccessible+".GetInterfaces", func(call *dbus.Call) {
		var ifaces []string
		if keep(call) && call.Store(&ifaces) == nil {
			t.ifaces = shortInterfaces(ifaces)
		}
	})
	b.wait()
	if first != nil {
		return nil, goneErr(first)
	}
	if err := ctx.Err(); err != nil {
		return nil, mapErr(err)
	}
	if t.states.Has(platform.StateDefunct) {
		return nil, fmt.Errorf("%w: the element is defunct", platform.ErrElementGone)
	}
	if need != "" && !t.has(need) {
		return nil, fmt.Errorf("%w: a %s has no %s interface (it has %s)", platform.ErrNotSupported, t.role, need, strings.Join(t.ifaces, ", "))
	}
	// A field that hides its text is acted on as a password field.
	if n := (&platform.Node{Role: t.role, States: t.states, Interfaces: t.ifaces}); mayHide(n) && c.showsLayout(ctx, bus) {
		var s shownText
		b := c.newBatch(ctx)
		s.read(b, bus, path)
		b.wait()
		b.close()
		t.hidden = s.hidden()
	}
	return t, nil
}

// goneErr maps an error of the Accessible interface itself: every live
// element implements it, so "unknown method" there means the object is no
// longer exported (GTK and Qt answer that way for a destroyed widget).
func goneErr(err error) error {
	err = mapErr(err)
	if errors.Is(err, platform.ErrNotSupported) {
		return fmt.Errorf("%w: %v", platform.ErrElementGone, err)
	}
	return err
}

// getProp reads one property (never GetAll: Qt 5.15 crashes on it).
func (c *Conn) getProp(ctx context.Context, t *target, iface, prop string) (any, error) {
	var v dbus.Variant
	if err := c.op(ctx, t, ifaceProps+".Get", []any{iface, prop}, &v); err != nil {
		return nil, err
	}
	return v.Value(), nil
}

// op makes one call on a resolved element. Qt answers UnknownObject for a
// method its adaptor does not implement (Component.ScrollTo), which mapErr
// reads as a vanished element: when the element still answers GetRole, the
// error is ErrNotSupported instead.
func (c *Conn) op(ctx context.Context, t *target, method string, args []any, out ...any) error {
	return c.opErr(ctx, t, method, c.call(ctx, t.ref.Bus, t.ref.Path, method, args, out...))
}

// opErr maps the error of a call on a resolved element (see op).
func (c *Conn) opErr(ctx context.Context, t *target, method string, err error) error {
	var de dbus.Error
	if errors.As(err, &de) && de.Name == "org.freedesktop.DBus.Error.NotSupported" {
		// GTK 4.8 for Component.GrabFocus, with an empty message.
		return fmt.Errorf("%w: the %s does not support %s (%s)", platform.ErrNotSupported, t.role, method, de.Name)
	}
	err = mapErr(err)
	if !errors.Is(err, platform.ErrElementGone) {
		return err
	}
	var role uint32
	if c.call(ctx, t.ref.Bus, t.ref.Path, ifaceAccessible+".GetRole", nil, &role) == nil {
		return fmt.Errorf("%w: the %s does not implement %s (%v)", platform.ErrNotSupported, t.role, method, err)
	}
	return err
}

// callBool makes a call whose reply is one boolean.
func (c *Conn) callBool(ctx context.Context, t *target, method string, args ...any) (bool, error) {
	var ok bool
	if err := c.op(ctx, t, method, args, &ok); err != nil {
		return false, err
	}
	return ok, nil
}

// States reads the element's state set in one call, for before/after
// summaries.
func (c *Conn) States(ctx context.Context, key string) (platform.StateSet, error) {
	bus, path, err := ParseKey(key)
	if err != nil {
		return 0, err
	}
	var words []uint32
	if err := c.call(ctx, bus, path, ifaceAccessible+".GetState", nil, &words); err != nil {
		return 0, goneErr(err)
	}
	s := platform.StateSetFromWords(words)
	if s.Has(platform.StateDefunct) {
		return s, fmt.Errorf("%w: the element is defunct", platform.ErrElementGone)
	}
	return s, nil
}

// actionInfo is one entry of the element's action list. Name is the stable
// name (Action.GetName), Localized what GetActions lists; they differ only
// in a translated session.
type actionInfo struct {
	Name, Localized string
}

// actionList reads GetActions and, pipelined, GetName for each index.
func (c *Conn) actionList(ctx context.Context, r objRef) ([]actionInfo, error) {
	var acts []struct{ Name, Desc, Key string }
	if err := c.call(ctx, r.Bus, r.Path, ifaceAction+".GetActions", nil, &acts); err != nil {
		return nil, err
	}
	out := make([]actionInfo, len(acts))
	b := c.newBatch(ctx)
	defer b.close()
	for i, a := range acts {
		out[i] = actionInfo{Name: a.Name, Localized: a.Name}
		b.add(r.Bus, r.Path, ifaceAction+".GetName", func(call *dbus.Call) {
			var n string
			if call.Err == nil && call.Store(&n) == nil && n != "" {
				out[i].Name = n
			}
		}, int32(i))
	}
	b.wait()
	return out, mapErr(ctx.Err())
}

// Actions lists the element's action names: the stable, untranslated ones
// of Action.GetName ("click" where GetActions, and so the tree, says
// "Click" on GTK 3).
// An element without the Action interface has none: ErrNotSupported.
func (c *Conn) Actions(ctx context.Context, key string) ([]string, error) {
	t, err := c.resolve(ctx, key, "action")
	if err != nil {
		return nil, err
	}
	acts, err := c.actionList(ctx, t.ref)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(acts))
	for i, a := range acts {
		names[i] = a.Name
	}
	return names, nil
}

// normAction folds an action name for comparison: case, surrounding space
// and the separators toolkits disagree on ("expand_or_contract").
func normAction(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.NewReplacer("_", " ", "-", " ").Replace(s)
}

// DoAction runs the element's action named by the first of names that the
// element has (names are preferences, tried in order; matching ignores case
// and treats "_" and "-" as spaces, and accepts the localized name too). It
// returns the element's own name for the action it ran. When none matches,
// the error (ErrNotSupported) lists the element's actions.
//
// The effect usually comes after the reply (GTK 3 clicks from an idle
// handler, Qt's Press is an animated click): poll the states or the UI.
// DoAction answering false gives ErrNoEffect. A timeout (ErrTimeout) may
// mean the action started a modal loop: it may well have run.
func (c *Conn) DoAction(ctx context.Context, key string, names ...string) (used string, err error) {
	t, idx, name, err := c.chooseAction(ctx, key, names)
	if err != nil {
		return name, err
	}
	ok, err := c.callBool(ctx, t, ifaceAction+".DoAction", int32(idx))
	if err != nil {
		return name, err
	}
	if !ok {
		return name, fmt.Errorf("%w: the %s refused action %q", ErrNoEffect, t.role, name)
	}
	return name, nil
}

// chooseAction resolves the element and finds the first of names among its
// actions (see DoAction): the element, the action's index and its own name.
func (c *Conn) chooseAction(ctx context.Context, key string, names []string) (*target, int, string, error) {
	if len(names) == 0 {
		return nil, 0, "", errors.New("DoAction: no action name given")
	}
	t, err := c.resolve(ctx, key, "action")
	if err != nil {
		return nil, 0, "", err
	}
	acts, err := c.actionList(ctx, t.ref)
	if err != nil {
		return nil, 0, "", err
	}
	for _, want := range names {
		w := normAction(want)
		for i, a := range acts {
			if normAction(a.Name) == w || normAction(a.Localized) == w {
				return t, i, a.Name, nil
			}
		}
	}
	have := make([]string, len(acts))
	for i, a := range acts {
		have[i] = fmt.Sprintf("%q", a.Name)
	}
	list := strings.Join(have, ", ")
	if list == "" {
		list = "none"
	}
	return nil, 0, "", fmt.Errorf("%w: this %s has no action %q (its actions: %s)", platform.ErrNotSupported, t.role, strings.Join(names, "/"), list)
}

// Methods SetText reports.
const (
	MethodSetTextContents = "SetTextContents"
	MethodDeleteInsert    = "DeleteText+InsertText"
)

// TextResult is the outcome of SetText.
type TextResult struct {
	// Text is what the element holds afterwards, read back through
	// Text.GetText. Always "" for a password field, whose text is never
	// read.
	Text string
	// Method is the call that took effect: MethodSetTextContents or
	// MethodDeleteInsert ("" when none did).
	Method string
	// Redacted is set for password fields: Text was not read, and the
	// change was verified by the character count alone (which the caller
	// knows anyway: it chose the text). A new password of the old one's
	// length passes that check even if the toolkit ignored the call.
	Redacted bool
	// Unverified is set when the element has no Text interface to read
	// back with: SetTextContents answered true and that is all that is known.
	Unverified bool
}

// SetText replaces the element's whole text. It calls
// EditableText.SetTextContents and reads the text back; when the element
// still holds something else (a toolkit that answers true and changes
// nothing) it tries DeleteText over the whole text followed by InsertText,
// and reads back again, for up to settleTime. The result says what the element holds and which method
// worked.
//
// When neither call changed anything it returns ErrNoEffect, with the text
// the element holds: the caller's cue to fall back to keystrokes. When the
// text changed but differs from what was asked (a length limit, a
// single-line field dropping newlines), it returns no error: compare
// TextResult.Text.
//
// Setting a password is allowed (agents log in) but its text is never read:
// see TextResult.Redacted.
func (c *Conn) SetText(ctx context.Context, key, text string) (TextResult, error) {
	t, err := c.resolve(ctx, key, "editabletext")
	if err != nil {
		return TextResult{}, err
	}
	res := TextResult{Redacted: t.password()}
	if !t.has("text") {
		// Nothing to read back with: trust the answer.
		ok, err := c.callBool(ctx, t, ifaceEditableText+".SetTextContents", text)
		if err != nil {
			return res, err
		}
		if !ok {
			return res, fmt.Errorf("%w: SetTextContents answered false", ErrNoEffect)
		}
		res.Method, res.Unverified = MethodSetTextContents, true
		return res, nil
	}
	before, err := c.readText(ctx, t)
	if err != nil {
		return res, err
	}
	want := c.expected(t, text)

	// 1. SetTextContents. Its answer is not trusted either way.
	if _, err := c.callBool(ctx, t, ifaceEditableText+".SetTextContents", text); err != nil && !errors.Is(err, platform.ErrNotSupported) {
		return res, err
	}
	now, err := c.readText(ctx, t)
	if err != nil {
		return res, err
	}
	if now == want {
		res.Method = MethodSetTextContents
		res.Text = c.shown(t, now)
		return res, nil
	}
	afterSet := now

	// 2. DeleteText over everything, then InsertText.
	if err := c.deleteInsert(ctx, t, text); err != nil && !errors.Is(err, platform.ErrNotSupported) {
		return res, err
	}
	// Some toolkits apply edits from their main loop: give the change a
	// moment before calling it ineffective.
	now, err = c.pollText(ctx, t, want)
	if err != nil {
		return res, err
	}
	res.Text = c.shown(t, now)
	switch {
	case now == want:
		res.Method = MethodDeleteInsert
		return res, nil
	case now != before && now != afterSet:
		// Changed by the second method, though not to what was asked.
		res.Method = MethodDeleteInsert
		return res, nil
	case afterSet != before:
		res.Method = MethodSetTextContents
		return res, nil
	}
	if t.password() {
		return res, fmt.Errorf("%w: the password field's length did not change to the new text's (%d characters)", ErrNoEffect, utf8.RuneCountInString(text))
	}
	return res, fmt.Errorf("%w: neither SetTextContents nor DeleteText+InsertText changed the text of this %s", ErrNoEffect, t.role)
}

// readText returns the whole text of the element, or for a password field
// only a stand-in derived from its character count (its text is never
// read). GTK 4.8 answers GetText(0, -1) with "" whatever the text: the
// length is read alongside, and the text read again up to it when the two
// disagree.
func (c *Conn) readText(ctx context.Context, t *target) (string, error) {
	if t.password() {
		n, err := c.charCount(ctx, t)
		return fmt.Sprintf("\x00len=%d", n), err
	}
	var s string
	var n int32
	var first error
	b := c.newBatch(ctx)
	defer b.close()
	b.get(t.ref.Bus, t.ref.Path, ifaceText, "CharacterCount", func(v any, err error) {
		first = err
		n, _ = v.(int32)
	})
	b.add(t.ref.Bus, t.ref.Path, ifaceText+".GetText", func(call *dbus.Call) {
		if call.Err != nil {
			first = call.Err
			return
		}
		if err := call.Store(&s); err != nil {
			first = err
		}
	}, int32(0), int32(-1))
	b.wait()
	if first != nil {
		return "", c.opErr(ctx, t, "Text.GetText", first)
	}
	if err := ctx.Err(); err != nil {
		return "", mapErr(err)
	}
	if utf8.RuneCountInString(s) == int(n) {
		return s, nil
	}
	if err := c.op(ctx, t, ifaceText+".GetText", []any{int32(0), n}, &s); err != nil {
		return "", err
	}
	return s, nil
}

// expected is what readText returns once the element holds text.
func (c *Conn) expected(t *target, text string) string {
	if t.password() {
		return fmt.Sprintf("\x00len=%d", utf8.RuneCountInString(text))
	}
	return text
}

// shown is what the caller may see of a readback.
func (c *Conn) shown(t *target, s string) string {
	if t.password() {
		return ""
	}
	return s
}

func (c *Conn) charCount(ctx context.Context, t *target) (int, error) {
	v, err := c.getProp(ctx, t, ifaceText, "CharacterCount")
	if err != nil {
		return 0, err
	}
	n, ok := v.(int32)
	if !ok {
		return 0, fmt.Errorf("CharacterCount is %T, not int32", v)
	}
	return int(n), nil
}

// deleteInsert replaces the text with DeleteText(0, count) and
// InsertText(0, text, length). Their boolean answers are not trusted; the
// caller reads back.
func (c *Conn) deleteInsert(ctx context.Context, t *target, text string) error {
	n, err := c.charCount(ctx, t)
	if err != nil {
		return err
	}
	if n > 0 {
		if _, err := c.callBool(ctx, t, ifaceEditableText+".DeleteText", int32(0), int32(n)); err != nil {
			return err
		}
	}
	if text == "" {
		return nil
	}
	_, err = c.callBool(ctx, t, ifaceEditableText+".InsertText", int32(0), text, int32(utf8.RuneCountInString(text)))
	return err
}

// pollText reads the text until it equals want or settleTime has passed,
// and returns the last reading.
func (c *Conn) pollText(ctx context.Context, t *target, want string) (string, error) {
	deadline := time.Now().Add(settleTime)
	for {
		now, err := c.readText(ctx, t)
		if err != nil || now == want || time.Now().After(deadline) {
			return now, err
		}
		select {
		case <-ctx.Done():
			return now, nil
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// SetValue sets the element's current value (Value.CurrentValue through
// Properties.Set) and returns the value it reads back, which the toolkit
// may have rounded to its step. A value outside MinimumValue..MaximumValue
// is refused with ErrOutOfRange (no call is made); when the value read
// back is unchanged although a different one was asked for, the error is
// ErrNoEffect.
func (c *Conn) SetValue(ctx context.Context, key string, v float64) (effective float64, err error) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w: %v is not a number", ErrOutOfRange, v)
	}
	t, err := c.resolve(ctx, key, "value")
	if err != nil {
		return 0, err
	}
	var cur, lo, hi float64
	var haveCur, haveLo, haveHi bool
	var first error
	num := func(dst *float64, ok *bool) func(any, error) {
		return func(x any, err error) {
			if err != nil && first == nil {
				first = err
			}
			*dst, *ok = x.(float64)
		}
	}
	b := c.newBatch(ctx)
	defer b.close()
	b.get(t.ref.Bus, t.ref.Path, ifaceValue, "CurrentValue", num(&cur, &haveCur))
	b.get(t.ref.Bus, t.ref.Path, ifaceValue, "MinimumValue", num(&lo, &haveLo))
	b.get(t.ref.Bus, t.ref.Path, ifaceValue, "MaximumValue", num(&hi, &haveHi))
	b.wait()
	if first != nil {
		return 0, c.opErr(ctx, t, "Value properties", first)
	}
	if err := ctx.Err(); err != nil {
		return 0, mapErr(err)
	}
	// A toolkit without a range reports 0..0 (or nothing): no check then.
	if haveLo && haveHi && hi > lo && (v < lo || v > hi) {
		return cur, fmt.Errorf("%w: %v is outside %v..%v", ErrOutOfRange, v, lo, hi)
	}
	if err := c.op(ctx, t, ifaceProps+".Set", []any{ifaceValue, "CurrentValue", dbus.MakeVariant(v)}); err != nil {
		return cur, err
	}
	deadline := time.Now().Add(settleTime)
	for {
		x, err := c.getProp(ctx, t, ifaceValue, "CurrentValue")
		if err != nil {
			return cur, err
		}
		now, ok := x.(float64)
		if !ok {
			return cur, fmt.Errorf("CurrentValue is %T, not a double", x)
		}
		if now != cur || v == cur {
			return now, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return now, fmt.Errorf("%w: CurrentValue is still %v after setting %v", ErrNoEffect, now, v)
		}
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TextLengthIs reports whether the element's text has n characters: the
// only read-back a password field allows. Its characters are never read,
// and its length is not returned either, only compared.
func (c *Conn) TextLengthIs(ctx context.Context, key string, n int) (bool, error) {
	t, err := c.resolve(ctx, key, "text")
	if err != nil {
		return false, err
	}
	got, err := c.charCount(ctx, t)
	return err == nil && got == n, err
}

// GrabFocus asks the element to take the keyboard focus
// (Component.GrabFocus). An answer of false gives ErrNoEffect; the FOCUSED
// state arrives a little after a true one.
func (c *Conn) GrabFocus(ctx context.Context, key string) error {
	return c.componentBool(ctx, key, "GrabFocus")
}

// ScrollTo asks the element's scrolled ancestors to bring it into view
// (Component.ScrollTo with ATSPI_SCROLL_ANYWHERE: as little scrolling as
// needed). An answer of false gives ErrNoEffect.
func (c *Conn) ScrollTo(ctx context.Context, key string) error {
	return c.componentBool(ctx, key, "ScrollTo", scrollAnywhere)
}

func (c *Conn) componentBool(ctx context.Context, key, method string, args ...any) error {
	t, err := c.resolve(ctx, key, "component")
	if err != nil {
		return err
	}
	ok, err := c.callBool(ctx, t, ifaceComponent+"."+method, args...)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: the %s answered false to %s", ErrNoEffect, t.role, method)
	}
	return nil
}

// selectionCall runs one Selection method of a container with a child
// index (the child's index among the container's children, not among the
// selected ones).
func (c *Conn) selectionCall(ctx context.Context, containerKey, method string, index int) (bool, error) {
	t, err := c.resolve(ctx, containerKey, "selection")
	if err != nil {
		return false, err
	}
	if index < 0 || index > math.MaxInt32 {
		return false, fmt.Errorf("%w: child index %d", ErrOutOfRange, index)
	}
	return c.callBool(ctx, t, ifaceSelection+"."+method, int32(index))
}

// SelectChild selects the container's child at index (its index among the
// container's children) through the container's Selection interface. An
// answer of false (no such child, or not selectable) gives ErrNoEffect.
func (c *Conn) SelectChild(ctx context.Context, containerKey string, index int) error {
	ok, err := c.selectionCall(ctx, containerKey, "SelectChild", index)
	if err == nil && !ok {
		err = fmt.Errorf("%w: SelectChild(%d) answered false", ErrNoEffect, index)
	}
	return err
}

// DeselectChild deselects the container's child at index (among all its
// children). An answer of false gives ErrNoEffect.
func (c *Conn) DeselectChild(ctx context.Context, containerKey string, index int) error {
	ok, err := c.selectionCall(ctx, containerKey, "DeselectChild", index)
	if err == nil && !ok {
		err = fmt.Errorf("%w: DeselectChild(%d) answered false", ErrNoEffect, index)
	}
	return err
}

// IsChildSelected reports whether the container's child at index is
// selected.
func (c *Conn) IsChildSelected(ctx context.Context, containerKey string, index int) (bool, error) {
	return c.selectionCall(ctx, containerKey, "IsChildSelected", index)
}

// SelectedChildren lists the keys of the container's selected children
// (Selection.NSelectedChildren, then GetSelectedChild for each, pipelined).
// For a GTK 3 combo box that is the active item of its menu: the items
// themselves carry no SELECTED state. At most 256 are listed.
func (c *Conn) SelectedChildren(ctx context.Context, containerKey string) ([]string, error) {
	t, err := c.resolve(ctx, containerKey, "selection")
	if err != nil {
		return nil, err
	}
	v, err := c.getProp(ctx, t, ifaceSelection, "NSelectedChildren")
	if err != nil {
		return nil, err
	}
	n, _ := v.(int32)
	if n > maxInFlight {
		n = maxInFlight
	}
	refs := make([]objRef, n)
	var first error
	b := c.newBatch(ctx)
	defer b.close()
	for i := range refs {
		b.add(t.ref.Bus, t.ref.Path, ifaceSelection+".GetSelectedChild", func(call *dbus.Call) {
			if call.Err != nil {
				if first == nil {
					first = call.Err
				}
				return
			}
			_ = call.Store(&refs[i])
		}, int32(i))
	}
	b.wait()
	if first != nil {
		return nil, c.opErr(ctx, t, "Selection.GetSelectedChild", first)
	}
	keys := make([]string, 0, len(refs))
	for _, r := range refs {
		if !r.null() {
			keys = append(keys, r.key())
		}
	}
	return keys, mapErr(ctx.Err())
}

// ClearSelection deselects all of the container's children. An answer of
// false gives ErrNoEffect.
func (c *Conn) ClearSelection(ctx context.Context, containerKey string) error {
	t, err := c.resolve(ctx, containerKey, "selection")
	if err != nil {
		return err
	}
	ok, err := c.callBool(ctx, t, ifaceSelection+".ClearSelection")
	if err == nil && !ok {
		err = fmt.Errorf("%w: ClearSelection answered false", ErrNoEffect)
	}
	return err
}

// SelectText selects the characters start..end (end exclusive, in
// characters; end -1 for the end of the text) of the element's text: it
// replaces the first selection (Text.SetSelection(0, ...)) or adds one when
// there is none. An answer of false gives ErrNoEffect. Offsets outside
// 0..CharacterCount are refused with ErrOutOfRange.
//
// A field that hides its text (see target.password) can only be selected
// whole (0, -1): any other range, accepted or refused, would tell its
// length, and the refusal does not name it either.
func (c *Conn) SelectText(ctx context.Context, key string, start, end int) error {
	t, err := c.resolve(ctx, key, "text")
	if err != nil {
		return err
	}
	if t.password() && (start != 0 || end != -1) {
		return fmt.Errorf("%w: this field hides its text, so only the whole of it can be selected (start 0 and no end); its length is not told", ErrOutOfRange)
	}
	var n, count int32
	var first error
	b := c.newBatch(ctx)
	defer b.close()
	b.add(t.ref.Bus, t.ref.Path, ifaceText+".GetNSelections", func(call *dbus.Call) {
		if call.Err != nil {
			first = call.Err
			return
		}
		_ = call.Store(&n)
	})
	b.get(t.ref.Bus, t.ref.Path, ifaceText, "CharacterCount", func(v any, err error) {
		if err != nil && first == nil {
			first = err
		}
		count, _ = v.(int32)
	})
	b.wait()
	if first != nil {
		return c.opErr(ctx, t, "Text.GetNSelections", first)
	}
	if err := ctx.Err(); err != nil {
		return mapErr(err)
	}
	if end == -1 {
		end = int(count)
	}
	if start < 0 || end < start || end > int(count) {
		return fmt.Errorf("%w: selection %d..%d of a text of %d characters", ErrOutOfRange, start, end, count)
	}
	var ok bool
	if n > 0 {
		ok, err = c.callBool(ctx, t, ifaceText+".SetSelection", int32(0), int32(start), int32(end))
	} else {
		ok, err = c.callBool(ctx, t, ifaceText+".AddSelection", int32(start), int32(end))
	}
	if err == nil && !ok {
		err = fmt.Errorf("%w: the %s did not select %d..%d", ErrNoEffect, t.role, start, end)
	}
	return err
}
