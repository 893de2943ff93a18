//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// A user's own sway session gives the programs it starts a handful of
// variables, not the sandbox's: these tests run uiscope with only those
// (userSwayEnv), never with the sandbox's environment (d.Env, which also
// names the accessibility bus for uiscope alone). The oracles stay
// outside uiscope: pyatspi, grim, swaymsg.

// userSwayEnv is what a sway session hands a program it starts:
// WAYLAND_DISPLAY as a name in XDG_RUNTIME_DIR, SWAYSOCK and the session
// bus, on which the accessibility bus is found the usual way
// (org.a11y.Bus); no DISPLAY. extra adds (or, empty, leaves out) more.
func userSwayEnv(d *testdesk.Desk, extra ...string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + os.Getenv("HOME"),
		"WAYLAND_DISPLAY=" + d.WaylandDisplay,
		"XDG_RUNTIME_DIR=" + d.RuntimeDir,
		"SWAYSOCK=" + d.SwaySock,
		"DBUS_SESSION_BUS_ADDRESS=" + d.SessionBus,
	}
	for _, kv := range extra {
		k, _, _ := strings.Cut(kv, "=")
		env = withoutVar(env, k)
		if strings.Contains(kv, "=") {
			env = append(env, kv)
		}
	}
	return env
}

