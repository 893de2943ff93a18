package platform

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Key chords and keysyms: the one description of what a key name presses,
// shared by the X11 backend, which presses it, and the core, which checks
// it against the desktop-chord rule before anything is sent. Both parse
// with ParseChord, so the keys checked are the keys pressed.

// Modifiers is a set of modifier keys held down around a chord's key.
type Modifiers uint8

// The modifiers, in the order they are pressed (and written by
// Chord.String).
const (
	ModCtrl Modifiers = 1 << iota
	ModAlt
	ModShift
	ModSuper
)

// Chord is one key pressed while zero or more modifiers are held, such as
// Ctrl+S. Key is an X keysym.
type Chord struct {
	Mods Modifiers
	Key  uint32
}

// MaxChordLen is the longest chord string ParseChord accepts, in bytes.
const MaxChordLen = 100

// Keysyms of the keys the input code and the desktop-chord rule name.
const (
	KeysymBackSpace = 0xff08
	KeysymTab       = 0xff09
	KeysymReturn    = 0xff0d
	KeysymShiftL    = 0xffe1
	KeysymShiftR    = 0xffe2
	KeysymControlL  = 0xffe3
	KeysymControlR  = 0xffe4
	KeysymMetaL     = 0xffe7
	KeysymMetaR     = 0xffe8
	KeysymAltL      = 0xffe9
	KeysymAltR      = 0xffea
	KeysymSuperL    = 0xffeb
	KeysymSuperR    = 0xffec
	KeysymHyperL    = 0xffed
	KeysymHyperR    = 0xffee
)

var modNames = []struct {
	mod   Modifiers
	name  string // as written by String
	names []string
	key   uint32 // the keysym pressed for it
}{
	{ModCtrl, "Ctrl", []string{"ctrl", "control"}, KeysymControlL},
	{ModAlt, "Alt", []string{"alt"}, KeysymAltL},
	{ModShift, "Shift", []string{"shift"}, KeysymShiftL},
	{ModSuper, "Super", []string{"super", "meta", "win"}, KeysymSuperL},
}

// keyNames lists the named keys; the first name of a keysym is the one
// Chord.String writes. Lookup ignores case.
var keyNames = []struct {
	name string
	sym  uint32
}{
	{"Return", KeysymReturn}, {"Enter", KeysymReturn},
	{"Tab", KeysymTab},
	{"BackSpace", KeysymBackSpace},
	{"Escape", 0xff1b}, {"Esc", 0xff1b},
	{"Delete", 0xffff}, {"Del", 0xffff},
	{"Insert", 0xff63}, {"Ins", 0xff63},
	{"Home", 0xff50},
	{"End", 0xff57},
	{"Page_Up", 0xff55}, {"PageUp", 0xff55}, {"Prior", 0xff55}, {"PgUp", 0xff55},
	{"Page_Down", 0xff56}, {"PageDown", 0xff56}, {"Next", 0xff56}, {"PgDn", 0xff56},
	{"Left", 0xff51}, {"Up", 0xff52}, {"Right", 0xff53}, {"Down", 0xff54},
	{"Begin", 0xff58},
	{"Menu", 0xff67},
	{"Print", 0xff61},
	{"Pause", 0xff13},
	{"Break", 0xff6b},
	{"Scroll_Lock", 0xff14},
	{"Sys_Req", 0xff15},
	{"Caps_Lock", 0xffe5},
	{"Num_Lock", 0xff7f},
	{"Help", 0xff6a},
	{"Find", 0xff68},
	{"Shift_L", KeysymShiftL}, {"Shift_R", KeysymShiftR},
	{"Control_L", KeysymControlL}, {"Control_R", KeysymControlR},
	{"Alt_L", KeysymAltL}, {"Alt_R", KeysymAltR},
	{"Super_L", KeysymSuperL}, {"Super_R", KeysymSuperR},
	{"KP_Enter", 0xff8d},
	{"KP_Add", 0xffab}, {"KP_Subtract", 0xffad}, {"KP_Multiply", 0xffaa},
	{"KP_Divide", 0xffaf}, {"KP_Decimal", 0xffae},
	{"KP_0", 0xffb0}, {"KP_1", 0xffb1}, {"KP_2", 0xffb2}, {"KP_3", 0xffb3}, {"KP_4", 0xffb4},
	{"KP_5", 0xffb5}, {"KP_6", 0xffb6}, {"KP_7", 0xffb7}, {"KP_8", 0xffb8}, {"KP_9", 0xffb9},
	{"XF86AudioMute", 0x1008ff12}, {"XF86AudioLowerVolume", 0x1008ff11},
	{"XF86AudioRaiseVolume", 0x1008ff13}, {"XF86AudioPlay", 0x1008ff14},
	{"XF86AudioStop", 0x1008ff15}, {"XF86AudioPrev", 0x1008ff16}, {"XF86AudioNext", 0x1008ff17},
	// Printable ASCII that is awkward or impossible to write bare in a chord.
	{"space", 0x20}, {"exclam", 0x21}, {"quotedbl", 0x22}, {"numbersign", 0x23},
	{"dollar", 0x24}, {"percent", 0x25}, {"ampersand", 0x26}, {"apostrophe", 0x27},
	{"parenleft", 0x28}, {"parenright", 0x29}, {"asterisk", 0x2a}, {"plus", 0x2b},
	{"comma", 0x2c}, {"minus", 0x2d}, {"period", 0x2e}, {"slash", 0x2f},
	{"colon", 0x3a}, {"semicolon", 0x3b}, {"less", 0x3c}, {"equal", 0x3d},
	{"greater", 0x3e}, {"question", 0x3f}, {"at", 0x40}, {"bracketleft", 0x5b},
	{"backslash", 0x5c}, {"bracketright", 0x5d}, {"asciicircum", 0x5e},
	{"underscore", 0x5f}, {"grave", 0x60}, {"braceleft", 0x7b}, {"bar", 0x7c},
	{"braceright", 0x7d}, {"asciitilde", 0x7e},
}

