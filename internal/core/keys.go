package core

import (
	"fmt"
	"strings"

	"github.com/uiscope/uiscope/internal/platform"
)

// The desktop-chord rule. An agent driving one application must not reach
// the rest of the desktop through it: chords the window manager or the
// desktop acts on (locking the screen, switching windows or workspaces,
// opening a terminal or a run dialog, switching to a text console,
// killing the X server) are refused unless the server was started with
// --allow-desktop-keys. The rule is checked on the keys as the platform
// will press them (platform.ParseChord, the parser the X11 backend
// presses with: "Meta", "Win" and "Super" are all Super_L), with every
// key held by key_down added, on every path that sends keys: press_key,
// type_text, set_value's typing, select's keys and key_down itself.

// desktopChord reports whether pressing key (a keysym) while mods are down
// is a chord the window manager or the desktop acts on. A modifier's own
// key counts as down with it.
func desktopChord(mods platform.Modifiers, key uint32) bool {
	mods |= platform.KeysymModifier(key)
	name := strings.ToLower(platform.Chord{Key: key}.String())
	ctrl, alt := mods&platform.ModCtrl != 0, mods&platform.ModAlt != 0
	switch {
	case mods&platform.ModSuper != 0:
		// Every Super chord is the desktop's (launchers, tiling, Super+L),
		// and Super alone opens the overview or menu in many desktops.
		return true
	case ctrl && alt:
		// Ctrl+Alt+F1..F12 switch consoles, Ctrl+Alt+BackSpace kills the
		// X server, Ctrl+Alt+Delete logs out, Ctrl+Alt+T opens a terminal,
		// Ctrl+Alt+L locks, Ctrl+Alt+arrows switch workspaces (openbox).
		switch name {
		case "backspace", "delete", "t", "l", "tab", "left", "right", "up", "down":
			return true
		}
		return isFunctionKey(name)
	case alt:
		// Alt+Tab and Alt+Escape switch windows; Alt+F1 and Alt+F2 open
		// the desktop's menu and run dialog. Alt+F4 closes the app's own
		// window and stays allowed.
		switch name {
		case "tab", "escape", "f1", "f2":
			return true
		}
	}
	return false
}

// isFunctionKey reports whether key is F1..F12 (lower case).
func isFunctionKey(key string) bool {
	if len(key) < 2 || key[0] != 'f' {
		return false
	}
	n := 0
	for _, c := range key[1:] {
		if c < '0' || c > '9' {
			return false
		}
		n = n*10 + int(c-'0')
	}
	return n >= 1 && n <= 12
}

// keyPress is one key of a sequence as the platform presses it, and how
// a refusal names where it came from.
type keyPress struct {
	platform.Chord
	from string // "Tab", "character 3 of the text"
}

// chordPresses are chords as the platform will press them; a chord it
// cannot parse is refused here as it would be there.
func chordPresses(chords ...string) ([]keyPress, error) {
	out := make([]keyPress, 0, len(chords))
	for _, c := range chords {
		ch, err := platform.ParseChord(c)
		if err != nil {
			return nil, Errorf(CodeInvalidArgument, "%v", err)
		}
		out = append(out, keyPress{ch, Quote(c)})
	}
	return out, nil
}

// textPresses are the keys typing text presses, one a character (Shift,
// which the platform adds for shifted characters, no chord rule looks at).
// Characters that cannot be typed are left to the platform to refuse.
func textPresses(text string) []keyPress {
	var out []keyPress
	for i, r := range []rune(strings.ReplaceAll(text, "\r\n", "\n")) {
		if ks := platform.RuneKeysym(r); ks != 0 {
			out = append(out, keyPress{platform.Chord{Key: ks}, fmt.Sprintf("character %d of the text", i+1)})
		}
	}
	return out
}

// heldDown is what the keys held now (every session's: the keyboard is
// one) hold down, as the platform pressed them: the modifiers they set,
// the other keys, and their names as held lists them.
func (m *Sessions) heldDown() (mods platform.Modifiers, others []uint32, names []string) {
	m.held.mu.Lock()
	defer m.held.mu.Unlock()
	for _, h := range m.held.list {
		if h.Key == "" {
			continue
		}
		names = append(names, h.Key)
		ch, err := platform.ParseChord(h.raw)
		if err != nil { // KeyDown held only what parsed
			continue
		}
		if mod := ch.Down(); mod != 0 {
			mods |= mod
		} else {
			others = append(others, ch.Key)
		}
	}
	return mods, others, names
}

