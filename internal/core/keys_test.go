package core

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/uiscope/uiscope/internal/platform"
)

// isDesktop is the rule on a chord as the platform parses it.
func isDesktop(t *testing.T, keys string) bool {
	t.Helper()
	ch, err := platform.ParseChord(keys)
	if err != nil {
		t.Fatalf("ParseChord(%q): %v", keys, err)
	}
	return desktopChord(ch.Mods, ch.Key)
}

func TestDesktopChord(t *testing.T) {
	desktop := []string{
		"Super+L", "super+l", "Win+e", "Meta+Tab", "Super+Shift+Left", "Super_L", "super_r",
		"Super", "Win", "Meta", "META", "Ctrl+Super", "Shift+Win", "Alt+Meta", "Meta+Shift",
		"Alt+Tab", "alt+shift+tab", "Alt+Escape", "Alt+Esc", "Alt+F1", "Alt+F2",
		"Ctrl+Alt+T", "control+alt+t", "Ctrl+Alt+L", "Ctrl+Alt+Delete", "Ctrl+Alt+Del",
		"Ctrl+Alt+BackSpace", "Ctrl+Alt+F1", "Ctrl+Alt+F12", "Ctrl+Shift+Alt+F7", "Ctrl+Alt+Left", "Ctrl+Alt+Tab",
		"Ctrl+Alt+Down", "Ctrl+Alt+Up", "Ctrl+Alt+Right",
	}
	for _, k := range desktop {
		if !isDesktop(t, k) {
			t.Errorf("%s: not refused, but the desktop acts on it", k)
		}
	}
	app := []string{
		"Enter", "Return", "Tab", "Shift+Tab", "Ctrl+Tab", "Ctrl+S", "Ctrl+Shift+S", "Alt+F4", "Alt+F", "Alt+F13",
		"F1", "F11", "Ctrl+F2", "Escape", "Ctrl+Alt+A", "Ctrl+Alt+F13", "BackSpace", "Delete",
		"Ctrl+BackSpace", "Shift+Delete", "l", "t", "Ctrl+L", "Alt", "Ctrl", "Shift", "Ctrl+Alt", "Alt_R", "Control_R",
	}
	for _, k := range app {
		if isDesktop(t, k) {
			t.Errorf("%s: refused as a desktop chord, but it is the application's", k)
		}
	}
}

// TestHoldNames: a modifier is held and listed by the name of the key the
// platform presses for it: Meta and Win press Super_L, so they are Super
// (they were Alt for Meta, while Super_L went down).
func TestHoldNames(t *testing.T) {
	for key, want := range map[string]string{
		"Meta": "Super", "meta": "Super", "Win": "Super", "Super_R": "Super", "super": "Super",
		"Alt": "Alt", "alt_r": "Alt", "Ctrl": "Ctrl", "Control_R": "Ctrl", "shift": "Shift", "Shift_L": "Shift",
		"a": "a", "Tab": "Tab",
	} {
		if got := holdName(key); got != want {
			t.Errorf("holdName(%q) = %q, want %q", key, got, want)
		}
	}
}

// TestDesktopKeysAllowed: with --allow-desktop-keys the same keys go
// through, held or in the chord.
func TestDesktopKeysAllowed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newSafetyDesk()
		m, s, tr := connectEditor(t, d)
		m.AllowDesktopKeys = true
		ctx := context.Background()
		for _, k := range []string{"Super", "Meta+d", "Alt+Tab", "Ctrl+Alt+t"} {
			if _, err := m.PressKey(ctx, s.ID, "", k); err != nil {
				t.Errorf("press_key %s with desktop keys allowed: %v", k, err)
			}
		}
		if _, err := m.KeyDown(ctx, s.ID, "Alt"); err != nil {
			t.Fatal(err)
		}
		if _, err := m.TypeText(ctx, s.ID, refOf(t, tr, "Body"), "\t"); err != nil && AsError(err).Code == CodeInvalidArgument {
			t.Errorf("type_text Tab with Alt held and desktop keys allowed: %v", err)
		}
	})
}