var (
	keyByName = map[string]uint32{}    // lower-case name -> keysym
	nameByKey = map[uint32]string{}    // keysym -> canonical name
	modByName = map[string]Modifiers{} // lower-case name -> modifier
)

func init() {
	for i := 1; i <= 24; i++ {
		keyNames = append(keyNames, struct {
			name string
			sym  uint32
		}{fmt.Sprintf("F%d", i), 0xffbe + uint32(i-1)})
	}
	for _, k := range keyNames {
		keyByName[strings.ToLower(k.name)] = k.sym
		if _, ok := nameByKey[k.sym]; !ok {
			nameByKey[k.sym] = k.name
		}
	}
	for _, m := range modNames {
		for _, n := range m.names {
			modByName[n] = m.mod
		}
	}
}

// NamedKeysyms lists the keysyms of every key name ParseChord reads
// (Return, F5, KP_Add, Shift_L, comma...), each once, in a stable order.
func NamedKeysyms() []uint32 {
	var out []uint32
	seen := map[uint32]bool{}
	for _, k := range keyNames {
		if !seen[k.sym] {
			seen[k.sym] = true
			out = append(out, k.sym)
		}
	}
	return out
}

// KeysymName is the name ParseChord reads and Chord.String writes for a
// named key (Return, Shift_L, F5); ok is false for characters and for
// keysyms without a name here.
func KeysymName(ks uint32) (name string, ok bool) {
	name, ok = nameByKey[ks]
	return name, ok
}

// List is each modifier in m, in the order they are pressed.
func (m Modifiers) List() []Modifiers {
	var out []Modifiers
	for _, mn := range modNames {
		if m&mn.mod != 0 {
			out = append(out, mn.mod)
		}
	}
	return out
}

// String writes the modifiers as a chord does, joined by '+': "Ctrl+Alt".
func (m Modifiers) String() string {
	var names []string
	for _, mn := range modNames {
		if m&mn.mod != 0 {
			names = append(names, mn.name)
		}
	}
	return strings.Join(names, "+")
}

// KeysymModifier is the modifier a key sets while it is down, by its
// keysym: Shift_L/R Shift, Control_L/R Ctrl, Alt_L/R Alt, Super_L/R Super;
// 0 for a key that is no modifier. Meta_L/R and Hyper_L/R count as Super:
// the chord name Meta presses Super_L (ParseChord), and the usual layouts
// put Hyper on Super's modifier bit (Mod4).
func KeysymModifier(ks uint32) Modifiers {
	switch ks {
	case KeysymShiftL, KeysymShiftR:
		return ModShift
	case KeysymControlL, KeysymControlR:
		return ModCtrl
	case KeysymAltL, KeysymAltR:
		return ModAlt
	case KeysymSuperL, KeysymSuperR, KeysymMetaL, KeysymMetaR, KeysymHyperL, KeysymHyperR:
		return ModSuper
	}
	return 0
}

// Down is the modifiers down at the moment the chord's key goes down: its
// own, and the key's when the key is a modifier ("Super" is Super_L, so
// Super).
func (c Chord) Down() Modifiers { return c.Mods | KeysymModifier(c.Key) }

// RuneKeysym returns the X keysym that types r: Latin-1 printable
// characters are their own keysym, '\n' and '\r' are Return, '\t' Tab, '\b'
// BackSpace, other printable characters 0x01000000|r. It returns 0 for other
// control characters and invalid runes, which cannot be typed.
func RuneKeysym(r rune) uint32 {
	switch {
	case r == '\n' || r == '\r':
		return KeysymReturn
	case r == '\t':
		return KeysymTab
	case r == '\b':
		return KeysymBackSpace
	case r >= 0x20 && r <= 0x7e, r >= 0xa0 && r <= 0xff:
		return uint32(r)
	case r < 0xa0, !utf8.ValidRune(r):
		return 0
	}
	return 0x01000000 | uint32(r)
}

