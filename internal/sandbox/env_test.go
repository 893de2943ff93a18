//go:build linux

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

func TestJavaOptions(t *testing.T) {
	const jar = "/usr/share/java/java-atk-wrapper.jar"
	const at = " -Djavax.accessibility.assistive_technologies=org.GNOME.Accessibility.AtkWrapper"
	for _, c := range []struct{ caller, jar, want string }{
		{"", jar, "-Xbootclasspath/a:" + jar + at},
		{"-Xmx1g", jar, "-Xmx1g -Xbootclasspath/a:" + jar + at},
		{"-Xmx1g", "", "-Xmx1g"},
		{"-Djavax.accessibility.assistive_technologies=x", jar, "-Djavax.accessibility.assistive_technologies=x"},
	} {
		if got := javaOptions(c.caller, c.jar); got != c.want {
			t.Errorf("javaOptions(%q, %q) = %q, want %q", c.caller, c.jar, got, c.want)
		}
	}
}
