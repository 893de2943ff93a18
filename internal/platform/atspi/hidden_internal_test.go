//go:build linux

package atspi

import (
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
)

func TestHidesText(t *testing.T) {
	for _, tc := range []struct {
		shown string
		count int
		want  bool
	}{
		{"", 0, false}, // empty: nothing to hide
		{"●●●●●●●●●●●●●●●", 15, true}, // GTK 4.8's default invisible character
		{"****", 4, true},              // an app's own
		{"●", 1, true},                 // one character
		{"Grace Hopper", 12, false},    // shown as it is
		{"0", 1, false},                // a digit is shown, not hidden
		{"aaaa", 4, false},             // so is a letter
		{"●●●a", 4, false},             // the last character typed, shown for a moment
		{"●●●", 4, true},               // shown and count disagree: assume hidden
		{"", 3, true},                  // nothing shown for three characters
		{"hidden-secret-2", 15, false}, // a field showing its text
		{"\u2022\u2022\u2022\u2022\u2022\u2022", 6, true}, // '•'
	} {
		if got := hidesText(tc.shown, tc.count); got != tc.want {
			t.Errorf("hidesText(%q, %d) = %v, want %v", tc.shown, tc.count, got, tc.want)
		}
	}
}

func TestMayHide(t *testing.T) {
	ml := mustState("multi-line")
	for _, tc := range []struct {
		role   string
		states platform.StateSet
		ifaces []string
		want   bool
	}{
		{"text", 0, []string{"text", "editabletext"}, true},
		{"entry", 0, []string{"text", "editabletext"}, true},
		{"text", 1 << ml, []string{"text", "editabletext"}, false}, // a text view
		{"text", 0, []string{"text"}, false},                       // not editable text
		{"label", 0, []string{"text", "editabletext"}, false},
		{"password text", 0, []string{"text", "editabletext"}, false}, // redacted by role already
	} {
		r, _ := platform.RoleByName(tc.role)
		n := &platform.Node{Role: r, States: tc.states, Interfaces: tc.ifaces}
		if tc.role == "password text" {
			redact(n)
		}
		if got := mayHide(n); got != tc.want {
			t.Errorf("mayHide(%s %v %v) = %v, want %v", tc.role, tc.states.Names(), tc.ifaces, got, tc.want)
		}
	}
}
