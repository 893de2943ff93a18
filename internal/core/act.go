package core

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/security"
)

// Acting. This file holds what every action shares: the gates (actor,
// actingSession, require, consent), the target an action is aimed at and
// prepare, the read-back (await, finish, noEffect) and the plumbing of
// sending (doAction, pointAt, pointerInput, activate). The verbs live in
// their feature's file, named as the MCP tools' files are: click.go
// (click, invoke, toggle), value.go (set_value), select.go (select,
// set_expanded, focus, select_text), scroll.go, keyboard.go (type_text,
// press_key), window.go (window_action), held.go and heldkeys.go (press,
// move, release, key_down, key_up), editable_set.go (set_property,
// clear_property) and visual_act.go (a visual session's).

// More error codes, for acting.
const (
	CodeInputNotAllowed = security.CodeInputNotAllowed
	CodeDisabled        = "elementDisabled"
	CodeNotActivated    = "windowNotActivated"
	CodeOffscreen       = "offscreen"
	CodeCovered         = "covered"
	CodeNoEffect        = "noEffect"
	CodeNoWindowManager = "noWindowManager"
	// CodeEffectUnknown: the action was sent and may have run, but the
	// application neither answered nor showed any change: never retried
	// blindly, the agent reads the UI first.
	CodeEffectUnknown = "effectUnknown"
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

// ActResult says what an action did. Verified is set when the effect the
// action claims was read back (After), or, for an action that claims none
// (a click, a key), when the application answered it; an action that was
// delivered and changed the app otherwise than asked (an Enter that
// submitted the field, a menu item whose dialog opened while the toolkit's
// reply was pending) is Verified false, with what it caused in Effects.
// An action after which nothing changed at all is an error (CodeNoEffect),
// never a result with a note.
type ActResult struct {
	Element  string  `json:"element,omitempty"`
	Method   string  `json:"method"`
	Detail   string  `json:"detail,omitempty"` // action name, keys, window...
	Verified bool    `json:"verified"`
	Effects  Effects `json:"effects"`
	// Window is where keys or pointer input without an element went.
	Window *WindowRef `json:"window,omitempty"`
	// Changes are the tree changes of the action, when observed
	// (WithObserve); ChangesNote says when they are cut or unknown.
	Changes     *[]Change `json:"changes,omitempty"`
	ChangesNote string    `json:"changesNote,omitempty"`
	Before      *Summary  `json:"before,omitempty"`
	After       *Summary  `json:"after,omitempty"`
	// Selection is what select_text selected, in place of Before and
	// After.
	Selection *TextSelection `json:"selection,omitempty"`
	Note      string         `json:"note,omitempty"`
}

// actor is the platform's acting side: its windows, input and semantic
// actions.
type actor struct {
	platform.Windows
	platform.Input
	platform.Actions
}

// actor gives the sessions' platform's acting side, or an error when the
// platform cannot act or no input was granted. The core checks the gate
// itself: an MCP layer that registered a tool by mistake still cannot act.
// Each action also requires its own capability (require).
func (m *Sessions) actor() (actor, error) {
	if m.Caps&security.Input == 0 {
		return actor{}, m.require(security.Interact, "acting on applications")
	}
	d := m.desk
	if d.Windows == nil || d.Input == nil || d.Actions == nil {
		return actor{}, Errorf(CodeNotSupported, "this platform cannot act on applications")
	}
	return actor{d.Windows, d.Input, d.Actions}, nil
}

// actingSession returns the session an action runs in and the platform's
// acting parts, once the caller has passed the gate: the platform's parts
// are checked (a platform that cannot act says so whatever the session),
// then the session, and only then is the user asked for consent to what
// needs it, never for an action that cannot run.
func (m *Sessions) actingSession(ctx context.Context, sessionID string, need security.Caps) (*Session, actor, error) {
	a, err := m.actor()
	if err != nil {
		return nil, actor{}, err
	}
	s, err := m.Get(ctx, sessionID)
	if err != nil {
		return nil, actor{}, err
	}
	if err := m.consented(s, need); err != nil {
		return nil, actor{}, err
	}
	return s, a, nil
}

// inputAllowed is the gate of pointer and semantic actions.
func (m *Sessions) inputAllowed() error {
	return m.require(security.Interact, "acting on applications")
}

// consented refuses an action the user did not approve for the session
// (consent prompts): reading alone was granted, or less than need.
func (m *Sessions) consented(s *Session, need security.Caps) error {
	if m.Consent == nil || s.Granted.Has(need) {
		return nil
	}
	allowed := "reading only"
	if acts := s.Granted & security.Input; acts != 0 {
		allowed = "reading and " + acts.String() + " only"
	}
	return AsError(&security.Refusal{Code: security.CodeConsentDenied, Msg: fmt.Sprintf(
		"the user allowed this client %s on pid %d, not this (%s); the answer holds until the server restarts, and no new dialog is shown",
		allowed, s.Identity.Pid, need)})
}

// require refuses unless the server grants need; what names the
// operation in the refusal.
func (m *Sessions) require(need security.Caps, what string) error {
	if err := security.Require(m.Caps, need, what); err != nil {
		return AsError(err)
	}
	return nil
}

// actTarget is where an action goes: an element (node set), or with input
// only, the session's app as a whole (node nil).
type actTarget struct {
	s       *Session
	ref     string
	node    *platform.Node
	det     *platform.Details
	actor   actor
	changes <-chan struct{} // the app's events; nil when the platform has none
	stop    func()
	// once marks an action that must not simply be repeated when its
	// effect did not show (a toggle, typing): it may yet take effect.
	once bool
	// visual is set for a window of a visual session's tree (node nil):
	// it is aimed at by geometry (visual_act.go).
	visual *visualTarget
	// before is the app just before the action, for its effects;
	// beforeTree its tree, when the action is observed.
	before     scene
	beforeTree *Tree
	// reply is the pending reply of an action the toolkit had not
	// answered in time (late): finish reads its effects instead.
	reply       <-chan error
	late        bool
	lateAfter   time.Duration
	cancelReply func()
	// submits marks typing that went on past a line break (an Enter)
	// after the text before it was read back: what the element holds
	// after it is reported, not failed.
	submits bool
	// keysTo is the descendant that has the element's keys, when the
	// element has them through it (focusin.go).
	keysTo string
}

// windowRef names the window that keys or pointer input without an
// element went to, with its role as the app's top levels had it before.
func (t *actTarget) windowRef(w platform.Window) *WindowRef {
	r := windowRef(w, t.before.tops)
	return &r
}

// done ends the target's event watch and stops waiting for a late reply.
func (t *actTarget) done() {
	if t.stop != nil {
		t.stop()
	}
	if t.cancelReply != nil {
		t.cancelReply()
	}
}

// key is the element's key, "" for the app as a whole.
func (t *actTarget) key() string {
	if t.node == nil {
		return ""
	}
	return t.node.Key
}

// prepare checks the interact gate, the session's identity, the ref and
// that the element is enabled, and reads its live state.
func (m *Sessions) prepare(ctx context.Context, sessionID, ref string) (*actTarget, error) {
	return m.prepareFor(ctx, security.Interact, "acting on an element", sessionID, ref)
}

// prepareFor is prepare with the capability the action needs.
func (m *Sessions) prepareFor(ctx context.Context, need security.Caps, what, sessionID, ref string) (*actTarget, error) {
	if err := m.require(need, what); err != nil {
		return nil, err
	}
	s, a, err := m.actingSession(ctx, sessionID, need)
	if err != nil {
		return nil, err
	}
	if s.Mode == ModeVisual {
		return nil, semanticInVisual(s)
	}
	n, id, t, err := s.Resolve(ref)
	if err != nil {
		return nil, err
	}
	det, err := m.Element(ctx, s, n.Key)
	if err != nil {
		return nil, err
	}
	if m.keepsDetached(s) && m.detached(ctx, s, n.Key) {
		return nil, Errorf(CodeElementGone, "%s (%s %q) is no longer in the application's tree (its window closed), though the toolkit still answers for it; nothing was done: re-read the tree with get_a11y_tree or find_elements and use the new refs",
			t.RefString(id), det.Node.Role, Quote(det.Node.Name))
	}
	st := det.Node.States
	if !st.Has(platform.StateSensitive) && !st.Has(platform.StateEnabled) {
		return nil, Errorf(CodeDisabled, "%s (%s %q) is disabled (neither sensitive nor enabled); nothing was done", t.RefString(id), det.Node.Role, Quote(det.Node.Name))
	}
	// Listen before acting, so that the change the action causes is seen.
	changes, stop := m.Watch(ctx, s)
	return &actTarget{s: s, ref: t.RefString(id), node: n, det: det, actor: a, changes: changes, stop: stop,
		before: m.look(ctx, s), beforeTree: m.observeBefore(ctx, s)}, nil
}

func summarize(d *platform.Details) *Summary {
	s := &Summary{States: d.Node.States.Names(), Name: d.Node.Name}
	if d.Value != nil {
		v := d.Value.Current
		s.Value = &v
	}
	if d.Text != nil && !d.Node.Secret() {
		t := d.Text.Text
		s.Text = &t
	}
	return s
}

// await re-reads the element on every event of the app, and at least every
// pollGap, until want holds or changeTime passes: for steps inside an
// action (did the focus take?), where the settled state is not needed yet.
// While the element's text keeps changing (a busy app still taking the
// keys typed into it) the wait goes on, changeTime after the last change,
// up to awaitCap in all.
func (m *Sessions) await(ctx context.Context, t *actTarget, want func(*platform.Details) bool) *platform.Details {
	began := time.Now()
	deadline := began.Add(changeTime)
	var last *platform.Details
	for {
		if d, err := m.desk.Accessibility.Element(ctx, t.s.App, t.node.Key); err == nil {
			if last != nil && textOf(last) != textOf(d) {
				deadline = time.Now().Add(changeTime)
				if c := began.Add(awaitCap); deadline.After(c) {
					deadline = c
				}
			}
			last = d
			if want(d) {
				return d
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return last
		}
		select {
		case <-t.changes:
		case <-time.After(pollGap):
		case <-ctx.Done():
		}
	}
}

// changeTime bounds await (a variable for the unit tests' sake, as
// settleCap), and awaitCap the wait on an element that keeps changing.
var (
	changeTime = 2 * time.Second
	awaitCap   = 8 * time.Second
)

// textOf is the element's text as read, "" when it has none.
func textOf(d *platform.Details) string {
	if d == nil || d.Text == nil {
		return ""
	}
	return d.Text.Text
}

// finish waits for the app to settle after the action, reads the element
// back and builds the result. want is the effect the action claims (nil:
// none that can be read); when it does not show on the settled element,
// the action failed: noEffect, saying what the element holds.
func (m *Sessions) finish(ctx context.Context, t *actTarget, method, detail string, want func(*platform.Details) bool, claim string) (*ActResult, error) {
	after, held := m.settle(ctx, t.s, t.key(), t.changes, want)
	eff := m.effects(ctx, t.s, t.before, t.key())
	r := &ActResult{Element: t.ref, Method: method, Detail: detail, Verified: want == nil || held, Effects: eff}
	if t.det != nil {
		r.Before = summarize(t.det)
	}
	if after != nil {
		r.After = summarize(after)
	}
	m.observed(ctx, t.s, t.beforeTree, r)
	if t.late {
		return m.finishLate(t, r, after, want != nil && held, claim)
	}
	if want != nil && !held {
		retexted := textChanged(t.det, after)
		if !t.submits && !changedBeyond(eff, t.key()) && !retexted {
			return nil, m.noEffect(t, claim, after)
		}
		if t.submits {
			// Typed past an Enter that was checked up to: delivered, and
			// what followed is the caller's to describe.
			return r, nil
		}
		// Delivered, and the app changed, but not as asked: say so,
		// with what it holds; never a failure the agent would retry.
		if retexted {
			r.Note = fmt.Sprintf("%s was delivered and the element's text changed, but not to what was asked: it holds %s", claim, describe(after))
		} else {
			r.Note = notAsAsked(claim, after)
		}
	}
	return r, nil
}

// textChanged reports that an element's own text differs after an action
// from before it: the input reached it, whatever the app made of it (a
// field that takes only digits, a held Shift, an autocorrection). A
// password field's text is never compared.
func textChanged(before, after *platform.Details) bool {
	if before == nil || after == nil || before.Text == nil || after.Text == nil || before.Node.Secret() || after.Node.Secret() {
		return false
	}
	return before.Text.Text != after.Text.Text || before.Text.Length != after.Text.Length
}

// changedBeyond reports effects that show the app reacted: a window opened
// or closed, the element gone, the focus on another element. The focus on
// the element itself is not: acting on it may have put it there.
func changedBeyond(e Effects, key string) bool {
	if len(e.WindowsOpened) > 0 || len(e.WindowsClosed) > 0 || e.Gone {
		return true
	}
	return e.Focus != nil && e.Focus.key != key
}

// notAsAsked is the note of an action delivered whose claimed effect did
// not show while others did.
func notAsAsked(claim string, now *platform.Details) string {
	holds := "it could not be read back"
	if now != nil && !now.Node.Secret() {
		holds = "it holds " + describe(now)
	} else if now != nil {
		holds = "it is a password field, whose text is never read"
	}
	return fmt.Sprintf("%s was delivered but is not what the element shows (%s); the application reacted otherwise: see effects", claim, holds)
}

// finishLate answers an action whose reply had not come when it was
// waited for (Qt answers a menu item's action only when the modal dialog
// its slot runs has closed): by its effects. A reply that came meanwhile
// settles it as usual; otherwise the effect read back (held), or any
// change, makes it delivered but unverified, and no change at all is
// effectUnknown, never a retryable timeout: the action may have run.
func (m *Sessions) finishLate(t *actTarget, r *ActResult, after *platform.Details, held bool, claim string) (*ActResult, error) {
	select {
	case err := <-t.reply:
		if err == nil || errors.Is(err, platform.ErrNoEffect) && r.Effects.any() {
			return r, nil
		}
		if !errors.Is(err, platform.ErrTimeout) {
			return nil, mapActErr(err)
		}
	default:
	}
	waited := t.lateAfter.Milliseconds()
	switch {
	case held:
		r.Verified = true
		r.Note = fmt.Sprintf("the application had not answered the action after %d ms, but its effect was read back", waited)
	case changedBeyond(r.Effects, t.key()):
		r.Verified = false
		r.Note = fmt.Sprintf("the application had not answered the action after %d ms (Qt answers only once a modal dialog it opened has closed): it ran, and what it caused is in effects", waited)
	default:
		what := "the action"
		if claim != "" {
			what = claim
		}
		return nil, &Error{Code: CodeEffectUnknown, Disposition: DispositionTerminal, Msg: fmt.Sprintf(
			"%s: %s was sent, but the application had not answered after %d ms and shows no change (no window opened or closed, the focus did not move): it may still be running it, or have ignored it. Do not simply repeat it: read the UI again (get_a11y_tree, find_elements, get_events) to see whether it ran", t.ref, what, waited)}
	}
	return r, nil
}

// noEffect is the failure of an action whose claimed effect did not show:
// what was asked, and what the element holds now (never the text of a
// redacted field, which cannot be read and so cannot be verified).
func (m *Sessions) noEffect(t *actTarget, claim string, now *platform.Details) *Error {
	var holds string
	switch {
	case now == nil:
		holds = "it could not be read back"
	case now.Node.Secret():
		holds = "it is a password field, whose text is never read, so the change cannot be verified: do not assume it holds the text"
	default:
		holds = "it holds " + describe(now)
	}
	e := Errorf(CodeNoEffect, "%s: %s did not take effect; %s", t.ref, claim, holds)
	if !t.once {
		e.Retryable, e.Disposition = true, DispositionTransient
	}
	return e
}

// describe says in a few words what an element shows: its text, value or
// states, quoted short.
func describe(d *platform.Details) string {
	var parts []string
	if d.Text != nil && !d.Node.Secret() {
		parts = append(parts, "the text "+Quote(d.Text.Text))
	}
	if d.Value != nil {
		parts = append(parts, "the value "+strconv.FormatFloat(d.Value.Current, 'g', -1, 64))
	}
	parts = append(parts, "states ["+strings.Join(d.Node.States.Names(), " ")+"]")
	return strings.Join(parts, ", ")
}

// mapActErr turns platform errors of acting into agent-facing ones.
func mapActErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, platform.ErrNotActivated):
		return &Error{Code: CodeNotActivated, Retryable: true, Disposition: DispositionTransient, Err: err,
			Msg: "the target window could not be brought to the front, so no input was sent (another window may hold focus): " + err.Error()}
	case errors.Is(err, platform.ErrNoWindowManager):
		return &Error{Code: CodeNoWindowManager, Disposition: DispositionTerminal, Err: err, Msg: err.Error() + "; window actions need one"}
	case errors.Is(err, platform.ErrOffscreen):
		return &Error{Code: CodeOffscreen, Disposition: DispositionTerminal, Err: err, Msg: err.Error() + "; scroll the element into view first"}
	}
	return AsError(err)
}

