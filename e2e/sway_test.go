//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// On sway the oracles are outside uiscope: swaymsg's account of where a
// window is (get_tree: its rect plus its window_rect), and the toolkit's
// own window-relative extents read by pyatspi in another process.

// swayView is a view as swaymsg reports it.
type swayView struct {
	con     int64
	title   string
	shell   string        // xdg_shell (a Wayland client) or xwayland
	content platform.Rect // on the screen
	focused bool
	visible bool
}

// swayViews runs swaymsg -t get_tree and returns pid's views.
func swayViews(t testing.TB, d *testdesk.Desk, pid int) []swayView {
	t.Helper()
	views, err := readSwayViews(context.Background(), d, pid)
	if err != nil {
		t.Fatal(err)
	}
	return views
}

// readSwayViews is swayViews under ctx, its failure an error.
func readSwayViews(ctx context.Context, d *testdesk.Desk, pid int) ([]swayView, error) {
	out, err := exec.CommandContext(ctx, "swaymsg", "-s", d.SwaySock, "-r", "-t", "get_tree").Output()
	if err != nil {
		return nil, fmt.Errorf("swaymsg -t get_tree: %v", err)
	}
	type rect struct{ X, Y, Width, Height int }
	type node struct {
		ID            int64  `json:"id"`
		Name          string `json:"name"`
		Pid           int    `json:"pid"`
		Shell         string `json:"shell"`
		Focused       bool   `json:"focused"`
		Visible       bool   `json:"visible"`
		Rect          rect   `json:"rect"`
		WindowRect    rect   `json:"window_rect"`
		Nodes         []node `json:"nodes"`
		FloatingNodes []node `json:"floating_nodes"`
	}
	var root node
	if err := json.Unmarshal(out, &root); err != nil {
		return nil, fmt.Errorf("swaymsg's tree: %v", err)
	}
	var views []swayView
	var walk func(n node)
	walk = func(n node) {
		if n.Pid == pid {
			views = append(views, swayView{con: n.ID, title: n.Name, shell: n.Shell, focused: n.Focused, visible: n.Visible, content: platform.Rect{
				X: n.Rect.X + n.WindowRect.X, Y: n.Rect.Y + n.WindowRect.Y, Width: n.WindowRect.Width, Height: n.WindowRect.Height}})
		}
		for _, k := range append(n.Nodes, n.FloatingNodes...) {
			walk(k)
		}
	}
	walk(root)
	return views, nil
}

// oneView waits until pid has exactly one view and returns it.
func oneView(t testing.TB, d *testdesk.Desk, pid int) swayView {
	t.Helper()
	var v swayView
	until(t, fmt.Sprintf("pid %d has one sway window", pid), func(context.Context) (bool, string) {
		vs := swayViews(t, d, pid)
		if len(vs) != 1 {
			return false, fmt.Sprintf("%d views", len(vs))
		}
		v = vs[0]
		return true, ""
	})
	return v
}

// swayViewTitled waits until pid has a view titled title and returns it.
func swayViewTitled(t testing.TB, d *testdesk.Desk, pid int, title string) swayView {
	t.Helper()
	var v swayView
	until(t, fmt.Sprintf("pid %d's sway view %q", pid, title), func(context.Context) (bool, string) {
		vs := swayViews(t, d, pid)
		for _, w := range vs {
			if w.title == title {
				v = w
				return true, ""
			}
		}
		return false, fmt.Sprintf("%+v", vs)
	})
	return v
}

// swayViewGone waits until pid has no view titled title in sway's tree.
func swayViewGone(t testing.TB, d *testdesk.Desk, pid int, title string) {
	t.Helper()
	until(t, fmt.Sprintf("pid %d's sway view %q gone", pid, title), func(context.Context) (bool, string) {
		vs := swayViews(t, d, pid)
		for _, w := range vs {
			if w.title == title {
				return false, fmt.Sprintf("%+v", vs)
			}
		}
		return true, ""
	})
}

// swayCursorAt moves the seat's cursor to (x, y) in sway's layout through
// sway's own command (seat - cursor set), as a user's hand would: the
// client under it gets the pointer's enter and motion.
func swayCursorAt(t testing.TB, d *testdesk.Desk, x, y int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "swaymsg", "-s", d.SwaySock, "seat", "-", "cursor", "set", strconv.Itoa(x), strconv.Itoa(y)).CombinedOutput(); err != nil {
		t.Fatalf("swaymsg seat - cursor set %d %d: %v\n%s", x, y, err, out)
	}
}

