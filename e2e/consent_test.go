//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/atspi"
	"github.com/uiscope/uiscope/internal/procinfo"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// consentServer is a `uiscope mcp --consent prompt` and its pid, whose
// children are its dialogs.
type consentServer struct {
	*mcpServer
	pid int
}

func startConsent(t *testing.T, d *testdesk.Desk, args ...string) consentServer {
	t.Helper()
	cmd := exec.Command(uiscopeBin, append([]string{"mcp", "--consent", "prompt"}, args...)...)
	cmd.Env = d.Env()
	s := startMCPCmd(t, cmd)
	return consentServer{s, cmd.Process.Pid}
}

// callAsync runs a tool call in the background: a connect waits for the
// user's answer.
func (s consentServer) callAsync(name string, args map[string]any) <-chan map[string]any {
	ch := make(chan map[string]any, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), mcpCallLimit)
		defer cancel()
		res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		out := map[string]any{}
		if err != nil {
			out["protocolError"] = err.Error()
		} else {
			raw, _ := json.Marshal(res.StructuredContent)
			_ = json.Unmarshal(raw, &out)
		}
		ch <- out
	}()
	return ch
}

// dialogs are the server's children but its held input's watchdog (on
// sway one runs from the start): its consent dialogs.
func (s consentServer) dialogs() []int {
	return slices.DeleteFunc(procinfo.Children(s.pid), func(pid int) bool {
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		return strings.Contains(string(cmd), "-release-watchdog")
	})
}

// consentDialog is the dialog as the test reads it through its own
// AT-SPI connection: its pid and its buttons' centres.
type consentDialog struct {
	pid     int
	buttons map[string][2]int
	text    []string
}

// activeOf reports whether the active window belongs to pid: X11's
// active window, or the view sway has focused (swaymsg's tree).
func activeOf(ctx context.Context, t *testing.T, d *testdesk.Desk, pid int) (bool, string) {
	if d.Sway != nil {
		for _, v := range swayViews(t, d, pid) {
			if v.focused {
				return true, ""
			}
		}
		return false, "the dialog does not have the focus yet (swaymsg's tree)"
	}
	active, err := d.X.ActiveWindow(ctx)
	if err != nil {
		return false, "reading the active window: " + err.Error()
	}
	wins, err := d.X.TopLevels(ctx)
	if err != nil {
		return false, "reading the top levels: " + err.Error()
	}
	for _, w := range wins {
		if w.Pid == pid && uint32(w.ID) == active {
			return true, ""
		}
	}
	return false, fmt.Sprintf("the dialog does not have the focus yet (active window 0x%x)", active)
}

