package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
	"github.com/uiscope/uiscope/internal/security"
)

// The form run_steps drives on the fake desktop: a name field, a password
// field, a check box, a Save button and a status label, in a window, and a
// dialog window.
const (
	formPid    = 6161
	otherPid   = 6262
	plantedPwd = "planted-secret-9047"
)

func formTree() *platform.Node {
	entry := fake.With(fake.Keyed("f/name", "text", "Name"), fake.Ifaces("component", "text", "editabletext"),
		fake.AddStates("editable", "focusable"), fake.Bounds(20, 40, 300, 30))
	// Redacted at the source, as the platform reads a password field.
	pwd := fake.With(fake.Keyed("f/password", "password text", "Password"), fake.Ifaces("component", "text", "editabletext"),
		fake.AddStates("editable", "focusable"), fake.Bounds(20, 80, 300, 30), func(n *platform.Node) { n.Redacted = true })
	check := fake.With(fake.Keyed("f/check", "check box", "Remember me"), fake.Ifaces("component", "action"),
		fake.Actions("toggle"), fake.AddStates("checkable"), fake.Bounds(20, 120, 150, 25))
	save := fake.With(fake.Keyed("f/save", "push button", "Save"), fake.Ifaces("component", "action"),
		fake.Actions("click"), fake.Bounds(20, 200, 100, 30))
	status := fake.With(fake.Keyed("f/status", "label", "Ready"), fake.Bounds(20, 240, 100, 20))
	frame := fake.With(fake.Keyed("f/frame", "frame", "Form", entry, pwd, check, save, status), fake.Bounds(0, 0, 400, 300))
	return fake.Root("form", frame)
}

// stepsDesk is the form on a fake desktop that acts, its password field
// holding a planted secret, beside another app.
type stepsDesk struct {
	*fake.Desktop
	main, dialog platform.WindowID
}

func newStepsDesk(t *testing.T) stepsDesk {
	t.Helper()
	d := fake.New()
	d.AddApp(fake.App{Pid: formPid, Name: "form", Tree: formTree()})
	d.AddApp(fake.App{Pid: otherPid, Name: "other", Tree: fake.Root("other", fake.With(fake.Keyed("o/frame", "frame", "Other",
		fake.With(fake.Keyed("o/ok", "push button", "OK"), fake.Ifaces("component", "action"), fake.Actions("click"))), fake.Bounds(500, 0, 200, 200)))})
	sd := stepsDesk{Desktop: d, main: d.AddWindow(formPid, "Form", platform.Rect{Width: 400, Height: 300})}
	sd.dialog = d.AddWindow(formPid, "Confirm", platform.Rect{X: 50, Y: 50, Width: 200, Height: 100})
	d.AddWindow(otherPid, "Other", platform.Rect{X: 500, Width: 200, Height: 200})
	d.SetActive(sd.main)
	if _, _, err := d.SetText(context.Background(), platform.App{Pid: formPid}, "f/password", plantedPwd); err != nil {
		t.Fatal(err)
	}
	return sd
}

// stepsServer serves cfg over d, the core granting what cfg does.
func stepsServer(t *testing.T, d stepsDesk, cfg Config) (*mcp.ClientSession, *core.Sessions) {
	t.Helper()
	m := core.NewSessions(d.Platform())
	m.Caps = cfg.Caps
	return serve(t, New(cfg, m), ""), m
}

// formSession connects to the form and reads its tree: its session and
// the refs by name.
func formSession(t *testing.T, cs *mcp.ClientSession) (string, map[string]string) {
	t.Helper()
	session := mustOK(t, cs, "connect", map[string]any{"pid": formPid})["session"].(string)
	found := mustOK(t, cs, "find_elements", map[string]any{"session": session})
	refs := map[string]string{}
	for _, e := range found["elements"].([]any) {
		m := e.(map[string]any)
		name, _ := m["name"].(string)
		if m["role"] == "password text" {
			name = "Password" // redacted: no name shown
		}
		refs[name], _ = m["ref"].(string)
	}
	return session, refs
}

// acted lists the calls that changed the form, from the fake's record.
func acted(d stepsDesk) []string {
	var out []string
	for _, c := range d.Calls() {
		switch c.Name {
		case "SetText", "DoAction", "Click", "KeyChord", "TypeText", "GrabFocus", "WindowAction", "SetValue", "Select", "Activate":
			out = append(out, c.Name)
		}
	}
	return out
}