// withoutVar drops the variable k from env.
func withoutVar(env []string, k string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, k+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// startUserMCP starts 'uiscope mcp --allow-input' with env alone.
func startUserMCP(t testing.TB, env []string) *mcpServer {
	t.Helper()
	cmd := exec.Command(uiscopeBin, "mcp", "--allow-input")
	cmd.Env = env
	return startMCPCmd(t, cmd)
}

// listedWindow is the first window list_apps gives pid ("" when none).
func listedWindow(t testing.TB, s *mcpServer, pid int) (id, title string) {
	t.Helper()
	out := s.ok(t, "list_apps", map[string]any{})
	apps, _ := out["apps"].([]any)
	for _, a := range apps {
		app, _ := a.(map[string]any)
		if p, _ := app["pid"].(float64); int(p) != pid {
			continue
		}
		wins, _ := app["windows"].([]any)
		if len(wins) == 0 {
			return "", ""
		}
		w, _ := wins[0].(map[string]any)
		id, _ = w["window"].(string)
		title, _ = w["title"].(string)
		return id, title
	}
	t.Fatalf("list_apps does not list pid %d: %v", pid, out)
	return "", ""
}

// TestUserSwaySession: uiscope in a user's own sway session, with only the
// variables sway gives, finds the compositor and the accessibility bus
// itself and lists, clicks, types and captures there.
func TestUserSwaySession(t *testing.T) {
	d := testdesk.On(t, "sway")
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"))
	s := startUserMCP(t, userSwayEnv(d))
	view := oneView(t, d, app.Pid)
	if id, title := listedWindow(t, s, app.Pid); id != fmt.Sprintf("sway:%d", view.con) || title != view.title {
		t.Fatalf("list_apps gives the fixture window %q %q; swaymsg says sway:%d %q", id, title, view.con, view.title)
	}
	sess := s.connect(t, map[string]any{"pid": app.Pid})

	clickAndType(t, d, s, sess, app.Pid, "typed in a user's sway — ✓")

	unfocusEntry(t, s, sess)
	pw := findOne(t, s, sess, map[string]any{"role": "password text"})
	if pw.Bounds == nil {
		t.Fatal("the password field has no bounds")
	}
	hide := image.Rect(pw.Bounds.X-view.content.X, pw.Bounds.Y-view.content.Y,
		pw.Bounds.X-view.content.X+pw.Bounds.Width, pw.Bounds.Y-view.content.Y+pw.Bounds.Height)
	until(t, "a screenshot equal to grim's outside the covered password", func(context.Context) (bool, string) {
		diff, moving, _ := grimDiff(t, d, view.content, hide, func() *image.RGBA {
			shot, img, _ := s.screenshot(t, map[string]any{"session": sess, "annotate": false})
			if shot["ok"] != true || img == nil {
				t.Fatalf("screenshot: %v", shot)
			}
			return img
		})
		return moving == 0 && diff == 0, fmt.Sprintf("%d pixels differ from grim's outside the password, %d changed between grim's captures", diff, moving)
	})
}

// swayShell is the shell swaymsg names for pid's first view ("xdg_shell",
// "xwayland").
func swayShell(t testing.TB, d *testdesk.Desk, pid int) string {
	t.Helper()
	out, err := exec.Command("swaymsg", "-s", d.SwaySock, "-r", "-t", "get_tree").Output()
	if err != nil {
		t.Fatalf("swaymsg -t get_tree: %v", err)
	}
	var shell string
	var walk func(n map[string]any)
	walk = func(n map[string]any) {
		if p, _ := n["pid"].(float64); int(p) == pid && shell == "" {
			shell, _ = n["shell"].(string)
		}
		for _, key := range []string{"nodes", "floating_nodes"} {
			kids, _ := n[key].([]any)
			for _, k := range kids {
				if m, ok := k.(map[string]any); ok {
					walk(m)
				}
			}
		}
	}
	var root map[string]any
	if err := json.Unmarshal(out, &root); err != nil {
		t.Fatalf("swaymsg's tree: %v", err)
	}
	walk(root)
	return shell
}

// TestXwaylandClients: on sway with Xwayland (uiscope sandbox --desktop
// sway --xwayland), uiscope run as a user's session runs it (DISPLAY set
// as well as WAYLAND_DISPLAY and SWAYSOCK) takes the windows from the
// compositor: an X-only app (Tk) and a GTK 3 app forced onto X11 are
// listed with their sway windows (shell "xwayland"), the GTK app's
// elements are placed where its own X screen coordinates say (pyatspi),
// and a pointer click and typing reach it.
func TestXwaylandClients(t *testing.T) {
	d := testdesk.On(t, testdesk.Xwayland)
	if d.Display == "" {
		t.Fatal("the sandbox runs no Xwayland (no DISPLAY)")
	}
	tk := d.LaunchX(t, testdesk.Python, testdesk.Fixture("tk_fixture.py"))
	gtk := d.Launch(t, "env", "GDK_BACKEND=x11", testdesk.Python, testdesk.Fixture("gtk3_fixture.py"))
	native := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk4_fixture.py"))
	for pid, want := range map[int]string{tk.Pid: "xwayland", gtk.Pid: "xwayland", native.Pid: "xdg_shell"} {
		if got := swayShell(t, d, pid); got != want {
			t.Fatalf("swaymsg gives pid %d the shell %q, want %q", pid, got, want)
		}
	}
	s := startUserMCP(t, userSwayEnv(d, "DISPLAY="+d.Display))
	for _, pid := range []int{tk.Pid, gtk.Pid, native.Pid} {
		v := oneView(t, d, pid)
		if id, title := listedWindow(t, s, pid); id != fmt.Sprintf("sway:%d", v.con) || title != v.title {
			t.Errorf("list_apps gives pid %d the window %q %q; swaymsg says sway:%d %q", pid, id, title, v.con, v.title)
		}
	}

	sess := s.connect(t, map[string]any{"pid": gtk.Pid})
	view := oneView(t, d, gtk.Pid)
	// An X client knows where it is: its screen extents are the oracle.
	for _, el := range []struct{ role, name string }{{"push button", "Submit"}, {"slider", "Volume"}} {
		want, _ := pyExtents(t, d, gtk.Pid, el.role, el.name)
		got := findOne(t, s, sess, map[string]any{"name": el.name, "role": el.role})
		if got.Bounds == nil || *got.Bounds != want {
			t.Errorf("the %s %q: bounds %v, its own screen extents (pyatspi) %+v", el.role, el.name, got.Bounds, want)
		}
		if got.Bounds != nil && !view.content.Contains(centre(*got.Bounds)) {
			t.Errorf("the %s %q at %+v: centre outside its sway window %+v", el.role, el.name, *got.Bounds, view.content)
		}
	}
	clickAndType(t, d, s, sess, gtk.Pid, "on Xwayland: é ✓")
}

// TestWaylandWithoutSway: a Wayland session whose compositor has no sway
// IPC (the sandbox's sway with SWAYSOCK withheld) is named as such, never
// answered as if its apps had no windows nor left hanging: list_apps gives
// an app the window the compositor lists (zwlr_foreign_toplevel) that its
// title tells is the app's, with no place, and says windows are unknown
// where titles do not tell them apart; doctor names the desktop and what
// the compositor offers; semantic actions work, elements have no bounds,
// and what needs a window's place fails at once saying why.
func TestWaylandWithoutSway(t *testing.T) {
	d := testdesk.On(t, "sway")
	log := t.TempDir() + "/events.log"
	title := fmt.Sprintf("no sway IPC %d", os.Getpid())
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--log", log, "--title", title)
	env := userSwayEnv(d, "SWAYSOCK")

	doc := runCLIEnv(t, env, 60*time.Second, "doctor")
	for _, want := range []string{"Wayland compositor without sway IPC", "zwlr_virtual_pointer_manager_v1", "uiscope does not know where windows are", "qtwayland5"} {
		if !strings.Contains(doc.stdout, want) {
			t.Errorf("doctor does not say %q:\n%s", want, doc.stdout)
		}
	}
	// Its window, as the compositor lists it to any client (no pid, no
	// place), told to be the app's by its title.
	view := oneView(t, d, app.Pid)
	a := listedApp(t, env, app.Pid)
	if len(a.Windows) != 1 || a.WindowsUnknown != "" {
		t.Fatalf("apps lists the fixture as %+v; want its one window", a)
	}
	w := a.Windows[0]
	if !strings.HasPrefix(w.Window, "toplevel:") || w.Title != view.title || !w.BoundsUnknown || w.Bounds != (platform.Rect{}) || slices.Contains(w.States, "active") != view.focused {
		t.Errorf("the fixture's window %+v; swaymsg says %q, focused %v; want a toplevel with no place", w, view.title, view.focused)
	}
	// A frozen app keeps its own windows unknown, not the listing waiting.
	frozen := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", title+" (frozen)")
	if err := syscall.Kill(frozen.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if a := listedApp(t, env, app.Pid); len(a.Windows) != 1 {
		t.Errorf("beside a frozen app, apps lists the fixture as %+v; want its window", a)
	}
	if took := time.Since(start); took > 4*time.Second {
		t.Errorf("apps took %v beside a frozen app", took)
	}
	syscall.Kill(frozen.Pid, syscall.SIGCONT)
	frozen.Proc.Stop()
	// A SWAYSOCK left from a sway that is gone is said to be so.
	stale := runCLIEnv(t, userSwayEnv(d, "SWAYSOCK="+t.TempDir()+"/sway-ipc.gone.sock"), 30*time.Second, "doctor")
	if !strings.Contains(stale.stdout, "SWAYSOCK does not answer") {
		t.Errorf("doctor with a stale SWAYSOCK:\n%s", stale.stdout)
	}
	// Two apps with windows of one title: neither window is told apart,
	// so neither app gets one.
	twin := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", title)
	for _, pid := range []int{app.Pid, twin.Pid} {
		if a := listedApp(t, env, pid); len(a.Windows) != 0 || !strings.Contains(a.WindowsUnknown, "sway's IPC") {
			t.Errorf("apps lists pid %d, one of two with windows titled alike, as %+v; want no windows and windowsUnknown", pid, a)
		}
	}
	twin.Proc.Stop()

	s := startUserMCP(t, env)
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	box := findOne(t, s, sess, map[string]any{"name": "Remember me", "role": "check box"})
	s.ok(t, "click", map[string]any{"session": sess, "element": box.Ref})
	until(t, "the check box clicked through its action, in the fixture's log", func(context.Context) (bool, string) {
		b, _ := os.ReadFile(log)
		return strings.Contains(string(b), "toggled Remember me True"), string(b)
	})
	// Its extents are its window's, whose place nobody said: unknown,
	// never the window-relative ones as the screen's.
	found := s.ok(t, "find_elements", map[string]any{"session": sess, "name": "Submit", "role": "push button"})
	if els, _ := found["elements"].([]any); len(els) != 1 {
		t.Fatalf("find Submit: %v", found)
	} else if e, _ := els[0].(map[string]any); e["bounds"] != nil || e["boundsUnknown"] != true {
		t.Errorf("Submit without sway's IPC: bounds %v, boundsUnknown %v; want none, unknown", e["bounds"], e["boundsUnknown"])
	}
	// Window actions by request to the compositor, read back from its
	// list and checked in sway's tree.
	other := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", title+" (other)")
	osess := s.connect(t, map[string]any{"pid": other.Pid})
	out := s.call(t, "window_action", map[string]any{"session": sess, "action": "maximize"})
	if out["ok"] != false || out["errorCode"] != "noEffect" {
		t.Errorf("maximize: %v; want noEffect (sway does nothing on a toplevel's maximize request)", out)
	}
	if out := s.ok(t, "window_action", map[string]any{"session": osess, "action": "close"}); out["verified"] != true {
		t.Errorf("close: %v", out)
	}
	until(t, "the other window gone from sway's tree", func(context.Context) (bool, string) {
		vs := swayViews(t, d, other.Pid)
		return len(vs) == 0, fmt.Sprintf("%d views", len(vs))
	})
	vol := findOne(t, s, sess, map[string]any{"name": "Volume", "role": "slider"})
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"click", map[string]any{"session": sess, "element": vol.Ref}},
		{"screenshot", map[string]any{"session": sess}},
		{"press_key", map[string]any{"session": sess, "keys": "Tab"}},
	} {
		start := time.Now()
		out := s.call(t, c.tool, c.args)
		if out["ok"] != false || !strings.Contains(fmt.Sprint(out), "sway's IPC") {
			t.Errorf("%s without sway's IPC: %v; want a failure naming sway's IPC", c.tool, out)
		}
		t.Logf("%s: %v", c.tool, out)
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("%s took %v", c.tool, took)
		}
	}
}

