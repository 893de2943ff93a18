//go:build linux

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/jezek/xgb"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// The coordinate fixture: each toolkit's fixture prints where its own
// widgets are (--print-positions: GTK's and Qt's geometry calls in the
// app, never AT-SPI) and which of them got each button press, where. The
// places on the screen are made from those and the desktop's own account
// of the window (X11: the app's own root position, or X's origin of its
// window for GTK 4, which cannot know it; sway: swaymsg's content rect,
// where the window geometry the client set is placed).

// appPlace is one widget as its app places it: its rectangle counted from
// the window geometry's corner, its corner on the screen when the app
// knows it (X11), and the part of it the toolkit's accessibility
// describes when that is not the whole widget.
type appPlace struct {
	widget platform.Rect
	screen *[2]int
	a11y   *platform.Rect
}

// appPositions is a --print-positions block.
type appPositions struct {
	origin  [2]int // where the window geometry starts in the surface
	widgets map[string]appPlace
	text    string
}

// lastPositions is the last whole block of a --print-positions file.
func lastPositions(path string) (appPositions, bool) {
	b, _ := os.ReadFile(path)
	lines := strings.Split(string(b), "\n")
	end := -1
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i] == "end" {
			end = i
			break
		}
	}
	start := -1
	for i := end - 1; i >= 0; i-- {
		if lines[i] == "positions" {
			start = i
			break
		}
	}
	if end < 0 || start < 0 {
		return appPositions{}, false
	}
	p := appPositions{widgets: map[string]appPlace{}, text: strings.Join(lines[start+1:end], "; ")}
	num := func(s string) int { n, _ := strconv.Atoi(s); return n }
	for _, l := range lines[start+1 : end] {
		f := strings.Split(l, "\t")
		switch {
		case f[0] == "origin" && len(f) == 3:
			p.origin = [2]int{num(f[1]), num(f[2])}
		case f[0] == "widget" && len(f) == 8:
			w := p.widgets[f[1]]
			w.widget = platform.Rect{X: num(f[2]), Y: num(f[3]), Width: num(f[4]), Height: num(f[5])}
			if f[6] != "-" {
				w.screen = &[2]int{num(f[6]), num(f[7])}
			}
			p.widgets[f[1]] = w
		case f[0] == "a11y" && len(f) == 6:
			w := p.widgets[f[1]]
			w.a11y = &platform.Rect{X: num(f[2]), Y: num(f[3]), Width: num(f[4]), Height: num(f[5])}
			p.widgets[f[1]] = w
		}
	}
	return p, true
}

// target is the part of the widget uiscope's bounds are to cover, counted
// like the widget: its accessible's part, else the whole of it.
func (w appPlace) target() platform.Rect {
	if w.a11y != nil {
		return *w.a11y
	}
	return w.widget
}

// appPresses are the fixture's "press" lines for a widget: where in it
// (its own coordinates) each button press landed.
func appPresses(path, name string) [][2]int {
	b, _ := os.ReadFile(path)
	var out [][2]int
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Split(l, "\t")
		if len(f) == 5 && f[0] == "press" && f[1] == name {
			x, _ := strconv.Atoi(f[2])
			y, _ := strconv.Atoi(f[3])
			out = append(out, [2]int{x, y})
		}
	}
	return out
}

// coordsApp is a fixture started with --print-positions.
type coordsApp struct {
	d     *testdesk.Desk
	app   *testdesk.App
	path  string
	title string
	xc    *xgb.Conn // X11 only
}

// screenOffset is what turns the app's window-geometry coordinates into
// the screen's for widget w, now, and what it rests on (for messages).
func (c *coordsApp) screenOffset(t *testing.T, p appPositions, w appPlace) (dx, dy int, from string) {
	t.Helper()
	switch {
	case c.d.Sway != nil:
		v := oneView(t, c.d, c.app.Pid)
		return v.content.X, v.content.Y, fmt.Sprintf("sway's content rect %+v", v.content)
	case w.screen != nil:
		return w.screen[0] - w.widget.X, w.screen[1] - w.widget.Y, "the app's own screen position"
	default:
		// The app cannot know its place (GTK 4): X's origin of its window
		// (its surface) plus where its window geometry starts there.
		xw := findXWindow(t, c.d, c.xc, c.app.Pid, c.title)
		return xw.rect.X + p.origin[0], xw.rect.Y + p.origin[1], fmt.Sprintf("X's origin of its window %+v, geometry at %v in it", xw.rect, p.origin)
	}
}