// waitDialog waits until the server shows a dialog whose buttons are on
// the screen and that has the focus.
func (s consentServer) waitDialog(t *testing.T, d *testdesk.Desk) consentDialog {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	last := "no child process"
	for ctx.Err() == nil {
		for _, pid := range s.dialogs() {
			app, err := d.A11y.AppForPid(ctx, pid)
			if err != nil {
				last = "not on the accessibility bus: " + err.Error()
				continue
			}
			root, _, err := d.A11y.Tree(ctx, app.Bus, atspi.TreeOptions{})
			if err != nil {
				last = err.Error()
				continue
			}
			// On sway GTK 3 gives window-relative extents: the screen
			// position is where swaymsg has the dialog's window.
			var origin platform.Rect
			if d.Sway != nil {
				views := swayViews(t, d, pid)
				if len(views) != 1 {
					last = fmt.Sprintf("%d sway windows", len(views))
					continue
				}
				origin = views[0].content
			}
			dlg := consentDialog{pid: pid, buttons: map[string][2]int{}}
			var walk func(n *platform.Node)
			walk = func(n *platform.Node) {
				if n.Role.String() == "push button" && n.Bounds != nil && !n.Bounds.Empty() && n.States.Has(platform.StateShowing) {
					dlg.buttons[n.Name] = [2]int{origin.X + n.Bounds.X + n.Bounds.Width/2, origin.Y + n.Bounds.Y + n.Bounds.Height/2}
				}
				if n.Role.String() == "label" {
					dlg.text = append(dlg.text, n.Name)
				}
				for _, c := range n.Children {
					walk(c)
				}
			}
			walk(root)
			if _, ok := dlg.buttons["Deny"]; !ok {
				last = "no Deny button on the screen yet"
				continue
			}
			// The window manager gives a new window the focus a moment
			// after it maps: input a test sends before then would lose
			// the focus to the dialog part way.
			if active, why := activeOf(ctx, t, d, pid); !active {
				last = why
				continue
			}
			return dlg
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no consent dialog: %s", last)
	return consentDialog{}
}

// press clicks a dialog button with the test's own input (handClick).
func (dlg consentDialog) press(t *testing.T, d *testdesk.Desk, name string) {
	t.Helper()
	at, ok := dlg.buttons[name]
	if !ok {
		t.Fatalf("the dialog has no %q button: %v", name, dlg.buttons)
	}
	handClick(t, d, at[0], at[1])
}

// answer presses a button of the server's consent dialog and presses it
// again, at its place read afresh, while the dialog stays up: a click that
// lands while the window manager is still placing the window is lost (seen
// once in a loaded run: the dialog then waited out its minute). The dialog
// ends with the first press it gets, so a press never counts twice.
func (s consentServer) answer(t *testing.T, d *testdesk.Desk, dlg consentDialog, name string) {
	t.Helper()
	for try := 1; ; try++ {
		dlg.press(t, d, name)
		deadline := time.Now().Add(3 * time.Second)
		for slices.Contains(s.dialogs(), dlg.pid) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if !slices.Contains(s.dialogs(), dlg.pid) {
			return
		}
		if try == 5 {
			t.Fatalf("the consent dialog is still up after %d presses of %q", try, name)
		}
		dlg = s.waitDialog(t, d)
	}
}

// waitNoDialog waits until the server has no dialog left.
func (s consentServer) waitNoDialog(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(s.dialogs()) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the consent dialog %v is still there", s.dialogs())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func wantFailure(t *testing.T, what string, out map[string]any, code string) {
	t.Helper()
	if out["ok"] != false || out["errorCode"] != code {
		t.Errorf("%s: %v; want errorCode %s", what, out, code)
	}
}

// TestConsentDenied: two requests at once share one dialog, which is
// neither listed nor connectable meanwhile; Deny (pressed by the test's
// own input, a user's hand) refuses both, and later requests are refused without a
// dialog.
func TestConsentDenied(t *testing.T) { testdesk.ForEach(t, testConsentDenied) }

func testConsentDenied(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "consent denied")
	s := startConsent(t, d, "--allow-input")
	first := s.callAsync("connect", map[string]any{"pid": app.Pid})
	second := s.callAsync("connect", map[string]any{"pid": app.Pid})
	dlg := s.waitDialog(t, d)
	if n := len(s.dialogs()); n != 1 {
		t.Errorf("%d dialogs for two requests at once, want 1", n)
	}
	text := strings.Join(dlg.text, "\n")
	if !strings.Contains(text, "python3") || strings.Contains(text, "consent denied") {
		t.Errorf("the dialog's text names the executable and not the window's title? %q", text)
	}
	apps := s.ok(t, "list_apps", nil)
	for _, a := range apps["apps"].([]any) {
		if a.(map[string]any)["pid"] == float64(dlg.pid) {
			t.Errorf("list_apps lists the consent dialog: %v", a)
		}
	}
	s.fail(t, "connect", map[string]any{"pid": dlg.pid}, "notFound")
	s.fail(t, "connect", map[string]any{"title": "uiscope: allow"}, "notFound")
	s.answer(t, d, dlg, "Deny")
	wantFailure(t, "the first request", <-first, "consentDenied")
	wantFailure(t, "the second request", <-second, "consentDenied")
	s.waitNoDialog(t)
	s.fail(t, "connect", map[string]any{"pid": app.Pid}, "consentDenied")
	if n := len(s.dialogs()); n != 0 {
		t.Errorf("a denied request showed a new dialog")
	}
}

// TestConsentApproved: "Allow reading" grants reading and never acting
// (refused without a new dialog); "Allow reading and acting" on another
// process grants both.
func TestConsentApproved(t *testing.T) { testdesk.ForEach(t, testConsentApproved) }

func testConsentApproved(t *testing.T, d *testdesk.Desk) {
	readOnly := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "consent read")
	acted := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "consent act")
	s := startConsent(t, d, "--allow-input")

	pending := s.callAsync("connect", map[string]any{"pid": readOnly.Pid})
	s.answer(t, d, s.waitDialog(t, d), "Allow reading")
	out := <-pending
	sess, _ := out["session"].(string)
	if out["ok"] != true || sess == "" {
		t.Fatalf("connect after Allow reading: %v", out)
	}
	s.waitNoDialog(t)
	s.ok(t, "get_a11y_tree", map[string]any{"session": sess})
	submit := findKeyed(t, s.mcpServer, sess, map[string]any{"name": "Submit", "role": "push button"})
	s.fail(t, "click", map[string]any{"session": sess, "element": submit.Ref}, "consentDenied")
	s.fail(t, "type_text", map[string]any{"session": sess, "text": "x"}, "consentDenied")
	s.fail(t, "window_action", map[string]any{"session": sess, "action": "minimize"}, "consentDenied")
	// Through run_steps too, before its first step runs; its reads run.
	run := s.fail(t, "run_steps", map[string]any{"session": sess, "steps": []any{
		step("find_elements", map[string]any{"name": "Submit"}),
		step("click", map[string]any{"element": submit.Ref}),
	}}, "consentDenied")
	if run["failedStep"] != float64(1) || len(run["results"].([]any)) != 0 {
		t.Errorf("run_steps with reading allowed: %v", run)
	}
	s.ok(t, "run_steps", map[string]any{"session": sess, "steps": []any{step("find_elements", map[string]any{"name": "Submit"})}})
	again := s.connect(t, map[string]any{"pid": readOnly.Pid})
	s.fail(t, "click", map[string]any{"session": again, "element": submit.Ref}, "consentDenied")
	if n := len(s.dialogs()); n != 0 {
		t.Errorf("asking for more showed a new dialog")
	}

	pending = s.callAsync("connect", map[string]any{"pid": acted.Pid})
	s.answer(t, d, s.waitDialog(t, d), "Allow reading and acting")
	out = <-pending
	sess, _ = out["session"].(string)
	if out["ok"] != true {
		t.Fatalf("connect after Allow reading and acting: %v", out)
	}
	s.waitNoDialog(t)
	submit = findKeyed(t, s.mcpServer, sess, map[string]any{"name": "Submit", "role": "push button"})
	s.ok(t, "invoke", map[string]any{"session": sess, "element": submit.Ref})
	s.ok(t, "run_steps", map[string]any{"session": sess, "steps": []any{
		step("invoke", map[string]any{"element": submit.Ref}),
		step("wait_for", map[string]any{"name": "Submitted", "until": "appears"}),
	}})
}

