//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/testdesk"
)

type treeJSON struct {
	Target struct {
		Pid     int `json:"pid"`
		Windows []struct {
			Window string        `json:"window"`
			Title  string        `json:"title"`
			Bounds platform.Rect `json:"bounds"`
		} `json:"windows"`
	} `json:"target"`
	Root      *elem `json:"root"`
	NodeCount int   `json:"nodeCount"`
	Truncated bool  `json:"truncated"`
	Fetch     struct {
		Strategy string `json:"strategy"`
		Ms       int    `json:"ms"`
	} `json:"fetch"`
}

func readTree(t *testing.T, d *testdesk.Desk, pid int, extra ...string) (treeJSON, result) {
	t.Helper()
	args := append([]string{"tree", "--pid", strconv.Itoa(pid), "--format", "json", "--max-nodes", "100000", "--max-bytes", "100000000", "--timeout-ms", "60000", "--fields", "key"}, extra...)
	r := runCLI(t, d, 90*time.Second, args...)
	if r.code != 0 {
		t.Fatalf("uiscope tree exited %d: %s", r.code, r.stderr)
	}
	var tj treeJSON
	if err := json.Unmarshal([]byte(r.stdout), &tj); err != nil {
		t.Fatalf("tree JSON: %v\n%s", err, r.stdout[:min(len(r.stdout), 2000)])
	}
	return tj, r
}

// checkComplete compares the raw tree uiscope printed with an independent
// walk of the same app: same node count, same role/name pairs (the
// children of partial containers, which hold what is on screen, aside).
func checkComplete(t *testing.T, d *testdesk.Desk, app *testdesk.App, tj treeJSON) {
	t.Helper()
	var got []string
	count := 0
	partial := map[*elem]bool{}
	tj.Root.walk(func(e, p *elem) {
		count++
		if p != nil && partial[p] {
			partial[e] = true
			return
		}
		if e.ChildrenPartial {
			partial[e] = true
		}
		got = append(got, fmt.Sprintf("%s %q", e.Role, e.Name))
	})
	sort.Strings(got)
	want := independentWalk(t, d.A11yBus, app.Bus)
	if tj.NodeCount != count {
		t.Errorf("nodeCount %d, but the JSON holds %d nodes", tj.NodeCount, count)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("uiscope's raw tree (%d nodes) differs from an independent walk (%d nodes):\n%s", len(got), len(want), diff(want, got))
	}
	if tj.Truncated {
		t.Errorf("tree marked truncated")
	}
}

// diff lists the lines only one side has.
func diff(want, got []string) string {
	count := map[string]int{}
	for _, w := range want {
		count[w]++
	}
	for _, g := range got {
		count[g]--
	}
	var b strings.Builder
	for k, v := range count {
		switch {
		case v > 0:
			fmt.Fprintf(&b, "  missing %dx %s\n", v, k)
		case v < 0:
			fmt.Fprintf(&b, "  extra   %dx %s\n", -v, k)
		}
	}
	return b.String()
}

// checkBounds asserts that the frame sits on the app's window and that every
// showing push button lies inside it: bounds are screen pixels.
func checkBounds(t *testing.T, tj treeJSON) {
	t.Helper()
	if len(tj.Target.Windows) == 0 {
		t.Fatal("target has no windows")
	}
	win := tj.Target.Windows[0].Bounds
	frames, buttons := 0, 0
	tj.Root.walk(func(e, p *elem) {
		if e.Bounds == nil || e.Bounds.Empty() {
			return
		}
		if p == tj.Root && e.Role == "frame" {
			frames++
			// The frame fills the window, less a client-side border that is
			// the same on every side.
			b := *e.Bounds
			if b.X-win.X != win.X+win.Width-(b.X+b.Width) || b.Y-win.Y != win.Y+win.Height-(b.Y+b.Height) || b.X < win.X || b.Y < win.Y || b.X-win.X > 30 {
				t.Errorf("frame %q bounds %+v do not sit centred on window %+v", e.Name, b, win)
			}
		}
		if e.Role == "push button" && (e.has("showing") || e.has("visible")) && e.Bounds.Width > 1 {
			cx, cy := e.Bounds.X+e.Bounds.Width/2, e.Bounds.Y+e.Bounds.Height/2
			if !win.Contains(cx, cy) {
				t.Errorf("push button %q at %+v: centre outside window %+v", e.Name, *e.Bounds, win)
			}
			buttons++
		}
	})
	if frames == 0 || buttons == 0 {
		t.Errorf("found %d frames and %d showing buttons with bounds; want some of each", frames, buttons)
	}
}

