//go:build linux

package e2e

import (
	"context"
	"fmt"
	"testing"

	"github.com/jezek/xgb/xproto"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// TestEffectsGTK4Popover: a GTK 4.8 popover menu is a popup window of its
// own (override-redirect, _NET_WM_WINDOW_TYPE_MENU) and no top-level
// accessible: the click that opens it lists that window, as X has it, in
// effects.windowsOpened as an open menu, and the click on one of its items
// lists it in windowsClosed (the fixture says the item was chosen).
func TestEffectsGTK4Popover(t *testing.T) {
	type window struct {
		Window, Title, Role string
		Popup               bool
	}
	type effects struct {
		Effects struct{ WindowsOpened, WindowsClosed []window }
	}
	d := testdesk.Shared(t)
	xc := xclient(t, d)
	log := newFixtureLog(t)
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk4_dialogs.py"), "--title", "effects gtk4 popover", "--log", log.path)
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
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
func TestEffectsTextEditorMainMenu(t *testing.T) {
	type window struct {
		Window, Title, Role string
		Popup               bool
	}
	type effects struct {
		Effects struct{ WindowsOpened, WindowsClosed []window }
	}
	d := testdesk.Shared(t)
	xc := xclient(t, d)
	app := d.Launch(t, append(freshHome(t), "gnome-text-editor", "--standalone")...)
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
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