// pyExtents is pyatspi's reading of an element's window-relative extents
// and whether it has the focus (the first element of pid with that role
// and name). A Wayland client's screen coordinates are its window's: it
// cannot know better (and Qt 5's window coordinates there are wrong).
func pyExtents(t testing.TB, d *testdesk.Desk, pid int, role, name string) (platform.Rect, bool) {
	t.Helper()
	out := pyProbe(t, d, pid, role, name, "screen")
	var r platform.Rect
	focused := 0
	if _, err := fmt.Sscan(out, &r.X, &r.Y, &r.Width, &r.Height, &focused); err != nil {
		t.Fatalf("pyatspi printed %q: %v", out, err)
	}
	return r, focused == 1
}

// checkSwayBounds checks that uiscope places an element (the first with
// that role and name) where sway's window origin plus the toolkit's
// window-relative extents put it: centres within 2 px, same size.
func checkSwayBounds(t *testing.T, d *testdesk.Desk, s *mcpServer, session string, pid int, role, name string) {
	t.Helper()
	rel, _ := pyExtents(t, d, pid, role, name)
	until(t, fmt.Sprintf("the %s %q is at sway's window origin plus its window-relative extents", role, name), func(context.Context) (bool, string) {
		before := oneView(t, d, pid)
		el := findOne(t, s, session, map[string]any{"name": name, "role": role})
		after := oneView(t, d, pid)
		if before.content != after.content {
			return false, "the window moved during the read"
		}
		if el.Bounds == nil {
			return false, "no bounds"
		}
		wx, wy := after.content.X+rel.X+rel.Width/2, after.content.Y+rel.Y+rel.Height/2
		gx, gy := centre(*el.Bounds)
		if abs(gx-wx) > 2 || abs(gy-wy) > 2 || el.Bounds.Width != rel.Width || el.Bounds.Height != rel.Height {
			return false, fmt.Sprintf("bounds %+v (centre %d,%d), want centre %d,%d: window at %+v, window-relative %+v", *el.Bounds, gx, gy, wx, wy, after.content, rel)
		}
		return true, ""
	})
}

