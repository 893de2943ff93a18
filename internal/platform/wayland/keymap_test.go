package wayland

import (
	"fmt"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
)

func TestKeymap(t *testing.T) {
	base := newKeymap(nil)
	if len(base.extra) != 0 || extraSlots < 90 {
		t.Fatalf("base keymap of %d other characters, %d slots for them", len(base.extra), extraSlots)
	}
	for _, ks := range []uint32{'a', 'Z', ' ', '~', platform.KeysymReturn, platform.KeysymBackSpace, 0xffbe /* F1 */, 0xffd5 /* F24 */, 0x1008ff12} {
		if _, ok := base.keycode(ks); !ok {
			t.Errorf("the base keymap lacks %#x", ks)
		}
	}
	// Each character on the key a US keyboard has it on, and each named
	// key on its own key (evdev codes): apps read the key's code too.
	for ks, want := range map[uint32]place{'a': {30, 0}, 'A': {30, 1}, 'o': {24, 0}, ')': {11, 1}, '(': {10, 1}, '[': {26, 0},
		'\\': {43, 0}, '_': {12, 1}, 'z': {44, 0}, ' ': {57, 0}, platform.KeysymBackSpace: {14, 0}, platform.KeysymReturn: {28, 0},
		0xffbe + 5 /* F6 */ : {64, 0}, platform.KeysymShiftR: {54, 0}} {
		if got, _ := base.place(ks); got != want {
			t.Errorf("%#x is on %+v, want %+v", ks, got, want)
		}
	}
	if base.modKeycode(platform.ModShift) != codeShiftL || modMask(base.modKeycode(platform.ModCtrl)) != 4 || modMask(base.modKeycode(platform.ModSuper)) != 0x40 || modMask(codeLevel3) != 0x80 {
		t.Error("the modifiers are not on their keycodes")
	}
	text := base.text()
	for _, want := range []string{"xkb_keymap {", "minimum = 8;", "key <K50> { type = \"ONE_LEVEL\", [ 0x0000ffe1 ] };", "modifier_map Control { <K37>, <K105> };",
		"modifier_map Mod5 { <K92> };", "include \"complete\"", "key <K39> { type = \"TWO_LEVEL\", [ 0x00000073, 0x00000053 ] };"} {
		if !strings.Contains(text, want) {
			t.Errorf("keymap text lacks %q", want)
		}
	}
	if base.with([]uint32{'a', platform.KeysymTab}) != base {
		t.Error("a keymap that has every keysym was replaced")
	}
	// Other characters go on the character keys' third and fourth levels.
	k := base.with([]uint32{0xe9, 0x01004e2d})
	if p, _ := k.place(0xe9); p != (place{2, levelThird}) || !k.hasAll([]uint32{0xe9, 0x01004e2d}) {
		t.Fatalf("with é and 中: é on %+v, all there %v", p, k.hasAll([]uint32{0xe9, 0x01004e2d}))
	}
	if p, _ := k.place(0x01004e2d); p != (place{2, levelThirdShift}) {
		t.Errorf("中 on %+v", p)
	}
	if !strings.Contains(k.text(), fmt.Sprintf("key <K10> { type = \"FOUR_LEVEL\", [ 0x00000031, 0x00000021, 0x%08x, 0x%08x ] };", 0xe9, 0x01004e2d)) {
		t.Errorf("keymap text with é and 中:\n%s", k.text())
	}
	var many []uint32
	for r := uint32(0x4e00); r < 0x4e00+uint32(extraSlots); r++ {
		many = append(many, 0x01000000|r)
	}
	full := k.with(many) // too many beside é and 中: a new keymap of them
	if !full.hasAll(many) || len(full.extra) != extraSlots || full.hasAll([]uint32{0xe9}) {
		t.Fatalf("a full keymap: all there %v, %d other characters", full.hasAll(many), len(full.extra))
	}
	if n := runOf(append(many, 0x01005000)); n != extraSlots {
		t.Errorf("runOf: %d, want %d", n, extraSlots)
	}
	if n := runOf([]uint32{'a', 'b', 'a'}); n != 3 {
		t.Errorf("runOf of base keysyms: %d", n)
	}
}