func step(tool string, args map[string]any) map[string]any {
	if args == nil {
		return map[string]any{"tool": tool}
	}
	return map[string]any{"tool": tool, "arguments": args}
}

// A run's steps answer each in order, tersely: an acting step its ok,
// verified and own result, without the session, effects or the states
// before and after; a read step its tool's answer without the session.
// The run says once what it caused: the fields hold what was set, the
// dialog closed.
func TestRunSteps(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		d := newStepsDesk(t)
		cs, _ := stepsServer(t, d, Config{Caps: security.Input})
		session, refs := formSession(t, cs)
		out := mustOK(t, cs, "run_steps", map[string]any{"session": session, "observe": true, "steps": []any{
			step("set_value", map[string]any{"element": refs["Name"], "value": "Ada"}),
			step("toggle", map[string]any{"session": session, "element": refs["Remember me"]}),
			step("get_element_properties", map[string]any{"element": refs["Remember me"], "names": []string{"states"}}),
			step("window_action", map[string]any{"action": "close", "window": d.dialog.String()}),
			step("find_elements", map[string]any{"name": "Save", "role": "push button"}),
		}})
		if out["completed"] != float64(5) || out["failedStep"] != nil {
			t.Fatalf("run: %v", out)
		}
		results := out["results"].([]any)
		if len(results) != 5 {
			t.Fatalf("%d results, want 5: %v", len(results), out)
		}
		for i, tool := range []string{"set_value", "toggle", "get_element_properties", "window_action", "find_elements"} {
			r := results[i].(map[string]any)
			if r["ok"] != true || r["session"] != nil {
				t.Errorf("results[%d] (%s): %v; want ok without the session", i, tool, r)
			}
			if acts := i != 2 && i != 4; acts {
				if r["verified"] != true {
					t.Errorf("results[%d] (%s): %v; want verified", i, tool, r)
				}
				for _, k := range []string{"effects", "before", "after", "method", "detail", "window", "element"} {
					if _, ok := r[k]; ok {
						t.Errorf("results[%d] (%s) has %s: %v", i, tool, k, r)
					}
				}
			}
		}
		if keys := slices.Collect(maps.Keys(results[0].(map[string]any))); len(keys) != 2 {
			t.Errorf("set_value's answer in the run: %v; want ok and verified", results[0])
		}
		if found := results[4].(map[string]any)["elements"].([]any); len(found) != 1 {
			t.Errorf("find_elements' answer in the run: %v", results[4])
		}
		if states := results[2].(map[string]any)["properties"].(map[string]any)["states"]; !slices.Contains(states.([]any), any("checked")) {
			t.Errorf("the check box read after the toggle: states %v", states)
		}
		if got := d.Text(formPid, "f/name"); got != "Ada" {
			t.Errorf("the name field holds %q, want Ada", got)
		}
		effects := out["effects"].(map[string]any)
		closed, _ := effects["windowsClosed"].([]any)
		if len(closed) != 1 || closed[0].(map[string]any)["title"] != "Confirm" {
			t.Errorf("the run's effects: %v; want the dialog Confirm closed", effects)
		}
		if changes, ok := out["changes"].([]any); !ok || len(changes) == 0 {
			t.Errorf("an observed run: changes %v, note %v", out["changes"], out["changesNote"])
		}
	})
}

// A step that fails stops the run there: the answers up to and including
// its failure, the steps after it not run, the effects so far.
func TestRunStepsStopsAtFirstFailure(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		d := newStepsDesk(t)
		cs, _ := stepsServer(t, d, Config{Caps: security.Input})
		session, refs := formSession(t, cs)
		out, res := call(t, cs, "run_steps", map[string]any{"session": session, "steps": []any{
			step("set_value", map[string]any{"element": refs["Name"], "value": "first"}),
			step("window_action", map[string]any{"action": "close", "window": d.dialog.String()}),
			step("set_value", map[string]any{"element": refs["Ready"], "value": "a label takes no text"}),
			step("set_value", map[string]any{"element": refs["Name"], "value": "never"}),
			step("toggle", map[string]any{"element": refs["Remember me"]}),
		}})
		if !res.IsError || out["ok"] != false || out["completed"] != float64(2) || out["failedStep"] != float64(2) {
			t.Fatalf("run with a failing third step: %v", out)
		}
		results := out["results"].([]any)
		if len(results) != 3 || results[2].(map[string]any)["ok"] != false {
			t.Fatalf("results: %v; want two answers and the failure", results)
		}
		if out["errorCode"] != results[2].(map[string]any)["errorCode"] || out["retryable"] != false {
			t.Errorf("the run's failure %v %v; want the step's code, not retryable", out["errorCode"], out["retryable"])
		}
		msg := out["error"].(string)
		for _, want := range []string{"steps[2] (set_value) failed", "steps[0] to steps[1] ran", "steps[3] to steps[4] were not run"} {
			if !strings.Contains(msg, want) {
				t.Errorf("the failure does not say %q: %s", want, msg)
			}
		}
		if got := d.Text(formPid, "f/name"); got != "first" {
			t.Errorf("the name field holds %q: a step after the failure ran", got)
		}
		mustOK(t, cs, "get_element_properties", map[string]any{"session": session, "element": refs["Remember me"]})
		props := mustOK(t, cs, "get_element_properties", map[string]any{"session": session, "element": refs["Remember me"], "names": []string{"states"}})
		if slices.Contains(props["properties"].(map[string]any)["states"].([]any), any("checked")) {
			t.Error("the check box was toggled: a step after the failure ran")
		}
		closed, _ := out["effects"].(map[string]any)["windowsClosed"].([]any)
		if len(closed) != 1 {
			t.Errorf("the failed run's effects: %v; want the dialog its second step closed", out["effects"])
		}
	})
}

