package core

import (
	"fmt"
	"strings"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/security"
)

// The clipboard rule (docs/security.md). The X selections
// (PRIMARY, what was last selected anywhere; CLIPBOARD, what was last
// copied) belong to whichever application set them, and pasting moves
// their contents into the application pasted in. With --apps, an agent
// may read only the applications the list allows, so a paste would carry
// text out of one it may not connect to (a password manager, a terminal)
// into one it can read. So with --apps set, and unless --allow-clipboard,
// the ways to paste that the core can tell are refused before anything is
// sent: the middle pointer button (press, button 2: X pastes PRIMARY), the
// chords that paste in common toolkits (Ctrl+V, Ctrl+Shift+V, Shift+Insert,
// the Paste key), held keys included, on every path that sends keys, and
// clicking or invoking an element named Paste (a menu item, a tool button:
// "Paste", "_Paste", "Paste Special…"). What it cannot tell is not refused:
// a menu reached with the arrow keys and Enter, a context menu's item in
// a visual session, a name in another language. Without --apps every
// application may be read anyway, and the selections with it.

// clipboardGuarded reports whether pastes are refused.
func (m *Sessions) clipboardGuarded() bool { return m.Allow != nil && !m.AllowClipboard }

// clipboardRefusal is the refusal of a paste: what pasted, and why.
func clipboardRefusal(what string) error {
	return AsError(&security.Refusal{Code: security.CodeClipboardNotAllowed, Msg: fmt.Sprintf(
		"%s would paste the X selection or clipboard, which another application may own (one --apps does not allow), into this one; nothing was sent. Pasting is refused while the server runs with --apps, unless it also runs with --allow-clipboard", what)})
}

// pasteChord reports whether key pressed with mods pastes in common
// toolkits: Ctrl+V (and Ctrl+Shift+V, terminals' paste), Shift+Insert
// (PRIMARY in GTK and Qt entries, CLIPBOARD elsewhere), the Paste key.
func pasteChord(mods platform.Modifiers, key uint32) bool {
	mods |= platform.KeysymModifier(key)
	switch strings.ToLower(platform.Chord{Key: key}.String()) {
	case "v":
		return mods&platform.ModCtrl != 0
	case "insert", "kp_insert":
		return mods&platform.ModShift != 0
	case "xf86paste", "paste":
		return true
	}
	return false
}

// pasteName reports whether an element's name says it pastes: "Paste",
// with mnemonic marks, an ellipsis or an accelerator, and names that
// start so ("Paste Special…", "Paste as Plain Text").
func pasteName(name string) bool {
	n := strings.ToLower(strings.NewReplacer("_", "", "&", "").Replace(name))
	n, _, _ = strings.Cut(n, "\t")
	n = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(n), ".…"))
	return n == "paste" || strings.HasPrefix(n, "paste ")
}

// pasteElement refuses acting on an element named as a paste.
func (m *Sessions) pasteElement(what string, t *actTarget) error {
	if !m.clipboardGuarded() || t == nil || !pasteName(t.det.Node.Name) {
		return nil
	}
	return clipboardRefusal(fmt.Sprintf("%s on %s (%s %q)", what, t.ref, t.det.Node.Role, Quote(t.det.Node.Name)))
}