var coordWidgets = []struct{ name, role string }{
	{"Name", "text"},
	{"Remember me", "check box"},
	{"Submit", "push button"},
}

// checkCoords checks each named widget: uiscope's bounds against the
// app's own place on the screen (centre and size within 2 px), a pointer
// press at uiscope's centre received by the widget within 2 px of where
// that centre is in it, and hit_test there naming it or an element inside
// it. It logs the offsets measured.
func checkCoords(t *testing.T, c *coordsApp, s *mcpServer, session, stage string) {
	t.Helper()
	for _, wd := range coordWidgets {
		var el elem
		var want platform.Rect
		until(t, fmt.Sprintf("%s: uiscope's bounds of %s %q within 2 px of the app's own place", stage, wd.role, wd.name), func(context.Context) (bool, string) {
			p, ok := lastPositions(c.path)
			w, ok2 := p.widgets[wd.name]
			if !ok || !ok2 {
				return false, "the app has not printed the widget's place yet: " + p.text
			}
			dx, dy, from := c.screenOffset(t, p, w)
			el = findOne(t, s, session, map[string]any{"name": wd.name, "role": wd.role})
			dx2, dy2, _ := c.screenOffset(t, p, w)
			if p2, _ := lastPositions(c.path); p2.text != p.text || dx2 != dx || dy2 != dy {
				return false, "the window or its widgets moved during the read"
			}
			if el.Bounds == nil {
				return false, "no bounds"
			}
			tg := w.target()
			want = platform.Rect{X: tg.X + dx, Y: tg.Y + dy, Width: tg.Width, Height: tg.Height}
			gx, gy := centre(*el.Bounds)
			wx, wy := centre(want)
			if abs(gx-wx) > 2 || abs(gy-wy) > 2 || abs(el.Bounds.Width-want.Width) > 2 || abs(el.Bounds.Height-want.Height) > 2 {
				return false, fmt.Sprintf("bounds %+v (centre %d,%d), the app's %+v (centre %d,%d): %s, the app's positions %s",
					*el.Bounds, gx, gy, want, wx, wy, from, p.text)
			}
			t.Logf("%s: %s %q: bounds %+v, the app's %+v (%s): centre off by %+d,%+d, size by %+d,%+d",
				stage, wd.role, wd.name, *el.Bounds, want, from, gx-wx, gy-wy, el.Bounds.Width-want.Width, el.Bounds.Height-want.Height)
			return true, ""
		})

		// What lies at uiscope's centre is the element, or inside it.
		x, y := centre(*el.Bounds)
		hit := s.ok(t, "hit_test", map[string]any{"session": session, "x": x, "y": y})
		inside := false
		if h := decode[*elem](t, hit["element"]); h != nil && h.Ref == el.Ref {
			inside = true
		}
		for _, anc := range decode[[]*elem](t, hit["ancestors"]) {
			inside = inside || anc.Ref == el.Ref
		}
		if !inside {
			t.Errorf("%s: hit_test at %q's centre %d,%d: %v", stage, wd.name, x, y, hit)
		}

		// A pointer press there lands in the widget where uiscope's centre
		// is in it, by the app's own account.
		n := len(appPresses(c.path, wd.name))
		s.ok(t, "press", map[string]any{"session": session, "x": x, "y": y})
		s.ok(t, "release", map[string]any{"session": session})
		var got [2]int
		until(t, fmt.Sprintf("%s: the app logs the press on %q", stage, wd.name), func(context.Context) (bool, string) {
			ps := appPresses(c.path, wd.name)
			if len(ps) <= n {
				log, _ := os.ReadFile(c.app.Proc.LogPath)
				return false, fmt.Sprintf("%d presses logged (the app's log: %q)", len(ps), log)
			}
			got = ps[len(ps)-1]
			return true, ""
		})
		p, _ := lastPositions(c.path)
		w := p.widgets[wd.name]
		tg := w.target()
		// uiscope's centre in the widget's own coordinates.
		lx, ly := x-(want.X-(tg.X-w.widget.X)), y-(want.Y-(tg.Y-w.widget.Y))
		ex, ey := centre(platform.Rect{X: tg.X - w.widget.X, Y: tg.Y - w.widget.Y, Width: tg.Width, Height: tg.Height})
		t.Logf("%s: press at %d,%d landed in %q at %d,%d (uiscope's centre is %d,%d in it; the app's centre of it %d,%d)",
			stage, x, y, wd.name, got[0], got[1], lx, ly, ex, ey)
		if abs(got[0]-ex) > 2 || abs(got[1]-ey) > 2 {
			t.Errorf("%s: a press at uiscope's centre of %q (%d,%d) landed at %d,%d in it; its centre is %d,%d there (the app's positions: %s)",
				stage, wd.name, x, y, got[0], got[1], ex, ey, p.text)
		}
	}
}