// A run that does not pass its check runs no step: a step's tool unknown
// or not one run_steps runs, its arguments of the wrong type or unknown, a
// bad or foreign ref, another session, too many steps.
func TestRunStepsValidation(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		d := newStepsDesk(t)
		cs, _ := stepsServer(t, d, Config{Caps: security.Input})
		session, refs := formSession(t, cs)
		other := mustOK(t, cs, "connect", map[string]any{"pid": otherPid})["session"].(string)
		found := mustOK(t, cs, "find_elements", map[string]any{"session": other, "name": "OK"})
		foreign := found["elements"].([]any)[0].(map[string]any)["ref"].(string)

		// Six good steps first: the bad seventh must stop them all.
		good := func() []any {
			var s []any
			for range 3 {
				s = append(s, step("set_value", map[string]any{"element": refs["Name"], "value": "changed"}),
					step("toggle", map[string]any{"element": refs["Remember me"]}))
			}
			return s
		}
		before := len(acted(d))
		for _, c := range []struct {
			name string
			bad  map[string]any
			code string
			says string
		}{
			{"unknown tool", step("clik", map[string]any{"element": refs["Save"]}), CodeUnknownTool, "no tool is named"},
			{"run_steps itself", step("run_steps", map[string]any{"steps": []any{}}), CodeStepNotAllowed, "call run_steps on its own"},
			{"screenshot", step("screenshot", nil), CodeStepNotAllowed, "not a tool run_steps runs"},
			{"get_a11y_tree", step("get_a11y_tree", nil), CodeStepNotAllowed, "not a tool run_steps runs"},
			{"a wrong type", step("click", map[string]any{"element": 5}), core.CodeInvalidArgument, "argument element must be a string"},
			{"an unknown argument", step("click", map[string]any{"element": refs["Save"], "elemnt": "x"}), core.CodeInvalidArgument, "unknown argument"},
			{"a missing argument", step("set_value", map[string]any{"element": refs["Name"]}), core.CodeInvalidArgument, "missing argument value"},
			{"a malformed ref", step("click", map[string]any{"element": "e-7"}), core.CodeMalformedRef, "malformed"},
			{"an unknown ref", step("click", map[string]any{"element": "a11y:e99999"}), core.CodeUnknownRef, "a11y:e99999"},
			{"another session's ref", step("click", map[string]any{"element": foreign}), core.CodeUnknownRef, foreign},
			{"another session's within", step("find_elements", map[string]any{"within": foreign}), core.CodeUnknownRef, foreign},
			{"wait_for's until", step("wait_for", map[string]any{"name": "Save", "until": "appear"}), core.CodeInvalidArgument, "until must be appears, disappears or property"},
			{"a bad regex", step("find_elements", map[string]any{"name": "(", "nameMatch": "regex"}), core.CodeInvalidArgument, "regex"},
			{"an unknown property", step("get_element_properties", map[string]any{"element": refs["Name"], "names": []string{"colour"}}), core.CodeInvalidArgument, "unknown property"},
			{"a click's timeoutMs", step("click", map[string]any{"element": refs["Save"], "timeoutMs": 999999}), core.CodeInvalidArgument, "timeoutMs must be between"},
			{"an observed step's maxBytes", step("toggle", map[string]any{"element": refs["Remember me"], "observe": true, "maxBytes": 10}), core.CodeInvalidArgument, "maxBytes must be between"},
			{"another session", step("click", map[string]any{"session": other, "element": refs["Save"]}), core.CodeInvalidArgument, "the run's session"},
		} {
			steps := append(good(), c.bad)
			out := mustFail(t, cs, "run_steps", map[string]any{"session": session, "steps": steps}, c.code)
			msg, _ := out["error"].(string)
			if out["failedStep"] != float64(6) || out["completed"] != float64(0) || len(out["results"].([]any)) != 0 ||
				!strings.Contains(msg, "steps[6]") || !strings.Contains(msg, c.says) || !strings.Contains(msg, "no step was run") {
				t.Errorf("%s at step 7: %v", c.name, out)
			}
		}
		many := slices.Repeat([]any{step("get_element_properties", map[string]any{"element": refs["Name"]})}, MaxSteps+1)
		out := mustFail(t, cs, "run_steps", map[string]any{"session": session, "steps": many}, core.CodeInvalidArgument)
		if out["failedStep"] != float64(MaxSteps) || !strings.Contains(out["error"].(string), "at most 20") {
			t.Errorf("21 steps: %v", out)
		}
		mustFail(t, cs, "run_steps", map[string]any{"session": session, "steps": []any{}}, core.CodeInvalidArgument)
		mustFail(t, cs, "run_steps", map[string]any{"session": session, "steps": "click"}, core.CodeInvalidArgument)
		for _, c := range []struct {
			steps any
			says  string
		}{
			{[]any{step("click", nil), map[string]any{"tol": "click"}}, `argument steps[1] has an unknown member "tol"; it takes: arguments, tool`},
			{[]any{map[string]any{"arguments": map[string]any{}}}, "argument steps[0] lacks tool (a string)"},
			{[]any{map[string]any{"tool": "click", "arguments": []any{}}}, "argument steps[0].arguments must be an object, not an array"},
			{[]any{"click"}, "argument steps[0] must be an object, not a string"},
		} {
			out := mustFail(t, cs, "run_steps", map[string]any{"session": session, "steps": c.steps}, core.CodeInvalidArgument)
			if out["error"] != c.says {
				t.Errorf("steps %v: %v; want %q", c.steps, out["error"], c.says)
			}
		}
		mustFail(t, cs, "run_steps", map[string]any{"session": session, "steps": good(), "observe": true, "maxBytes": 10}, core.CodeInvalidArgument)
		mustFail(t, cs, "run_steps", map[string]any{"session": "no-such-session", "steps": good()}, core.CodeUnknownSession)
		if got := acted(d)[before:]; len(got) != 0 {
			t.Errorf("refused runs reached the app: %v", got)
		}
		if got := d.Text(formPid, "f/name"); got != "Name" {
			t.Errorf("the name field holds %q after refused runs", got)
		}
	})
}

