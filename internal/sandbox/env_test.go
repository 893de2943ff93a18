package sandbox

import "testing"

func TestGTKModules(t *testing.T) {
	for _, c := range []struct{ caller, want string }{
		{"", "gail:atk-bridge"},
		{"canberra-gtk-module", "canberra-gtk-module:gail:atk-bridge"},
		{"gail:atk-bridge", "gail:atk-bridge"},
		{"atk-bridge,foo", "atk-bridge:foo:gail"},
	} {
		if got := gtkModules(c.caller); got != c.want {
			t.Errorf("gtkModules(%q) = %q, want %q", c.caller, got, c.want)
		}
	}
}
