package platform

import (
	"slices"
	"strings"
	"testing"
)

func TestParseChord(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Chord
		str  string
	}{
		{"Enter", Chord{0, KeysymReturn}, "Return"},
		{"Return", Chord{0, KeysymReturn}, "Return"},
		{"Ctrl+S", Chord{ModCtrl, 's'}, "Ctrl+s"},
		{"Alt+F4", Chord{ModAlt, 0xffc1}, "Alt+F4"},
		{"Shift+Tab", Chord{ModShift, KeysymTab}, "Shift+Tab"},
		{"F5", Chord{0, 0xffc2}, "F5"},
		{"F24", Chord{0, 0xffd5}, "F24"},
		{"ctrl+shift+t", Chord{ModCtrl | ModShift, 't'}, "Ctrl+Shift+t"},
		{"Shift+Ctrl+T", Chord{ModCtrl | ModShift, 't'}, "Ctrl+Shift+t"},
		{"Super+L", Chord{ModSuper, 'l'}, "Super+l"},
		{"Win+e", Chord{ModSuper, 'e'}, "Super+e"},
		{"META+e", Chord{ModSuper, 'e'}, "Super+e"},
		{"Escape", Chord{0, 0xff1b}, "Escape"},
		{"esc", Chord{0, 0xff1b}, "Escape"},
		{"Page_Down", Chord{0, 0xff56}, "Page_Down"},
		{"pagedown", Chord{0, 0xff56}, "Page_Down"},
		{"Next", Chord{0, 0xff56}, "Page_Down"},
		{"PageUp", Chord{0, 0xff55}, "Page_Up"},
		{"a", Chord{0, 'a'}, "a"},
		{"A", Chord{0, 'A'}, "A"},
		{"Shift+A", Chord{ModShift, 'a'}, "Shift+a"},
		{"Ctrl+Alt+Delete", Chord{ModCtrl | ModAlt, 0xffff}, "Ctrl+Alt+Delete"},
		{"Control+Alt+Del", Chord{ModCtrl | ModAlt, 0xffff}, "Ctrl+Alt+Delete"},
		{"Left", Chord{0, 0xff51}, "Left"},
		{"space", Chord{0, ' '}, "space"},
		{"plus", Chord{0, '+'}, "plus"},
		{"Ctrl++", Chord{ModCtrl, '+'}, "Ctrl+plus"},
		{"+", Chord{0, '+'}, "plus"},
		{"Ctrl+,", Chord{ModCtrl, ','}, "Ctrl+comma"},
		{"Ctrl + S", Chord{ModCtrl, 's'}, "Ctrl+s"},
		{"1", Chord{0, '1'}, "1"},
		{"é", Chord{0, 0xe9}, "é"},
		{"Ctrl+中", Chord{ModCtrl, 0x01004e2d}, "Ctrl+中"},
		{"Super", Chord{0, KeysymSuperL}, "Super_L"},
		{"Ctrl+Shift", Chord{ModCtrl, KeysymShiftL}, "Ctrl+Shift_L"},
		{"Menu", Chord{0, 0xff67}, "Menu"},
		{"BackSpace", Chord{0, KeysymBackSpace}, "BackSpace"},
	} {
		got, err := ParseChord(tc.in)
		if err != nil {
			t.Errorf("ParseChord(%q): %v", tc.in, err)
			continue
		}
		if got != tc.want {
			t.Errorf("ParseChord(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
		if s := got.String(); s != tc.str {
			t.Errorf("ParseChord(%q).String() = %q, want %q", tc.in, s, tc.str)
		}
	}
}

func TestParseChordErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "empty key chord"},
		{"   ", "empty key chord"},
		{"Ctrl+Foo", `unknown key "Foo" in "Ctrl+Foo"; keys are named like Enter, Tab, F5, a, Page_Down`},
		{"Ctrl+", "empty part"},
		{"+Ctrl", "empty part"},
		{"Ctrl++a", "empty part"},
		{"Ctrl+Control+a", "given twice"},
		{"Shift+Shift", "given twice"},
		{"a+b", "too many keys"},
		{"Ctrl+a+b", "too many keys"},
		{"a+Ctrl", "too many keys"},
		{"Foo+a", "unknown modifier or key \"Foo\""},
		{strings.Repeat("a", 101), "at most 100"},
		{"\xff", "not valid UTF-8"},
		{"Ctrl+\x01", "not a printable character"},
	} {
		_, err := ParseChord(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseChord(%q) err = %v, want it to contain %q", tc.in, err, tc.want)
		}
	}
}

