package core

import (
	"strings"
)

// desktopChord reports whether a key chord is one the window manager or
// the desktop acts on rather than the application: locking the screen,
// switching windows or workspaces, opening a terminal or a run dialog,
// switching to a text console, killing the X server. press_key refuses
// them unless the server was started with --allow-desktop-keys: an agent
// driving one application must not reach the rest of the desktop through
// it. keys has already been validated by the platform; names are matched
// without regard to case, with the modifier names the platform accepts
// (README: press_key).
func desktopChord(keys string) bool {
	var ctrl, alt, super bool
	parts := strings.Split(keys, "+")
	key := strings.ToLower(strings.TrimSpace(parts[len(parts)-1]))
	for _, p := range parts[:len(parts)-1] {
		switch strings.ToLower(strings.TrimSpace(p)) {
		case "ctrl", "control":
			ctrl = true
		case "alt":
			alt = true
		case "super", "meta", "win":
			super = true
		}
	}
	switch {
	case super:
		// Every Super chord is the desktop's (launchers, tiling, Super+L).
		return true
	case key == "super_l" || key == "super_r":
		// Super alone opens the overview or menu in many desktops.
		return true
	case ctrl && alt:
		// Ctrl+Alt+F1..F12 switch consoles, Ctrl+Alt+BackSpace kills the
		// X server, Ctrl+Alt+Delete logs out, Ctrl+Alt+T opens a terminal,
		// Ctrl+Alt+L locks, Ctrl+Alt+arrows switch workspaces (openbox).
		switch key {
		case "backspace", "delete", "del", "t", "l", "tab", "left", "right", "up", "down":
			return true
		}
		return isFunctionKey(key)
	case alt:
		// Alt+Tab and Alt+Escape switch windows; Alt+F1 and Alt+F2 open
		// the desktop's menu and run dialog. Alt+F4 closes the app's own
		// window and stays allowed.
		switch key {
		case "tab", "escape", "esc", "f1", "f2":
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
