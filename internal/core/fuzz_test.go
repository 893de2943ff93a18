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

// FuzzParseWindowID: window ids parse or fail clearly.
func FuzzParseWindowID(f *testing.F) {
	for _, s := range []string{"0x1a00003", "12345", "0", "-1", "0xzz", "", " 0x10 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseWindowID(s)
		if err != nil {
			if AsError(err).Code != CodeInvalidArgument {
				t.Fatalf("ParseWindowID(%q): %v", s, err)
			}
			return
		}
		if id == 0 {
			t.Fatalf("ParseWindowID(%q) = 0 without error", s)
		}
		back, err := ParseWindowID(WindowID(id))
		if err != nil || back != id {
			t.Fatalf("round trip of %q: %v %v", s, back, err)
		}
	})
}
