package core

import "testing"

func TestDesktopChord(t *testing.T) {
	desktop := []string{
		"Super+L", "super+l", "Win+e", "Meta+Tab", "Super+Shift+Left", "Super_L", "super_r",
		"Alt+Tab", "alt+shift+tab", "Alt+Escape", "Alt+F1", "Alt+F2",
		"Ctrl+Alt+T", "control+alt+t", "Ctrl+Alt+L", "Ctrl+Alt+Delete", "Ctrl+Alt+Del",
		"Ctrl+Alt+BackSpace", "Ctrl+Alt+F1", "Ctrl+Alt+F12", "Ctrl+Shift+Alt+F7", "Ctrl+Alt+Left", "Ctrl+Alt+Tab",
	}
	for _, k := range desktop {
		if !desktopChord(k) {
			t.Errorf("%s: not refused, but the desktop acts on it", k)
		}
	}
	app := []string{
		"Enter", "Return", "Tab", "Shift+Tab", "Ctrl+Tab", "Ctrl+S", "Ctrl+Shift+S", "Alt+F4", "Alt+F", "Alt+F13",
		"F1", "F11", "Ctrl+F2", "Escape", "Ctrl+Alt+A", "Ctrl+Alt+F13", "Ctrl+Alt+F0", "BackSpace", "Delete",
		"Ctrl+BackSpace", "Shift+Delete", "l", "t", "Ctrl+L",
	}
	for _, k := range app {
		if desktopChord(k) {
			t.Errorf("%s: refused as a desktop chord, but it is the application's", k)
		}
	}
}