func TestTreeGTK3WidgetFactory(t *testing.T) { testdesk.ForEach(t, testTreeGTK3WidgetFactory) }

func testTreeGTK3WidgetFactory(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, "gtk3-widget-factory")
	tj, _ := readTree(t, d, app.Pid)
	checkComplete(t, d, app, tj)
	checkBounds(t, tj)
	if tj.NodeCount < 200 {
		t.Errorf("only %d nodes", tj.NodeCount)
	}
}

func TestTreeGTK4WidgetFactory(t *testing.T) { testdesk.ForEach(t, testTreeGTK4WidgetFactory) }

func testTreeGTK4WidgetFactory(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, "gtk4-widget-factory")
	tj, _ := readTree(t, d, app.Pid)
	checkComplete(t, d, app, tj)
	checkBounds(t, tj)
	if tj.NodeCount < 500 {
		t.Errorf("only %d nodes", tj.NodeCount)
	}
}

func TestTreeGTK3Demo(t *testing.T) { testdesk.ForEach(t, testTreeGTK3Demo) }

func testTreeGTK3Demo(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, "gtk3-demo")
	tj, _ := readTree(t, d, app.Pid)
	checkComplete(t, d, app, tj)
	checkBounds(t, tj)
}

func TestTreeQt5Fixture(t *testing.T) { testdesk.ForEach(t, testTreeQt5Fixture) }

func testTreeQt5Fixture(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("qt5_fixture.py"))
	tj, _ := readTree(t, d, app.Pid)
	checkComplete(t, d, app, tj)
	checkBounds(t, tj)
	for _, want := range []string{`check box "Remember me"`, `push button "Submit"`} {
		found := false
		tj.Root.walk(func(e, _ *elem) { found = found || fmt.Sprintf("%s %q", e.Role, e.Name) == want })
		if !found {
			t.Errorf("Qt tree lacks %s", want)
		}
	}
}

// TestPasswordNeverLeaks reads every output form of every password fixture
// and looks for the secret.
func TestPasswordNeverLeaks(t *testing.T) { testdesk.ForEach(t, testPasswordNeverLeaks) }

func testPasswordNeverLeaks(t *testing.T, d *testdesk.Desk) {
	cases := []struct {
		fixture, secret string
	}{
		{"gtk3_fixture.py", "hunter2-gtk-secret"},
		{"gtk4_fixture.py", "hunter2-gtk4-secret"},
		{"qt5_fixture.py", "hunter2-qt-secret"},
	}
	for _, tc := range cases {
		t.Run(tc.fixture, func(t *testing.T) {
			app := d.Launch(t, testdesk.Python, testdesk.Fixture(tc.fixture))
			pid := strconv.Itoa(app.Pid)
			tj, jr := readTree(t, d, app.Pid)
			outline := runCLI(t, d, 60*time.Second, "tree", "--pid", pid, "--format", "outline", "--max-nodes", "100000", "--max-bytes", "100000000")
			var redacted []*elem
			tj.Root.walk(func(e, _ *elem) {
				if e.Redacted {
					redacted = append(redacted, e)
				}
			})
			if len(redacted) == 0 {
				t.Fatalf("no redacted password field in the tree")
			}
			outs := []string{jr.stdout, outline.stdout}
			for _, e := range redacted {
				if e.Name != "" {
					t.Errorf("redacted element %s has name %q", e.Ref, e.Name)
				}
				p := runCLI(t, d, 60*time.Second, "props", "--pid", pid, "--element", e.Ref, "--json")
				if p.code != 0 {
					t.Fatalf("props %s: exit %d: %s", e.Ref, p.code, p.stderr)
				}
				var props map[string]any
				if err := json.Unmarshal([]byte(p.stdout), &props); err != nil {
					t.Fatalf("props JSON: %v", err)
				}
				if _, ok := props["text"]; ok || props["redacted"] != true {
					t.Errorf("props of a password field: want redacted and no text, got %s", p.stdout)
				}
				outs = append(outs, p.stdout)
			}
			for _, role := range []string{"text", "entry", "password text"} {
				f := runCLI(t, d, 60*time.Second, "find", "--pid", pid, "--role", role, "--json")
				outs = append(outs, f.stdout)
			}
			for i, o := range outs {
				if strings.Contains(o, tc.secret) {
					t.Errorf("output %d contains the password", i)
				}
			}
		})
	}
}