// Waits for an action's reply. DefaultReplyWait is how long the toolkit
// is given to answer an element's action by default (the timeoutMs of
// click and invoke), MaxReplyWait the most an agent may ask for.
const (
	DefaultReplyWait = 3 * time.Second
	MaxReplyWait     = 15 * time.Second
)

// ReplyWait checks a timeoutMs argument of click or invoke: how long to
// wait for the toolkit's answer to the action (nil: DefaultReplyWait).
func ReplyWait(ms *int) (time.Duration, error) {
	if ms == nil {
		return DefaultReplyWait, nil
	}
	if *ms <= 0 || time.Duration(*ms)*time.Millisecond > MaxReplyWait {
		return 0, Errorf(CodeInvalidArgument, "timeoutMs must be between 1 and %d, not %d", MaxReplyWait.Milliseconds(), *ms)
	}
	return time.Duration(*ms) * time.Millisecond, nil
}

// replyPoll paces the look for a window opened while an action's reply is
// pending.
var replyPoll = 100 * time.Millisecond

// doAction runs the element's action named by the first of names it has
// and waits for the toolkit's reply, up to wait (DefaultReplyWait when 0).
// A reply that does not come in time is no failure: the action was sent
// and may be running (Qt answers a menu item's action only when the modal
// dialog its slot runs has closed), so the target is marked late and
// finish answers by its effects. A window of the app that opens while the
// reply is pending ends the wait early (after quietTime more for the
// reply): that is the modal dialog.
func (m *Sessions) doAction(ctx context.Context, t *actTarget, wait time.Duration, names ...string) (string, error) {
	st, ok := t.actor.Actions.(platform.ActionStarter)
	if !ok {
		return t.actor.DoAction(ctx, t.s.App, t.node.Key, names...)
	}
	if wait <= 0 {
		wait = DefaultReplyWait
	}
	start := time.Now()
	rctx, cancel := context.WithTimeout(ctx, wait)
	used, reply, err := st.StartAction(rctx, t.s.App, t.node.Key, names...)
	if err != nil {
		cancel()
		return used, err
	}
	if t.cancelReply != nil {
		t.cancelReply()
	}
	t.reply, t.cancelReply = reply, cancel
	late := func() (string, error) {
		t.late, t.lateAfter = true, time.Since(start)
		return used, nil
	}
	poll := time.NewTicker(replyPoll)
	defer poll.Stop()
	var opened *time.Timer
	var openedC <-chan time.Time
	for {
		select {
		case err := <-reply:
			if opened != nil {
				opened.Stop()
			}
			if errors.Is(err, platform.ErrTimeout) {
				return late()
			}
			t.reply = nil
			return used, err
		case <-poll.C:
			if opened == nil && m.windowOpened(ctx, t) {
				opened = time.NewTimer(quietTime)
				openedC = opened.C
			}
		case <-openedC:
			return late()
		}
	}
}

