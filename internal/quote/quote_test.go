package quote

import (
	"strconv"
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

// FuzzShort: whatever is sent, what is shown is valid UTF-8 of at most
// MaxShown bytes, and a text that is shown whole is shown as Quote shows it.
func FuzzShort(f *testing.F) {
	for _, s := range []string{"", "push button", strings.Repeat("\xff", 50), strings.Repeat("\x01", 61), strings.Repeat("語", 61), strings.Repeat("x", 1000)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Short(s)
		if len(got) > MaxShown || !utf8.ValidString(got) {
			t.Fatalf("Short(%d bytes) = %d bytes %q", len(s), len(got), got)
		}
		if !strings.HasSuffix(got, " characters)") && got != strconv.Quote(s) {
			t.Fatalf("Short(%q) = %q, shown whole but not as Quote shows it", s, got)
		}
	})
}
