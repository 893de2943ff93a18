package quote

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestShort(t *testing.T) {
	for in, want := range map[string]string{
		"":                         `""`,
		"push button":              `"push button"`,
		"a\"b\n":                   `"a\"b\n"`,
		strings.Repeat("x", 60):    `"` + strings.Repeat("x", 60) + `"`,
		strings.Repeat("x", 61):    `"` + strings.Repeat("x", 60) + `"… (61 characters)`,
		strings.Repeat("é", 60):    `"` + strings.Repeat("é", 60) + `"`,
		strings.Repeat("é", 1<<20): `"` + strings.Repeat("é", 60) + `"… (1048576 characters)`,
	} {
		if got := Short(in); got != want {
			t.Errorf("Short(%.80q…) = %.120q, want %.120q", in, got, want)
		}
	}
	// Cut on a character boundary, even in invalid UTF-8.
	if got := Short(strings.Repeat("\xff", 100)); !utf8.ValidString(got) || len(got) > 300 {
		t.Errorf("Short of invalid UTF-8: %q", got)
	}
}