// windowOpened reports a window of the app mapped since the action began.
func (m *Sessions) windowOpened(ctx context.Context, t *actTarget) bool {
	if !t.before.winsRead {
		return false
	}
	var wins []platform.Window
	var err error
	if wl, ok := m.desk.Windows.(platform.WindowLister); ok {
		wins, err = wl.AppWindows(ctx, t.s.App.Pid)
	} else {
		wins, err = m.appWindows(ctx, t.s)
	}
	if err != nil {
		return false
	}
	for _, w := range mapped(wins) {
		if !hasWindow(t.before.wins, w.ID) {
			return true
		}
	}
	return false
}

// pointerInput aims and sends pointer input of s under the input lock, so
// that no other input moves or raises a window between the check of the
// point (aim) and the input (send).
func (m *Sessions) pointerInput(ctx context.Context, s *Session, aim func() (int, int, error), send func(x, y int) error) (int, int, error) {
	unlock, err := m.lockInputFor(ctx, s)
	if err != nil {
		return 0, 0, err
	}
	defer unlock()
	if err := m.pointerAllowed("the pointer"); err != nil {
		return 0, 0, err
	}
	x, y, err := aim()
	if err != nil {
		return 0, 0, err
	}
	if err := send(x, y); err != nil {
		return 0, 0, mapActErr(err)
	}
	return x, y, nil
}

