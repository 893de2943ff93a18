// Package quote renders text that came from a caller or an application
// for a message or a dialog: quoted, with every character that is not
// printable escaped, and cut on a character boundary, so that what is
// shown never grows with what was sent. It depends on the standard
// library alone, so that every layer can use it (platform and security
// included) and all say it the same way.
package quote

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Limit is the most characters of a text Short shows.
const Limit = 60

// Short renders s quoted (strconv.Quote), and when it is longer than Limit
// characters, its first Limit, an ellipsis and its length.
func Short(s string) string {
	if len(s) <= Limit { // bytes ≥ characters: short for sure
		return strconv.Quote(s)
	}
	n := utf8.RuneCountInString(s)
	if n <= Limit {
		return strconv.Quote(s)
	}
	cut, i := 0, 0
	for cut = range s {
		if i == Limit {
			break
		}
		i++
	}
	return fmt.Sprintf("%s… (%d characters)", strconv.Quote(s[:cut]), n)
}