// desktopKeys refuses a key sequence that presses a chord the window
// manager or desktop acts on, with the keys held now added to each key
// (and each key's modifiers to the keys held, which repeat while down):
// invalidArgument, before anything is sent. what names the call
// ("press_key", "type_text"). Called under the input lock just before the keys,
// so no hold can come between the check and the keys; callers may also
// call it first, to refuse before aiming.
func (m *Sessions) desktopKeys(what string, presses []keyPress) error {
	paste := m.clipboardGuarded()
	if m.AllowDesktopKeys && !paste {
		return nil
	}
	held, others, names := m.heldDown()
	for _, p := range presses {
		mods := held | p.Down()
		for _, k := range append([]uint32{p.Key}, others...) {
			if paste && pasteChord(mods, k) {
				chord := platform.Chord{Mods: mods &^ platform.KeysymModifier(k), Key: k}.String()
				if len(names) > 0 {
					chord += " (with " + strings.Join(names, ", ") + " held)"
				}
				return clipboardRefusal(fmt.Sprintf("%s: %s presses %s, which", what, p.from, chord))
			}
			if m.AllowDesktopKeys || !desktopChord(mods, k) {
				continue
			}
			chord := platform.Chord{Mods: mods &^ platform.KeysymModifier(k), Key: k}.String()
			const why = "which the window manager or desktop acts on (switching windows, locking the screen, opening a terminal, changing the console), not the application; nothing was sent"
			const allow = "such keys are refused unless the server runs with --allow-desktop-keys"
			if len(names) == 0 {
				return Errorf(CodeInvalidArgument, "%s: %s presses %s, %s; %s", what, p.from, chord, why, allow)
			}
			return Errorf(CodeInvalidArgument, "%s: %s, with %s held (key_down), presses %s, %s. Release the held keys with key_up first; %s", what, p.from, strings.Join(names, ", "), chord, why, allow)
		}
	}
	return nil
}

// chordsAllowed is desktopKeys for chords pressed one after the other.
func (m *Sessions) chordsAllowed(what string, chords ...string) error {
	presses, err := chordPresses(chords...)
	if err != nil {
		return err
	}
	return m.desktopKeys(what, presses)
}

// textAllowed is desktopKeys for typing text.
func (m *Sessions) textAllowed(what, text string) error {
	return m.desktopKeys(what, textPresses(text))
}

// settingAllowed is desktopKeys for set_value's typing: Ctrl+A, then the
// value's characters, or BackSpace for an empty value.
func (m *Sessions) settingAllowed(value string) error {
	keys := []string{"Ctrl+a"}
	if value == "" {
		keys = append(keys, "BackSpace")
	}
	presses, err := chordPresses(keys...)
	if err != nil {
		return err
	}
	return m.desktopKeys("set_value (typing)", append(presses, textPresses(value)...))
}

// pointerAllowed refuses pointer input while Alt or Super is held
// (key_down): window managers bind the pointer with them (openbox:
// Alt+wheel switches workspaces, Alt+drag moves the window, Alt+middle
// button lowers it; GNOME: Super+drag). Shift and Ctrl held are the app's
// (a range or a multiple selection). The caller holds the input lock.
func (m *Sessions) pointerAllowed(what string) error {
	if m.AllowDesktopKeys {
		return nil
	}
	held, _, names := m.heldDown()
	wm := held & (platform.ModAlt | platform.ModSuper)
	if wm == 0 {
		return nil
	}
	return Errorf(CodeInvalidArgument, "%s with %s held (key_down): the window manager acts on the pointer with %s (openbox: Alt+wheel switches workspaces, Alt+drag moves the window, Alt+middle button lowers it), not the application; nothing was sent. Release it with key_up first; such input is refused unless the server runs with --allow-desktop-keys", what, strings.Join(names, ", "), wm)
}
