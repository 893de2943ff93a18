//go:build linux

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/atspi"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// visibleTree reads the session's visible view as JSON, whole.
func visibleTree(t *testing.T, s *mcpServer, session string) *elem {
	t.Helper()
	out := s.ok(t, "get_a11y_tree", map[string]any{"session": session, "view": "visible", "format": "json", "maxBytes": 10000000})
	if out["truncated"] == true || out["cutBy"] != nil {
		t.Fatalf("visible view cut short: %v %v", out["truncatedReason"], out["cutBy"])
	}
	return decode[*elem](t, out["root"])
}

// appWindow is the app's mapped, managed window, as the X server (or
// swaymsg, on sway: the one view's content) has it now: what a screenshot
// of the app shows.
func appWindow(t testing.TB, ctx context.Context, d *testdesk.Desk, pid int) (platform.Window, bool) {
	if d.Sway != nil {
		views := swayViews(t, d, pid)
		if len(views) != 1 {
			return platform.Window{}, false
		}
		return platform.Window{Title: views[0].title, Bounds: views[0].content, Mapped: true}, true
	}
	wins, err := d.X.TopLevels(ctx)
	if err != nil {
		return platform.Window{}, false
	}
	for _, w := range wins {
		if w.Pid == pid && w.Mapped {
			return w, true
		}
	}
	return platform.Window{}, false
}

// onScreenIn checks the visible view against the window the X server
// shows: every element with bounds not empty meets it, and every leaf (an
// element the view keeps for itself, not as an ancestor) has bounds that
// do.
func onScreenIn(t *testing.T, root *elem, win platform.Rect) {
	t.Helper()
	root.walk(func(e, parent *elem) {
		if parent == nil {
			return
		}
		if e.Bounds != nil && !e.Bounds.Empty() && win.Intersect(*e.Bounds).Empty() {
			t.Errorf("visible view holds %s %q [%s] at %+v, outside the window at %+v", e.Role, e.Name, e.Ref, *e.Bounds, win)
		}
		if len(e.Children) == 0 && (e.Bounds == nil || e.Bounds.Empty()) {
			t.Errorf("visible view holds %s %q [%s] without bounds on screen (%v)", e.Role, e.Name, e.Ref, e.States)
		}
	})
}

func named(root *elem, role, name string) *elem {
	return root.find(func(e *elem) bool { return e.Role == role && e.Name == name })
}

// TestVisibleViewGedit: gedit's visible view against the window the X
// server shows it in: everything in it is on screen, the document's text
// view is there, and the items of its closed main menu (a popover, whose
// items the control view lists) are not; opened, the menu's items are in
// the view, inside the window; closed again, they are gone.
func TestVisibleViewGedit(t *testing.T) { testdesk.ForEach(t, testVisibleViewGedit) }

func testVisibleViewGedit(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, append(freshHome(t), "gedit", "--new-window")...)
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	win, ok := appWindow(t, context.Background(), d, app.Pid)
	if !ok {
		t.Fatal("gedit has no mapped window")
	}

	control := decode[*elem](t, s.ok(t, "get_a11y_tree", map[string]any{"session": sess, "view": "control", "format": "json", "maxBytes": 10000000})["root"])
	if named(control, "push button", "Save As…") == nil {
		t.Fatal("the control view has no Save As… (the closed menu's item this test expects the visible view to leave out)")
	}
	vis := visibleTree(t, s, sess)
	onScreenIn(t, vis, win.Bounds)
	if vis.find(func(e *elem) bool { return e.Role == "text" && e.has("editable") }) == nil {
		t.Error("the visible view has no editable text view (the document)")
	}
	if e := named(vis, "push button", "Save As…"); e != nil {
		t.Errorf("the visible view holds the closed menu's Save As… [%s]", e.Ref)
	}
	outline := func(view string) int {
		out := s.ok(t, "get_a11y_tree", map[string]any{"session": sess, "view": view})
		return len(out["outline"].(string))
	}
	t.Logf("outline bytes: control %d, visible %d", outline("control"), outline("visible"))

	// The main menu: the rightmost toggle button "Menu" in the header bar.
	var menu *elem
	vis.walk(func(e, _ *elem) {
		if e.Role == "toggle button" && e.Name == "Menu" && e.Bounds != nil && (menu == nil || e.Bounds.X > menu.Bounds.X) {
			menu = e
		}
	})
	if menu == nil {
		t.Fatal("no toggle button Menu in the visible view")
	}
	s.ok(t, "click", map[string]any{"session": sess, "element": menu.Ref})
	var item *elem
	until(t, "the open menu's Save As… in the visible view", func(context.Context) (bool, string) {
		vis = visibleTree(t, s, sess)
		item = named(vis, "push button", "Save As…")
		return item != nil, "not there"
	})
	onScreenIn(t, vis, win.Bounds)
	if item.Bounds == nil || item.Bounds.Intersect(win.Bounds) != *item.Bounds {
		t.Errorf("Save As… at %v, not inside the window at %+v", item.Bounds, win.Bounds)
	}
	s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Escape"})
	until(t, "the closed menu's items gone from the visible view", func(context.Context) (bool, string) {
		vis = visibleTree(t, s, sess)
		var left []string
		vis.walk(func(e, _ *elem) {
			if slices.Contains([]string{"Save As…", "Find…", "Preferences"}, e.Name) {
				left = append(left, fmt.Sprintf("%s %q", e.Role, e.Name))
			}
		})
		return len(left) == 0, fmt.Sprint(left)
	})
}

