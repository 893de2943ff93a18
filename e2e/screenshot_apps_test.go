//go:build linux

package e2e

import (
	"context"
	"fmt"
	"image"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// Screenshots on the apps where the user sees something other than the
// main window: a menu popped up by the menu bar, a question a save asks.
// The oracle is X, on the test's own connection: which of the app's
// windows is mapped where (xdotool, GetWindowAttributes) and what the
// screen shows there (a root-window capture).

// popupWindow waits for the one viewable override-redirect window of pid
// larger than a tooltip (a menu the app popped up) and reads where it is.
func popupWindow(t *testing.T, d *testdesk.Desk, xc *xgb.Conn, pid int) xWin {
	t.Helper()
	var w xWin
	until(t, "the app's popup window", func(context.Context) (bool, string) {
		cmd := exec.Command("xdotool", "search", "--all", "--onlyvisible", "--pid", strconv.Itoa(pid), "--name", "")
		cmd.Env = d.Env()
		out, _ := cmd.Output()
		var found []xWin
		for _, f := range strings.Fields(string(out)) {
			id, _ := strconv.ParseUint(f, 10, 32)
			a, err := xproto.GetWindowAttributes(xc, xproto.Window(id)).Reply()
			if err != nil || !a.OverrideRedirect || a.MapState != xproto.MapStateViewable {
				continue
			}
			if r := xRect(t, xc, xproto.Window(id)); r.Width > 40 && r.Height > 40 {
				found = append(found, xWin{id: xproto.Window(id), rect: r})
			}
		}
		if len(found) != 1 {
			return false, fmt.Sprintf("%d popups: %v (xdotool: %q)", len(found), found, out)
		}
		w = found[0]
		return true, ""
	})
	return w
}

// openedMenu checks that an action's effects list popup, an open menu,
// among the windows it opened: the id an agent captures it by.
func openedMenu(t *testing.T, what string, out map[string]any, popup xWin) {
	t.Helper()
	r := decode[struct {
		Effects struct {
			WindowsOpened []struct {
				Window, Role string
				Popup        bool
			}
		}
	}](t, out)
	for _, w := range r.Effects.WindowsOpened {
		if w.Window == fmt.Sprintf("%#x", uint32(popup.id)) && w.Popup && w.Role == "menu" {
			return
		}
	}
	t.Errorf("%s: effects.windowsOpened %+v does not name the menu's window %#x", what, r.Effects.WindowsOpened, popup.id)
}

// showingItem waits until a find for args (a role and name) gives a
// showing element with bounds, and returns the first.
func showingItem(t *testing.T, s *mcpServer, sess string, args map[string]any) elem {
	t.Helper()
	var item elem
	until(t, fmt.Sprintf("a showing %v", args), func(context.Context) (bool, string) {
		a := map[string]any{"session": sess, "states": []string{"showing"}}
		for k, v := range args {
			a[k] = v
		}
		out := s.ok(t, "find_elements", a)
		els := decode[[]elem](t, out["elements"])
		if len(els) == 0 || els[0].Bounds == nil {
			return false, fmt.Sprint(out["elements"])
		}
		item = els[0]
		return true, ""
	})
	return item
}

// checkMarksInside checks an annotated capture of window (its id as
// uiscope names it: X's %#x or sway:N): it is that window's, it marks
// the names in must, and every mark lies inside the image and is one that
// want accepts, never one of the names of the window behind (notBehind).
func checkMarksInside(t *testing.T, what string, out map[string]any, window string, must []string, want func(role, name string) bool, notBehind map[string]bool) {
	t.Helper()
	if out["ok"] != true {
		t.Fatalf("%s: %v", what, out)
	}
	shot := decode[shotResult](t, out)
	if shot.Window != window {
		t.Errorf("%s: captured window %s, the desktop has the window as %s", what, shot.Window, window)
	}
	img := platform.Rect{Width: shot.Width, Height: shot.Height}
	marked := map[string]bool{}
	for _, a := range shot.Annotations {
		marked[a.Name] = true
		box := platform.Rect{X: a.Box.X, Y: a.Box.Y, Width: a.Box.Width, Height: a.Box.Height}
		if box.X < 0 || box.Y < 0 || box.X+box.Width > img.Width || box.Y+box.Height > img.Height {
			t.Errorf("%s: mark %d (%s %q) at %v reaches outside the %dx%d image", what, a.Label, a.Role, a.Name, box, img.Width, img.Height)
		}
		if notBehind[a.Name] || !want(a.Role, a.Name) {
			t.Errorf("%s: marks %s %q, which the window does not show", what, a.Role, a.Name)
		}
	}
	for _, name := range must {
		if !marked[name] {
			t.Errorf("%s: %q is not marked: %+v", what, name, shot.Annotations)
		}
	}
}

// TestScreenshotKWriteFileMenu: KWrite 22.12's File menu (Qt 5: a popup,
// an override-redirect window of its own) is what a screenshot of one of
// its items captures, as the screen shows it, and only the menu's entries
// are marked; before, the main window behind it. The click that opens the
// menu names its window in its effects.
//
// On sway the menu is an xdg_popup, drawn with the main window's view and
// listed nowhere in sway's tree: its items are placed by that view (Qt
// reports them relative to it), checked against the menu's pixels in
// grim's captures, and a screenshot of an item or of the window shows
// the menu as the screen does, marking its entries.
func TestScreenshotKWriteFileMenu(t *testing.T) { testdesk.ForEach(t, testScreenshotKWriteFileMenu) }

func testScreenshotKWriteFileMenu(t *testing.T, d *testdesk.Desk) {
	if d.Sway != nil {
		kwriteFileMenuSway(t, d)
		return
	}
	xc := xclient(t, d)
	app := d.Launch(t, append(freshHome(t), "kwrite")...)
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	// A fresh KWrite shows its welcome page: a new document first, whose
	// File menu has its save entries.
	s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Ctrl+N"})
	s.ok(t, "wait_for", map[string]any{"session": sess, "role": "text", "states": []string{"editable", "focused"},
		"until": "appears", "timeoutMs": 30000})
	bar := findOne(t, s, sess, map[string]any{"role": "menu bar"})
	file := findOne(t, s, sess, map[string]any{"within": bar.Ref, "name": "File", "nameMatch": "exact", "role": "menu item"})
	opened := s.ok(t, "click", map[string]any{"session": sess, "element": file.Ref})
	item := showingItem(t, s, sess, map[string]any{"name": "Save As...", "nameMatch": "exact", "role": "menu item"})
	popup := popupWindow(t, d, xc, app.Pid)
	openedMenu(t, "click File", opened, popup)
	if x, y := centre(*item.Bounds); !popup.rect.Contains(x, y) {
		t.Errorf("Save As... at %v, but X has the menu at %v", *item.Bounds, popup.rect)
	}

	out, img, _ := s.screenshot(t, map[string]any{"session": sess, "element": item.Ref, "annotate": false})
	checkShot(t, xc, "KWrite's Save As... menu item", out, img, popup.id)
	// The menu's window, annotated: the menu's entries are marked, none
	// of the menu bar's or the document's behind it.
	out, img, _ = s.screenshot(t, map[string]any{"session": sess, "window": fmt.Sprintf("%#x", uint32(popup.id))})
	checkShotWindow(t, out, img, popup)
	checkMarksInside(t, "KWrite's File menu, annotated", out, fmt.Sprintf("%#x", uint32(popup.id)), []string{"Save As...", "Save", "Open..."},
		func(role, name string) bool { return strings.HasPrefix(role, "menu") || role == "separator" },
		map[string]bool{"Edit": true, "View": true, "Settings": true, "Help": true})
	s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Escape"})
}

// kwriteFileMenuSway is TestScreenshotKWriteFileMenu on sway.
func kwriteFileMenuSway(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, append(freshHome(t), "kwrite")...)
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Ctrl+N"})
	s.ok(t, "wait_for", map[string]any{"session": sess, "role": "text", "states": []string{"editable", "focused"},
		"until": "appears", "timeoutMs": 30000})
	view := oneView(t, d, app.Pid)
	bar := findOne(t, s, sess, map[string]any{"role": "menu bar"})
	file := findOne(t, s, sess, map[string]any{"within": bar.Ref, "name": "File", "nameMatch": "exact", "role": "menu item"})
	// The pointer on File first, where the click puts it: headless sway
	// draws the cursor into the screen grim reads, so a cursor left below
	// the menu bar by an earlier test and moved by the click would count
	// as the menu's pixels.
	swayCursorAt(t, d, file.Bounds.X+file.Bounds.Width/2, file.Bounds.Y+file.Bounds.Height/2)
	before := asRGBA(grimRegion(t, d, view.content))
	s.ok(t, "click", map[string]any{"session": sess, "element": file.Ref})
	item := showingItem(t, s, sess, map[string]any{"name": "Save As...", "nameMatch": "exact", "role": "menu item"})
	// The menu on the screen: what changed below the menu bar since.
	var menu image.Rectangle
	until(t, "the menu drawn", func(context.Context) (bool, string) {
		after := asRGBA(grimRegion(t, d, view.content))
		below := image.Rect(0, file.Bounds.Y+file.Bounds.Height-view.content.Y, view.content.Width, view.content.Height)
		menu = differ(before.SubImage(below).(*image.RGBA), after.SubImage(below).(*image.RGBA)).Add(image.Pt(view.content.X, view.content.Y))
		return menu.Dx() > 100 && menu.Dy() > 100, fmt.Sprint(menu)
	})
	b := *item.Bounds
	if !image.Rect(b.X, b.Y, b.X+b.Width, b.Y+b.Height).In(menu.Inset(-2)) || b.Width < menu.Dx()-20 {
		t.Errorf("Save As... at %+v, but the menu's pixels are at %v", b, menu)
	}
	want := fmt.Sprintf("sway:%d", view.con)
	out, img, _ := s.screenshot(t, map[string]any{"session": sess, "element": item.Ref, "annotate": false})
	if shot := decode[shotResult](t, out); out["ok"] != true || shot.Window != want {
		t.Fatalf("screenshot of Save As...: %v, want it in %s", out, want)
	} else if share := sameShare(img, screenCapture(t, d, platform.Rect(shot.Bounds))); share < 0.97 {
		t.Errorf("Save As... captured: only %.1f%% of its pixels are what grim shows at %+v", 100*share, shot.Bounds)
	}
	// The window, annotated: the menu's entries are marked where the
	// menu is.
	out, _, _ = s.screenshot(t, map[string]any{"session": sess})
	shot := decode[shotResult](t, out)
	marked := map[string]bool{}
	for _, a := range shot.Annotations {
		if !strings.HasPrefix(a.Role, "menu") || a.Role == "menu bar" {
			continue
		}
		marked[a.Name] = true
		at := image.Rect(a.Box.X, a.Box.Y, a.Box.X+a.Box.Width, a.Box.Y+a.Box.Height).Add(image.Pt(shot.Bounds.X, shot.Bounds.Y))
		if a.Name == "Save As..." || a.Name == "Open..." {
			if !at.In(menu.Inset(-2)) {
				t.Errorf("mark %d (%s %q) at %v, outside the menu's pixels %v", a.Label, a.Role, a.Name, at, menu)
			}
		}
	}
	for _, name := range []string{"Save As...", "Save", "Open..."} {
		if !marked[name] {
			t.Errorf("%q is not marked: %+v", name, shot.Annotations)
		}
	}
	s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Escape"})
}

