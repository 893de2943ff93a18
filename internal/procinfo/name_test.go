//go:build linux

package procinfo

import "testing"

func TestScriptName(t *testing.T) {
	for _, c := range []struct {
		exe  string
		args []string
		want string
		ok   bool
	}{
		{"python3", []string{"python3", "app.py"}, "app.py", true},
		{"python3.11", []string{"/usr/bin/python3.11", "-u", "/tmp/x/app.py", "--title", "t"}, "app.py", true},
		{"python3", []string{"python3", "-W", "ignore", "app.py"}, "app.py", true},
		{"python3", []string{"python3", "-Wignore", "-X", "dev", "app.py"}, "app.py", true},
		{"python3", []string{"python3", "-m", "http.server"}, "http.server", true},
		{"python3", []string{"python3", "-c", "print(1)"}, "", false},
		{"python3", []string{"python3"}, "", false},
		{"java", []string{"java", "-cp", "/opt/apps/swing", "SwingNotes"}, "SwingNotes", true},
		{"java", []string{"java", "-Dx=y", "-classpath", "a.jar:b.jar", "-Xmx1g", "org.example.Main"}, "org.example.Main", true},
		{"java", []string{"java", "-jar", "/opt/app/tool.jar", "--file", "x"}, "tool.jar", true},
		{"java", []string{"java", "--module-path", "mods", "-m", "app/org.example.Main"}, "org.example.Main", true},
		{"java", []string{"java", "-cp", "/usr/share/java/x.jar", "SwingTable.java"}, "SwingTable.java", true},
		{"node", []string{"node", "-r", "ts-node/register", "server.js"}, "server.js", true},
		{"node", []string{"node", "-e", "1"}, "", false},
		{"perl", []string{"perl", "-w", "tool.pl"}, "tool.pl", true},
		{"ruby", []string{"ruby", "-I", "lib", "app.rb"}, "app.rb", true},
		{"bash", []string{"bash", "x.sh"}, "", false},
		{"javac", []string{"javac", "A.java"}, "", false},
	} {
		got, ok := scriptName(c.exe, c.args)
		if got != c.want || ok != c.ok {
			t.Errorf("scriptName(%q, %q) = %q, %v; want %q, %v", c.exe, c.args, got, ok, c.want, c.ok)
		}
	}
}