// TestTkIsNotAccessible: a toolkit with no AT-SPI support is reported as
// such, never as an empty success. X11 only: Tk has no Wayland backend
// (TestXwaylandClients lists it on sway through Xwayland).
func TestTkIsNotAccessible(t *testing.T) {
	d := testdesk.Shared(t)
	app := d.LaunchX(t, testdesk.Python, testdesk.Fixture("tk_fixture.py"))
	pid := strconv.Itoa(app.Pid)
	r := runCLI(t, d, 30*time.Second, "tree", "--pid", pid)
	if r.code == 0 || !strings.Contains(r.stderr, "notAccessible") {
		t.Errorf("tree of a Tk app: exit %d, stderr %q; want a notAccessible failure", r.code, r.stderr)
	}
	a := runCLI(t, d, 30*time.Second, "apps", "--json")
	var apps struct {
		Apps []struct {
			Pid        int  `json:"pid"`
			Accessible bool `json:"accessible"`
			Windows    []struct {
				Title string `json:"title"`
			} `json:"windows"`
		} `json:"apps"`
	}
	if err := json.Unmarshal([]byte(a.stdout), &apps); err != nil {
		t.Fatalf("apps JSON: %v", err)
	}
	found := false
	for _, x := range apps.Apps {
		if x.Pid == app.Pid {
			found = true
			if x.Accessible || len(x.Windows) == 0 {
				t.Errorf("Tk app listed as %+v; want accessible=false with its window", x)
			}
		}
	}
	if !found {
		t.Errorf("Tk app (pid %d) not listed by apps", app.Pid)
	}
	doc := runCLI(t, d, 30*time.Second, "doctor", "--pid", pid)
	if doc.code == 0 || !strings.Contains(doc.stdout, "Tk has no AT-SPI support") {
		t.Errorf("doctor on Tk: exit %d\n%s", doc.code, doc.stdout)
	}
}

// TestBadInput: unknown targets and malformed refs fail clearly, fast.
func TestBadInput(t *testing.T) { testdesk.ForEach(t, testBadInput) }

func testBadInput(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"))
	pid := strconv.Itoa(app.Pid)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"tree", "--pid", "999999"}, "notFound"},
		{[]string{"tree", "--name", "no-such-program"}, "notFound"},
		{[]string{"tree"}, "invalidArgument"},
		{[]string{"tree", "--pid", pid, "--view", "fancy"}, "invalidArgument"},
		{[]string{"tree", "--pid", pid, "--depth", "-5"}, "invalidArgument"},
		{[]string{"tree", "--pid", pid, "--format", "xml"}, "invalidArgument"},
		{[]string{"props", "--pid", pid, "--element", "e12x"}, "malformedRef"},
		{[]string{"props", "--pid", pid, "--element", "visual:e3"}, "wrongTree"},
		{[]string{"props", "--pid", pid, "--element", "a11y:e999999"}, "unknownRef"},
		{[]string{"props", "--pid", pid, "--element", "atspi::1.999/org/a11y/atspi/accessible/424242"}, "elementGone"},
		{[]string{"find", "--pid", pid, "--role", "no such role"}, "invalidArgument"},
		{[]string{"find", "--pid", pid, "--name", "(", "--match", "regex"}, "invalidArgument"},
		{[]string{"tree", "--window", "0xzz"}, "invalidArgument"},
	}
	for _, tc := range cases {
		r := runCLI(t, d, 30*time.Second, tc.args...)
		if r.code == 0 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("uiscope %v: exit %d, stderr %q; want a failure mentioning %s", tc.args, r.code, r.stderr, tc.want)
		}
	}
	// A durable key works where a ref would: it names one element for good.
	f := runCLI(t, d, 30*time.Second, "find", "--pid", pid, "--name", "Submit", "--json", "--fields", "key")
	var found struct {
		Elements []elem `json:"elements"`
	}
	if err := json.Unmarshal([]byte(f.stdout), &found); err != nil || len(found.Elements) == 0 {
		t.Fatalf("find Submit: %v %q", err, f.stdout)
	}
	p := runCLI(t, d, 30*time.Second, "props", "--pid", pid, "--element", found.Elements[0].Key)
	if p.code != 0 || !strings.Contains(p.stdout, `"Submit"`) {
		t.Errorf("props by key: exit %d %q %q", p.code, p.stdout, p.stderr)
	}
	// The app was left alone and still answers.
	if r := runCLI(t, d, 30*time.Second, "find", "--pid", pid, "--name", "Submit"); r.code != 0 {
		t.Errorf("after bad input the app no longer answers: %d %s", r.code, r.stderr)
	}
}