// On a server without --allow-input run_steps is registered and runs
// reads, and a step that acts is refused before anything runs.
func TestRunStepsReadOnly(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		d := newStepsDesk(t)
		cs, _ := stepsServer(t, d, Config{})
		before := len(acted(d))
		var names []string
		for _, tool := range listTools(t, cs) {
			names = append(names, tool.Name)
			if tool.Name == "run_steps" && !tool.Annotations.ReadOnlyHint {
				t.Error("run_steps on a read-only server is not annotated read-only")
			}
		}
		if !slices.Contains(names, "run_steps") {
			t.Fatalf("run_steps not listed on a read-only server: %v", names)
		}
		session, refs := formSession(t, cs)
		out := mustOK(t, cs, "run_steps", map[string]any{"session": session, "steps": []any{
			step("find_elements", map[string]any{"name": "Save"}),
			step("wait_for", map[string]any{"name": "Ready", "until": "appears"}),
		}})
		if out["completed"] != float64(2) {
			t.Errorf("a run of reads: %v", out)
		}
		for _, tool := range []string{"click", "type_text", "key_down"} {
			out := mustFail(t, cs, "run_steps", map[string]any{"session": session, "steps": []any{
				step("find_elements", map[string]any{"name": "Save"}),
				step(tool, map[string]any{"element": refs["Save"], "text": "x", "key": "Shift"}),
			}}, security.CodeInputNotAllowed)
			if out["failedStep"] != float64(1) || !strings.Contains(out["error"].(string), "--allow-input") {
				t.Errorf("%s on a read-only server: %v", tool, out)
			}
		}
		if got := acted(d)[before:]; len(got) != 0 {
			t.Errorf("a read-only server acted: %v", got)
		}
	})
}

