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