// TestElementKeysOnlyWhenAsked: the tree, find_elements, wait_for and
// hit_test give elements without their durable keys, and with them when
// fields asks; each key given is the element's own, as AT-SPI reads it.
func TestElementKeysOnlyWhenAsked(t *testing.T) { testdesk.ForEach(t, testElementKeysOnlyWhenAsked) }

func testElementKeysOnlyWhenAsked(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"))
	s := startMCP(t, d, "")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	submit := map[string]any{"session": sess, "name": "Submit", "nameMatch": "exact", "role": "push button"}
	with := func(args map[string]any, fields ...string) map[string]any {
		out := map[string]any{}
		for k, v := range args {
			out[k] = v
		}
		if fields != nil {
			out["fields"] = fields
		}
		return out
	}
	elements := func(tool string, args map[string]any) []*elem {
		out := s.ok(t, tool, args)
		if root, ok := out["root"]; ok {
			var all []*elem
			decode[*elem](t, root).walk(func(e, _ *elem) { all = append(all, e) })
			return all
		}
		if tool == "hit_test" {
			return append([]*elem{decode[*elem](t, out["element"])}, decode[[]*elem](t, out["ancestors"])...)
		}
		return decode[[]*elem](t, out["elements"])
	}
	b := findOne(t, s, sess, map[string]any{"name": "Submit", "nameMatch": "exact", "role": "push button"}).Bounds
	if b == nil {
		t.Fatal("Submit has no bounds")
	}
	tree := map[string]any{"session": sess, "format": "json", "maxBytes": 10000000}
	wait := with(submit)
	wait["until"] = "appears"
	hit := map[string]any{"session": sess, "x": b.X + b.Width/2, "y": b.Y + b.Height/2}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{{"get_a11y_tree", tree}, {"find_elements", submit}, {"wait_for", wait}, {"hit_test", hit}} {
		els := elements(c.tool, with(c.args))
		if len(els) == 0 {
			t.Fatalf("%s: no elements", c.tool)
		}
		for _, e := range els {
			if e.Key != "" {
				t.Errorf("%s without fields: %s %q has key %q", c.tool, e.Role, e.Name, e.Key)
			}
		}
		for _, e := range elements(c.tool, with(c.args, "key")) {
			if e.Role == "application" {
				continue
			}
			if e.Key == "" {
				t.Errorf("%s with fields [key]: %s %q has no key", c.tool, e.Role, e.Name)
				continue
			}
			if n, err := d.A11y.Element(context.Background(), e.Key, atspi.ElementOptions{}); err != nil || n.Node.Name != e.Name {
				t.Errorf("%s: key %s of %s %q reads back as %v (%v)", c.tool, e.Key, e.Role, e.Name, n, err)
			}
		}
	}
	s.fail(t, "find_elements", with(submit, "keys"), "invalidArgument")
}

// TestVisibleViewWriter: Writer's control outline is cut by its budget
// (its closed menus fill it) before the document's paragraphs; the
// visible view holds the document and its paragraphs within the default
// budget, uncut, and everything in it lies in the window the X server
// shows.
func TestVisibleViewWriter(t *testing.T) { testdesk.ForEach(t, testVisibleViewWriter) }

func testVisibleViewWriter(t *testing.T, d *testdesk.Desk) {
	app := launchWriter(t, d, []string{"A paragraph on screen, for the visible view.", "And a second one."})
	s := startMCP(t, d, "")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	var win platform.Rect
	until(t, "Writer's window mapped", func(ctx context.Context) (bool, string) {
		w, ok := appWindow(t, ctx, d, app.Pid)
		win = w.Bounds
		return ok, "no mapped window"
	})

	control := s.ok(t, "get_a11y_tree", map[string]any{"session": sess, "view": "control"})
	visible := s.ok(t, "get_a11y_tree", map[string]any{"session": sess, "view": "visible"})
	co, vo := control["outline"].(string), visible["outline"].(string)
	t.Logf("outline bytes: control %d (cut by %v), visible %d (cut by %v)", len(co), control["cutBy"], len(vo), visible["cutBy"])
	if control["cutBy"] == nil || strings.Contains(co, "paragraph [") {
		t.Errorf("the control outline (%d bytes, cut by %v) reaches the paragraphs: this test expects Writer's to be cut before them", len(co), control["cutBy"])
	}
	if visible["cutBy"] != nil || visible["omitted"] != float64(0) {
		t.Errorf("the visible outline is cut (%v, %v omitted)", visible["cutBy"], visible["omitted"])
	}
	if !strings.Contains(vo, "document text") || strings.Count(vo, "paragraph [") != 2 {
		t.Errorf("the visible outline lacks the document or its two paragraphs:\n%s", vo)
	}
	if strings.Contains(vo, `menu item "Paste Special"`) {
		t.Errorf("the visible outline holds a closed menu's item:\n%s", vo)
	}
	onScreenIn(t, visibleTree(t, s, sess), win)
}
