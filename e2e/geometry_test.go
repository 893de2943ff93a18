//go:build linux

package e2e

import (
	"context"
	"fmt"
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
	"github.com/uiscope/uiscope/internal/testdesk"
)

// Geometry is live (DESIGN §11): windows opened after connect, moved or
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

func newFixtureLog(t *testing.T) fixtureLog {
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
func (l fixtureLog) await(t *testing.T, line string, n int) {
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
func findXWindow(t *testing.T, d *testdesk.Desk, xc *xgb.Conn, pid int, title string) xWin {
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
func xRect(t *testing.T, xc *xgb.Conn, w xproto.Window) platform.Rect {
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
func moveXWindow(t *testing.T, d *testdesk.Desk, xc *xgb.Conn, w xWin, x, y int) xWin {
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
func checkPlaced(t *testing.T, label string, a, b actElem, widget platform.Rect) {
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

func openGTK4Dialog(t *testing.T, title string) *gtk4Dialogs {
	t.Helper()
	g := &gtk4Dialogs{d: testdesk.Shared(t), log: newFixtureLog(t), title: title}
	g.xc = xclient(t, g.d)
	g.app = g.d.Launch(t, testdesk.Python, testdesk.Fixture("gtk4_dialogs.py"), "--title", title, "--log", g.log.path)
	g.s = startMCP(t, g.d, "", "--allow-input")
	g.early = g.s.connect(t, map[string]any{"pid": g.app.Pid})
	opener := findOne(t, g.s, g.early, map[string]any{"name": "Open dialog", "role": "push button"})
	g.s.ok(t, "click", map[string]any{"session": g.early, "element": opener.Ref})
	g.log.await(t, "dialog-open", 1)
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
	return widgetRects(t, g.app, g.log, g.wins)
}

// TestGeometryGTK4DialogAfterConnect: issue 17 §1. A GTK 4 dialog opened
// after connect, then moved, gets its own window's origin (not the main
// window's) in find_elements, hit_test and a pointer click.
func TestGeometryGTK4DialogAfterConnect(t *testing.T) {
	g := openGTK4Dialog(t, "geom gtk4 dialog")
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
	if el := decode[*actElem](t, hit["element"]); el == nil || el.Name != "Keep format" {
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

// TestGeometryGTK4RenamedWindow: issue 17 §1, the reverse. A session
// opened while the main window and a dialog were both there keeps the
// main window's place once the main window's title changes.
func TestGeometryGTK4RenamedWindow(t *testing.T) {
	g := openGTK4Dialog(t, "geom gtk4 rename")
	s := g.s
	both := s.connect(t, map[string]any{"pid": g.app.Pid})
	if err := syscall.Kill(g.app.Pid, syscall.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	g.log.await(t, "renamed", 1)
	renamed := g.title + " (renamed)"
	g.wins[renamed] = findXWindow(t, g.d, g.xc, g.app.Pid, renamed)
	rects := g.rects(t)
	a := findOne(t, s, both, map[string]any{"name": "Main option", "role": "check box"})
	b := findOne(t, s, s.connect(t, map[string]any{"pid": g.app.Pid}), map[string]any{"name": "Main option", "role": "check box"})
	checkPlaced(t, "main window renamed", a, b, rects["Main option"])
	s.ok(t, "click", map[string]any{"session": both, "element": a.Ref})
	g.log.await(t, "toggled Main option True", 1)
}
