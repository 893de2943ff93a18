//go:build linux

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// run_steps on real applications: a dialog's save as one call, a run that
// stops at a failing step, runs refused before their first step. What the
// steps did, or did not do, is read outside uiscope: the file on disk, the
// fixture's fields through a fresh AT-SPI read.

// stepsRun is run_steps' answer as the tests read it.
type stepsRun struct {
	OK         bool             `json:"ok"`
	ErrorCode  string           `json:"errorCode"`
	Error      string           `json:"error"`
	Completed  int              `json:"completed"`
	FailedStep *int             `json:"failedStep"`
	Results    []map[string]any `json:"results"`
	Effects    struct {
		WindowsOpened []struct{ Title, Role string } `json:"windowsOpened"`
		WindowsClosed []struct{ Title, Role string } `json:"windowsClosed"`
	} `json:"effects"`
}

// TestStepsMousepadSaveAs: mousepad (GTK 3) saves through its Save As
// dialog in one run_steps call — the file name set, Save clicked, the
// dialog waited out — and the file is on disk.
func TestStepsMousepadSaveAs(t *testing.T) { testdesk.ForEach(t, testStepsMousepadSaveAs) }

func testStepsMousepadSaveAs(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, append(freshHome(t), "mousepad")...)
	s := startMCP(t, d, "", "--allow-input")
	defer s.logCost(t, "mousepad run_steps")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	doc := findOne(t, s, sess, map[string]any{"role": "text", "states": []string{"editable", "focused"}})
	const lines = "saved by one run_steps call\nits second line"
	s.ok(t, "type_text", map[string]any{"session": sess, "element": doc.Ref, "text": lines})
	s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Ctrl+S"})
	chooser := map[string]any{"name": "Save As", "nameMatch": "exact", "role": "file chooser"}
	dialog := appears(t, s, sess, "the Save As dialog", copyArgs(chooser))
	name := findOne(t, s, sess, map[string]any{"within": dialog.Ref, "role": "text", "states": []string{"editable", "focused"}})
	save := findOne(t, s, sess, map[string]any{"within": dialog.Ref, "name": "Save", "nameMatch": "exact", "role": "push button"})
	path := filepath.Join(t.TempDir(), "steps.txt")

	gone := copyArgs(chooser)
	gone["until"], gone["timeoutMs"] = "disappears", 20000
	run := decode[stepsRun](t, s.ok(t, "run_steps", map[string]any{"session": sess, "steps": []any{
		step("set_value", map[string]any{"element": name.Ref, "value": path}),
		step("click", map[string]any{"element": save.Ref}),
		step("wait_for", gone),
	}}))
	if !run.OK || run.Completed != 3 || len(run.Results) != 3 {
		t.Fatalf("the save as one run: %+v", run)
	}
	// A step's answer is terse: whether it verified what it did, not the
	// field's text before and after (the file on disk shows it).
	if r := run.Results[0]; r["verified"] != true || r["after"] != nil || r["effects"] != nil || r["session"] != nil {
		t.Errorf("set_value's answer in the run: %v; want verified, without after, effects or session", r)
	}
	if run.Results[2]["satisfied"] != true {
		t.Errorf("wait_for's answer in the run: %v", run.Results[2])
	}
	closed := false
	for _, w := range run.Effects.WindowsClosed {
		closed = closed || w.Title == "Save As"
	}
	if !closed {
		t.Errorf("the run's effects do not say the dialog closed: %+v", run.Effects)
	}
	fileHolds(t, path, lines)
}

