package wayland

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/uiscope/uiscope/internal/platform"
)

// A virtual keyboard brings its own keymap (a headless seat has none, and
// a user's layout may lack the characters a text needs). It is a US
// keyboard's: every printable ASCII character on the key a person would
// press (Shift for the second level), every key a chord can name on its
// own key, the modifiers on theirs; other characters on the third and
// fourth levels of the character keys (AltGr, as a layout with accents
// puts them). Apps read a key's meaning from its keycode as well as from
// its keysym: Chromium on Wayland takes the key's physical code (evdev to
// DOM code) and gives a character whose code says Backspace, F6 or
// nothing the key code of that key: a ')' on Backspace's keycode deleted
// the character before it, a '[' on F6's moved the focus to the address
// bar, an 'o' on a keycode without a DOM code was dropped. On a
// keyboard's own keys each keysym means what its keycode says. A text
// that needs characters the keymap lacks gets a new keymap first; a
// Wayland compositor hands it to the focused client ahead of the keys
// that use it, on the same ordered stream, so no key is read with a stale
// map (unlike X11's spare keycodes).

// usKeys are a US keyboard's character keys (evdev codes) with their
// unshifted and shifted characters.
var usKeys = []struct {
	code uint32
	sym  [2]uint32
}{
	{2, [2]uint32{'1', '!'}}, {3, [2]uint32{'2', '@'}}, {4, [2]uint32{'3', '#'}}, {5, [2]uint32{'4', '$'}},
	{6, [2]uint32{'5', '%'}}, {7, [2]uint32{'6', '^'}}, {8, [2]uint32{'7', '&'}}, {9, [2]uint32{'8', '*'}},
	{10, [2]uint32{'9', '('}}, {11, [2]uint32{'0', ')'}}, {12, [2]uint32{'-', '_'}}, {13, [2]uint32{'=', '+'}},
	{16, [2]uint32{'q', 'Q'}}, {17, [2]uint32{'w', 'W'}}, {18, [2]uint32{'e', 'E'}}, {19, [2]uint32{'r', 'R'}},
	{20, [2]uint32{'t', 'T'}}, {21, [2]uint32{'y', 'Y'}}, {22, [2]uint32{'u', 'U'}}, {23, [2]uint32{'i', 'I'}},
	{24, [2]uint32{'o', 'O'}}, {25, [2]uint32{'p', 'P'}}, {26, [2]uint32{'[', '{'}}, {27, [2]uint32{']', '}'}},
	{30, [2]uint32{'a', 'A'}}, {31, [2]uint32{'s', 'S'}}, {32, [2]uint32{'d', 'D'}}, {33, [2]uint32{'f', 'F'}},
	{34, [2]uint32{'g', 'G'}}, {35, [2]uint32{'h', 'H'}}, {36, [2]uint32{'j', 'J'}}, {37, [2]uint32{'k', 'K'}},
	{38, [2]uint32{'l', 'L'}}, {39, [2]uint32{';', ':'}}, {40, [2]uint32{'\'', '"'}}, {41, [2]uint32{'`', '~'}},
	{43, [2]uint32{'\\', '|'}}, {44, [2]uint32{'z', 'Z'}}, {45, [2]uint32{'x', 'X'}}, {46, [2]uint32{'c', 'C'}},
	{47, [2]uint32{'v', 'V'}}, {48, [2]uint32{'b', 'B'}}, {49, [2]uint32{'n', 'N'}}, {50, [2]uint32{'m', 'M'}},
	{51, [2]uint32{',', '<'}}, {52, [2]uint32{'.', '>'}}, {53, [2]uint32{'/', '?'}},
}

// Keys of their own (evdev codes).
const (
	codeSpace       = 57
	codeShiftL      = 42
	codeShiftR      = 54
	codeControlL    = 29
	codeControlR    = 97
	codeAltL        = 56
	codeAltR        = 100
	codeSuperL      = 125
	codeSuperR      = 126
	codeLevel3      = 84 // ISO_Level3_Shift (AltGr): a keycode of no key, as the right Alt is Alt_R's
	keysymLevel3    = 0xfe03
	maxKeycode      = 255 // xkb's, evdev + 8: X clients (through Xwayland) read keycodes up to 255
	evdevToXkb      = 8
	levelShift      = 1
	levelThird      = 2
	levelThirdShift = 3
)

