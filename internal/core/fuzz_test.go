package core

import (
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
)

// FuzzQueryCompile: any query an agent sends either compiles or fails with
// an invalid-argument error; it never panics, and a compiled matcher runs.
func FuzzQueryCompile(f *testing.F) {
	f.Add("Save", "contains", "push button", "focused,!checked", "action")
	f.Add("(a|b)+", "regex", "check box", "", "editable")
	f.Add("", "exact", "no such role", "bogus", "nope")
	node := &platform.Node{Key: "k", Role: 43, Name: "Save", States: 1 << platform.StateFocused, Interfaces: []string{"action"}}
	f.Fuzz(func(t *testing.T, name, match, role, states, iface string) {
		q := Query{Name: name, NameMatch: match, Role: role, Interface: iface}
		if states != "" {
			q.States = strings.Split(states, ",")
		}
		m, err := q.Compile()
		if err != nil {
			if AsError(err).Code != CodeInvalidArgument {
				t.Fatalf("Compile(%+v) failed with %v, want invalidArgument", q, AsError(err).Code)
			}
			return
		}
		m.Match(node)
	})
}

// FuzzParseRange: any range a person types either parses to a valid
// [first, last] or fails with invalidArgument; it never panics, and what it
// parses passes a TableRequest's validation.
func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"0:99", "5", "7:", ":9", "", ":", "-1:3", "3:1", "1:2:3", "99999999999999999999:1", " 2 : 4 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRange(s)
		if err != nil {
			if AsError(err).Code != CodeInvalidArgument {
				t.Fatalf("ParseRange(%q) failed with %v, want invalidArgument", s, AsError(err).Code)
			}
			return
		}
		if len(r) != 2 || r[0] < 0 || r[0] > r[1] {
			t.Fatalf("ParseRange(%q) = %v", s, r)
		}
		req := TableRequest{Element: "a11y:e1", Rows: r}
		if err := req.Validate(); err != nil {
			t.Fatalf("ParseRange(%q) = %v, which Validate refuses: %v", s, r, err)
		}
	})
}
