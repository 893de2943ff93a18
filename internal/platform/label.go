package platform

import "strings"

// SeenLabel returns the label a user sees when a toolkit names an element
// by its label twice, the first time with its mnemonic: GTK 4.8 names
// buttons "_Save Save", "Replace _All Replace All" and, without a
// mnemonic, "Save Save" (its accessible name joins the label's text with
// mnemonic and without). It reports false for any other name. A doubled
// underscore is a literal one. (A name that is a word said twice, "Bora
// Bora", reads as doubled too; the name itself still matches.)
func SeenLabel(name string) (string, bool) {
	// The two halves are joined by one space; the plain half is the
	// mnemonic half less its underscores.
	for cut := len(name)/2 + 1; cut < len(name); cut++ {
		if name[cut-1] != ' ' {
			continue
		}
		mnemonic, plain := name[:cut-1], name[cut:]
		if plain != "" && stripMnemonic(mnemonic) == plain {
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
