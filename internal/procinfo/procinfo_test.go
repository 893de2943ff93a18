//go:build linux

package procinfo

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestIdentity(t *testing.T) {
	me, err := Lookup(os.Getpid())
	if err != nil || !me.Alive() || me.StartTime == 0 {
		t.Fatalf("Lookup(self) = %+v, %v", me, err)
	}
	if (Identity{Pid: me.Pid, StartTime: me.StartTime + 1}).Alive() {
		t.Error("a different start time counts as the same process")
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	child, err := Lookup(cmd.Process.Pid)
	if err != nil || !child.Alive() {
		t.Fatalf("child: %+v %v", child, err)
	}
	cmd.Process.Kill()
	// Not reaped yet: a zombie, which must count as dead.
	deadline := time.Now().Add(10 * time.Second)
	for child.Alive() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if child.Alive() {
		t.Error("a killed (zombie) child counts as alive")
	}
	cmd.Wait()
	if _, err := Lookup(-1); err == nil {
		t.Error("Lookup(-1) succeeded")
	}
}

func TestFrameworksFromMaps(t *testing.T) {
	maps := strings.Join([]string{
		"7f00-7f01 r-xp 00000000 08:01 1 /usr/lib/x86_64-linux-gnu/libgtk-4.so.1.800.3",
		"7f00-7f01 r-xp 00000000 08:01 1 /usr/lib/x86_64-linux-gnu/libgtk-3.so.0.2406.32",
		"7f00-7f01 r-xp 00000000 08:01 1 /usr/lib/x86_64-linux-gnu/libQt5Gui.so.5.15.8",
		"7f00-7f01 r-xp 00000000 08:01 1 /usr/lib/x86_64-linux-gnu/libtk8.6.so",
		"7f00-7f01 r-xp 00000000 08:01 1 /usr/lib/jvm/lib/server/libjvm.so",
		"7f00-7f01 r-xp 00000000 08:01 1 /usr/lib/x86_64-linux-gnu/libwx_gtk3u_core-3.2.so.0.2.0",
		"7f00-7f01 r-xp 00000000 08:01 1 /opt/app/lib/libflutter_linux_gtk.so",
		"7f00-7f01 rw-p 00000000 00:00 0 [heap]",
	}, "\n")
	fws, err := frameworks(strings.NewReader(maps), "/opt/app/electron", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range fws {
		got[f.Name] = f.Version
	}
	want := map[string]string{"GTK 4": "4.8.3", "GTK 3": "3.24", "Qt 5": "5.15.8", "Tk": "8.6",
		"Java": "", "wxWidgets": "3.2", "Flutter": "", "Electron": ""}
	for name, v := range want {
		if gv, ok := got[name]; !ok || gv != v {
			t.Errorf("%s: got %q (present %v), want %q", name, gv, ok, v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %v, want exactly %v", got, want)
	}
}
