//go:build linux

package e2e

import (
	"context"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/atspi"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// Geometry is live (docs/platform.md, "Bounds"): windows opened after connect, moved or
// renamed since, place their elements where the screen shows them. The
// oracles are outside uiscope: the fixture's own account of where its
// widgets lie in their X windows (GTK's compute_bounds), X's account of
// where those windows are (xdotool, TranslateCoordinates on a connection
// of the test's own), and what the fixture logs when it is clicked.

const gtk4DialogTitle = "Confirm File Format"

// fixtureLog is the event log of a fixture started with --log.
type fixtureLog struct {
	path string
}

func newFixtureLog(t testing.TB) fixtureLog {
	return fixtureLog{path: filepath.Join(t.TempDir(), "events.log")}
}

func (l fixtureLog) lines() []string {
	b, _ := os.ReadFile(l.path)
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}

// count is how many lines equal line.
func (l fixtureLog) count(line string) int {
	n := 0
	for _, s := range l.lines() {
		if s == line {
			n++
		}
	}
	return n
}

// await waits until the log holds line at least n times.
func (l fixtureLog) await(t testing.TB, line string, n int) {
	t.Helper()
	until(t, fmt.Sprintf("the fixture logs %q (%d times)", line, n), func(context.Context) (bool, string) {
		got := l.count(line)
		return got >= n, fmt.Sprintf("%d times; log: %q", got, l.lines())
	})
}

// xWin is a window as the test's own X connection sees it.
type xWin struct {
	id   xproto.Window
	rect platform.Rect // interior, screen pixels
}

// findXWindow waits for pid's visible window titled title, found with
// xdotool, and reads where it is.
func findXWindow(t testing.TB, d *testdesk.Desk, xc *xgb.Conn, pid int, title string) xWin {
	t.Helper()
	var w xWin
	until(t, "X window "+strconv.Quote(title), func(context.Context) (bool, string) {
		cmd := exec.Command("xdotool", "search", "--all", "--onlyvisible", "--pid", strconv.Itoa(pid), "--name", "^"+regexp.QuoteMeta(title)+"$")
		cmd.Env = d.Env()
		out, err := cmd.Output()
		ids := strings.Fields(string(out))
		if err != nil || len(ids) != 1 {
			return false, fmt.Sprintf("xdotool: %v %q", err, out)
		}
		id, err := strconv.ParseUint(ids[0], 10, 32)
		if err != nil {
			return false, err.Error()
		}
		w = xWin{id: xproto.Window(id), rect: xRect(t, xc, xproto.Window(id))}
		return true, ""
	})
	return w
}

// xRect is a window's interior on the screen, read on the test's own
// connection.
func xRect(t testing.TB, xc *xgb.Conn, w xproto.Window) platform.Rect {
	t.Helper()
	g, err := xproto.GetGeometry(xc, xproto.Drawable(w)).Reply()
	if err != nil {
		t.Fatal(err)
	}
	root := xproto.Setup(xc).DefaultScreen(xc).Root
	tr, err := xproto.TranslateCoordinates(xc, w, root, 0, 0).Reply()
	if err != nil {
		t.Fatal(err)
	}
	return platform.Rect{X: int(tr.DstX), Y: int(tr.DstY), Width: int(g.Width), Height: int(g.Height)}
}

// moveXWindow moves a window as a user dragging it would (through the
// window manager) and waits until X has it there.
func moveXWindow(t testing.TB, d *testdesk.Desk, xc *xgb.Conn, w xWin, x, y int) xWin {
	t.Helper()
	cmd := exec.Command("xdotool", "windowmove", strconv.Itoa(int(w.id)), strconv.Itoa(x), strconv.Itoa(y))
	cmd.Env = d.Env()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("xdotool windowmove: %v %s", err, out)
	}
	until(t, "the window moved", func(context.Context) (bool, string) {
		w.rect = xRect(t, xc, w.id)
		return w.rect.X == x && w.rect.Y == y, fmt.Sprint(w.rect)
	})
	return w
}

// awayFrom is a place for a w x h window on a 1920x1080 screen that does
// not overlap r.
func awayFrom(r platform.Rect, w, h int) (int, int) {
	for _, p := range [][2]int{{20, 20}, {1920 - w - 20, 20}, {20, 1080 - h - 20}, {1920 - w - 20, 1080 - h - 20}} {
		if (platform.Rect{X: p[0], Y: p[1], Width: w, Height: h}).Intersect(r).Empty() {
			return p[0], p[1]
		}
	}
	return 20, 20
}