// listedApp is pid as 'uiscope apps --json' lists it, run with env.
func listedApp(t testing.TB, env []string, pid int) core.AppSummary {
	t.Helper()
	apps := runCLIEnv(t, env, 30*time.Second, "apps", "--json")
	var listed struct {
		Apps []core.AppSummary `json:"apps"`
	}
	if err := json.Unmarshal([]byte(apps.stdout), &listed); err != nil || apps.code != 0 {
		t.Fatalf("apps --json: exit %d, %v\n%s%s", apps.code, err, apps.stdout, apps.stderr)
	}
	for _, a := range listed.Apps {
		if a.Pid == pid {
			return a
		}
	}
	t.Fatalf("apps does not list pid %d:\n%s", pid, apps.stdout)
	return core.AppSummary{}
}

// TestXwaylandWithoutSway: Xwayland in a compositor without sway's IPC
// (the sandbox's sway with SWAYSOCK withheld, DISPLAY set): uiscope uses
// X11, which sees X clients only. An X client is listed with its X
// window and its elements placed at its own screen coordinates
// (pyatspi); a Wayland client is listed with its windows unknown and its
// elements without bounds, never its window-relative extents as the
// screen's.
func TestXwaylandWithoutSway(t *testing.T) {
	d := testdesk.On(t, testdesk.Xwayland)
	xc := d.Launch(t, "env", "GDK_BACKEND=x11", testdesk.Python, testdesk.Fixture("gtk3_fixture.py"))
	native := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"))
	env := userSwayEnv(d, "SWAYSOCK", "DISPLAY="+d.Display)
	doc := runCLIEnv(t, env, 60*time.Second, "doctor")
	if !strings.Contains(doc.stdout, "x11 through Xwayland") {
		t.Errorf("doctor does not name x11 through Xwayland:\n%s", doc.stdout)
	}
	if a := listedApp(t, env, xc.Pid); len(a.Windows) != 1 || !strings.HasPrefix(a.Windows[0].Window, "0x") || a.WindowsUnknown != "" {
		t.Errorf("apps lists the X client as %+v; want its X window", a)
	}
	if a := listedApp(t, env, native.Pid); len(a.Windows) != 0 || !strings.Contains(a.WindowsUnknown, "Xwayland") {
		t.Errorf("apps lists the Wayland client as %+v; want no windows and windowsUnknown saying why", a)
	}
	s := startUserMCP(t, env)
	want, _ := pyExtents(t, d, xc.Pid, "push button", "Submit")
	sess := s.connect(t, map[string]any{"pid": xc.Pid})
	if got := findOne(t, s, sess, map[string]any{"name": "Submit", "role": "push button"}); got.Bounds == nil || *got.Bounds != want {
		t.Errorf("the X client's Submit: bounds %v, its own screen extents (pyatspi) %+v", got.Bounds, want)
	}
	sess = s.connect(t, map[string]any{"pid": native.Pid})
	found := s.ok(t, "find_elements", map[string]any{"session": sess, "name": "Submit", "role": "push button"})
	if els, _ := found["elements"].([]any); len(els) != 1 {
		t.Fatalf("find Submit: %v", found)
	} else if e, _ := els[0].(map[string]any); e["bounds"] != nil || e["boundsUnknown"] != true {
		t.Errorf("the Wayland client's Submit: bounds %v, boundsUnknown %v; want none, unknown", e["bounds"], e["boundsUnknown"])
	}
}

