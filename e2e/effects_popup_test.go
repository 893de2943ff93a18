//go:build linux

package e2e

import (
	"context"
	"fmt"
	"testing"

	"github.com/jezek/xgb/xproto"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// TestEffectsGTK4Popover: a GTK 4.8 popover menu is a popup window of its
// own (override-redirect, _NET_WM_WINDOW_TYPE_MENU) and no top-level
// accessible: the click that opens it lists that window, as X has it, in
// effects.windowsOpened as an open menu, and the click on one of its items
// lists it in windowsClosed (the fixture says the item was chosen). On
// sway a popover is an xdg_popup, which sway's tree does not list: the
// answers claim no window, the focus says the menu took it, and its item
// is clicked by its action (swayPopover).
func TestEffectsGTK4Popover(t *testing.T) { testdesk.ForEach(t, testEffectsGTK4Popover) }

func testEffectsGTK4Popover(t *testing.T, d *testdesk.Desk) {
	type window struct {
		Window, Title, Role string
		Popup               bool
	}
	type effects struct {
		Effects struct{ WindowsOpened, WindowsClosed []window }
	}
	log := newFixtureLog(t)
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk4_dialogs.py"), "--title", "effects gtk4 popover", "--log", log.path)
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	if d.Sway != nil {
		mb := findOne(t, s, sess, map[string]any{"name": "Menu", "role": "push button"})
		item := swayPopover(t, d, s, sess, mb, "First item", func() { log.await(t, "menu-open", 1) })
		swayActs(t, s, sess, "click", item, "action")
		log.await(t, "chose Second item", 1)
		return
	}
	xc := xclient(t, d)
	mb := findOne(t, s, sess, map[string]any{"name": "Menu", "role": "push button"})
	opened := decode[effects](t, s.ok(t, "click", map[string]any{"session": sess, "element": mb.Ref}))
	log.await(t, "menu-open", 1)
	popup := popupWindow(t, d, xc, app.Pid)
	want := window{Window: fmt.Sprintf("%#x", uint32(popup.id)), Role: "menu", Popup: true}
	if len(opened.Effects.WindowsOpened) != 1 || opened.Effects.WindowsOpened[0] != want {
		t.Errorf("click Menu: effects.windowsOpened %+v; X has the popover's window %#x, want %+v", opened.Effects.WindowsOpened, popup.id, want)
	}
	// (GTK 4 gives windows alone the showing state.)
	var item elem
	until(t, "the menu's items", func(context.Context) (bool, string) {
		out := s.ok(t, "find_elements", map[string]any{"session": sess, "name": "Second item", "role": "menu item"})
		els := decode[[]elem](t, out["elements"])
		if len(els) == 0 || els[0].Bounds == nil {
			return false, fmt.Sprint(out["elements"])
		}
		item = els[0]
		return true, ""
	})
	chose := decode[effects](t, s.ok(t, "click", map[string]any{"session": sess, "element": item.Ref}))
	log.await(t, "chose Second item", 1)
	if len(chose.Effects.WindowsClosed) != 1 || chose.Effects.WindowsClosed[0] != want || len(chose.Effects.WindowsOpened) != 0 {
		t.Errorf("click Second item: effects %+v; want the popover %+v closed", chose.Effects, want)
	}
}

// TestEffectsTextEditorMainMenu: GNOME Text Editor 43's main menu (a GTK
// 4.8 popover menu) opened by a click is listed in windowsOpened as the
// popup X has, and Escape lists it in windowsClosed once X has it gone.
// On sway (no popups in its tree) the answers claim no window, and the
// menu button's own expanded state, read by the test, shows the menu
// open and closed again.
func TestEffectsTextEditorMainMenu(t *testing.T) {
	testdesk.ForEach(t, testEffectsTextEditorMainMenu)
}

func testEffectsTextEditorMainMenu(t *testing.T, d *testdesk.Desk) {
	type window struct {
		Window, Title, Role string
		Popup               bool
	}
	type effects struct {
		Effects struct{ WindowsOpened, WindowsClosed []window }
	}
	app := d.Launch(t, append(freshHome(t), "gnome-text-editor", "--standalone")...)
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	if d.Sway != nil {
		menu := findOne(t, s, sess, map[string]any{"name": "Menu", "nameMatch": "exact", "role": "push button", "states": []string{"focusable"}})
		swayPopover(t, d, s, sess, menu, "", nil)
		swayActs(t, s, sess, "press_key", map[string]any{"keys": "Escape"}, "keyboard")
		outer := findKeyed(t, s, sess, map[string]any{"name": "Menu", "nameMatch": "exact", "role": "push button"})
		until(t, "the menu button no longer expanded, read by the test", func(ctx context.Context) (bool, string) {
			st := liveStates(ctx, d, outer.Key)
			return !st.Has(platform.StateExpanded), fmt.Sprint(st.Names())
		})
		return
	}
	xc := xclient(t, d)
	// The header bar's menu button: a GtkMenuButton named Menu holding
	// the button that takes the click.
	menu := findOne(t, s, sess, map[string]any{"name": "Menu", "nameMatch": "exact", "role": "push button", "states": []string{"focusable"}})
	opened := decode[effects](t, s.ok(t, "click", map[string]any{"session": sess, "element": menu.Ref}))
	popup := popupWindow(t, d, xc, app.Pid)
	want := window{Window: fmt.Sprintf("%#x", uint32(popup.id)), Role: "menu", Popup: true}
	if len(opened.Effects.WindowsOpened) != 1 || opened.Effects.WindowsOpened[0] != want {
		t.Errorf("click Menu: effects.windowsOpened %+v; X has the menu's window %#x, want %+v", opened.Effects.WindowsOpened, popup.id, want)
	}
	closed := decode[effects](t, s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Escape"}))
	until(t, "the menu's window unmapped", func(context.Context) (bool, string) {
		a, err := xproto.GetWindowAttributes(xc, popup.id).Reply()
		return err != nil || a.MapState != xproto.MapStateViewable, fmt.Sprintf("%+v", a)
	})
	if len(closed.Effects.WindowsClosed) != 1 || closed.Effects.WindowsClosed[0] != want {
		t.Errorf("Escape: effects %+v; want the menu %+v closed", closed.Effects, want)
	}
}

// swayPopover clicks a menu button (btn) on sway and checks that the
// answer claims no window (sway's tree lists no popup), that the menu
// button (the first push button of btn's name: GTK 4's menu button, which
// holds the button btn may be) is expanded, read by the test's own
// AT-SPI reader, and, when first is set, that effects.focus names the
// menu's first item, which took the focus; opened waits for the app's own
// word that the menu opened. It returns the menu's "Second item", once
// the session sees it, as a click's arguments (when first is set).
func swayPopover(t *testing.T, d *testdesk.Desk, s *mcpServer, sess string, btn elem, first string, opened func()) map[string]any {
	t.Helper()
	outer := findKeyed(t, s, sess, map[string]any{"name": btn.Name, "nameMatch": "exact", "role": "push button"})
	a := acted(t, "click "+btn.Name, s.ok(t, "click", map[string]any{"session": sess, "element": btn.Ref}))
	if opened != nil {
		opened()
	}
	until(t, "the menu button expanded, read by the test", func(ctx context.Context) (bool, string) {
		st := liveStates(ctx, d, outer.Key)
		return st.Has(platform.StateExpanded), fmt.Sprint(st.Names())
	})
	if len(a.Effects.WindowsOpened) != 0 || len(a.Effects.WindowsClosed) != 0 {
		t.Errorf("click %s on sway: effects %+v; sway's tree has no popup to list", btn.Name, *a.Effects)
	}
	if first == "" {
		return nil
	}
	if f := a.Effects.Focus; f == nil || f.Name != first || f.Role != "menu item" {
		t.Errorf("click %s: effects.focus %+v; want the menu item %q, which took the focus", btn.Name, f, first)
	}
	var item elem
	until(t, "the menu's items", func(context.Context) (bool, string) {
		out := s.ok(t, "find_elements", map[string]any{"session": sess, "name": "Second item", "role": "menu item"})
		els := decode[[]elem](t, out["elements"])
		if len(els) == 0 {
			return false, fmt.Sprint(out["elements"])
		}
		item = els[0]
		return true, ""
	})
	// Not placed: a popup's place is not sway's to say (bounds unknown,
	// never the main window's).
	if item.Bounds != nil {
		t.Errorf("the popover's item has bounds %+v on sway, which does not say where popups are", *item.Bounds)
	}
	return map[string]any{"element": item.Ref}
}

// swayActs calls an acting tool on sway and checks that it answered by
// method and claims no window opened or closed.
func swayActs(t *testing.T, s *mcpServer, sess, tool string, args map[string]any, method string) {
	t.Helper()
	args["session"] = sess
	out := s.ok(t, tool, args)
	a := acted(t, tool, out)
	if out["method"] != method || len(a.Effects.WindowsOpened) != 0 || len(a.Effects.WindowsClosed) != 0 {
		t.Errorf("%s %v on sway: method %v, effects %+v; want method %s and no window", tool, args, out["method"], *a.Effects, method)
	}
}