// TestConsentTimeoutAndExit: no answer in time refuses (retryable) and a
// later request asks again; a target that exits while asked is refused and
// its dialog closed.
func TestConsentTimeoutAndExit(t *testing.T) { testdesk.ForEach(t, testConsentTimeoutAndExit) }

func testConsentTimeoutAndExit(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "consent timeout")
	s := startConsent(t, d, "--consent-timeout", "2s")
	for range 2 {
		pending := s.callAsync("connect", map[string]any{"pid": app.Pid})
		// A dialog each time: the process is there at once, whatever
		// the time GTK takes to draw it on a loaded machine.
		deadline := time.Now().Add(30 * time.Second)
		for len(s.dialogs()) == 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if len(s.dialogs()) == 0 {
			t.Error("no dialog for a request after a timeout")
		}
		out := <-pending
		wantFailure(t, "no answer", out, "consentTimeout")
		if out["retryable"] != true {
			t.Errorf("a timeout is not retryable: %v", out)
		}
		s.waitNoDialog(t)
	}

	// The default timeout (a minute): the target exits first.
	s = startConsent(t, d)
	pending := s.callAsync("connect", map[string]any{"pid": app.Pid})
	s.waitDialog(t, d)
	if err := app.Proc.Stop(); err != nil {
		t.Fatal(err)
	}
	out := <-pending
	wantFailure(t, "the target exited while asked", out, "consentDenied")
	if msg, _ := out["error"].(string); !strings.Contains(msg, "exited") {
		t.Errorf("the refusal does not say the target exited: %v", out)
	}
	s.waitNoDialog(t)
}