func copyArgs(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// TestStepsGTK3Fixture: on the GTK 3 fixture, a run of actions answers
// each step and does what they say; a run whose third step fails stops
// there, the steps after it not run; a run with a bad or another
// session's ref at its seventh step, and one with an acting step on a
// read-only server, run nothing. The fixture's fields are read outside
// uiscope; the planted password never shows in an answer.
func TestStepsGTK3Fixture(t *testing.T) { testdesk.ForEach(t, testStepsGTK3Fixture) }

func testStepsGTK3Fixture(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "steps gtk3")
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	// The fields the checks read back outside uiscope, by key.
	entry := findKeyed(t, s, sess, map[string]any{"name": "Name", "role": "text"})
	check := findKeyed(t, s, sess, map[string]any{"name": "Remember me", "role": "check box"})
	submit := findOne(t, s, sess, map[string]any{"name": "Submit", "role": "push button"})
	status := findKeyed(t, s, sess, map[string]any{"name": "Ready", "role": "label"})
	for _, e := range []elem{entry, check, status} {
		if e.Key == "" {
			t.Fatalf("%s %q has no key to read it back by", e.Role, e.Name)
		}
	}
	password := findOne(t, s, sess, map[string]any{"role": "password text"})
	ctx := context.Background()
	checked := func() bool { return liveStates(ctx, d, check.Key).Has(platform.StateChecked) }

	t.Run("actions", func(t *testing.T) {
		was := checked()
		out, res, err := s.callRaw(t, "run_steps", map[string]any{"session": sess, "steps": []any{
			step("set_value", map[string]any{"element": entry.Ref, "value": "Grace"}),
			step("toggle", map[string]any{"element": check.Ref}),
			step("click", map[string]any{"element": submit.Ref}),
			step("wait_for", map[string]any{"name": "Submitted: Grace", "until": "appears", "timeoutMs": 10000}),
			step("get_element_properties", map[string]any{"element": password.Ref}),
			step("find_elements", map[string]any{"role": "password text"}),
		}})
		if err != nil {
			t.Fatal(err)
		}
		if text := res.Content[0].(*mcp.TextContent).Text; strings.Contains(text, "hunter2-gtk-secret") {
			t.Errorf("the run's answer holds the planted password: %s", text)
		}
		run := decode[stepsRun](t, out)
		if !run.OK || run.Completed != 6 {
			t.Fatalf("the run: %+v", run)
		}
		if got := liveText(ctx, d, entry.Key); got != "Grace" {
			t.Errorf("the name field holds %q, want Grace", got)
		}
		if checked() == was {
			t.Error("the check box did not flip")
		}
		until(t, "the status says submitted", func(ctx context.Context) (bool, string) {
			got := liveText(ctx, d, status.Key)
			return got == "Submitted: Grace", got
		})
	})

	t.Run("stops at the failing step", func(t *testing.T) {
		was := checked()
		run := decode[stepsRun](t, s.fail(t, "run_steps", map[string]any{"session": sess, "steps": []any{
			step("set_value", map[string]any{"element": entry.Ref, "value": "first"}),
			step("get_element_properties", map[string]any{"element": entry.Ref, "names": []string{"text"}}),
			// A label holds no text to set: this step fails when it runs.
			step("set_value", map[string]any{"element": status.Ref, "value": "a label takes no text"}),
			step("set_value", map[string]any{"element": entry.Ref, "value": "never"}),
			step("toggle", map[string]any{"element": check.Ref}),
		}}, "notSupported"))
		if run.Completed != 2 || run.FailedStep == nil || *run.FailedStep != 2 || len(run.Results) != 3 || run.Results[2]["ok"] != false {
			t.Fatalf("the run with a failing third step: %+v", run)
		}
		if !strings.Contains(run.Error, "steps[3] to steps[4] were not run") {
			t.Errorf("the failure does not say which steps were not run: %s", run.Error)
		}
		if got := liveText(ctx, d, entry.Key); got != "first" {
			t.Errorf("the name field holds %q: a step after the failure ran, or the one before did not", got)
		}
		if checked() != was {
			t.Error("the check box flipped: a step after the failure ran")
		}
	})

	t.Run("a bad step 7 runs nothing", func(t *testing.T) {
		other := s.connect(t, map[string]any{"pid": app.Pid})
		foreign := findOne(t, s, other, map[string]any{"name": "Submit", "role": "push button"}).Ref
		for _, c := range []struct {
			bad  map[string]any
			code string
		}{
			{step("click", map[string]any{"element": "a11y:e999999999"}), "unknownRef"},
			{step("click", map[string]any{"element": foreign}), "unknownRef"},
			{step("clik", map[string]any{"element": submit.Ref}), "unknownTool"},
			{step("click", map[string]any{"element": 12}), "invalidArgument"},
		} {
			text, was := liveText(ctx, d, entry.Key), checked()
			var steps []any
			for i := range 3 {
				steps = append(steps, step("set_value", map[string]any{"element": entry.Ref, "value": "never " + string(rune('a'+i))}),
					step("toggle", map[string]any{"element": check.Ref}))
			}
			steps = append(steps, c.bad)
			run := decode[stepsRun](t, s.fail(t, "run_steps", map[string]any{"session": sess, "steps": steps}, c.code))
			if run.FailedStep == nil || *run.FailedStep != 6 || run.Completed != 0 || len(run.Results) != 0 ||
				!strings.Contains(run.Error, "steps[6] (") || !strings.Contains(run.Error, "no step was run") {
				t.Errorf("%v at step 7: %+v", c.bad, run)
			}
			if got := liveText(ctx, d, entry.Key); got != text {
				t.Errorf("the name field went from %q to %q: a step of a refused run ran", text, got)
			}
			if checked() != was {
				t.Error("the check box flipped: a step of a refused run ran")
			}
		}
	})

	t.Run("read-only server", func(t *testing.T) {
		ro := startMCP(t, d, "")
		rs := ro.connect(t, map[string]any{"pid": app.Pid})
		field := findOne(t, ro, rs, map[string]any{"name": "Name", "role": "text"})
		text := liveText(ctx, d, entry.Key)
		run := decode[stepsRun](t, ro.fail(t, "run_steps", map[string]any{"session": rs, "steps": []any{
			step("find_elements", map[string]any{"name": "Submit"}),
			step("set_value", map[string]any{"element": field.Ref, "value": "not allowed"}),
		}}, "inputNotAllowed"))
		if run.FailedStep == nil || *run.FailedStep != 1 || len(run.Results) != 0 || !strings.Contains(run.Error, "--allow-input") {
			t.Errorf("an acting step on a read-only server: %+v", run)
		}
		if got := liveText(ctx, d, entry.Key); got != text {
			t.Errorf("the name field went from %q to %q on a read-only server", text, got)
		}
		reads := decode[stepsRun](t, ro.ok(t, "run_steps", map[string]any{"session": rs, "steps": []any{
			step("find_elements", map[string]any{"name": "Submit"}),
			step("get_element_properties", map[string]any{"element": field.Ref, "names": []string{"text"}}),
		}}))
		if reads.Completed != 2 {
			t.Errorf("a run of reads on a read-only server: %+v", reads)
		}
	})

	t.Run("frozen app", func(t *testing.T) {
		text := liveText(ctx, d, entry.Key)
		if err := syscall.Kill(app.Pid, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		defer syscall.Kill(app.Pid, syscall.SIGCONT)
		// The first step's deadline ends the run; the step after it is
		// never sent, and the answer comes (callRaw fails a call that
		// does not answer in time).
		out := s.call(t, "run_steps", map[string]any{"session": sess, "steps": []any{
			step("wait_for", map[string]any{"name": "Never there", "until": "appears", "timeoutMs": 1500}),
			step("set_value", map[string]any{"element": entry.Ref, "value": "typed while frozen"}),
		}})
		run := decode[stepsRun](t, out)
		if run.OK || run.FailedStep == nil || *run.FailedStep != 0 || run.Completed != 0 || run.ErrorCode != "timeout" {
			t.Errorf("a run on a frozen app: %+v", run)
		}
		if err := syscall.Kill(app.Pid, syscall.SIGCONT); err != nil {
			t.Fatal(err)
		}
		until(t, "the app answers again", func(ctx context.Context) (bool, string) {
			got := liveText(ctx, d, entry.Key)
			return got == text, got
		})
	})
}

// TestStepsRateLimitAndAudit: on a real server with --rate-limit and
// --audit-log, each step of a run is a call of its own: past two actions a
// minute the third acting step is refused and the run stops there (the
// field holds the second value, read outside uiscope), and the log has a
// record per step besides the run's, with none of the values set.
func TestStepsRateLimitAndAudit(t *testing.T) { testdesk.ForEach(t, testStepsRateLimitAndAudit) }

func testStepsRateLimitAndAudit(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "steps rate")
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	s := startMCP(t, d, "", "--allow-input", "--rate-limit", "actions=2/min", "--audit-log", path)
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	entry := findKeyed(t, s, sess, map[string]any{"name": "Name", "nameMatch": "exact", "role": "text"})
	run := decode[stepsRun](t, s.fail(t, "run_steps", map[string]any{"session": sess, "steps": []any{
		step("set_value", map[string]any{"element": entry.Ref, "value": "value-one-77"}),
		step("get_element_properties", map[string]any{"element": entry.Ref, "names": []string{"text"}}),
		step("set_value", map[string]any{"element": entry.Ref, "value": "value-two-77"}),
		step("set_value", map[string]any{"element": entry.Ref, "value": "value-three-77"}),
	}}, "rateLimited"))
	if run.Completed != 3 || run.FailedStep == nil || *run.FailedStep != 3 || len(run.Results) != 4 || run.Results[3]["errorCode"] != "rateLimited" {
		t.Errorf("the third action under 2 a minute: %+v", run)
	}
	if got := liveText(context.Background(), d, entry.Key); got != "value-two-77" {
		t.Errorf("the name field holds %q, want value-two-77", got)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "-77") {
		t.Errorf("the audit log holds a value set:\n%s", b)
	}
	var ops []string
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		var r struct{ Operation, Outcome string }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("not a JSON line: %q", sc.Text())
		}
		ops = append(ops, r.Operation+" "+r.Outcome)
	}
	want := []string{"connect ok", "find_elements ok", "set_value started", "set_value ok", "get_element_properties ok",
		"set_value started", "set_value ok", "set_value refused", "run_steps refused"}
	if !slices.Equal(ops, want) {
		t.Errorf("audit records:\n got %v\nwant %v", ops, want)
	}
}