// namedCodes are the keys of the keysyms a chord can name that are not
// printable ASCII (platform.NamedKeysyms), each on its own key.
var namedCodes = func() map[uint32]uint32 {
	m := map[uint32]uint32{
		platform.KeysymReturn: 28, platform.KeysymTab: 15, platform.KeysymBackSpace: 14,
		0xff1b: 1, 0xffff: 111, 0xff63: 110, 0xff50: 102, 0xff57: 107, 0xff55: 104, 0xff56: 109, // Escape, Delete, Insert, Home, End, Page_Up/Down
		0xff51: 105, 0xff52: 103, 0xff53: 106, 0xff54: 108, // Left, Up, Right, Down
		0xff67: 127, 0xff61: 99, 0xff13: 119, 0xff14: 70, 0xffe5: 58, 0xff7f: 69, 0xff6a: 138, 0xff68: 136, // Menu, Print, Pause, Scroll_Lock, Caps_Lock, Num_Lock, Help, Find
		0xff58: 195, 0xff6b: 196, 0xff15: 197, // Begin, Break, Sys_Req: a keyboard types them with other keys' levels; codes of no key
		platform.KeysymShiftL: codeShiftL, platform.KeysymShiftR: codeShiftR, platform.KeysymControlL: codeControlL, platform.KeysymControlR: codeControlR,
		platform.KeysymAltL: codeAltL, platform.KeysymAltR: codeAltR, platform.KeysymSuperL: codeSuperL, platform.KeysymSuperR: codeSuperR,
		0xff8d: 96, 0xffab: 78, 0xffad: 74, 0xffaa: 55, 0xffaf: 98, 0xffae: 83, // KP_Enter, KP_Add, KP_Subtract, KP_Multiply, KP_Divide, KP_Decimal
		0xffb0: 82, 0xffb1: 79, 0xffb2: 80, 0xffb3: 81, 0xffb4: 75, 0xffb5: 76, 0xffb6: 77, 0xffb7: 71, 0xffb8: 72, 0xffb9: 73, // KP_0..KP_9
		0x1008ff12: 113, 0x1008ff11: 114, 0x1008ff13: 115, 0x1008ff14: 164, 0x1008ff15: 166, 0x1008ff16: 165, 0x1008ff17: 163, // audio keys
		keysymLevel3: codeLevel3,
	}
	for i := range 10 { // F1-F10
		m[0xffbe+uint32(i)] = 59 + uint32(i)
	}
	m[0xffbe+10], m[0xffbe+11] = 87, 88 // F11, F12
	for i := range 12 {                 // F13-F24
		m[0xffbe+12+uint32(i)] = 183 + uint32(i)
	}
	return m
}()

// modMaps are the real modifiers the modifier keys set, with their keys
// (evdev codes) and mask bits as xkb numbers them.
var modMaps = []struct {
	name  string
	codes []uint32
	mask  uint32
}{
	{"Shift", []uint32{codeShiftL, codeShiftR}, 1 << 0},
	{"Control", []uint32{codeControlL, codeControlR}, 1 << 2},
	{"Mod1", []uint32{codeAltL, codeAltR}, 1 << 3},
	{"Mod4", []uint32{codeSuperL, codeSuperR}, 1 << 6},
	{"Mod5", []uint32{codeLevel3}, 1 << 7}, // LevelThree
}

// modMask is the real modifier a modifier key (evdev code) sets; 0 for
// any other key.
func modMask(code uint32) uint32 {
	for _, m := range modMaps {
		if slices.Contains(m.codes, code) {
			return m.mask
		}
	}
	return 0
}

// place is where a keysym is: its key (evdev code) and level (0 plain,
// 1 Shift, 2 AltGr, 3 Shift+AltGr).
type place struct {
	code  uint32
	level int
}

// base is the place of every keysym in every keymap: printable ASCII and
// every key a chord can name. A chord then never needs a new keymap (GTK
// matches its key bindings against keycodes it learns from a keymap some
// time after the keymap arrives: a chord on a keycode the last keymap
// moved or added misses its binding), and neither does ASCII text.
var base = func() map[uint32]place {
	b := map[uint32]place{' ': {codeSpace, 0}}
	for _, k := range usKeys {
		b[k.sym[0]] = place{k.code, 0}
		b[k.sym[1]] = place{k.code, levelShift}
	}
	for _, ks := range append(platform.NamedKeysyms(), keysymLevel3) {
		if _, ok := b[ks]; ok {
			continue
		}
		code, ok := namedCodes[ks]
		if !ok {
			panic(fmt.Sprintf("wayland: the named keysym %#x has no key", ks))
		}
		b[ks] = place{code, 0}
	}
	return b
}()

// extraSlots is how many other characters a keymap holds: the third and
// fourth levels of the character keys.
var extraSlots = 2 * len(usKeys)

// keymap is the base with other characters on the character keys' third
// and fourth levels, in order.
type keymap struct {
	extra []uint32
}

// newKeymap is the base keymap with syms (those in the base and 0 left
// out) as its other characters: those that do not fit are left out.
func newKeymap(syms []uint32) *keymap {
	k := &keymap{}
	k.add(syms)
	return k
}

func (k *keymap) add(syms []uint32) {
	for _, s := range syms {
		if len(k.extra) == extraSlots {
			return
		}
		if _, inBase := base[s]; s != 0 && !inBase && !slices.Contains(k.extra, s) {
			k.extra = append(k.extra, s)
		}
	}
}