// TestCoordinatesPerToolkit: on each desktop, for GTK 3 (with the window
// manager's decorations and with a header bar of its own), GTK 4 (alike)
// and Qt 5, uiscope places the fixture's entry, check box and button
// where the app itself says they are on the screen (within 2 px), a
// pointer press at uiscope's centre reaches that widget at its centre, and
// hit_test there names it. On X11 each window is checked again after it
// moved; on sway it is checked tiled and then floating (moved), where
// client-side decorations draw their shadow around it.
func TestCoordinatesPerToolkit(t *testing.T) { testdesk.ForEach(t, testCoordinatesPerToolkit) }

func testCoordinatesPerToolkit(t *testing.T, d *testdesk.Desk) {
	s := startMCP(t, d, "", "--allow-input")
	var xc *xgb.Conn
	if d.X != nil {
		xc = xclient(t, d)
	}
	for _, tc := range []struct {
		name, fixture string
		args          []string
	}{
		{"gtk3", "gtk3_fixture.py", []string{"--x", "70", "--y", "50"}},
		{"gtk3-headerbar", "gtk3_fixture.py", []string{"--headerbar", "--x", "90", "--y", "70"}},
		{"gtk4", "gtk4_fixture.py", nil},
		{"gtk4-headerbar", "gtk4_fixture.py", []string{"--headerbar"}},
		{"qt5", "qt5_fixture.py", []string{"--x", "110", "--y", "90"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &coordsApp{d: d, xc: xc, path: newFixtureLog(t).path, title: "coords " + tc.name}
			argv := append([]string{testdesk.Python, testdesk.Fixture(tc.fixture), "--title", c.title, "--print-positions", c.path}, tc.args...)
			c.app = d.Launch(t, argv...)
			session := s.connect(t, map[string]any{"pid": c.app.Pid})
			if d.Sway == nil {
				checkCoords(t, c, s, session, "x11")
				// Moved after connect (as a user drags it): placed anew.
				w := findXWindow(t, d, xc, c.app.Pid, c.title)
				x, y := awayFrom(w.rect, w.rect.Width, w.rect.Height)
				cmd := exec.Command("xdotool", "windowmove", strconv.Itoa(int(w.id)), strconv.Itoa(x), strconv.Itoa(y))
				cmd.Env = d.Env()
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("xdotool windowmove: %v %s", err, out)
				}
				// The window manager's frame, if any, goes where asked.
				until(t, "the window moved", func(context.Context) (bool, string) {
					r := xRect(t, xc, w.id)
					return abs(r.X-x) < 40 && abs(r.Y-y) < 40, fmt.Sprint(r)
				})
				checkCoords(t, c, s, session, "x11 moved")
				return
			}
			v := oneView(t, d, c.app.Pid)
			if v.content.X == 0 && v.content.Y == 0 {
				t.Fatalf("the window's content is at the screen's origin (%+v): nothing to tell placed bounds from window-relative ones", v.content)
			}
			checkCoords(t, c, s, session, "sway tiled")
			swayRun(t, d, fmt.Sprintf("[con_id=%d] floating enable, resize set 560 420, move position 230 170", v.con))
			until(t, "the window floats where it was moved", func(context.Context) (bool, string) {
				v := oneView(t, d, c.app.Pid)
				return v.content.X < 300 && v.content.Y < 240 && v.content.Width < 700, fmt.Sprint(v.content)
			})
			checkCoords(t, c, s, session, "sway floating")
		})
	}
}
