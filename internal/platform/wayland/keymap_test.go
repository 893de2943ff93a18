package wayland

import (
	"fmt"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
)

func TestKeymap(t *testing.T) {
	base := newKeymap(nil)
	if len(base.syms) != len(modifierSyms)+len(baseSyms) || extraSlots < 50 {
		t.Fatalf("base keymap of %d keysyms, %d slots left for other characters", len(base.syms), extraSlots)
	}
	for _, ks := range []uint32{'a', 'Z', ' ', '~', platform.KeysymReturn, platform.KeysymBackSpace, 0xffbe /* F1 */, 0xffd5 /* F24 */, 0x1008ff12} {
		if _, ok := base.keycode(ks); !ok {
			t.Errorf("the base keymap lacks %#x", ks)
		}
	}
	if base.modKeycode(platform.ModShift) != firstKeycode-8 || modMask(base.modKeycode(platform.ModCtrl)) != 4 || modMask(base.modKeycode(platform.ModSuper)) != 0x40 {
		t.Error("the modifiers are not on their keycodes")
	}
	sCode, _ := base.keycode('s')
	text := base.text()
	for _, want := range []string{"xkb_keymap {", "minimum = 8;", "key <K9> { [ 0x0000ffe1 ] };", "modifier_map Control { <K10> };", "include \"complete\"",
		fmt.Sprintf("key <K%d> { [ 0x00000073, 0x00000053 ] };", sCode+8)} {
		if !strings.Contains(text, want) {
			t.Errorf("keymap text lacks %q", want)
		}
	}
	if base.with([]uint32{'a', platform.KeysymTab}) != base {
		t.Error("a keymap that has every keysym was replaced")
	}
	// Other characters go after the base, whose keycodes never move.
	aCode, _ := base.keycode('a')
	k := base.with([]uint32{0xe9, 0x01004e2d})
	if c, _ := k.keycode('a'); c != aCode || !k.hasAll([]uint32{0xe9, 0x01004e2d}) {
		t.Fatalf("with é and 中: a on %d (was %d), all there %v", c, aCode, k.hasAll([]uint32{0xe9, 0x01004e2d}))
	}
	var many []uint32
	for r := uint32(0x4e00); r < 0x4e00+uint32(extraSlots); r++ {
		many = append(many, 0x01000000|r)
	}
	full := k.with(many) // too many beside é and 中: a new keymap of them
	if c, _ := full.keycode('a'); c != aCode || !full.hasAll(many) || len(full.syms) != keymapSlots {
		t.Fatalf("a full keymap: a on %d, all there %v, %d keysyms", c, full.hasAll(many), len(full.syms))
	}
	if n := runOf(append(many, 0x01005000)); n != extraSlots {
		t.Errorf("runOf: %d, want %d", n, extraSlots)
	}
	if n := runOf([]uint32{'a', 'b', 'a'}); n != 3 {
		t.Errorf("runOf of base keysyms: %d", n)
	}
}