// widgetRects asks the fixture (SIGUSR1) where its named widgets are and
// places them on the screen with X's origins of their windows: name ->
// screen rectangle.
func widgetRects(t *testing.T, app *testdesk.App, log fixtureLog, wins map[string]xWin) map[string]platform.Rect {
	t.Helper()
	n := log.count("geom-end")
	if err := syscall.Kill(app.Pid, syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	log.await(t, "geom-end", n+1)
	out := map[string]platform.Rect{}
	seen := 0
	for _, l := range log.lines() {
		if l == "geom-end" {
			seen++
			continue
		}
		f := strings.Split(l, "\t")
		if seen != n || len(f) != 7 || f[0] != "geom" {
			continue
		}
		w, ok := wins[f[2]]
		if !ok {
			continue
		}
		v := make([]int, 4)
		for i := range v {
			v[i], _ = strconv.Atoi(f[3+i])
		}
		out[f[1]] = platform.Rect{X: w.rect.X + v[0], Y: w.rect.Y + v[1], Width: v[2], Height: v[3]}
	}
	return out
}

func centre(r platform.Rect) (int, int) { return r.X + r.Width/2, r.Y + r.Height/2 }

// checkPlaced checks that an element's bounds, as two sessions give them,
// agree and put its centre inside the widget as GTK and X place it.
func checkPlaced(t *testing.T, label string, a, b elem, widget platform.Rect) {
	t.Helper()
	if a.Bounds == nil || b.Bounds == nil {
		t.Errorf("%s: %s %q without bounds: %v / %v", label, a.Role, a.Name, a.Bounds, b.Bounds)
		return
	}
	if *a.Bounds != *b.Bounds {
		t.Errorf("%s: %q has bounds %v in the session opened first and %v in a fresh one", label, a.Name, *a.Bounds, *b.Bounds)
	}
	if x, y := centre(*a.Bounds); !widget.Contains(x, y) {
		t.Errorf("%s: %q at %v (centre %d,%d), but GTK and X put the widget at %v", label, a.Name, *a.Bounds, x, y, widget)
	}
}

// gtk4Dialogs is the GTK 4 dialog fixture running with its dialog open
// (opened through a session connected before it), moved away from where
// the window manager centred it: users move dialogs, and centred on its
// parent a dialog sits where the parent's origin and border happen to
// give the right place.
type gtk4Dialogs struct {
	d     *testdesk.Desk
	xc    *xgb.Conn
	app   *testdesk.App
	log   fixtureLog
	s     *mcpServer
	early string // the session connected before the dialog opened
	title string
	wins  map[string]xWin // by title
}

// On sway the dialog floats over the main window's tab (sway floats
// dialogs); it is moved from where sway centred it, and g.wins stays
// empty: sway's views are read where needed (swayWidgetRects).
func openGTK4Dialog(t testing.TB, d *testdesk.Desk, title string) *gtk4Dialogs {
	t.Helper()
	g := &gtk4Dialogs{d: d, log: newFixtureLog(t), title: title}
	g.app = g.d.Launch(t, testdesk.Python, testdesk.Fixture("gtk4_dialogs.py"), "--title", title, "--log", g.log.path)
	g.s = startMCP(t, g.d, "", "--allow-input")
	g.early = g.s.connect(t, map[string]any{"pid": g.app.Pid})
	opener := findOne(t, g.s, g.early, map[string]any{"name": "Open dialog", "role": "push button"})
	g.s.ok(t, "click", map[string]any{"session": g.early, "element": opener.Ref})
	g.log.await(t, "dialog-open", 1)
	if d.Sway != nil {
		var dlg swayView
		until(t, "the dialog's sway window", func(context.Context) (bool, string) {
			for _, v := range swayViews(t, d, g.app.Pid) {
				if v.title == gtk4DialogTitle {
					dlg = v
					return true, ""
				}
			}
			return false, "no view titled " + gtk4DialogTitle
		})
		swayRun(t, d, fmt.Sprintf("[con_id=%d] move position 60 90", dlg.con))
		until(t, "the dialog moved", func(context.Context) (bool, string) {
			for _, v := range swayViews(t, d, g.app.Pid) {
				if v.con == dlg.con {
					return v.content.X < 120 && v.content.Y < 160, fmt.Sprint(v.content)
				}
			}
			return false, "the dialog is gone"
		})
		return g
	}
	g.xc = xclient(t, g.d)
	main := findXWindow(t, g.d, g.xc, g.app.Pid, title)
	dlg := findXWindow(t, g.d, g.xc, g.app.Pid, gtk4DialogTitle)
	x, y := awayFrom(main.rect, dlg.rect.Width, dlg.rect.Height)
	dlg = moveXWindow(t, g.d, g.xc, dlg, x, y)
	g.wins = map[string]xWin{title: main, gtk4DialogTitle: dlg}
	return g
}

// rects is widgetRects of the fixture's windows.
func (g *gtk4Dialogs) rects(t *testing.T) map[string]platform.Rect {
	t.Helper()
	if g.d.Sway != nil {
		return swayWidgetRects(t, g.d, g.app, g.log)
	}
	return widgetRects(t, g.app, g.log, g.wins)
}

// TestGeometryGTK4DialogAfterConnect: a GTK 4 dialog opened
// after connect, then moved, gets its own window's origin (not the main
// window's) in find_elements, hit_test and a pointer click.
func TestGeometryGTK4DialogAfterConnect(t *testing.T) {
	testdesk.ForEach(t, testGeometryGTK4DialogAfterConnect)
}

func testGeometryGTK4DialogAfterConnect(t *testing.T, d *testdesk.Desk) {
	g := openGTK4Dialog(t, d, "geom gtk4 dialog")
	s, early := g.s, g.early
	rects := g.rects(t)
	fresh := s.connect(t, map[string]any{"pid": g.app.Pid})
	for _, w := range []struct{ name, role string }{{"Dialog option", "check box"}, {"Keep format", "push button"}, {"Main option", "check box"}} {
		a := findOne(t, s, early, map[string]any{"name": w.name, "role": w.role})
		b := findOne(t, s, fresh, map[string]any{"name": w.name, "role": w.role})
		checkPlaced(t, "dialog opened after connect", a, b, rects[w.name])
	}

	// hit_test at the widget's centre, as X and GTK place it.
	kx, ky := centre(rects["Keep format"])
	hit := s.ok(t, "hit_test", map[string]any{"session": early, "x": kx, "y": ky})
	if el := decode[*elem](t, hit["element"]); el == nil || el.Name != "Keep format" {
		t.Errorf("hit_test at %d,%d (Keep format, per GTK and X): got %v", kx, ky, hit["element"])
	}

	// A pointer click (GTK 4.8 check boxes have no action) lands on the
	// dialog's check box: the fixture says so.
	opt := findOne(t, s, early, map[string]any{"name": "Dialog option", "role": "check box"})
	out := s.ok(t, "click", map[string]any{"session": early, "element": opt.Ref})
	if out["method"] != "pointer" {
		t.Errorf("click on a GTK 4.8 check box: method %v, want pointer", out["method"])
	}
	g.log.await(t, "toggled Dialog option True", 1)
}

// TestGeometryGTK4RenamedWindow: the reverse of the test above. A session
// opened while the main window and a dialog were both there keeps the
// main window's place once the main window's title changes.
func TestGeometryGTK4RenamedWindow(t *testing.T) { testdesk.ForEach(t, testGeometryGTK4RenamedWindow) }

func testGeometryGTK4RenamedWindow(t *testing.T, d *testdesk.Desk) {
	g := openGTK4Dialog(t, d, "geom gtk4 rename")
	s := g.s
	both := s.connect(t, map[string]any{"pid": g.app.Pid})
	if err := syscall.Kill(g.app.Pid, syscall.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	g.log.await(t, "renamed", 1)
	renamed := g.title + " (renamed)"
	if d.X != nil {
		g.wins[renamed] = findXWindow(t, g.d, g.xc, g.app.Pid, renamed)
	}
	rects := g.rects(t)
	a := findOne(t, s, both, map[string]any{"name": "Main option", "role": "check box"})
	b := findOne(t, s, s.connect(t, map[string]any{"pid": g.app.Pid}), map[string]any{"name": "Main option", "role": "check box"})
	checkPlaced(t, "main window renamed", a, b, rects["Main option"])
	s.ok(t, "click", map[string]any{"session": both, "element": a.Ref})
	g.log.await(t, "toggled Main option True", 1)
}

// rootCapture is what the screen shows in r, read from the root window on
// the test's own X connection (24-bit, B G R x bytes).
func rootCapture(t *testing.T, xc *xgb.Conn, r platform.Rect) *image.RGBA {
	t.Helper()
	root := xproto.Setup(xc).DefaultScreen(xc).Root
	px, err := xproto.GetImage(xc, xproto.ImageFormatZPixmap, xproto.Drawable(root), int16(r.X), int16(r.Y), uint16(r.Width), uint16(r.Height), ^uint32(0)).Reply()
	if err != nil {
		t.Fatal(err)
	}
	if len(px.Data) < r.Width*r.Height*4 {
		t.Fatalf("root capture: %d bytes for %v", len(px.Data), r)
	}
	img := image.NewRGBA(image.Rect(0, 0, r.Width, r.Height))
	for i := 0; i < r.Width*r.Height; i++ {
		b := px.Data[4*i:]
		img.Pix[4*i], img.Pix[4*i+1], img.Pix[4*i+2], img.Pix[4*i+3] = b[2], b[1], b[0], 0xff
	}
	return img
}

// screenCapture is what the screen shows in r, read outside uiscope: an
// X root capture, grim on sway.
func screenCapture(t *testing.T, d *testdesk.Desk, r platform.Rect) *image.RGBA {
	t.Helper()
	if d.Sway != nil {
		return asRGBA(grimRegion(t, d, r))
	}
	return rootCapture(t, xclient(t, d), r)
}

// sameShare is the share of pixels in which two images of one size agree
// within a few levels per channel.
func sameShare(a, b *image.RGBA) float64 {
	if a.Rect.Size() != b.Rect.Size() {
		return 0
	}
	same, n := 0, 0
	for i := 0; i+3 < len(a.Pix); i += 4 {
		n++
		ok := true
		for c := range 3 {
			if d := int(a.Pix[i+c]) - int(b.Pix[i+c]); d > 8 || d < -8 {
				ok = false
			}
		}
		if ok {
			same++
		}
	}
	return float64(same) / float64(max(n, 1))
}

// checkShot checks a screenshot against what the screen shows: the
// window it says it captured, and its pixels equal to a root capture of
// its bounds (nothing covers the window).
func checkShot(t *testing.T, xc *xgb.Conn, what string, out map[string]any, img *image.RGBA, wantWin xproto.Window) shotResult {
	t.Helper()
	if out["ok"] != true {
		t.Fatalf("%s: %v", what, out)
	}
	shot := decode[shotResult](t, out)
	if id, _ := strconv.ParseUint(shot.Window, 0, 32); wantWin != 0 && xproto.Window(id) != wantWin {
		t.Errorf("%s: captured window %s, the element is in %#x", what, shot.Window, wantWin)
	}
	b := platform.Rect{X: shot.Bounds.X, Y: shot.Bounds.Y, Width: shot.Bounds.Width, Height: shot.Bounds.Height}
	if share := sameShare(img, rootCapture(t, xc, b)); share < 0.97 {
		t.Errorf("%s: only %.1f%% of the image's pixels are what the screen shows at %v", what, 100*share, b)
	}
	return shot
}

// TestScreenshotGTK4DialogAfterConnect: on GTK 4, an element
// of a dialog opened after connect is captured in the dialog's window, as
// the screen shows it; screenshot {window} captures the dialog and marks
// only its elements; the main window's capture marks none of the
// dialog's, even where the dialog lies over it.
//
// On sway the dialog floats over the main window's tab: the dialog and its
// button are captured as grim shows them, the dialog's capture marks its
// own elements only, and the main window's is refused (covered, naming
// the dialog), the screen showing the dialog over it.
func TestScreenshotGTK4DialogAfterConnect(t *testing.T) {
	testdesk.ForEach(t, testScreenshotGTK4DialogAfterConnect)
}

func testScreenshotGTK4DialogAfterConnect(t *testing.T, d *testdesk.Desk) {
	g := openGTK4Dialog(t, d, "shot gtk4 dialog")
	if d.Sway != nil {
		screenshotGTK4DialogSway(t, g)
		return
	}
	s, sess := g.s, g.early
	dlg := g.wins[gtk4DialogTitle]
	keep := findOne(t, s, sess, map[string]any{"name": "Keep format", "role": "push button"})
	out, img, _ := s.screenshot(t, map[string]any{"session": sess, "element": keep.Ref, "annotate": false})
	checkShot(t, g.xc, "the dialog's button", out, img, dlg.id)

	out, img, _ = s.screenshot(t, map[string]any{"session": sess, "window": fmt.Sprintf("%#x", uint32(dlg.id))})
	shot := checkShotWindow(t, out, img, dlg)
	// Names only one of the two windows has (both have a "Close").
	dialogOnly := map[string]bool{"Dialog option": true, "Keep format": true, "Close dialog": true, "Keep the current format?": true, gtk4DialogTitle: true}
	mainOnly := map[string]bool{"Open dialog": true, "Menu": true, "Main option": true, "Main status": true, "Minimize": true, "Maximize": true, g.title: true}
	marked := map[string]bool{}
	for _, a := range shot.Annotations {
		marked[a.Name] = true
		if mainOnly[a.Name] {
			t.Errorf("the dialog's capture marks the main window's %s %q", a.Role, a.Name)
		}
	}
	if !marked["Keep format"] || !marked["Dialog option"] {
		t.Errorf("the dialog's capture does not mark its buttons: %+v", shot.Annotations)
	}

	// The dialog over the main window: the main window's capture marks
	// its own elements only.
	main := g.wins[g.title]
	moveXWindow(t, g.d, g.xc, dlg, main.rect.X+20, main.rect.Y+40)
	out, _, _ = s.screenshot(t, map[string]any{"session": sess})
	if out["ok"] != true {
		t.Fatalf("the main window: %v", out)
	}
	marked = map[string]bool{}
	for _, a := range decode[shotResult](t, out).Annotations {
		marked[a.Name] = true
		if dialogOnly[a.Name] {
			t.Errorf("the main window's capture marks the dialog's %s %q", a.Role, a.Name)
		}
	}
	if !marked["Main option"] {
		t.Errorf("the main window's capture does not mark its check box: %v", out["annotations"])
	}
}

// screenshotGTK4DialogSway is TestScreenshotGTK4DialogAfterConnect on
// sway.
func screenshotGTK4DialogSway(t *testing.T, g *gtk4Dialogs) {
	s, sess, d := g.s, g.early, g.d
	var dlg, main swayView
	for _, v := range swayViews(t, d, g.app.Pid) {
		switch v.title {
		case gtk4DialogTitle:
			dlg = v
		case g.title:
			main = v
		}
	}
	dlgID := fmt.Sprintf("sway:%d", dlg.con)
	keep := findOne(t, s, sess, map[string]any{"name": "Keep format", "role": "push button"})
	out, img, _ := s.screenshot(t, map[string]any{"session": sess, "element": keep.Ref, "annotate": false})
	shot := decode[shotResult](t, out)
	if out["ok"] != true || shot.Window != dlgID {
		t.Fatalf("the dialog's button: %v, want it captured in %s", out, dlgID)
	}
	if share := sameShare(img, screenCapture(t, d, platform.Rect(shot.Bounds))); share < 0.97 {
		t.Errorf("the dialog's button: only %.1f%% of its pixels are what grim shows at %+v", 100*share, shot.Bounds)
	}
	out, img, _ = s.screenshot(t, map[string]any{"session": sess, "window": dlgID})
	shot = decode[shotResult](t, out)
	if out["ok"] != true || shot.Window != dlgID || platform.Rect(shot.Bounds) != dlg.content {
		t.Fatalf("the dialog's window: %v, sway has it at %+v", out, dlg.content)
	}
	if img.Rect.Dx() != dlg.content.Width || img.Rect.Dy() != dlg.content.Height {
		t.Errorf("the dialog's image %v, sway has it %+v", img.Rect, dlg.content)
	}
	mainOnly := map[string]bool{"Open dialog": true, "Menu": true, "Main option": true, "Main status": true, g.title: true}
	marked := map[string]bool{}
	for _, a := range shot.Annotations {
		marked[a.Name] = true
		if mainOnly[a.Name] {
			t.Errorf("the dialog's capture marks the main window's %s %q", a.Role, a.Name)
		}
	}
	if !marked["Keep format"] || !marked["Dialog option"] {
		t.Errorf("the dialog's capture does not mark its buttons: %+v", shot.Annotations)
	}
	// The main window, under the floating dialog: refused, naming it.
	out, _, _ = s.screenshot(t, map[string]any{"session": sess})
	msg, _ := out["error"].(string)
	if out["errorCode"] != "covered" || !strings.Contains(msg, dlgID) {
		t.Errorf("the main window %s under the dialog: %v, want covered naming %s", fmt.Sprintf("sway:%d", main.con), out, dlgID)
	}
}

// checkShotWindow checks a capture of a whole window: its id and its
// bounds are X's.
func checkShotWindow(t *testing.T, out map[string]any, img *image.RGBA, w xWin) shotResult {
	t.Helper()
	if out["ok"] != true {
		t.Fatalf("screenshot of window %#x: %v", w.id, out)
	}
	shot := decode[shotResult](t, out)
	b := platform.Rect{X: shot.Bounds.X, Y: shot.Bounds.Y, Width: shot.Bounds.Width, Height: shot.Bounds.Height}
	if id, _ := strconv.ParseUint(shot.Window, 0, 32); xproto.Window(id) != w.id || b != w.rect || img.Rect.Dx() != w.rect.Width {
		t.Errorf("screenshot of window %#x: window %s bounds %v (image %v), X has it at %v", w.id, shot.Window, b, img.Rect, w.rect)
	}
	return shot
}

// TestScreenshotGTK3Menu: a popup menu. A menu item of an
// open GTK 3 combo box is captured in the menu's own window (an
// override-redirect popup), as the screen shows it, not from the main
// window behind it.
//
// On sway the menu is an xdg_popup, drawn with the main window's view and
// listed nowhere in sway's tree: its items are placed by that view (GTK 3
// reports them relative to it in screen coordinates), a pointer click at
// an item's centre chooses it, and its capture is the main window's view
// cropped to the item, as grim shows it.
func TestScreenshotGTK3Menu(t *testing.T) { testdesk.ForEach(t, testScreenshotGTK3Menu) }

func testScreenshotGTK3Menu(t *testing.T, d *testdesk.Desk) {
	if d.Sway != nil {
		screenshotGTK3MenuSway(t, d)
		return
	}
	xc := xclient(t, d)
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "shot gtk3 menu")
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	main := findXWindow(t, d, xc, app.Pid, "shot gtk3 menu")
	combo := findOne(t, s, sess, map[string]any{"name": "Color", "role": "combo box"})
	s.ok(t, "click", map[string]any{"session": sess, "element": combo.Ref})
	var item elem
	until(t, "the combo box's menu shows", func(context.Context) (bool, string) {
		out := s.ok(t, "find_elements", map[string]any{"session": sess, "name": "Green", "role": "menu item", "states": []string{"showing"}})
		els := decode[[]elem](t, out["elements"])
		if len(els) == 0 || els[0].Bounds == nil {
			return false, fmt.Sprint(out["elements"])
		}
		item = els[0]
		return true, ""
	})
	out, img, _ := s.screenshot(t, map[string]any{"session": sess, "element": item.Ref, "annotate": false})
	shot := checkShot(t, xc, "the menu item", out, img, 0)
	if id, _ := strconv.ParseUint(shot.Window, 0, 32); xproto.Window(id) == main.id {
		t.Errorf("the menu item was captured from the main window %s", shot.Window)
	}
	a, err := xproto.GetWindowAttributes(xc, xproto.Window(mustParseID(t, shot.Window))).Reply()
	if err != nil || !a.OverrideRedirect {
		t.Errorf("captured window %s: attributes %+v %v, want the menu's override-redirect popup", shot.Window, a, err)
	}
	s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Escape"})
}

// screenshotGTK3MenuSway is TestScreenshotGTK3Menu on sway.
func screenshotGTK3MenuSway(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "shot gtk3 menu")
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	view := oneView(t, d, app.Pid)
	combo := findKeyed(t, s, sess, map[string]any{"name": "Color", "role": "combo box"})
	s.ok(t, "click", map[string]any{"session": sess, "element": combo.Ref})
	item := showingItem(t, s, sess, map[string]any{"name": "Blue", "nameMatch": "exact", "role": "menu item"})
	out, img, _ := s.screenshot(t, map[string]any{"session": sess, "element": item.Ref, "annotate": false})
	shot := decode[shotResult](t, out)
	if want := fmt.Sprintf("sway:%d", view.con); out["ok"] != true || shot.Window != want || platform.Rect(shot.Bounds) != *item.Bounds {
		t.Fatalf("screenshot of the menu item at %+v: %v, want it captured in %s", *item.Bounds, out, want)
	}
	if share := sameShare(img, screenCapture(t, d, *item.Bounds)); share < 0.97 {
		t.Errorf("the menu item captured: only %.1f%% of its pixels are what grim shows at %+v", 100*share, *item.Bounds)
	}
	// The item is where its bounds say: a click at its centre chooses it.
	x, y := centre(*item.Bounds)
	s.ok(t, "press", map[string]any{"session": sess, "x": x, "y": y})
	s.ok(t, "release", map[string]any{"session": sess})
	until(t, "Blue chosen by a click at its centre", func(ctx context.Context) (bool, string) {
		sel, err := d.A11y.SelectedChildren(ctx, combo.Key)
		if err != nil || len(sel) != 1 {
			return false, fmt.Sprint(sel, err)
		}
		det, err := d.A11y.Element(ctx, sel[0], atspi.ElementOptions{})
		if err != nil {
			return false, err.Error()
		}
		return det.Node.Name == "Blue", det.Node.Name
	})
}