// TestSwayWidgetFactory runs gtk3-widget-factory as a Wayland client on
// headless sway: list_apps shows its sway window, a read places its
// elements on the screen where sway and GTK together say they are, focus
// brings its window to the front from behind another app's, window_action
// closes a window (sway's tree no longer has it) and answers minimize
// with why not.
func TestSwayWidgetFactory(t *testing.T) {
	d := testdesk.On(t, "sway")
	app := d.Launch(t, "gtk3-widget-factory")
	s := startMCP(t, d, "", "--allow-input")

	view := oneView(t, d, app.Pid)
	listed := s.ok(t, "list_apps", nil)
	type appEntry struct {
		Pid     int `json:"pid"`
		Windows []struct {
			Window string        `json:"window"`
			Bounds platform.Rect `json:"bounds"`
		} `json:"windows"`
	}
	var mine *appEntry
	for _, e := range decode[[]appEntry](t, listed["apps"]) {
		if e.Pid == app.Pid {
			mine = &e
		}
	}
	want := "sway:" + strconv.FormatInt(view.con, 10)
	if mine == nil || len(mine.Windows) != 1 || mine.Windows[0].Window != want {
		t.Fatalf("list_apps: want pid %d with window %s: %v", app.Pid, want, listed)
	}
	if mine.Windows[0].Bounds != view.content {
		t.Errorf("list_apps: window bounds %+v, swaymsg says %+v", mine.Windows[0].Bounds, view.content)
	}
	session := s.connect(t, map[string]any{"pid": app.Pid})

	// The window's origin is not the screen's (sway's tab bar is above
	// it), so bounds left window-relative would fail here.
	if view.content.Y == 0 && view.content.X == 0 {
		t.Fatalf("the window's content is at the screen's origin (%+v): nothing to tell placed bounds from window-relative ones", view.content)
	}
	checkSwayBounds(t, d, s, session, app.Pid, "radio button", "Page 2")

	// A second app opens in front (a tab of its own, focused).
	other := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"))
	otherView := oneView(t, d, other.Pid)
	until(t, "the fixture's window has the focus", func(context.Context) (bool, string) {
		v := oneView(t, d, other.Pid)
		return v.focused, fmt.Sprintf("%+v", v)
	})
	if v := oneView(t, d, app.Pid); v.focused || v.visible {
		t.Fatalf("gtk3-widget-factory's window is still in front: %+v", v)
	}
	// focus brings the element's window to the front, verified by sway.
	// GTK takes the keyboard focus only while the seat has a keyboard
	// (headless sway has none but the virtual one uiscope makes when it
	// connects): without one the element cannot take it, and focus says
	// so (noEffect) rather than claim it did.
	fo := s.call(t, "focus", map[string]any{"session": session, "element": findOne(t, s, session, map[string]any{"name": "Page 2", "role": "radio button"}).Ref})
	if fo["ok"] != true && fo["errorCode"] != "noEffect" {
		t.Errorf("focus: %v", fo)
	}
	if _, focused := pyExtents(t, d, app.Pid, "radio button", "Page 2"); (fo["ok"] == true) != focused {
		t.Errorf("focus answered %v, and pyatspi reads the element focused: %v", fo, focused)
	}
	if v := oneView(t, d, app.Pid); !v.focused || !v.visible {
		t.Errorf("after focus, swaymsg has gtk3-widget-factory's window %+v, want focused and visible", v)
	}
	if v := oneView(t, d, other.Pid); v.focused || v.visible {
		t.Errorf("after focus, swaymsg has the fixture's window %+v, want it behind", v)
	}

	// Captures and keys go through uiscope's Wayland client (wayland_test.go
	// checks them against grim and pyatspi).
	if shot, img, _ := s.screenshot(t, map[string]any{"session": session}); shot["ok"] != true || img == nil ||
		img.Bounds().Dx() != view.content.Width || img.Bounds().Dy() != view.content.Height {
		t.Errorf("screenshot on sway: %v (window %+v)", shot, view.content)
	}
	s.ok(t, "press_key", map[string]any{"session": session, "keys": "Tab"})

	out := s.fail(t, "window_action", map[string]any{"session": session, "action": "minimize"}, "notSupported")
	if msg, _ := out["error"].(string); !strings.Contains(msg, "no minimize") {
		t.Errorf("minimize on sway: %v", out)
	}
	if v := oneView(t, d, app.Pid); !v.visible {
		t.Errorf("a refused minimize hid the window: %+v", v)
	}

	otherSession := s.connect(t, map[string]any{"pid": other.Pid})
	otherWin := "sway:" + strconv.FormatInt(otherView.con, 10)
	closed := s.ok(t, "window_action", map[string]any{"session": otherSession, "action": "close", "window": otherWin})
	if closed["verified"] != true {
		t.Errorf("close: %v", closed)
	}
	if vs := swayViews(t, d, other.Pid); len(vs) != 0 {
		t.Errorf("after close, swaymsg still has the fixture's windows %+v", vs)
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// TestSwayMCPSandbox serves from 'uiscope mcp --sandbox --desktop sway':
// the app it launches is listed with its sway window; a compositor that
// stops answering (SIGSTOP) makes list_apps fail as a timeout at its
// deadline (never a hang, never every app windowless), and the server
// answers again once sway does; nothing of the desktop outlives
// the server.
func TestSwayMCPSandbox(t *testing.T) {
	testdesk.SkipShort(t)
	cmd := exec.Command(uiscopeBin, "mcp", "--sandbox", "--desktop", "sway", "--launch", "gtk3-widget-factory")
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "DISPLAY" && k != "XAUTHORITY" && k != "SWAYSOCK" && k != "WAYLAND_DISPLAY" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	s := startMCPCmd(t, cmd)
	windows := func() (bool, string) {
		listed := s.ok(t, "list_apps", nil)
		for _, a := range decode[[]struct {
			Name    string `json:"name"`
			Windows []struct {
				Window string `json:"window"`
			} `json:"windows"`
		}](t, listed["apps"]) {
			if a.Name == "gtk3-widget-factory" && len(a.Windows) == 1 && strings.HasPrefix(a.Windows[0].Window, "sway:") {
				return true, ""
			}
		}
		return false, fmt.Sprint(listed)
	}
	until(t, "list_apps shows gtk3-widget-factory with its sway window", func(context.Context) (bool, string) { return windows() })

	m := regexp.MustCompile(`started sway \(pid (\d+)\)`).FindStringSubmatch(s.stderr.String())
	st := regexp.MustCompile(`state in (\S+)\)`).FindStringSubmatch(s.stderr.String())
	if m == nil || st == nil {
		t.Fatalf("the server's log names no sway pid or state dir:\n%s", s.stderr.String())
	}
	pid, _ := strconv.Atoi(m[1])
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := true
	defer func() {
		if stopped {
			_ = syscall.Kill(pid, syscall.SIGCONT)
		}
	}()
	// Every app windowless would be a false answer: the call fails.
	start := time.Now()
	s.fail(t, "list_apps", nil, "timeout")
	if took := time.Since(start); took > 2*core.DefaultTimeoutMs*time.Millisecond {
		t.Errorf("list_apps with sway stopped took %v", took)
	}
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	stopped = false
	until(t, "list_apps shows the sway window again", func(context.Context) (bool, string) { return windows() })

	s.cs.Close()
	until(t, "the sandbox's processes are gone after the server", func(context.Context) (bool, string) {
		left := processesMentioning(st[1])
		return len(left) == 0, strings.Join(left, "; ")
	})
}

// swayWidgetRects asks gtk4_dialogs.py (SIGUSR1) where its named widgets
// are in their surfaces and where each window's own coordinates start
// there, and places them on the screen by sway's window geometry (which
// starts where the window's coordinates do): name -> screen rectangle.
func swayWidgetRects(t *testing.T, d *testdesk.Desk, app *testdesk.App, log fixtureLog) map[string]platform.Rect {
	t.Helper()
	n := log.count("geom-end")
	if err := syscall.Kill(app.Pid, syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	log.await(t, "geom-end", n+1)
	views := map[string]swayView{}
	for _, v := range swayViews(t, d, app.Pid) {
		views[v.title] = v
	}
	type geom struct {
		window string
		r      platform.Rect
	}
	var geoms map[string]geom
	natives := map[string][2]int{}
	seen := 0
	for _, l := range log.lines() {
		if l == "geom-end" {
			seen++
			continue
		}
		if seen != n {
			continue
		}
		f := strings.Split(l, "\t")
		v := make([]int, len(f))
		for i := range f {
			v[i], _ = strconv.Atoi(f[i])
		}
		switch {
		case f[0] == "geom" && len(f) == 7:
			if geoms == nil {
				geoms = map[string]geom{}
			}
			geoms[f[1]] = geom{f[2], platform.Rect{X: v[3], Y: v[4], Width: v[5], Height: v[6]}}
		case f[0] == "native" && len(f) == 4:
			natives[f[1]] = [2]int{v[2], v[3]}
		}
	}
	t.Logf("windows' coordinates start at %v in their surfaces", natives)
	out := map[string]platform.Rect{}
	for name, g := range geoms {
		view, ok := views[g.window]
		off, ok2 := natives[g.window]
		if !ok || !ok2 {
			continue
		}
		out[name] = platform.Rect{X: view.content.X - off[0] + g.r.X, Y: view.content.Y - off[1] + g.r.Y, Width: g.r.Width, Height: g.r.Height}
	}
	return out
}

// TestSwayGTK4Dialog: a GTK 4 dialog opened after connect floats over
// its main window on sway (client-side shadow included); its elements and
// the main window's are placed where GTK itself says its widgets are
// (compute_bounds in the window, sway's window geometry on the screen).
func TestSwayGTK4Dialog(t *testing.T) {
	d := testdesk.On(t, "sway")
	log := newFixtureLog(t)
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk4_dialogs.py"), "--title", "sway gtk4 dialogs", "--log", log.path)
	s := startMCP(t, d, "", "--allow-input")
	session := s.connect(t, map[string]any{"pid": app.Pid})
	opener := findOne(t, s, session, map[string]any{"name": "Open dialog", "role": "push button"})
	s.ok(t, "click", map[string]any{"session": session, "element": opener.Ref})
	log.await(t, "dialog-open", 1)
	until(t, "the dialog's sway window", func(context.Context) (bool, string) {
		vs := swayViews(t, d, app.Pid)
		return len(vs) == 2, fmt.Sprintf("%+v", vs)
	})
	for _, w := range []struct{ name, role string }{{"Dialog option", "check box"}, {"Keep format", "push button"}, {"Main option", "check box"}} {
		until(t, fmt.Sprintf("%s %q placed where GTK says", w.role, w.name), func(context.Context) (bool, string) {
			rects := swayWidgetRects(t, d, app, log)
			want, ok := rects[w.name]
			if !ok {
				return false, fmt.Sprintf("the fixture does not place it: %v", rects)
			}
			el := findOne(t, s, session, map[string]any{"name": w.name, "role": w.role})
			if el.Bounds == nil {
				return false, "no bounds"
			}
			gx, gy := centre(*el.Bounds)
			wx, wy := centre(want)
			if abs(gx-wx) > 2 || abs(gy-wy) > 2 {
				return false, fmt.Sprintf("bounds %+v, GTK says %+v", *el.Bounds, want)
			}
			return true, ""
		})
	}
}

// swayFocusedWorkspace is the name of sway's focused workspace, as
// swaymsg -t get_workspaces reports it.
func swayFocusedWorkspace(t testing.TB, d *testdesk.Desk) string {
	t.Helper()
	out, err := exec.Command("swaymsg", "-s", d.SwaySock, "-r", "-t", "get_workspaces").Output()
	if err != nil {
		t.Fatalf("swaymsg -t get_workspaces: %v", err)
	}
	var ws []struct {
		Name    string `json:"name"`
		Focused bool   `json:"focused"`
	}
	if err := json.Unmarshal(out, &ws); err != nil {
		t.Fatalf("swaymsg's workspaces: %v", err)
	}
	for _, w := range ws {
		if w.Focused {
			return w.Name
		}
	}
	return "none focused"
}