// Each step is a call of its own to the rate limiter and the audit log:
// past the actions limit the run stops at the step refused, and the log
// has a record per step besides the run's.
func TestRunStepsRateLimitAndAudit(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		d := newStepsDesk(t)
		path := filepath.Join(t.TempDir(), "audit.jsonl")
		a, err := security.OpenAudit(path)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		cs, _ := stepsServer(t, d, Config{Caps: security.Input, Audit: a,
			Limits: security.NewLimiter(security.Limits{security.Actions: 2, security.Inspection: 1000, security.Discovery: 100})})
		session, refs := formSession(t, cs)
		out := mustFail(t, cs, "run_steps", map[string]any{"session": session, "steps": []any{
			step("set_value", map[string]any{"element": refs["Name"], "value": "one"}),
			step("get_element_properties", map[string]any{"element": refs["Name"]}),
			step("set_value", map[string]any{"element": refs["Name"], "value": "two"}),
			step("set_value", map[string]any{"element": refs["Name"], "value": "three"}),
		}}, security.CodeRateLimited)
		if out["completed"] != float64(3) || out["failedStep"] != float64(3) || out["retryable"] != false {
			t.Errorf("the third action under 2 a minute: %v", out)
		}
		if r := out["results"].([]any)[3].(map[string]any); r["errorCode"] != security.CodeRateLimited || r["retryAfterMs"] == nil {
			t.Errorf("the refused step's answer: %v", r)
		}
		if got := d.Text(formPid, "f/name"); got != "two" {
			t.Errorf("the name field holds %q, want two", got)
		}
		mustFail(t, cs, "set_value", map[string]any{"session": session, "element": refs["Name"], "value": "four"}, security.CodeRateLimited)

		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var ops []string
		sc := bufio.NewScanner(strings.NewReader(string(b)))
		for sc.Scan() {
			var r struct{ Operation, Outcome string }
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatal(err)
			}
			ops = append(ops, r.Operation+" "+r.Outcome)
		}
		want := []string{"connect ok", "find_elements ok",
			"set_value started", "set_value ok", "get_element_properties ok", "set_value started", "set_value ok",
			"set_value refused", "run_steps refused", "set_value refused"}
		if !slices.Equal(ops, want) {
			t.Errorf("audit records:\n got %v\nwant %v", ops, want)
		}
		if strings.Contains(string(b), "three") || strings.Contains(string(b), "one") {
			t.Errorf("the audit log holds an argument: %s", b)
		}
	})
}

// With an audit log that cannot be written, a step that acts is refused
// before it runs, as a call of its own would be, and the run stops there.
func TestRunStepsAuditFailsClosed(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		d := newStepsDesk(t)
		a, err := security.OpenAudit(filepath.Join(t.TempDir(), "audit.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		a.Close() // every write fails from here, as on a full disk
		cs, _ := stepsServer(t, d, Config{Caps: security.Input, Audit: a})
		session, refs := formSession(t, cs)
		out := mustFail(t, cs, "run_steps", map[string]any{"session": session, "steps": []any{
			step("get_element_properties", map[string]any{"element": refs["Name"]}),
			step("set_value", map[string]any{"element": refs["Name"], "value": "unrecorded"}),
		}}, security.CodeAuditFailed)
		if out["completed"] != float64(1) || out["failedStep"] != float64(1) {
			t.Errorf("an acting step with an audit log that cannot be written: %v", out)
		}
		if got := d.Text(formPid, "f/name"); got != "Name" {
			t.Errorf("the name field holds %q: an unrecorded step ran", got)
		}
	})
}

// With consent prompts, a session the user allowed to read runs reads,
// and a run with a step that acts is refused before its first step.
func TestRunStepsConsent(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		d := newStepsDesk(t)
		m := core.NewSessions(d.Platform())
		m.Caps = security.Input
		m.Consent = security.NewConsent(func(context.Context, security.Prompt, func(int), func()) (string, error) {
			return "read", nil
		}, time.Minute)
		cs := serve(t, New(Config{Caps: security.Input}, m), "")
		before := len(acted(d))
		session, refs := formSession(t, cs)
		out := mustFail(t, cs, "run_steps", map[string]any{"session": session, "steps": []any{
			step("find_elements", map[string]any{"name": "Save"}),
			step("get_element_properties", map[string]any{"element": refs["Name"]}),
			step("set_value", map[string]any{"element": refs["Name"], "value": "x"}),
		}}, security.CodeConsentDenied)
		if out["failedStep"] != float64(2) || len(out["results"].([]any)) != 0 {
			t.Errorf("an acting step with reading consented: %v", out)
		}
		if got := acted(d)[before:]; len(got) != 0 {
			t.Errorf("a run refused by consent acted: %v", got)
		}
		mustOK(t, cs, "run_steps", map[string]any{"session": session, "steps": []any{step("find_elements", map[string]any{"name": "Save"})}})
	})
}