func mustParseID(t *testing.T, s string) uint32 {
	t.Helper()
	id, err := strconv.ParseUint(s, 0, 32)
	if err != nil {
		t.Fatal(err)
	}
	return uint32(id)
}

// xWindowGone waits until pid has no visible window titled title (X's
// word, through xdotool).
func xWindowGone(t *testing.T, d *testdesk.Desk, pid int, title string) {
	t.Helper()
	until(t, "X window "+strconv.Quote(title)+" gone", func(context.Context) (bool, string) {
		cmd := exec.Command("xdotool", "search", "--all", "--onlyvisible", "--pid", strconv.Itoa(pid), "--name", "^"+regexp.QuoteMeta(title)+"$")
		cmd.Env = d.Env()
		out, _ := cmd.Output()
		return len(strings.Fields(string(out))) == 0, string(out)
	})
}

// TestWindowActionDialog: window_action with element closes
// the window the element is in (the dialog), with window the window
// given; the main window stays, as X says.
//
// On sway the windows are sway's views (swaymsg, the oracle).
func TestWindowActionDialog(t *testing.T) { testdesk.ForEach(t, testWindowActionDialog) }

func testWindowActionDialog(t *testing.T, d *testdesk.Desk) {
	g := openGTK4Dialog(t, d, "winact gtk4")
	if d.Sway != nil {
		windowActionDialogSway(t, g)
		return
	}
	s, sess := g.s, g.early
	keep := findOne(t, s, sess, map[string]any{"name": "Keep format", "role": "push button"})
	out := s.ok(t, "window_action", map[string]any{"session": sess, "element": keep.Ref, "action": "close"})
	g.log.await(t, "dialog-closed", 1)
	xWindowGone(t, g.d, g.app.Pid, gtk4DialogTitle)
	if w := findXWindow(t, g.d, g.xc, g.app.Pid, g.title); w.id != g.wins[g.title].id {
		t.Errorf("the main window is now %#x, was %#x", w.id, g.wins[g.title].id)
	}
	if d, _ := out["detail"].(string); !strings.Contains(d, fmt.Sprintf("%#x", uint32(g.wins[gtk4DialogTitle].id))) {
		t.Errorf("window_action's detail %q does not name the dialog's window %#x", d, g.wins[gtk4DialogTitle].id)
	}

	// Again by window id.
	opener := findOne(t, s, sess, map[string]any{"name": "Open dialog", "role": "push button"})
	s.ok(t, "click", map[string]any{"session": sess, "element": opener.Ref})
	g.log.await(t, "dialog-open", 2)
	dlg := findXWindow(t, g.d, g.xc, g.app.Pid, gtk4DialogTitle)
	s.ok(t, "window_action", map[string]any{"session": sess, "window": fmt.Sprintf("%#x", uint32(dlg.id)), "action": "close"})
	g.log.await(t, "dialog-closed", 2)
	xWindowGone(t, g.d, g.app.Pid, gtk4DialogTitle)
	findXWindow(t, g.d, g.xc, g.app.Pid, g.title)

	// Not the app's window, and both arguments: refused, nothing closed.
	s.fail(t, "window_action", map[string]any{"session": sess, "window": "0x1", "action": "close"}, "notFound")
	s.fail(t, "window_action", map[string]any{"session": sess, "window": fmt.Sprintf("%#x", uint32(dlg.id)), "element": keep.Ref, "action": "close"}, "invalidArgument")
	findXWindow(t, g.d, g.xc, g.app.Pid, g.title)
}

