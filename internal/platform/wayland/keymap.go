package wayland

import (
	"fmt"
	"slices"
	"strings"

	"github.com/uiscope/uiscope/internal/platform"
)

// A virtual keyboard brings its own keymap (a headless seat has none, and
// a user's layout may lack the characters a text needs): each keycode
// types one keysym, on one level, so any character is one key press with
// no modifier, and the modifiers sit on keycodes of their own. A text that
// needs keysyms the keymap lacks gets a new keymap first; a Wayland
// compositor hands it to the focused client ahead of the keys that use it,
// on the same ordered stream, so no key is read with a stale map (unlike
// X11's spare keycodes).

// Keycodes as xkb numbers them (the evdev code sent on the wire plus 8).
const (
	firstKeycode = 9 // evdev 1; evdev 0 is KEY_RESERVED
	lastKeycode  = 255
	// keymapSlots is how many keysyms one keymap holds, modifiers
	// included: X clients (through Xwayland) read keycodes up to 255.
	keymapSlots = lastKeycode - firstKeycode + 1
)

// modifierSyms take the first keycodes of every keymap, in the order of
// modMaps.
var modifierSyms = []uint32{platform.KeysymShiftL, platform.KeysymControlL, platform.KeysymAltL, platform.KeysymSuperL}

// modMaps are the real modifiers modifierSyms set.
var modMaps = []string{"Shift", "Control", "Mod1", "Mod4"}

// modMask is the real modifier a keycode of the keymap's modifiers sets,
// as xkb numbers them (Shift 1, Control 4, Mod1 8, Mod4 0x40); 0 for any
// other key.
func modMask(code uint32) uint32 {
	switch code + 8 {
	case firstKeycode:
		return 1 << 0 // Shift
	case firstKeycode + 1:
		return 1 << 2 // Control
	case firstKeycode + 2:
		return 1 << 3 // Mod1
	case firstKeycode + 3:
		return 1 << 6 // Mod4
	}
	return 0
}

// keymap is the keysym of each keycode from firstKeycode on.
type keymap struct {
	syms []uint32
}

// baseSyms are in every keymap after the modifiers, on the same keycodes
// in every keymap: printable ASCII and every key a chord can name. A chord
// then never needs a new keymap (GTK matches its key bindings against
// keycodes it learns from a keymap some time after the keymap arrives: a
// chord on a keycode the last keymap moved or added misses its binding),
// and neither does ASCII text. Other characters take the keycodes after
// them, as a text needs them.
var baseSyms = func() []uint32 {
	var s []uint32
	for r := uint32(0x20); r <= 0x7e; r++ {
		s = append(s, r)
	}
	for _, ks := range platform.NamedKeysyms() {
		if !slices.Contains(s, ks) && !slices.Contains(modifierSyms, ks) {
			s = append(s, ks)
		}
	}
	return s
}()

// extraSlots is how many other keysyms a keymap holds beside the
// modifiers and the base.
var extraSlots = keymapSlots - len(modifierSyms) - len(baseSyms)

// newKeymap is a keymap of the modifiers, the base, then syms (those
// already in it and 0 left out), at most keymapSlots in all: the syms that
// do not fit are left out.
func newKeymap(syms []uint32) *keymap {
	k := &keymap{syms: append(slices.Clone(modifierSyms), baseSyms...)}
	k.add(syms)
	return k
}

func (k *keymap) add(syms []uint32) {
	for _, s := range syms {
		if len(k.syms) == keymapSlots {
			return
		}
		if s != 0 && !slices.Contains(k.syms, s) {
			k.syms = append(k.syms, s)
		}
	}
}

// with is the keymap that types every one of need: k itself when it
// does, else k with what it lacks added after its keysyms, or when that
// does not fit the modifiers, the base and need. need must fit beside the
// modifiers and the base (runOf).
func (k *keymap) with(need []uint32) *keymap {
	if k != nil && k.hasAll(need) {
		return k
	}
	if k == nil {
		return newKeymap(need)
	}
	n := &keymap{syms: slices.Clone(k.syms)}
	n.add(need)
	if n.hasAll(need) {
		return n
	}
	return newKeymap(need)
}

func (k *keymap) hasAll(syms []uint32) bool {
	return !slices.ContainsFunc(syms, func(s uint32) bool { _, ok := k.keycode(s); return !ok })
}

// keycode is the evdev code (as wl_keyboard and the virtual keyboard send
// it) that types sym.
func (k *keymap) keycode(sym uint32) (uint32, bool) {
	i := slices.Index(k.syms, sym)
	if i < 0 {
		return 0, false
	}
	return uint32(firstKeycode + i - 8), true
}

// modKeycode is the evdev code of a modifier's key.
func (k *keymap) modKeycode(m platform.Modifiers) uint32 {
	switch m {
	case platform.ModShift:
		return firstKeycode - 8
	case platform.ModCtrl:
		return firstKeycode + 1 - 8
	case platform.ModAlt:
		return firstKeycode + 2 - 8
	}
	return firstKeycode + 3 - 8 // Super
}

// text is the keymap in xkb's text format (xkb_keymap, version 1). Types
// and compatibility come from the compositor's xkb data ("complete"), the
// symbols are the keymap's own; keysyms are written by number, which
// needs no name table and covers every Unicode keysym.
func (k *keymap) text() string {
	var b strings.Builder
	last := firstKeycode + len(k.syms) - 1
	fmt.Fprintf(&b, "xkb_keymap {\nxkb_keycodes \"uiscope\" {\nminimum = 8;\nmaximum = %d;\n", max(last, firstKeycode))
	for i := range k.syms {
		fmt.Fprintf(&b, "<K%d> = %d;\n", firstKeycode+i, firstKeycode+i)
	}
	b.WriteString("};\nxkb_types \"uiscope\" { include \"complete\" };\n")
	b.WriteString("xkb_compatibility \"uiscope\" { include \"complete\" };\n")
	b.WriteString("xkb_symbols \"uiscope\" {\n")
	for i, s := range k.syms {
		if s >= 'a' && s <= 'z' {
			// A letter's key has its capital on the shifted level, as on
			// a keyboard: a chord with Shift (Ctrl+Shift+S) then reaches
			// the app as the capital with Shift consumed, which is what
			// GTK 3 matches its Shift bindings against (a key of one
			// level gives Ctrl+Shift+s, which no binding matches).
			fmt.Fprintf(&b, "key <K%d> { [ 0x%08x, 0x%08x ] };\n", firstKeycode+i, s, s-'a'+'A')
			continue
		}
		fmt.Fprintf(&b, "key <K%d> { [ 0x%08x ] };\n", firstKeycode+i, s)
	}
	for i, m := range modMaps {
		fmt.Fprintf(&b, "modifier_map %s { <K%d> };\n", m, firstKeycode+i)
	}
	b.WriteString("};\n};\n")
	return b.String()
}

// runOf is how many of syms, from the first, one keymap can type: their
// distinct keysyms outside the modifiers and the base fit beside them.
func runOf(syms []uint32) int {
	seen := map[uint32]bool{}
	for _, s := range modifierSyms {
		seen[s] = true
	}
	for _, s := range baseSyms {
		seen[s] = true
	}
	extra := 0
	for i, s := range syms {
		if !seen[s] {
			if extra == extraSlots {
				return i
			}
			seen[s] = true
			extra++
		}
	}
	return len(syms)
}