// TestFrozenApp: a walk of an app stopped with SIGSTOP returns by its
// deadline, marked partial, and the app answers again once continued.
func TestFrozenApp(t *testing.T) { testdesk.ForEach(t, testFrozenApp) }

func testFrozenApp(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"))
	pid := strconv.Itoa(app.Pid)
	if err := syscall.Kill(app.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(app.Pid, syscall.SIGCONT)
	r := runCLI(t, d, 30*time.Second, "tree", "--pid", pid, "--format", "json", "--timeout-ms", "1500")
	if r.code != 3 || !strings.Contains(r.stderr, "incomplete") {
		t.Errorf("frozen app: exit %d, stderr %q; want exit 3 (partial) with a warning", r.code, r.stderr)
	}
	var tj treeJSON
	if err := json.Unmarshal([]byte(r.stdout), &tj); err != nil || !tj.Truncated {
		t.Errorf("frozen app: want JSON with truncated=true, got %v / %q", err, r.stdout)
	}
	// The deadline is honoured: 1.5 s walk plus process start and listing.
	if r.took > 15*time.Second {
		t.Errorf("frozen app: took %v", r.took)
	}
	syscall.Kill(app.Pid, syscall.SIGCONT)
	if r := runCLI(t, d, 60*time.Second, "find", "--pid", pid, "--name", "Submit"); r.code != 0 {
		t.Errorf("after SIGCONT: exit %d %s", r.code, r.stderr)
	}
}

// TestAppKilledMidWalk: an app that dies while its tree is read yields a
// clear failure or a partial tree, never a hang.
func TestAppKilledMidWalk(t *testing.T) { testdesk.ForEach(t, testAppKilledMidWalk) }

func testAppKilledMidWalk(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--rows", "3000")
	cmd := exec.Command(uiscopeBin, "tree", "--pid", strconv.Itoa(app.Pid), "--format", "json", "--timeout-ms", "20000")
	cmd.Env = d.Env()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	app.Proc.Stop()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code == 0 {
			t.Errorf("tree of a killed app exited 0")
		}
		// ownershipLost: the CLI reads through a core session, whose
		// identity check names the application as gone.
		if !strings.Contains(stderr.String(), "notFound") && !strings.Contains(stderr.String(), "elementGone") &&
			!strings.Contains(stderr.String(), "ownershipLost") && !strings.Contains(stderr.String(), "incomplete") {
			t.Errorf("unclear message for a killed app: %q", stderr.String())
		}
	case <-time.After(40 * time.Second):
		cmd.Process.Kill()
		t.Fatal("uiscope tree hung on a killed app")
	}
}

// TestNoDesktop: without a display or an accessibility bus, the CLI says
// so and how to get one, and fails.
func TestNoDesktop(t *testing.T) {
	for _, args := range [][]string{{"apps"}, {"tree", "--pid", "1"}, {"doctor"}} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, uiscopeBin, args...)
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir(), "XDG_RUNTIME_DIR=" + t.TempDir()}
		out, err := cmd.CombinedOutput()
		cancel()
		if err == nil {
			t.Errorf("uiscope %v without a desktop succeeded:\n%s", args, out)
			continue
		}
		if !strings.Contains(string(out), "uiscope sandbox") {
			t.Errorf("uiscope %v without a desktop: the message does not say how to get one:\n%s", args, out)
		}
	}
}
