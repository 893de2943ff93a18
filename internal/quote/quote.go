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

// MaxShown bounds the bytes Short returns: its quoted text (at most
// 3*Limit bytes, which Limit characters of most scripts fit in, but not
// Limit escaped control characters or invalid bytes, four bytes each), an
// ellipsis and the length of what was cut.
const MaxShown = 3*Limit + len(`""… (18446744073709551615 characters)`)

// Short renders s quoted (strconv.Quote), and when it is longer than Limit
// characters or quotes to more than 3*Limit bytes, as much of it as fits,
// cut on a character boundary, an ellipsis and its length.
func Short(s string) string {
	n := -1
	if len(s) <= 4*Limit { // bytes ≥ characters
		n = utf8.RuneCountInString(s)
		if q := strconv.Quote(s); n <= Limit && len(q) <= 3*Limit {
			return q
		}
	}
	cut, i := len(s), 0
	for j := range s {
		if i == Limit {
			cut = j
			break
		}
		i++
	}
	q := strconv.Quote(s[:cut])
	for len(q) > 3*Limit {
		_, size := utf8.DecodeLastRuneInString(s[:cut])
		cut -= size
		q = strconv.Quote(s[:cut])
	}
	if n < 0 {
		n = utf8.RuneCountInString(s)
	}
	return fmt.Sprintf("%s… (%d characters)", q, n)
}
