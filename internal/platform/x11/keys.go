//go:build linux

package x11

import "github.com/uiscope/uiscope/internal/platform"

// Key chords are parsed by platform.ParseChord, the one description of
// what a key name presses: the core checks the same chord this package
// presses.

// Chord is one key pressed while zero or more modifiers are held.
type Chord = platform.Chord

// Modifiers is a set of modifier keys.
type Modifiers = platform.Modifiers

// The modifiers.
const (
	ModCtrl  = platform.ModCtrl
	ModAlt   = platform.ModAlt
	ModShift = platform.ModShift
	ModSuper = platform.ModSuper
)

// ParseChord is platform.ParseChord, for this package's callers.
func ParseChord(s string) (Chord, error) { return platform.ParseChord(s) }

func keysymRune(ks uint32) (rune, bool) { return platform.KeysymRune(ks) }

// Keysyms used by the input code.
const (
	ksShiftL   = platform.KeysymShiftL
	ksShiftR   = platform.KeysymShiftR
	ksControlL = platform.KeysymControlL
	ksControlR = platform.KeysymControlR
	ksMetaL    = platform.KeysymMetaL
	ksAltL     = platform.KeysymAltL
	ksAltR     = platform.KeysymAltR
	ksSuperL   = platform.KeysymSuperL
	ksSuperR   = platform.KeysymSuperR
)