// The planted password never shows in a run's answer, whatever its steps
// read of the field or type into it.
func TestRunStepsRedaction(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		d := newStepsDesk(t)
		cs, _ := stepsServer(t, d, Config{Caps: security.Input})
		session, refs := formSession(t, cs)
		_, res := call(t, cs, "run_steps", map[string]any{"session": session, "observe": true, "steps": []any{
			step("get_element_properties", map[string]any{"element": refs["Password"]}),
			step("find_elements", map[string]any{"role": "password text"}),
			step("wait_for", map[string]any{"role": "password text", "until": "appears"}),
			step("focus", map[string]any{"element": refs["Password"]}),
			step("set_value", map[string]any{"element": refs["Password"], "value": "typed-secret-5512"}),
			step("set_value", map[string]any{"element": refs["Name"], "value": "Ada"}),
		}})
		text := res.Content[0].(*mcp.TextContent).Text
		wire, _ := json.Marshal(res)
		for _, secret := range []string{plantedPwd, "typed-secret-5512"} {
			if strings.Contains(text, secret) || strings.Contains(string(wire), secret) {
				t.Errorf("the run's answer holds %q: %s", secret, text)
			}
		}
		var out map[string]any
		if err := json.Unmarshal([]byte(text), &out); err != nil || out["ok"] != true || out["completed"] != float64(6) {
			t.Errorf("the run: %.2000s", text)
		}
	})
}

// run_steps is read-only without input, and destructive with it, as the
// steps it may run.
func TestRunStepsAnnotations(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		for _, d := range Inventory(Config{Caps: security.Input}, core.NewSessions(fakePlatform())) {
			if d.Tool.Name == "run_steps" {
				if a := d.Tool.Annotations; a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint {
					t.Errorf("run_steps with input: %+v", a)
				}
				if n := len(d.Tool.Description); n > 250 {
					t.Errorf("run_steps' description is %d characters, over 250", n)
				}
			}
		}
	})
}

// Two clients' runs at once, each in its own session on its own app, do
// each its own steps only.
func TestRunStepsTwoSessionsAtOnce(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		d := newStepsDesk(t)
		m := core.NewSessions(d.Platform())
		m.Caps = security.Input
		srv := New(Config{Caps: security.Input}, m)
		alice, bob := serve(t, srv, ""), serve(t, srv, "")
		form, refs := formSession(t, alice)
		other := mustOK(t, bob, "connect", map[string]any{"pid": otherPid})["session"].(string)
		ok := mustOK(t, bob, "find_elements", map[string]any{"session": other, "name": "OK"})["elements"].([]any)[0].(map[string]any)["ref"].(string)
		// The runs go from their own goroutines, which may not end the
		// test: their answers are checked here.
		done := make(chan string, 2)
		run := func(cs *mcp.ClientSession, args map[string]any) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_steps", Arguments: args})
			if err != nil {
				done <- err.Error()
				return
			}
			done <- res.Content[0].(*mcp.TextContent).Text
		}
		go run(alice, map[string]any{"session": form, "steps": []any{
			step("set_value", map[string]any{"element": refs["Name"], "value": "alice"}),
			step("toggle", map[string]any{"element": refs["Remember me"]}),
		}})
		go run(bob, map[string]any{"session": other, "steps": []any{
			step("invoke", map[string]any{"element": ok}),
			step("find_elements", map[string]any{"name": "OK"}),
		}})
		for range 2 {
			var out map[string]any
			if text := <-done; json.Unmarshal([]byte(text), &out) != nil || out["ok"] != true || out["completed"] != float64(2) {
				t.Errorf("a run beside another: %.1000s", text)
			}
		}
		if got := d.Text(formPid, "f/name"); got != "alice" {
			t.Errorf("the name field holds %q", got)
		}
		// Neither client may run steps in the other's session.
		mustFail(t, bob, "run_steps", map[string]any{"session": form, "steps": []any{step("find_elements", nil)}}, core.CodeUnknownSession)
	})
}