// windowActionDialogSway is TestWindowActionDialog on sway.
func windowActionDialogSway(t *testing.T, g *gtk4Dialogs) {
	s, sess, d := g.s, g.early, g.d
	views := func() (main, dlg swayView) {
		for _, v := range swayViews(t, d, g.app.Pid) {
			switch v.title {
			case g.title:
				main = v
			case gtk4DialogTitle:
				dlg = v
			}
		}
		return main, dlg
	}
	main, dlg := views()
	gone := func() {
		until(t, "the dialog's view gone, the main one there", func(context.Context) (bool, string) {
			m, dl := views()
			return dl.con == 0 && m.con == main.con, fmt.Sprintf("main %d, dialog %d", m.con, dl.con)
		})
	}
	keep := findOne(t, s, sess, map[string]any{"name": "Keep format", "role": "push button"})
	out := s.ok(t, "window_action", map[string]any{"session": sess, "element": keep.Ref, "action": "close"})
	g.log.await(t, "dialog-closed", 1)
	gone()
	if det, _ := out["detail"].(string); !strings.Contains(det, fmt.Sprintf("sway:%d", dlg.con)) {
		t.Errorf("window_action's detail %q does not name the dialog's window sway:%d", det, dlg.con)
	}

	// Again by window id.
	opener := findOne(t, s, sess, map[string]any{"name": "Open dialog", "role": "push button"})
	s.ok(t, "click", map[string]any{"session": sess, "element": opener.Ref})
	g.log.await(t, "dialog-open", 2)
	until(t, "the dialog's view again", func(context.Context) (bool, string) {
		_, dlg = views()
		return dlg.con != 0, "none"
	})
	s.ok(t, "window_action", map[string]any{"session": sess, "window": fmt.Sprintf("sway:%d", dlg.con), "action": "close"})
	g.log.await(t, "dialog-closed", 2)
	gone()

	// Not the app's window, and both arguments: refused, nothing closed.
	s.fail(t, "window_action", map[string]any{"session": sess, "window": "sway:999999", "action": "close"}, "notFound")
	s.fail(t, "window_action", map[string]any{"session": sess, "window": fmt.Sprintf("sway:%d", main.con), "element": keep.Ref, "action": "close"}, "invalidArgument")
	if m, _ := views(); m.con != main.con {
		t.Errorf("the main window is gone after refusals")
	}
}

