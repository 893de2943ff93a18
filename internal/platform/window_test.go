package platform

import (
	"strings"
	"testing"
)

// FuzzParseWindowID: window ids parse or fail clearly, round-trip through
// String, and an error never echoes a long argument whole.
func FuzzParseWindowID(f *testing.F) {
	for _, s := range []string{"0x1a00003", "12345", "0", "-1", "0xzz", "", " 0x10 ", "0xffffffffffffffff", strings.Repeat("9", 200)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseWindowID(s)
		if err != nil {
			if len(err.Error()) > 250 {
				t.Fatalf("ParseWindowID(%d bytes): error of %d bytes", len(s), len(err.Error()))
			}
			return
		}
		if id == 0 {
			t.Fatalf("ParseWindowID(%q) = 0 without error", s)
		}
		back, err := ParseWindowID(id.String())
		if err != nil || back != id {
			t.Fatalf("round trip of %q: %v %v", s, back, err)
		}
	})
}

func TestWindowIDString(t *testing.T) {
	if got := WindowID(0x1a00003).String(); got != "0x1a00003" {
		t.Errorf("String = %q, want 0x1a00003", got)
	}
}
