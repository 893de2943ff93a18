package platform

import "strings"

// SeenLabel returns the label a user sees when a toolkit names an element
// by its mnemonic label followed by the label itself: GTK 4.8 names a
// button "_Save Save" and "Replace _All Replace All" (its accessible name
// joins the label's text with mnemonic and without). It reports false for
// any other name. A doubled underscore is a literal one.
func SeenLabel(name string) (string, bool) {
	if !strings.Contains(name, "_") {
		return "", false
	}
	// The mnemonic half and the plain half are joined by one space; the
	// plain half is the mnemonic half less one underscore, so it is
	// (len-2)/2 bytes long when the mnemonic half has one underscore.
	for cut := len(name)/2 + 1; cut < len(name); cut++ {
		if name[cut-1] != ' ' {
			continue
		}
		mnemonic, plain := name[:cut-1], name[cut:]
		if plain != "" && strings.Contains(mnemonic, "_") && stripMnemonic(mnemonic) == plain {
			return plain, true
		}
	}
	return "", false
}

// stripMnemonic removes a label's mnemonic underscores ("__" is one "_").
func stripMnemonic(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '_' {
			if i+1 < len(s) && s[i+1] == '_' {
				b.WriteByte('_')
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