// KeysymRune is RuneKeysym's inverse for printable characters; ok is false
// for keysyms that are not characters (Return included).
func KeysymRune(ks uint32) (rune, bool) {
	switch {
	case ks >= 0x20 && ks <= 0x7e, ks >= 0xa0 && ks <= 0xff:
		return rune(ks), true
	case ks&0xff000000 == 0x01000000:
		r := rune(ks & 0x00ffffff)
		if RuneKeysym(r) == ks {
			return r, true
		}
	}
	return 0, false
}

const errChordHelp = "keys are named like Enter, Tab, F5, a, Page_Down"

// ParseChord parses a key chord such as "Ctrl+S", "Alt+F4", "Shift+Tab",
// "Page_Down", "a" or "Ctrl+Alt+Delete". Parts are joined by '+'; every part
// but the last is a modifier (Ctrl/Control, Alt, Shift, Super/Meta/Win, in
// any case), the last is the key: an X keysym name from a table of the usual
// ones (case-insensitive), or a single printable character (case-sensitive).
// "Ctrl++" is Ctrl+plus. A modifier alone ("Super", "Ctrl+Shift") presses
// that modifier's left key as the chord's key.
//
// An ASCII letter in a chord with modifiers means its key, as menus write
// accelerators: "Ctrl+A" is Ctrl+a and "Shift+A" is Shift+a. Without
// modifiers "A" is the capital letter, which KeyChord types with Shift.
func ParseChord(s string) (Chord, error) {
	if len(s) > MaxChordLen {
		return Chord{}, fmt.Errorf("key chord is %d bytes long; at most %d are allowed", len(s), MaxChordLen)
	}
	if !utf8.ValidString(s) {
		return Chord{}, fmt.Errorf("key chord %q is not valid UTF-8", s)
	}
	if strings.TrimSpace(s) == "" {
		return Chord{}, errors.New("empty key chord; " + errChordHelp)
	}
	var parts []string
	// A trailing "++" (or a bare "+") is the plus key.
	if t := strings.TrimSpace(s); t == "+" {
		parts = []string{"+"}
	} else if strings.HasSuffix(t, "++") {
		parts = append(strings.Split(t[:len(t)-2], "+"), "+")
	} else {
		parts = strings.Split(s, "+")
	}
	for i := range parts {
		if parts[i] != "+" {
			parts[i] = strings.TrimSpace(parts[i])
		}
		if parts[i] == "" {
			return Chord{}, fmt.Errorf("empty part in key chord %q; write it like Ctrl+S (use \"plus\" for the + key)", s)
		}
	}
	var c Chord
	last := len(parts) - 1
	for i, p := range parts[:last] {
		m, ok := modByName[strings.ToLower(p)]
		if !ok {
			if _, err := parseKey(p, s); err == nil {
				return Chord{}, fmt.Errorf("too many keys in %q: %q and %q; a chord has modifiers and one key, which comes last", s, p, parts[i+1])
			}
			return Chord{}, fmt.Errorf("unknown modifier or key %q in %q; modifiers are Ctrl, Alt, Shift, Super; %s", p, s, errChordHelp)
		}
		if c.Mods&m != 0 {
			return Chord{}, fmt.Errorf("modifier %q given twice in %q", p, s)
		}
		c.Mods |= m
	}
	key := parts[last]
	if m, ok := modByName[strings.ToLower(key)]; ok {
		if c.Mods&m != 0 {
			return Chord{}, fmt.Errorf("modifier %q given twice in %q", key, s)
		}
		for _, mn := range modNames {
			if mn.mod == m {
				c.Key = mn.key
			}
		}
		return c, nil
	}
	ks, err := parseKey(key, s)
	if err != nil {
		return Chord{}, err
	}
	if c.Mods != 0 && ks >= 'A' && ks <= 'Z' {
		ks += 'a' - 'A'
	}
	c.Key = ks
	return c, nil
}

func parseKey(p, whole string) (uint32, error) {
	if r, size := utf8.DecodeRuneInString(p); size == len(p) {
		if !unicode.IsPrint(r) {
			return 0, fmt.Errorf("key %q in %q is not a printable character; %s", p, whole, errChordHelp)
		}
		if ks := RuneKeysym(r); ks != 0 {
			return ks, nil
		}
	}
	if ks, ok := keyByName[strings.ToLower(p)]; ok {
		return ks, nil
	}
	return 0, fmt.Errorf("unknown key %q in %q; %s", p, whole, errChordHelp)
}

// String writes the chord in the form ParseChord reads, modifiers first in
// the order Ctrl, Alt, Shift, Super: "Ctrl+Shift+t", "Return", "comma", "é".
func (c Chord) String() string {
	var b strings.Builder
	for _, m := range modNames {
		if c.Mods&m.mod != 0 {
			b.WriteString(m.name)
			b.WriteByte('+')
		}
	}
	switch name, ok := nameByKey[c.Key]; {
	case ok:
		b.WriteString(name)
	default:
		if r, ok := KeysymRune(c.Key); ok && unicode.IsPrint(r) {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, "0x%x", c.Key) // not produced by ParseChord
		}
	}
	return b.String()
}
