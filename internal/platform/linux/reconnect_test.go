//go:build linux

package linux

import (
	"context"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/testdesk"
)

func TestMain(m *testing.M) { testdesk.Main(m) }

// TestReconnecting: a desktop made before there is anything to connect to
// (a server started before the desktop) fails clearly, lists X-only
// applications once a display appears, and reads trees once the
// accessibility bus appears too, keeping its X connection meanwhile.
func TestReconnecting(t *testing.T) {
	d := testdesk.Shared(t)
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "reconnect gtk3")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// Nothing yet: no display, and a bus address that leads nowhere (it is
	// looked up first, so the sandbox's real bus is not found by accident).
	display := d.Display
	t.Setenv("DISPLAY", "")
	t.Setenv("AT_SPI_BUS_ADDRESS", "")
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("UISCOPE_A11Y_BUS", "unix:path="+t.TempDir()+"/no-bus-yet")
	desk := Reconnecting()
	defer desk.Close()
	if apps, err := desk.Apps(ctx); err == nil {
		t.Fatalf("Apps with no display and no bus: %d apps, want an error", len(apps))
	}

	// The display appears: windows, but no accessibility yet.
	t.Setenv("DISPLAY", display)
	find := func() platform.App {
		t.Helper()
		apps, err := desk.Apps(ctx)
		if err != nil {
			t.Fatalf("Apps: %v", err)
		}
		for _, a := range apps {
			if a.Pid == app.Pid {
				return a
			}
		}
		t.Fatalf("pid %d not listed among %d apps", app.Pid, len(apps))
		return platform.App{}
	}
	a := find()
	if a.Accessible || len(a.Windows) == 0 {
		t.Fatalf("with X only: accessible %v, %d windows; want an X-only app with its window", a.Accessible, len(a.Windows))
	}
	x := desk.X
	if _, _, err := desk.Tree(ctx, a, platform.TreeOptions{}); err == nil {
		t.Fatal("Tree with no accessibility bus succeeded")
	}

	// The bus appears: the same desktop value reads the tree.
	t.Setenv("UISCOPE_A11Y_BUS", d.A11yBus)
	a = find()
	if !a.Accessible {
		t.Fatal("the app is still not accessible after the bus appeared")
	}
	root, _, err := desk.Tree(ctx, a, platform.TreeOptions{})
	if err != nil || root == nil || len(root.Children) == 0 {
		t.Fatalf("Tree after the bus appeared: %v", err)
	}
	if desk.X != x {
		t.Error("the X connection was replaced while looking for the bus; calls in flight may have used it")
	}
	if owner, err := desk.Owner(ctx, a); err != nil || owner != app.Pid {
		t.Errorf("Owner = %d, %v; want %d", owner, err, app.Pid)
	}
}