// TestScreenshotGeditAlert: where a capture of the wrong window was
// found. gedit 44's
// "Save changes?" alert (accessible name "Question", no X title, its
// extents the window manager's frame) is captured in the alert's own
// window, as the screen shows it; before, the main window's white page.
//
// On sway the alert floats over the main window's tab, a view of its own
// (swaymsg lists it): captured there as grim shows it.
func TestScreenshotGeditAlert(t *testing.T) { testdesk.ForEach(t, testScreenshotGeditAlert) }

func testScreenshotGeditAlert(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, append(freshHome(t), "gedit", "--new-window")...)
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	doc := findOne(t, s, sess, map[string]any{"role": "text", "states": []string{"editable", "focused"}})
	s.ok(t, "type_text", map[string]any{"session": sess, "element": doc.Ref, "text": "unsaved"})
	s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Ctrl+W"})
	alert := appears(t, s, sess, "the Save changes question", map[string]any{"role": "alert"})
	btn := findOne(t, s, sess, map[string]any{"within": alert.Ref, "name": "Cancel", "nameMatch": "exact", "role": "push button"})
	if d.Sway != nil {
		// The alert's view: the one of gedit's views not titled as a
		// document ("*Untitled Document 1 - gedit").
		var view swayView
		until(t, "gedit's alert view", func(context.Context) (bool, string) {
			vs := swayViews(t, d, app.Pid)
			for _, v := range vs {
				if !strings.Contains(v.title, "gedit") {
					view = v
					return true, ""
				}
			}
			return false, fmt.Sprintf("%+v", vs)
		})
		want := fmt.Sprintf("sway:%d", view.con)
		for _, c := range []struct{ what, ref string }{{"gedit's alert button", btn.Ref}, {"gedit's alert", alert.Ref}} {
			out, img, _ := s.screenshot(t, map[string]any{"session": sess, "element": c.ref, "annotate": false})
			shot := decode[shotResult](t, out)
			if out["ok"] != true || shot.Window != want {
				t.Fatalf("%s: %v, want it captured in the alert's view %s", c.what, out, want)
			}
			if share := sameShare(img, screenCapture(t, d, platform.Rect(shot.Bounds))); share < 0.97 {
				t.Errorf("%s: only %.1f%% of its pixels are what grim shows at %+v", c.what, 100*share, shot.Bounds)
			}
		}
		s.ok(t, "click", map[string]any{"session": sess, "element": btn.Ref})
		return
	}
	xc := xclient(t, d)
	// The alert's X window, as X says: the one mapped window of gedit's
	// that is not the main one (title "*Untitled Document 1 - gedit").
	var alertWin xproto.Window
	until(t, "gedit's alert window", func(context.Context) (bool, string) {
		cmd := exec.Command("xdotool", "search", "--onlyvisible", "--pid", strconv.Itoa(app.Pid), "--class", "gedit")
		cmd.Env = d.Env()
		out, _ := cmd.Output()
		for _, f := range strings.Fields(string(out)) {
			id, _ := strconv.ParseUint(f, 10, 32)
			n := exec.Command("xdotool", "getwindowname", f)
			n.Env = d.Env()
			name, _ := n.Output()
			if r := xRect(t, xc, xproto.Window(id)); !strings.Contains(string(name), "gedit") && r.Width > 50 && r.Height > 50 {
				alertWin = xproto.Window(id)
				return true, ""
			}
		}
		return false, string(out)
	})
	out, img, _ := s.screenshot(t, map[string]any{"session": sess, "element": btn.Ref, "annotate": false})
	checkShot(t, xc, "gedit's alert button", out, img, alertWin)
	out, img, _ = s.screenshot(t, map[string]any{"session": sess, "element": alert.Ref, "annotate": false})
	checkShot(t, xc, "gedit's alert", out, img, alertWin)
	s.ok(t, "click", map[string]any{"session": sess, "element": btn.Ref})
}