// TestScreenshotGIMPImageMenu: GIMP 2.10's Image menu (GTK 2: a popup,
// an override-redirect window) is what the screenshots of it capture, as
// the screen shows it: in a visual session a window inside the popup
// (visual:eN), and in an a11y session the popup by its window id, which
// the press that opened it names in its effects; before, the main window.
// gail reports the popup's items visible but never showing (it takes the
// state off unless the menu is selected, a state its GetState never
// gives), so they have no bounds in the a11y tree: a screenshot of one
// alone is refused, never made of another window's pixels.
func TestScreenshotGIMPImageMenu(t *testing.T) {
	d := testdesk.Shared(t) // X11 only: GIMP 2.10 is GTK 2, which has no Wayland backend
	xc := xclient(t, d)
	app := gimp(t, d, true)
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	// An image first (File ▸ New… ▸ OK), so that the Image menu's entries
	// are enabled.
	gimpNewImage(t, d, s, sess, app)

	// The Image menu opened as a user opens it, by a press and a release
	// on it (gail's click action on a menu bar's menu posts the menu and
	// takes it down again).
	bar := findOne(t, s, sess, map[string]any{"role": "menu bar"})
	image := findOne(t, s, sess, map[string]any{"within": bar.Ref, "name": "Image", "nameMatch": "exact", "role": "menu"})
	opened := s.ok(t, "press", map[string]any{"session": sess, "element": image.Ref})
	s.ok(t, "release", map[string]any{"session": sess})
	popup := popupWindow(t, d, xc, app.Pid)
	openedMenu(t, "press on Image", opened, popup)
	out, img, _ := s.screenshot(t, map[string]any{"session": sess, "window": fmt.Sprintf("%#x", uint32(popup.id)), "annotate": false})
	checkShotWindow(t, out, img, popup)
	checkShot(t, xc, "GIMP's Image menu by its window", out, img, popup.id)
	item := findOne(t, s, sess, map[string]any{"within": image.Ref, "name": "Canvas Size...", "nameMatch": "exact", "role": "menu item"})
	if item.Bounds == nil {
		s.fail(t, "screenshot", map[string]any{"session": sess, "element": item.Ref}, "notSupported")
	} else {
		out, img, _ = s.screenshot(t, map[string]any{"session": sess, "element": item.Ref, "annotate": false})
		checkShot(t, xc, "GIMP's Canvas Size... menu item", out, img, popup.id)
	}

	// A visual session: the window at the menu's middle, as X has it (the
	// menu's own window, inside its popup).
	vis := s.connect(t, map[string]any{"pid": app.Pid, "mode": "visual"})
	x, y := popup.rect.X+popup.rect.Width/2, popup.rect.Y+popup.rect.Height/2
	hit := s.ok(t, "hit_test", map[string]any{"session": vis, "x": x, "y": y})
	entry, _ := hit["element"].(map[string]any)
	ref, _ := entry["ref"].(string)
	if !strings.HasPrefix(ref, "visual:") || entry["window"] == fmt.Sprintf("%#x", uint32(popup.id)) {
		t.Fatalf("hit_test in the Image menu (%d,%d) in a visual session: %v, want a window inside the popup %#x", x, y, hit, popup.id)
	}
	out, img, _ = s.screenshot(t, map[string]any{"session": vis, "element": ref, "annotate": false})
	checkShot(t, xc, fmt.Sprintf("the visual window %s (%v) in the Image menu", ref, entry["bounds"]), out, img, popup.id)
	s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Escape"})
}

