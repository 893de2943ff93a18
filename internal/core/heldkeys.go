package core

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/security"
)

// Held keys: key_down and key_up, a key (a modifier, mostly) held across
// calls, with the rules of held buttons (held.go): it belongs to the
// session and to the window that had the focus when it went down, and is
// released on the same occasions.

// holdName is the name a key is held and listed by: its modifier's, by
// the key the platform presses for it ("Meta" and "Win" press Super_L, so
// Super; "Control_R" Ctrl), or the key as given.
func holdName(key string) string {
	if ch, err := platform.ParseChord(key); err == nil && ch.Mods == 0 {
		if mod := platform.KeysymModifier(ch.Key); mod != 0 {
			return mod.String()
		}
	}
	return key
}

func (m *Sessions) keyHolder() (actor, platform.KeyHolder, error) {
	a, err := m.actor()
	if err != nil {
		return actor{}, nil, err
	}
	kh, ok := a.Input.(platform.KeyHolder)
	if !ok {
		return actor{}, nil, Errorf(CodeNotSupported, "this platform cannot hold a key down")
	}
	return a, kh, nil
}

// KeyDown presses one key in the app's window that has the focus (as
// press_key without an element) and keeps it down.
func (m *Sessions) KeyDown(ctx context.Context, sessionID, key string) (*HeldResult, error) {
	if err := m.require(security.Keyboard, "holding a key"); err != nil {
		return nil, err
	}
	key = strings.TrimSpace(key)
	if key == "" {
		return nil, Errorf(CodeInvalidArgument, "key is empty; give one key, like Shift, Ctrl or a")
	}
	a, kh, err := m.keyHolder()
	if err != nil {
		return nil, err
	}
	if err := a.ValidateChord(key); err != nil {
		return nil, AsError(err)
	}
	if key != "+" && strings.Contains(key, "+") {
		return nil, Errorf(CodeInvalidArgument, "%s is a chord; key_down holds one key: hold each with its own call", Quote(key))
	}
	presses, err := chordPresses(key)
	if err != nil {
		return nil, err
	}
	if err := m.desktopKeys("key_down", presses); err != nil {
		return nil, err
	}
	name := holdName(key)
	t, err := m.keyboardTarget(ctx, sessionID, "")
	if err != nil {
		return nil, err
	}
	defer t.done()
	var win platform.Window
	err = m.withKeyboard(ctx, t, func(w platform.Window) error {
		win = w
		// Checked under the input lock, so two calls cannot both pass.
		if err := m.keyPressable(t.s.ID, name); err != nil {
			return err
		}
		if err := m.desktopKeys("key_down", presses); err != nil {
			return err
		}
		if err := kh.KeyDown(ctx, key); err != nil {
			_ = sendKeyUp(kh, key) // it may have gone down before the failure
			return mapActErr(err)
		}
		m.addHold(&hold{session: t.s.ID, client: t.s.Client, win: w.ID, raw: key, Hold: Hold{Key: name, Window: w.ID.String()}})
		return nil
	})
	if err != nil {
		return nil, err
	}
	m.watchHolds()
	m.settle(ctx, t.s, "", t.changes, nil)
	return &HeldResult{Method: MethodKeyboard, Detail: fmt.Sprintf("%s pressed in window %s and held", name, win.ID),
		Verified: true, Effects: m.effects(ctx, t.s, t.before, ""), Window: t.windowRef(win), Held: m.heldOf(t.s.ID),
		Note: "release it with key_up; it is released automatically if the window loses the focus or the session ends"}, nil
}

// keyPressable refuses a key some session holds already.
func (m *Sessions) keyPressable(session, name string) error {
	m.held.mu.Lock()
	defer m.held.mu.Unlock()
	for _, h := range m.held.list {
		if h.Key != name {
			continue
		}
		if h.session == session {
			return Errorf(CodeHoldConflict, "%s is already held by this session (pressed in window %s); pressing it again is refused: key_up it first", name, h.Window)
		}
		return Errorf(CodeHoldConflict, "%s is held by another session; nothing was pressed", name)
	}
	return nil
}

// KeyUp releases a key the session holds.
func (m *Sessions) KeyUp(ctx context.Context, sessionID, key string) (*HeldResult, error) {
	if err := m.require(security.Keyboard, "releasing a held key"); err != nil {
		return nil, err
	}
	s, err := m.Get(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	_, kh, err := m.keyHolder()
	if err != nil {
		return nil, err
	}
	unlock, err := lockInput(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	name := holdName(strings.TrimSpace(key))
	var raw string
	var keys []string
	m.held.mu.Lock()
	for _, h := range m.held.list {
		if h.session == s.ID && h.Key != "" {
			keys = append(keys, h.Key)
			if h.Key == name {
				raw = h.raw
			}
		}
	}
	m.held.mu.Unlock()
	if raw == "" {
		if len(keys) == 0 {
			return nil, Errorf(CodeHoldConflict, "this session holds no key, so %s was not released%s", Quote(key), m.endedNote(s.ID))
		}
		return nil, Errorf(CodeHoldConflict, "%s is not held by this session (it holds %s); nothing was released", Quote(key), strings.Join(keys, ", "))
	}
	obs := m.observe(ctx, s)
	defer obs.stop()
	if err := sendKeyUp(kh, raw); err != nil {
		return nil, mapActErr(err)
	}
	m.held.mu.Lock()
	m.held.list = slices.DeleteFunc(m.held.list, func(h *hold) bool { return h.session == s.ID && h.Key == name })
	m.held.mu.Unlock()
	return &HeldResult{Method: MethodKeyboard, Detail: name + " released", Verified: true, Effects: obs.effects(ctx), Held: m.heldOf(s.ID)}, nil
}

// sendKeyUp releases a key on a context of its own (see sendUp).
func sendKeyUp(kh platform.KeyHolder, key string) error {
	ctx, cancel := context.WithTimeout(context.Background(), releaseTime)
	defer cancel()
	return kh.KeyUp(ctx, key)
}