// TestConsentHTTPPerToken: over HTTP, a dialog's identity line says the
// client came with the server's token and its client key; while one
// client's dialog waits, another, already granted client's typing goes on
// (the input lock is not held while the user decides), and her press on
// the dialog's Allow button is refused; a Deny holds for
// every client of the token: another client key and a 2025 MCP session are
// refused without a dialog of their own.
func TestConsentHTTPPerToken(t *testing.T) { testdesk.ForEach(t, testConsentHTTPPerToken) }

func testConsentHTTPPerToken(t *testing.T, d *testdesk.Desk) {
	asked := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "consent http asked")
	acted := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "consent http acted")
	p := startHTTP(t, d, "--consent", "prompt", "--allow-input", "--consent-timeout", "40s")
	pid := p.cmd.Process.Pid
	alice := consentServer{p.client(t, "alice-0123456789abcdef", ""), pid}

	pending := alice.callAsync("connect", map[string]any{"pid": acted.Pid})
	dlg := alice.waitDialog(t, d)
	// The test is the agent: its process is named.
	if text := strings.Join(dlg.text, "\n"); !strings.Contains(text, "over HTTP with the server's token, client key") ||
		!strings.Contains(text, fmt.Sprintf("(pid %d)", os.Getpid())) {
		t.Errorf("the dialog does not say how the agent connected and from which process (pid %d): %q", os.Getpid(), text)
	}
	alice.answer(t, d, dlg, "Allow reading and acting")
	out := <-pending
	sess, _ := out["session"].(string)
	if out["ok"] != true || sess == "" {
		t.Fatalf("connect after Allow reading and acting: %v", out)
	}
	alice.waitNoDialog(t)
	entry := findKeyed(t, alice.mcpServer, sess, map[string]any{"name": "Name", "nameMatch": "exact", "role": "text"})

	bob := consentServer{p.client(t, "bob-0123456789abcdef0", ""), pid}
	denied := bob.callAsync("connect", map[string]any{"pid": asked.Pid})
	dlg = bob.waitDialog(t, d)
	alice.ok(t, "type_text", map[string]any{"session": sess, "element": entry.Ref, "text": "typed while asked"})
	if !slices.Contains(bob.dialogs(), dlg.pid) {
		t.Errorf("another client's typing answered only once the dialog had gone: it waited for the user")
	}
	until(t, "alice's typing in her app", func(ctx context.Context) (bool, string) {
		got := liveText(ctx, d, entry.Key)
		return got == "typed while asked", got
	})
	// Alice, who may act, cannot answer for Bob's user: a press at the
	// place of the dialog's Allow button is refused (the dialog is on top
	// there, not her window), and the dialog still waits.
	allow := dlg.buttons["Allow reading and acting"]
	if out := alice.call(t, "press", map[string]any{"session": sess, "x": allow[0], "y": allow[1]}); out["ok"] != false || out["errorCode"] != "covered" {
		t.Errorf("alice's press on the consent dialog's Allow button: %v; want refused, covered", out)
		alice.call(t, "release", map[string]any{"session": sess})
	}
	select {
	case out := <-denied:
		t.Fatalf("bob's request was answered while the user had not: %v", out)
	case <-time.After(500 * time.Millisecond):
	}
	if !slices.Contains(bob.dialogs(), dlg.pid) {
		t.Fatalf("the consent dialog closed after alice's press on it")
	}
	bob.answer(t, d, dlg, "Deny")
	wantFailure(t, "bob's request, denied", <-denied, "consentDenied")
	bob.waitNoDialog(t)

	carol := p.client(t, "carol-0123456789abcdef", "")
	carol.fail(t, "connect", map[string]any{"pid": asked.Pid}, "consentDenied")
	session2025 := p.client(t, "", "2025-11-25")
	session2025.fail(t, "connect", map[string]any{"pid": asked.Pid}, "consentDenied")
	if n := len(bob.dialogs()); n != 0 {
		t.Errorf("%d dialogs for clients of a token the user denied", n)
	}
}