// TestScreenshotWriterKeepFormat: LibreOffice Writer 7.4 saves a document as .txt
// through its Save As dialog; its "Keep current format" question (an
// alert named "Question", X title "Confirm File Format") is what a
// screenshot of one of its buttons captures, as the screen shows it, and
// screenshot {window} of it marks its own controls only. "Use Text
// Format" then writes the paragraphs to the file, read byte for byte.
//
// On sway Writer is a Wayland client (VCL's gtk3 plugin, the one it picks
// there) and the question is a view of its own (swaymsg lists it, titled
// "Confirm File Format"): the button and the alert are captured there as
// grim shows them, the view by its sway:N id, with its marks inside.
//
// The pointer is first put on the document's page, where a typing user's
// rests. Over a toolbar button (a fresh sandbox's cursor is over one)
// Writer 7.4 shows that button's tooltip on the pointer's activity and
// again as a modal dialog goes, a GTK 3 xdg_popup on the main window;
// sway 1.7 dismisses it when a dialog's view takes the focus, wlroots
// 0.15.1 drops its xdg_surface's role that moment, and GTK's ack of the
// configure it had just been sent is answered with a protocol error
// ("xdg_surface must have a role"): GDK prints "Error 71 (Protocol error)
// dispatching to Wayland display" and soffice.bin (the pid the session
// has, no oosplash) exits with status 1, which uiscope rightly reports as
// ownershipLost. That ended 4 runs of 18 while each new virtual pointer
// released buttons 1 to 3 (activity Writer took for the pointer's: its
// tooltip came 0.5 s later); since, a cursor over the button passed 10
// runs, the tooltip still back at the question (opened there after the
// question took the focus, in the 4 runs WAYLAND_DEBUG=1 showed), and
// with the pointer on the page no tooltip opened.
func TestScreenshotWriterKeepFormat(t *testing.T) {
	testdesk.ForEach(t, testScreenshotWriterKeepFormat)
}

