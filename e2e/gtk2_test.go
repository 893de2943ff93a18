//go:build linux

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
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
	d := testdesk.Shared(t) // X11 only: GIMP 2.10 is GTK 2, which has no Wayland backend
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
		titles := pidTitles(t, ctx, d, app.Pid)
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
	d := testdesk.Shared(t) // X11 only: GIMP 2.10 is GTK 2, which has no Wayland backend
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

// pidTitles lists the titles of pid's mapped top-level windows: X's, or
// on sway the views swaymsg reports.
func pidTitles(t testing.TB, ctx context.Context, d *testdesk.Desk, pid int) []string {
	if d.Sway != nil {
		var titles []string
		for _, v := range swayViews(t, d, pid) {
			titles = append(titles, v.title)
		}
		return titles
	}
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

// TestVisibleViewGTK2Menu: GTK 2 sets no SHOWING on an open menu's items,
// and answers a closed menu's items with the extents they had when it was
// last open. GIMP's visible view leaves File's items out while the menu
// is closed, shows them once it opens, inside the menu window the X server
// has mapped, and leaves them out again once it closes.
func TestVisibleViewGTK2Menu(t *testing.T) {
	d := testdesk.Shared(t) // X11 only: GIMP 2.10 is GTK 2, which has no Wayland backend
	app := gimp(t, d, true)
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	vis := visibleTree(t, s, sess)
	file := named(vis, "menu", "File")
	if file == nil {
		t.Fatal("no menu File in GIMP's visible view")
	}
	if e := named(vis, "menu item", "New..."); e != nil {
		t.Fatalf("the closed File menu's New... [%s] is in the visible view", e.Ref)
	}
	menuWindow := func(ctx context.Context) (platform.Rect, bool) {
		wins, err := d.X.AppWindows(ctx, app.Pid)
		if err != nil {
			return platform.Rect{}, false
		}
		for _, w := range wins {
			if w.Popup && w.Menu && w.Mapped {
				return w.Bounds, true
			}
		}
		return platform.Rect{}, false
	}
	for round := range 2 {
		s.ok(t, "click", map[string]any{"session": sess, "element": file.Ref})
		var popup platform.Rect
		until(t, "File's menu window mapped", func(ctx context.Context) (bool, string) {
			var ok bool
			popup, ok = menuWindow(ctx)
			return ok, "no menu window"
		})
		var items []*elem
		until(t, "File's items in the visible view", func(context.Context) (bool, string) {
			vis = visibleTree(t, s, sess)
			items = nil
			if f := named(vis, "menu", "File"); f != nil {
				items = f.Children
			}
			return named(vis, "menu item", "New...") != nil && named(vis, "menu item", "Quit") != nil, fmt.Sprintf("%d items", len(items))
		})
		for _, e := range items {
			if e.Bounds == nil || popup.Intersect(*e.Bounds) != *e.Bounds {
				t.Errorf("round %d: %s %q at %v, not inside the menu window at %+v", round, e.Role, e.Name, e.Bounds, popup)
			}
		}
		if named(vis, "menu item", "Undo") != nil {
			t.Errorf("round %d: the closed Edit menu's Undo is in the visible view", round)
		}
		s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Escape"})
		until(t, "File's menu window unmapped", func(ctx context.Context) (bool, string) {
			_, open := menuWindow(ctx)
			return !open, "still mapped"
		})
		// Closed, its items still answer their last extents: the view
		// leaves them out all the same.
		vis = visibleTree(t, s, sess)
		if e := named(vis, "menu item", "New..."); e != nil {
			t.Errorf("round %d: the closed File menu's New... [%s] is in the visible view at %v", round, e.Ref, e.Bounds)
		}
	}
}
