package platform

import (
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/quote"
)

// FuzzParseWindowID: window ids parse or fail clearly, round-trip through
// String, and an error never echoes a long argument whole.
func FuzzParseWindowID(f *testing.F) {
	for _, s := range []string{"0x1a00003", "12345", "0", "-1", "0xzz", "", " 0x10 ", "0xffffffffffffffff", "sway:42", "sway:0", "sway:-1", "sway:4294967296", "0x737700000005", "toplevel:4278190080", "toplevel:0", "toplevel:4294967296", "0x746cff000000", strings.Repeat("9", 200), strings.Repeat("\xff", 50)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseWindowID(s)
		if err != nil {
			// The message around the id, and the id as quote.Short shows it.
			if len(err.Error()) > 100+quote.MaxShown {
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

func TestSwayWindowID(t *testing.T) {
	id := SwayWindowID(42)
	if got := id.String(); got != "sway:42" {
		t.Errorf("String = %q, want sway:42", got)
	}
	if back, err := ParseWindowID("sway:42"); err != nil || back != id {
		t.Errorf("ParseWindowID(sway:42) = %v, %v", back, err)
	}
	if con, ok := id.SwayCon(); !ok || con != 42 {
		t.Errorf("SwayCon = %d, %v", con, ok)
	}
	if _, ok := WindowID(0x1a00003).SwayCon(); ok {
		t.Error("an X window id is a sway container")
	}
	for _, bad := range []string{"sway:", "sway:0", "sway:x", "sway:4294967296"} {
		if _, err := ParseWindowID(bad); err == nil {
			t.Errorf("ParseWindowID(%q) succeeded", bad)
		}
	}
}

func TestToplevelWindowID(t *testing.T) {
	id := ToplevelWindowID(0xff000003)
	if got := id.String(); got != "toplevel:4278190083" {
		t.Errorf("String = %q, want toplevel:4278190083", got)
	}
	if back, err := ParseWindowID("toplevel:4278190083"); err != nil || back != id {
		t.Errorf("ParseWindowID(toplevel:4278190083) = %v, %v", back, err)
	}
	if h, ok := id.Toplevel(); !ok || h != 0xff000003 {
		t.Errorf("Toplevel = %d, %v", h, ok)
	}
	if _, ok := SwayWindowID(3).Toplevel(); ok {
		t.Error("a sway container is a toplevel")
	}
	for _, bad := range []string{"toplevel:", "toplevel:0", "toplevel:x", "toplevel:4294967296"} {
		if _, err := ParseWindowID(bad); err == nil {
			t.Errorf("ParseWindowID(%q) succeeded", bad)
		}
	}
	if got := (WindowActive | WindowFullscreen).Names(); strings.Join(got, ",") != "active,fullscreen" {
		t.Errorf("Names = %v", got)
	}
}