// with is the keymap that types every one of need: k itself when it
// does, else k with what it lacks added after its characters, or when
// that does not fit the base and need. need must fit beside the base
// (runOf).
func (k *keymap) with(need []uint32) *keymap {
	if k != nil && k.hasAll(need) {
		return k
	}
	if k == nil {
		return newKeymap(need)
	}
	n := &keymap{extra: slices.Clone(k.extra)}
	n.add(need)
	if n.hasAll(need) {
		return n
	}
	return newKeymap(need)
}

func (k *keymap) hasAll(syms []uint32) bool {
	return !slices.ContainsFunc(syms, func(s uint32) bool { _, ok := k.place(s); return !ok })
}

// place is where sym is in this keymap.
func (k *keymap) place(sym uint32) (place, bool) {
	if p, ok := base[sym]; ok {
		return p, true
	}
	i := slices.Index(k.extra, sym)
	if i < 0 {
		return place{}, false
	}
	return place{usKeys[i/2].code, levelThird + i%2}, true
}

// keycode is the evdev code (as wl_keyboard and the virtual keyboard send
// it) of sym's key.
func (k *keymap) keycode(sym uint32) (uint32, bool) {
	p, ok := k.place(sym)
	return p.code, ok
}

// levelKeys are the modifier keys (evdev codes) that select a level, in
// the order they are pressed.
func levelKeys(level int) []uint32 {
	switch level {
	case levelShift:
		return []uint32{codeShiftL}
	case levelThird:
		return []uint32{codeLevel3}
	case levelThirdShift:
		return []uint32{codeShiftL, codeLevel3}
	}
	return nil
}

// modKeycode is the evdev code of a modifier's key.
func (k *keymap) modKeycode(m platform.Modifiers) uint32 {
	switch m {
	case platform.ModShift:
		return codeShiftL
	case platform.ModCtrl:
		return codeControlL
	case platform.ModAlt:
		return codeAltL
	}
	return codeSuperL
}

// text is the keymap in xkb's text format (xkb_keymap, version 1). Types
// and compatibility come from the compositor's xkb data ("complete"), the
// symbols are the keymap's own; keysyms are written by number, which
// needs no name table and covers every Unicode keysym.
func (k *keymap) text() string {
	levels := map[uint32][]uint32{}
	for ks, p := range base {
		l := levels[p.code]
		for len(l) <= p.level {
			l = append(l, 0)
		}
		l[p.level] = ks
		levels[p.code] = l
	}
	for i, s := range k.extra {
		c := usKeys[i/2].code
		l := levels[c]
		for len(l) < 4 {
			l = append(l, 0)
		}
		l[levelThird+i%2] = s
		levels[c] = l
	}
	codes := slices.Sorted(maps.Keys(levels))
	var b strings.Builder
	fmt.Fprintf(&b, "xkb_keymap {\nxkb_keycodes \"uiscope\" {\nminimum = 8;\nmaximum = %d;\n", maxKeycode)
	for _, c := range codes {
		fmt.Fprintf(&b, "<K%d> = %d;\n", c+evdevToXkb, c+evdevToXkb)
	}
	b.WriteString("};\nxkb_types \"uiscope\" { include \"complete\" };\n")
	b.WriteString("xkb_compatibility \"uiscope\" { include \"complete\" };\n")
	b.WriteString("xkb_symbols \"uiscope\" {\n")
	for _, c := range codes {
		l := levels[c]
		// The type says how modifiers pick a level; Shift on a key of
		// one level stays unconsumed (Ctrl+Shift+Tab), on a letter's
		// key it picks the capital (Ctrl+Shift+S reaches the app as S
		// with Shift consumed, which GTK 3 matches its Shift bindings
		// against).
		typ := [...]string{"ONE_LEVEL", "TWO_LEVEL", "FOUR_LEVEL", "FOUR_LEVEL"}[len(l)-1]
		syms := make([]string, len(l))
		for i, s := range l {
			syms[i] = "NoSymbol"
			if s != 0 {
				syms[i] = fmt.Sprintf("0x%08x", s)
			}
		}
		fmt.Fprintf(&b, "key <K%d> { type = \"%s\", [ %s ] };\n", c+evdevToXkb, typ, strings.Join(syms, ", "))
	}
	for _, m := range modMaps {
		keys := make([]string, len(m.codes))
		for i, c := range m.codes {
			keys[i] = fmt.Sprintf("<K%d>", c+evdevToXkb)
		}
		fmt.Fprintf(&b, "modifier_map %s { %s };\n", m.name, strings.Join(keys, ", "))
	}
	b.WriteString("};\n};\n")
	return b.String()
}

// runOf is how many of syms, from the first, one keymap can type: their
// distinct characters outside the base fit beside it.
func runOf(syms []uint32) int {
	seen := map[uint32]bool{}
	extra := 0
	for i, s := range syms {
		if _, inBase := base[s]; !inBase && !seen[s] {
			if extra == extraSlots {
				return i
			}
			seen[s] = true
			extra++
		}
	}
	return len(syms)
}