// TestGeometryGTK4Popover: a GTK 4 popover menu is a popup window of its
// own, and GTK 4.8 gives its items extents that count from the popover's
// place in the main window: they are placed by the popup's position, so
// that find_elements puts them inside the popup as X has it, a click on
// one lands (the fixture says so) and a screenshot of one captures the
// popup, as the screen shows it.
//
// On sway the popover is an xdg_popup, which sway's tree does not list and
// whose place no other client can read, and GTK 4 counts its items from
// it: they keep no bounds (boundsUnknown), a capture of one alone is
// refused rather than made of another window's pixels, and a click goes
// through the item's action.
func TestGeometryGTK4Popover(t *testing.T) { testdesk.ForEach(t, testGeometryGTK4Popover) }

func testGeometryGTK4Popover(t *testing.T, d *testdesk.Desk) {
	log := newFixtureLog(t)
	const title = "geom gtk4 popover"
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk4_dialogs.py"), "--title", title, "--log", log.path)
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	mb := findOne(t, s, sess, map[string]any{"name": "Menu", "role": "push button"})
	s.ok(t, "click", map[string]any{"session": sess, "element": mb.Ref})
	log.await(t, "menu-open", 1)
	if d.Sway != nil {
		var item map[string]any
		until(t, "the menu's items", func(context.Context) (bool, string) {
			out := s.ok(t, "find_elements", map[string]any{"session": sess, "name": "Second item", "role": "menu item"})
			els := decode[[]map[string]any](t, out["elements"])
			if len(els) == 0 {
				return false, fmt.Sprint(out["elements"])
			}
			item = els[0]
			return true, ""
		})
		if item["bounds"] != nil || item["boundsUnknown"] != true {
			t.Errorf("the popover's item on sway: bounds %v, boundsUnknown %v; want none, unknown", item["bounds"], item["boundsUnknown"])
		}
		out, img, _ := s.screenshot(t, map[string]any{"session": sess, "element": item["ref"], "annotate": false})
		if out["ok"] != false || img != nil || (out["errorCode"] != "windowUnknown" && out["errorCode"] != "notSupported") {
			t.Errorf("a capture of the popover's item alone: %v, want it refused", out)
		}
		click := s.ok(t, "click", map[string]any{"session": sess, "element": item["ref"]})
		if click["method"] != "action" {
			t.Errorf("click on the popover's item: method %v, want its action", click["method"])
		}
		log.await(t, "chose Second item", 1)
		return
	}
	xc := xclient(t, d)
	// The popup: the one mapped override-redirect window of the fixture.
	var popup xWin
	until(t, "the popover's popup window", func(context.Context) (bool, string) {
		cmd := exec.Command("xdotool", "search", "--onlyvisible", "--pid", strconv.Itoa(app.Pid), "--class", "gtk4_dialogs")
		cmd.Env = d.Env()
		out, _ := cmd.Output()
		for _, f := range strings.Fields(string(out)) {
			id, _ := strconv.ParseUint(f, 10, 32)
			if a, err := xproto.GetWindowAttributes(xc, xproto.Window(id)).Reply(); err == nil && a.OverrideRedirect {
				popup = xWin{id: xproto.Window(id), rect: xRect(t, xc, xproto.Window(id))}
				return true, ""
			}
		}
		return false, string(out)
	})
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
	if x, y := centre(*item.Bounds); !popup.rect.Contains(x, y) {
		t.Errorf("the popover's item at %v (centre %d,%d), but X has the popup at %v", *item.Bounds, x, y, popup.rect)
	}
	out, img, _ := s.screenshot(t, map[string]any{"session": sess, "element": item.Ref, "annotate": false})
	checkShot(t, xc, "the popover's item", out, img, popup.id)
	s.ok(t, "click", map[string]any{"session": sess, "element": item.Ref})
	log.await(t, "chose Second item", 1)
}