func TestRuneKeysym(t *testing.T) {
	for r, want := range map[rune]uint32{
		'a': 'a', 'A': 'A', ' ': 0x20, '~': 0x7e, 'é': 0xe9, 0xa0: 0xa0, 'ÿ': 0xff,
		'€': 0x010020ac, '中': 0x01004e2d, '😀': 0x0101f600,
		'\n': KeysymReturn, '\r': KeysymReturn, '\t': KeysymTab, '\b': KeysymBackSpace,
		0: 0, 0x1b: 0, 0x7f: 0, 0x85: 0, -1: 0, 0xd800: 0, 0x110000: 0,
	} {
		if got := RuneKeysym(r); got != want {
			t.Errorf("RuneKeysym(%U) = %#x, want %#x", r, got, want)
		}
	}
}

func FuzzParseChord(f *testing.F) {
	for _, s := range []string{"Enter", "Ctrl+S", "Alt+F4", "Shift+Tab", "ctrl+shift+t", "Super+L",
		"Page_Down", "a", "A", "Ctrl+Alt+Delete", "space", "plus", "Ctrl++", "+", "é", "Ctrl+中",
		"Super", "Ctrl+Shift", "Ctrl+", "a+b", " Ctrl + x ", "Ctrl+,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseChord(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("empty error for %q", s)
			}
			return
		}
		if c.Key == 0 {
			t.Fatalf("ParseChord(%q) = %+v: no key", s, c)
		}
		str := c.String()
		c2, err := ParseChord(str)
		if err != nil {
			t.Fatalf("ParseChord(%q) = %+v, String %q does not parse: %v", s, c, str, err)
		}
		if c2 != c {
			t.Fatalf("ParseChord(%q) = %+v, String %q parses to %+v", s, c, str, c2)
		}
	})
}

// TestChordDown: every name of a modifier, as a modifier or as the key,
// holds down the modifier the X11 backend presses for it; the other keys
// hold none. The core's desktop-chord rule reads Down, so a name the
// parser learns is checked as what it presses.
func TestChordDown(t *testing.T) {
	for name, want := range map[string]Modifiers{
		"Super": ModSuper, "super": ModSuper, "Win": ModSuper, "META": ModSuper, "Super_L": ModSuper, "Super_R": ModSuper,
		"Ctrl": ModCtrl, "control": ModCtrl, "Control_L": ModCtrl, "Control_R": ModCtrl,
		"Alt": ModAlt, "Alt_L": ModAlt, "alt_r": ModAlt,
		"Shift": ModShift, "Shift_L": ModShift, "Shift_R": ModShift,
		"Ctrl+Super": ModCtrl | ModSuper, "Meta+d": ModSuper, "Ctrl+Alt": ModCtrl | ModAlt,
	} {
		c, err := ParseChord(name)
		if err != nil {
			t.Fatalf("ParseChord(%q): %v", name, err)
		}
		if got := c.Down(); got != want {
			t.Errorf("ParseChord(%q).Down() = %s, want %s", name, got, want)
		}
	}
	var modKeys []string
	for _, k := range keyNames {
		if KeysymModifier(k.sym) != 0 {
			modKeys = append(modKeys, k.name)
		}
	}
	if want := []string{"Shift_L", "Shift_R", "Control_L", "Control_R", "Alt_L", "Alt_R", "Super_L", "Super_R"}; !slices.Equal(modKeys, want) {
		t.Errorf("the key names that are modifiers are %v, want %v", modKeys, want)
	}
	for _, s := range []string{"Hyper", "Hyper_L", "Meta_L", "Meta_R", "Mod4", "Cmd", "Command"} {
		if c, err := ParseChord(s); err == nil {
			t.Errorf("ParseChord(%q) = %s: a key the core's rule was not shown", s, c)
		}
	}
	if got := (ModCtrl | ModAlt | ModSuper).String(); got != "Ctrl+Alt+Super" {
		t.Errorf("Modifiers.String = %q", got)
	}
}
