package core

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
)

// Holds and every other input (docs/api.md, "Held input"). A hold is the
// desktop's, not its window's: while a button is down the X server sends
// all pointer input to the window it was pressed in (the implicit grab),
// and a held modifier changes every key and click after it, whichever
// window takes them. So before any input sequence, under the input lock,
// a hold that would bend it refuses it (holdConflict), and nothing is
// activated, moved or sent:
//
//   - a hold of another session, always: the other session must release
//     it (or its window lose the focus, its client leave, a sessionless
//     client go silent), and the call may then be tried again. Refusing,
//     not releasing, because the other session's drag or range selection
//     is half done and only it knows how to end it;
//   - a hold of the calling session in another window than the one its
//     input goes to (checked as that window is chosen, before it is
//     activated): its own Shift would capitalize text typed elsewhere;
//   - anything the X server reports down that no session holds
//     (platform.HeldReader): the user's key, another program's, or a hold
//     a killed server left. The server may still be processing the
//     releases a previous sequence sent, so the state is read again for
//     up to heldSettle before the call is refused.
//
// Releasing what one holds (release, key_up) is never refused.

// heldSettle bounds how long a stray hold the X server reports is waited
// for to clear (a variable for the unit tests). The releases of the
// previous sequence are seen within milliseconds on an idle machine; this
// is the margin for a loaded one, where a false refusal would cost a
// retry. A hold that is really there costs this wait once per refusal.
var heldSettle = 2 * time.Second

// Holders, as a holdConflict refusal lists them (Hold.Holder).
const (
	holderSelf    = "this session"
	holderOther   = "another session"
	holderUnknown = "unknown" // the display server reports it; no session of this server holds it
)

// lockInputFor takes the input lock for a sequence of s's input, once no
// hold of another session or of nobody would bend it.
func (m *Sessions) lockInputFor(ctx context.Context, s *Session) (func(), error) {
	unlock, err := lockInput(ctx)
	if err != nil {
		return nil, err
	}
	if err := m.holdsClear(ctx, s); err != nil {
		unlock()
		return nil, err
	}
	return unlock, nil
}

// holdsClear refuses input of s while another session holds anything, or
// the display server reports down what s does not hold. The caller holds
// the input lock, so no hold is added meanwhile.
func (m *Sessions) holdsClear(ctx context.Context, s *Session) error {
	m.held.mu.Lock()
	var others []Hold
	var theirs []*hold
	var mine []int
	for _, h := range m.held.list {
		switch {
		case h.session != s.ID:
			o := h.Hold
			o.Holder, o.At = holderOther, nil
			others, theirs = append(others, o), append(theirs, h)
		case h.Button != 0:
			mine = append(mine, h.Button)
		}
	}
	m.held.mu.Unlock()
	if len(others) > 0 {
		e := Errorf(CodeHoldConflict, "another session holds %s: a held button sends all pointer input to its window and a held key changes every key and click after it, so this call's input would go astray; nothing was sent: try again once that session releases it (it is also released when its window loses the focus, its session ends, or its client leaves%s)",
			holdList(others), m.expiryNote(theirs))
		e.Retryable, e.Disposition, e.Holds = true, DispositionTransient, others
		return e
	}
	hr, ok := m.desk.Input.(platform.HeldReader)
	if !ok {
		return nil
	}
	deadline := time.Now().Add(heldSettle)
	for {
		st, err := hr.HeldDown(ctx)
		if err != nil {
			return mapActErr(err)
		}
		stray := strays(st, mine)
		if len(stray) == 0 {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			e := Errorf(CodeHoldConflict, "the X server reports %s down, which no session of this server holds (the user's, another program's, or left by a uiscope that was killed); it would bend this call's input, so nothing was sent: try again once it is released", holdList(stray))
			e.Retryable, e.Disposition, e.Holds = true, DispositionTransient, stray
			return e
		}
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// strays are what the display server has down beyond the buttons mine.
func strays(st platform.HeldState, mine []int) []Hold {
	var out []Hold
	for _, b := range st.Buttons {
		if !slices.Contains(mine, b) {
			out = append(out, Hold{Button: b, Holder: holderUnknown})
		}
	}
	for _, k := range st.Modifiers {
		out = append(out, Hold{Key: k, Holder: holderUnknown})
	}
	return out
}

// holdsIn refuses input of the session to window win while it holds
// something in another window. Called as win is chosen, before it is
// activated: activating it would take the focus from the hold's window.
func (m *Sessions) holdsIn(session string, win platform.WindowID) error {
	m.held.mu.Lock()
	var elsewhere []Hold
	for _, h := range m.held.list {
		if h.session == session && h.win != win {
			o := h.Hold
			o.Holder = holderSelf
			elsewhere = append(elsewhere, o)
		}
	}
	m.held.mu.Unlock()
	if len(elsewhere) == 0 {
		return nil
	}
	return &Error{Code: CodeHoldConflict, Disposition: DispositionTerminal, Holds: elsewhere, Msg: fmt.Sprintf(
		"this session holds %s, and this call's input goes to window %s: the hold would apply there too; nothing was sent: release it first (release, key_up), or act in the window it was pressed in",
		holdList(elsewhere), win)}
}

// activateFor brings win to the front for input of s, once s holds
// nothing in another window.
func (m *Sessions) activateFor(ctx context.Context, s *Session, a actor, win platform.Window) error {
	if err := m.holdsIn(s.ID, win.ID); err != nil {
		return err
	}
	return mapActErr(a.Activate(ctx, win))
}

// holdList names holds for a message: "button 1 (in window 0x400001), Shift".
func holdList(hs []Hold) string {
	var b []string
	for _, h := range hs {
		n := h.Key
		if h.Button != 0 {
			n = fmt.Sprintf("button %d", h.Button)
		}
		if h.Window != "" {
			n += " (in window " + h.Window + ")"
		}
		b = append(b, n)
	}
	return strings.Join(b, ", ")
}
