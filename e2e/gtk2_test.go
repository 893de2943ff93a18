//go:build linux

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// gimp starts GIMP 2.10 (GTK 2) with a fresh home and extra environment.
func gimp(t *testing.T, d *testdesk.Desk, accessible bool, env ...string) *testdesk.App {
	t.Helper()
	argv := append(freshHome(t), env...)
	argv = append(argv, "gimp", "--new-instance", "--no-splash", "--no-data", "--no-fonts")
	if !accessible {
		return d.LaunchX(t, argv...)
	}
	return d.Launch(t, argv...)
}

// TestGTK2GIMP: GIMP 2.10 is a GTK 2 app, accessible only with the gail
// and atk-bridge modules, which the sandbox gives every app it starts.
// Through MCP: its menus are in the tree, File ▸ New… opens its dialog,
// and the dialog's OK makes an image, as the window's X title says.
func TestGTK2GIMP(t *testing.T) {
	d := testdesk.Shared(t)
	app := gimp(t, d, true)
	s := startMCP(t, d, "", "--allow-input")
	defer s.logCost(t, "gimp")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	gimpNewImage(t, d, s, sess, app)
}

// gimpNewImage makes an image through GIMP's own File ▸ New… dialog and its
// OK, and waits for the window's X title to say so.
func gimpNewImage(t *testing.T, d *testdesk.Desk, s *mcpServer, sess string, app *testdesk.App) {
	t.Helper()
	item := findOne(t, s, sess, map[string]any{"name": "New...", "nameMatch": "exact", "role": "menu item"})
	s.ok(t, "invoke", map[string]any{"session": sess, "element": item.Ref})
	dialog := appears(t, s, sess, "the New Image dialog", map[string]any{"name": "Create a New Image", "nameMatch": "exact"})
	ok := findOne(t, s, sess, map[string]any{"within": dialog.Ref, "name": "OK", "nameMatch": "exact", "role": "push button"})
	s.ok(t, "click", map[string]any{"session": sess, "element": ok.Ref})
	until(t, "GIMP's window shows a new image", func(ctx context.Context) (bool, string) {
		titles := pidTitles(ctx, d, app.Pid)
		for _, title := range titles {
			if strings.Contains(title, "Untitled") {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%q", titles)
	})
}

// TestGTK2NotAccessibleSaysWhy: a GTK 2 app started without its
// accessibility modules is refused with what to do, in words an agent can
// act on (it has no terminal for 'uiscope doctor').
func TestGTK2NotAccessibleSaysWhy(t *testing.T) {
	d := testdesk.Shared(t)
	app := gimp(t, d, false, "GTK_MODULES=")
	s := startMCP(t, d, "")
	out := s.fail(t, "connect", map[string]any{"pid": app.Pid}, "notAccessible")
	msg, _ := out["error"].(string)
	for _, want := range []string{"GTK 2", "GTK_MODULES=gail:atk-bridge", `mode "visual"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("connect's refusal does not say %q: %q", want, msg)
		}
	}
	// The visual tree it points to works.
	s.connect(t, map[string]any{"pid": app.Pid, "mode": "visual"})
}

// pidTitles lists the titles of pid's mapped top-level X windows.
func pidTitles(ctx context.Context, d *testdesk.Desk, pid int) []string {
	wins, err := d.X.TopLevels(ctx)
	if err != nil {
		return []string{err.Error()}
	}
	var titles []string
	for _, w := range wins {
		if w.Pid == pid && w.Mapped {
			titles = append(titles, w.Title)
		}
	}
	return titles
}