// TestGeometryGTK4TwinDialogs: two GTK 4 dialogs alike in title, size and
// widgets, neither active: no window can be told for either, so their
// elements have no bounds (boundsUnknown) and a pointer click on one is
// windowUnknown, nothing clicked; never another window's origin.
//
// On sway the twins float over the main window's tab, which gets the
// focus (swaymsg): sway's views tell them apart no better.
func TestGeometryGTK4TwinDialogs(t *testing.T) { testdesk.ForEach(t, testGeometryGTK4TwinDialogs) }

func testGeometryGTK4TwinDialogs(t *testing.T, d *testdesk.Desk) {
	log := newFixtureLog(t)
	const title = "geom gtk4 twins"
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk4_dialogs.py"), "--title", title, "--twin", "--log", log.path)
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	opener := findOne(t, s, sess, map[string]any{"name": "Open dialog", "role": "push button"})
	s.ok(t, "click", map[string]any{"session": sess, "element": opener.Ref})
	log.await(t, "dialog-open", 1)
	// The main window active, as a user clicking it makes it.
	if d.Sway != nil {
		var main swayView
		until(t, "the main window and two dialogs in sway's tree", func(context.Context) (bool, string) {
			vs := swayViews(t, d, app.Pid)
			for _, v := range vs {
				if v.title == title {
					main = v
				}
			}
			return len(vs) == 3 && main.con != 0, fmt.Sprintf("%+v", vs)
		})
		swayRun(t, d, fmt.Sprintf("[con_id=%d] focus", main.con))
		until(t, "the main window focused", func(context.Context) (bool, string) {
			for _, v := range swayViews(t, d, app.Pid) {
				if v.con == main.con {
					return v.focused, "not focused"
				}
			}
			return false, "gone"
		})
	} else {
		xc := xclient(t, d)
		main := findXWindow(t, d, xc, app.Pid, title)
		cmd := exec.Command("xdotool", "windowactivate", "--sync", strconv.Itoa(int(main.id)))
		cmd.Env = d.Env()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("xdotool windowactivate: %v %s", err, out)
		}
	}
	var opts []elem
	until(t, "both dialogs' check boxes", func(context.Context) (bool, string) {
		out := s.ok(t, "find_elements", map[string]any{"session": sess, "name": "Dialog option", "role": "check box"})
		opts = decode[[]elem](t, out["elements"])
		return len(opts) == 2, fmt.Sprint(out["elements"])
	})
	out := s.ok(t, "find_elements", map[string]any{"session": sess, "name": "Dialog option", "role": "check box"})
	for _, e := range decode[[]map[string]any](t, out["elements"]) {
		if e["bounds"] != nil || e["boundsUnknown"] != true {
			t.Errorf("a twin dialog's check box: bounds %v, boundsUnknown %v; want none, unknown", e["bounds"], e["boundsUnknown"])
		}
	}
	s.fail(t, "click", map[string]any{"session": sess, "element": opts[0].Ref}, "windowUnknown")
	// The main window's elements keep their place.
	mo := findOne(t, s, sess, map[string]any{"name": "Main option", "role": "check box"})
	if mo.Bounds == nil {
		t.Errorf("the main window's check box lost its bounds")
	}
	if n := log.count("toggled Dialog option True"); n != 0 {
		t.Errorf("a twin dialog's check box was toggled %d times: %q", n, log.lines())
	}
}