// runCLIEnv runs uiscope with args and env alone, bounded by limit.
func runCLIEnv(t testing.TB, env []string, limit time.Duration, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, uiscopeBin, args...)
	cmd.Env = env
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String(), took: time.Since(start)}
	if ctx.Err() != nil {
		t.Fatalf("uiscope %v did not finish within %v; stderr:\n%s", args, limit, r.stderr)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("uiscope %v: %v", args, err)
	}
	return r
}

// TestDoctorNamesDesktop: doctor's first finding names the desktop it
// found, and on sway the protocols input and screenshots use and the
// packages Wayland apps need.
func TestDoctorNamesDesktop(t *testing.T) { testdesk.ForEach(t, testDoctorNamesDesktop) }

func testDoctorNamesDesktop(t *testing.T, d *testdesk.Desk) {
	r := runCLI(t, d, 60*time.Second, "doctor", "--json")
	var out struct {
		OK       bool `json:"ok"`
		Findings []struct {
			Level, Topic, Message string
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 0 || !out.OK || len(out.Findings) == 0 {
		t.Fatalf("doctor --json: exit %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	first := out.Findings[0]
	want := "x11 (DISPLAY=" + d.Display + ")"
	if d.Sway != nil {
		want = "sway (Wayland, WAYLAND_DISPLAY="
	}
	if first.Topic != "desktop" || first.Level != "ok" || !strings.HasPrefix(first.Message, want) {
		t.Errorf("doctor's first finding %+v; want desktop ok %q", first, want)
	}
	if d.Sway == nil {
		return
	}
	topics := map[string]bool{}
	for _, f := range out.Findings {
		topics[f.Topic] = true
		if f.Topic == "input and screenshots" {
			for _, p := range []string{"zwp_virtual_keyboard_manager_v1", "zwlr_virtual_pointer_manager_v1", "zwlr_screencopy_manager_v1"} {
				if f.Level != "ok" || !strings.Contains(f.Message, p) {
					t.Errorf("doctor on sway: %+v; want ok naming %s", f, p)
				}
			}
		}
		if f.Topic == "packages" && (f.Level != "ok" || !strings.Contains(f.Message, "qtwayland5") || !strings.Contains(f.Message, "xwayland")) {
			t.Errorf("doctor on sway: %+v; want ok naming qtwayland5 and xwayland (make deps installs them)", f)
		}
	}
	for _, topic := range []string{"input and screenshots", "packages"} {
		if !topics[topic] {
			t.Errorf("doctor on sway says nothing of %s:\n%s", topic, r.stdout)
		}
	}
}

// clickAndType clicks the GTK 3 fixture's Volume slider (which has no
// action: the click is the pointer's) and types text into its Name entry,
// each effect read by pyatspi in a process of its own.
func clickAndType(t *testing.T, d *testdesk.Desk, s *mcpServer, sess string, pid int, typed string) {
	t.Helper()
	vol := findOne(t, s, sess, map[string]any{"name": "Volume", "role": "slider"})
	before := pyProbe(t, d, pid, "slider", "Volume", "value")
	if out := s.ok(t, "click", map[string]any{"session": sess, "element": vol.Ref}); out["method"] != "pointer" {
		t.Fatalf("click on the slider: %v", out)
	}
	until(t, "the slider's value moved, read by pyatspi", func(context.Context) (bool, string) {
		v := pyProbe(t, d, pid, "slider", "Volume", "value")
		return v != before, before + " -> " + v
	})
	entry := findOne(t, s, sess, map[string]any{"name": "Name", "nameMatch": "exact", "role": "text"})
	s.ok(t, "type_text", map[string]any{"session": sess, "element": entry.Ref, "text": typed})
	until(t, "the text in the entry, read by pyatspi", func(context.Context) (bool, string) {
		got := pyProbe(t, d, pid, "text", "Name", "text")
		return got == typed, got
	})
}