// pointAt finds the element's centre, brings its window to the front and
// checks that the window is what lies on top at that point. The caller
// holds the input lock.
func (m *Sessions) pointAt(ctx context.Context, t *actTarget) (int, int, error) {
	b := t.det.Node.Bounds
	if b == nil && t.det.Node.BoundsUnknown {
		return 0, 0, AsError(fmt.Errorf("%s: %w", t.ref, platform.ErrWindowUnknown))
	}
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
		if top == 0 {
			return 0, 0, Errorf(CodeOffscreen, "the point %d,%d of %s lies on no window (the desktop is there), outside its window %s at %d,%d %dx%d; nothing was clicked: read the tree again",
				x, y, t.ref, win.ID, win.Bounds.X, win.Bounds.Y, win.Bounds.Width, win.Bounds.Height)
		}
		return 0, 0, Errorf(CodeCovered, "the point %d,%d of %s is covered by another window (%s); nothing was clicked", x, y, t.ref, top)
	}
	return x, y, nil
}

// activate brings the element's window to the front, verified. The caller
// holds the input lock.
func (m *Sessions) activate(ctx context.Context, t *actTarget) (platform.Window, error) {
	win, err := t.actor.Window(ctx, t.s.App, t.node.Key)
	if err != nil {
		return win, mapActErr(err)
	}
	if err := m.activateFor(ctx, t.s, t.actor, win); err != nil {
		return win, err
	}
	return win, nil
}