func testScreenshotWriterKeepFormat(t *testing.T, d *testdesk.Desk) {
	paras := []string{"The first paragraph, saved as text.", "And the second one."}
	app := launchWriter(t, d, paras)
	if d.Sway != nil {
		// The pointer on the page, off the toolbar (see above).
		main := oneView(t, d, app.Pid)
		swayCursorAt(t, d, main.content.X+main.content.Width/2, main.content.Y+main.content.Height/2)
	}
	s := startMCP(t, d, "", "--allow-input")
	defer s.logCost(t, "Writer: Save As .txt, Keep current format")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	path := filepath.Join(t.TempDir(), "saved.txt")
	s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Ctrl+Shift+S"})
	saveAsIn(t, s, sess, "Save", path)
	alert := appears(t, s, sess, "the question", map[string]any{"role": "alert", "name": "Question", "nameMatch": "exact"})
	use := findOne(t, s, sess, map[string]any{"within": alert.Ref, "name": "Use Text Format", "nameMatch": "exact", "role": "push button"})
	// (A mark's name is cut at 40 characters.)
	inAlert := map[string]bool{"Use Text Format": true, "Use ODF Format": true, "Ask when not saving in ODF or default f…": true}
	const title = "Confirm File Format"
	if d.Sway != nil {
		view := swayViewTitled(t, d, app.Pid, title)
		id := fmt.Sprintf("sway:%d", view.con)
		for _, c := range []struct{ what, ref string }{{"the question's Use Text Format button", use.Ref}, {"the question", alert.Ref}} {
			out, img, _ := s.screenshot(t, map[string]any{"session": sess, "element": c.ref, "annotate": false})
			shot := decode[shotResult](t, out)
			if out["ok"] != true || shot.Window != id {
				t.Fatalf("%s: %v, want it captured in the question's view %s", c.what, out, id)
			}
			if share := sameShare(img, screenCapture(t, d, platform.Rect(shot.Bounds))); share < 0.97 {
				t.Errorf("%s: only %.1f%% of its pixels are what grim shows at %+v", c.what, 100*share, shot.Bounds)
			}
		}
		out, img, _ := s.screenshot(t, map[string]any{"session": sess, "window": id})
		shot := decode[shotResult](t, out)
		if out["ok"] != true || platform.Rect(shot.Bounds) != view.content || img.Rect.Dx() != view.content.Width || img.Rect.Dy() != view.content.Height {
			t.Errorf("screenshot of window %s: %v (image %v), sway has it at %+v", id, out, img.Rect, view.content)
		}
		checkMarksInside(t, "the question, annotated", out, id, []string{"Use Text Format", "Use ODF Format"},
			func(_, name string) bool { return inAlert[name] }, nil)
		s.ok(t, "click", map[string]any{"session": sess, "element": use.Ref})
		// Writer's text export: UTF-8 with a byte order mark, each
		// paragraph and a line feed.
		fileHolds(t, path, "\ufeff"+strings.Join(paras, "\n")+"\n")
		swayViewGone(t, d, app.Pid, title)
		return
	}
	xc := xclient(t, d)
	dlg := findXWindow(t, d, xc, app.Pid, title)
	out, img, _ := s.screenshot(t, map[string]any{"session": sess, "element": use.Ref, "annotate": false})
	checkShot(t, xc, "the question's Use Text Format button", out, img, dlg.id)
	out, img, _ = s.screenshot(t, map[string]any{"session": sess, "element": alert.Ref, "annotate": false})
	checkShot(t, xc, "the question", out, img, dlg.id)
	out, img, _ = s.screenshot(t, map[string]any{"session": sess, "window": fmt.Sprintf("%#x", uint32(dlg.id))})
	checkShotWindow(t, out, img, dlg)
	checkMarksInside(t, "the question, annotated", out, fmt.Sprintf("%#x", uint32(dlg.id)), []string{"Use Text Format", "Use ODF Format"},
		func(_, name string) bool { return inAlert[name] }, nil)

	s.ok(t, "click", map[string]any{"session": sess, "element": use.Ref})
	// Writer's text export: UTF-8 with a byte order mark, each paragraph
	// and a line feed.
	fileHolds(t, path, "\ufeff"+strings.Join(paras, "\n")+"\n")
	xWindowGone(t, d, app.Pid, title)
}
