package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/security"
)

// run_steps: several tool calls in one session as one call. Each step is
// run by its tool's own registered handler (toolDef.serve), so it passes
// everything a call of its own passes: the guard (its own rate-limit
// spend and audit record), the argument check, the core's gates (input,
// capabilities, consent), and its answer is the one the tool gives,
// redacted as it is. What run_steps adds is the check of the whole run
// before its first step (so that a typo in step 7 does not leave steps 1
// to 6 done), the stop at the first failure, and the effects of the run.
// Each step's answer is its tool's, cut to what the step alone says
// (stepAnswer): the run's effects are told once, at its end.

// MaxSteps is the most steps one run_steps call takes.
const MaxSteps = 20

// Error codes of run_steps' checks.
const (
	// CodeUnknownTool: a step names no tool of this server.
	CodeUnknownTool = "unknownTool"
	// CodeStepNotAllowed: a step names a tool run_steps does not run.
	CodeStepNotAllowed = "stepNotAllowed"
)

// stepReads are the reading tools a step may call, besides every acting
// tool: what a run waits on and looks up between its actions.
var stepReads = map[string]bool{"find_elements": true, "get_element_properties": true, "wait_for": true}

// stepRefArgs are the arguments that name an element by ref, checked
// against the session before the run starts.
var stepRefArgs = []string{"element", "within"}

// stepTool is a tool a step may name.
type stepTool struct {
	def toolDef
	// serve is its handler in this server; nil when it is not registered
	// (its toolset's capability is not granted).
	serve mcp.ToolHandler
}

// stepToolsOf picks the tools steps may name out of the whole inventory,
// with the handlers of those enabled.
func stepToolsOf(all, enabled []toolDef, g *guard) map[string]stepTool {
	on := map[string]bool{}
	for _, d := range enabled {
		on[d.Tool.Name] = true
	}
	out := map[string]stepTool{}
	for _, d := range all {
		if !stepAllowed(d) {
			continue
		}
		st := stepTool{def: d}
		if on[d.Tool.Name] {
			st.serve = d.serve(g)
		}
		out[d.Tool.Name] = st
	}
	return out
}

// stepAllowed says whether run_steps runs d: the acting tools and the
// reads of stepReads.
func stepAllowed(d toolDef) bool {
	return (d.mutating() || stepReads[d.Tool.Name]) && len(d.InputArgs) == 0 && !d.Runner
}

func (h *handlers) stepsTools() []toolDef {
	ann := readOnly()
	if h.cfg.Caps&security.Input != 0 {
		ann.ReadOnlyHint, ann.IdempotentHint, ann.DestructiveHint = false, false, ptr(true)
	}
	d := newTool(ToolsetInspect, &mcp.Tool{
		Name:        "run_steps",
		Annotations: ann,
		Description: "Run up to 20 tool calls in one (acting tools, wait_for, find_elements, get_element_properties), " +
			"checked first; stops at a failure.",
	}, h.runSteps)
	d.Runner = true
	return []toolDef{d}
}

type stepCall struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments,omitempty"`
}

type stepsArgs struct {
	sessionField
	Steps    []stepCall `json:"steps"`
	Observe  bool       `json:"observe,omitempty"`
	MaxBytes *int       `json:"maxBytes,omitempty"`
}

// stepsResult is a run's answer: every step's, and what the run caused.
type stepsResult struct {
	Session   string `json:"session"`
	Completed int    `json:"completed"`
	// Results are the steps' answers, each its tool's JSON.
	Results     []json.RawMessage `json:"results"`
	Effects     core.Effects      `json:"effects"`
	Changes     *[]core.Change    `json:"changes,omitempty"`
	ChangesNote string            `json:"changesNote,omitempty"`
}

// stepsFailure is a failed run's answer: the failure shape, which step
// failed (absent when the run as a whole was refused) and what ran.
type stepsFailure struct {
	OK bool `json:"ok"`
	*core.Error
	FailedStep *int `json:"failedStep,omitempty"`
	stepsResult
}

// stepsError carries a failed run's answer through serveTool
// (failResult), and its code to the audit record.
type stepsError struct{ f *stepsFailure }

func (e *stepsError) Error() string     { return e.f.Msg }
func (e *stepsError) Unwrap() error     { return e.f.Error }
func (e *stepsError) failureShape() any { return e.f }

// refuse is a run refused before any step ran: err is step i's, or the
// run's as a whole when i < 0.
func refuse(session string, i int, err error) error {
	f := &stepsFailure{Error: core.AsError(err), stepsResult: stepsResult{Session: session, Results: []json.RawMessage{}}}
	if i >= 0 {
		e := *f.Error
		e.Msg += "; no step was run: fix it and send the whole run again"
		f.Error, f.FailedStep = &e, &i
	}
	return &stepsError{f}
}

// stepError is step i's failure as the run reports it, naming the step.
func stepError(i int, tool string, err error) error {
	e := *core.AsError(err)
	e.Msg = fmt.Sprintf("steps[%d] (%s): %s", i, tool, e.Msg)
	return &e
}

// rawSteps are the steps as sent: their arguments are passed on byte for
// byte, not through a map's numbers.
type rawSteps struct {
	Steps []struct {
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"steps"`
}

// prepared is a step ready to run.
type prepared struct {
	tool stepTool
	name string
	args json.RawMessage
	refs []string
}

func (h *handlers) runSteps(ctx context.Context, req *mcp.CallToolRequest, in stepsArgs) (stepsResult, error) {
	var none stepsResult
	var raw rawSteps
	if err := json.Unmarshal(req.Params.Arguments, &raw); err != nil {
		return none, refuse(in.Session, -1, core.Errorf(core.CodeInvalidArgument, "steps could not be read: %s", core.Quote(err.Error())))
	}
	switch n := len(raw.Steps); {
	case n == 0:
		return none, refuse(in.Session, -1, core.Errorf(core.CodeInvalidArgument, "steps is empty: give 1 to %d steps", MaxSteps))
	case n > MaxSteps:
		return none, refuse(in.Session, MaxSteps, core.Errorf(core.CodeInvalidArgument,
			"%d steps, and a run takes at most %d: split it into runs of %d or fewer", n, MaxSteps, MaxSteps))
	}
	budget := 0
	if in.Observe {
		b, err := observeBytes(in.MaxBytes)
		if err != nil {
			return none, refuse(in.Session, -1, err)
		}
		budget = b
	}

	// The steps' tools and arguments, before anything is asked of the app.
	steps := make([]prepared, len(raw.Steps))
	for i, s := range raw.Steps {
		p, err := h.prepareStep(s.Tool, s.Arguments, in.Session)
		if err != nil {
			return none, refuse(in.Session, i, stepError(i, s.Tool, err))
		}
		steps[i] = p
	}
	// The session, the refs the steps name in it, and what the user and
	// the server allow it.
	run, err := h.sessions.BeginRun(ctx, in.Session)
	if err != nil {
		return none, refuse(in.Session, -1, err)
	}
	for i, p := range steps {
		for _, ref := range p.refs {
			if err := run.Resolve(ref); err != nil {
				return none, refuse(in.Session, i, stepError(i, p.name, err))
			}
		}
	}
	for i, p := range steps {
		if need, ok := toolsetCaps[p.tool.def.Toolset]; ok {
			if err := run.Allowed(need); err != nil {
				return none, refuse(in.Session, i, stepError(i, p.name, err))
			}
		}
	}

	run.Start(ctx, budget)
	out := stepsResult{Session: in.Session, Results: make([]json.RawMessage, 0, len(steps))}
	failed := -1
	var failure *core.Error
	// settled: the last step run was an action that answered, once the
	// app had settled after it.
	settled := false
	for i, p := range steps {
		if ctx.Err() != nil {
			failed, failure = i, core.Errorf(core.CodeTimeout, "the call ended (cancelled or past its deadline) before steps[%d] (%s) ran", i, p.name)
			break
		}
		res, _ := p.tool.serve(ctx, &mcp.CallToolRequest{Session: req.Session, Extra: req.Extra,
			Params: &mcp.CallToolParamsRaw{Name: p.name, Arguments: p.args}})
		b, _ := res.StructuredContent.(json.RawMessage)
		out.Results = append(out.Results, stepAnswer(b, p, res.IsError))
		settled = !res.IsError && p.tool.def.mutating()
		if res.IsError {
			failed = i
			failure = &core.Error{}
			if err := json.Unmarshal(b, failure); err != nil || failure.Code == "" {
				failure = core.Errorf(core.CodeInternal, "the step's failure could not be read")
			}
			break
		}
		out.Completed++
	}
	// The run's effects are read even when a step failed: what the steps
	// before it did is the agent's to know. Bounded on its own, so that a
	// run whose deadline went on a frozen app still answers.
	ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), runEndTimeout)
	defer cancel()
	eff := run.End(ectx, settled)
	out.Effects, out.Changes, out.ChangesNote = eff.Effects, eff.Changes, eff.ChangesNote
	if failed < 0 {
		return out, nil
	}
	e := *failure
	e.Msg = fmt.Sprintf("steps[%d] (%s) failed: %s; %s", failed, steps[failed].name, e.Msg, ranNote(failed, len(steps)))
	// Running the whole run again repeats the steps that ran: retryable
	// only when none did.
	e.Retryable = e.Retryable && failed == 0
	if !e.Retryable {
		e.RetryAfterMs = 0
		if e.Disposition == core.DispositionTransient {
			e.Disposition = core.DispositionTerminal
		}
	}
	return none, &stepsError{&stepsFailure{Error: &e, FailedStep: &failed, stepsResult: out}}
}

// stepLeftOut are the parts of a step's answer a run leaves out: the
// session (the run's own), and of an acting step that succeeded what the
// run tells once for all its steps or what its verified sums up — the
// effects (the run's are read after its last step), the window keys went
// to, the element's states and text before and after, how the action
// was done.
var (
	stepLeftOut  = map[string]bool{"session": true}
	actedLeftOut = map[string]bool{"effects": true, "window": true, "before": true, "after": true, "method": true, "detail": true}
)

// stepAnswer is step p's answer in a run: its tool's JSON b, in its
// order, without what stepLeftOut names; an acting step that succeeded
// keeps ok, verified, its note and its own result (what select_text
// selected, what is held, a property's value, observed changes), and its
// element only when it is not the one the step named (the paragraph that
// has the keys after a line break). b is returned as it is when it is not
// a JSON object.
func stepAnswer(b json.RawMessage, p prepared, failed bool) json.RawMessage {
	acted := !failed && p.tool.def.mutating()
	var named string
	if acted {
		var args struct {
			Element string `json:"element"`
		}
		_ = json.Unmarshal(p.args, &args)
		named = args.Element
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return b
	}
	var out bytes.Buffer
	out.WriteByte('{')
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return b
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return b
		}
		if stepLeftOut[key] || acted && actedLeftOut[key] {
			continue
		}
		if acted && key == "element" && named != "" {
			var ref string
			if json.Unmarshal(v, &ref) == nil && ref == named {
				continue
			}
		}
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		k, _ := json.Marshal(key)
		out.Write(k)
		out.WriteByte(':')
		out.Write(v)
	}
	out.WriteByte('}')
	return out.Bytes()
}

// runEndTimeout bounds reading a run's effects after its last step.
const runEndTimeout = 10 * time.Second

// ranNote says which steps ran around a failed one.
func ranNote(failed, n int) string {
	var b strings.Builder
	switch failed {
	case 0:
		b.WriteString("no step before it")
	case 1:
		b.WriteString("steps[0] ran (its answer is in results)")
	default:
		fmt.Fprintf(&b, "steps[0] to steps[%d] ran (their answers are in results)", failed-1)
	}
	switch rest := n - failed - 1; {
	case rest == 1:
		fmt.Fprintf(&b, ", steps[%d] was not run", failed+1)
	case rest > 1:
		fmt.Fprintf(&b, ", steps[%d] to steps[%d] were not run", failed+1, n-1)
	}
	b.WriteString(": read the UI before going on")
	return b.String()
}

// prepareStep checks one step without running it: a tool run_steps runs
// and this server registered, its arguments as the tool would take them
// (the run's session given to a step that names none), and the refs they
// name.
func (h *handlers) prepareStep(name string, args json.RawMessage, session string) (prepared, error) {
	t, ok := h.steps[name]
	if !ok {
		if h.known(name) {
			return prepared{}, core.Errorf(CodeStepNotAllowed, "%s is not a tool run_steps runs: it runs the acting tools, wait_for, find_elements and get_element_properties; call %s on its own", name, name)
		}
		return prepared{}, core.Errorf(CodeUnknownTool, "no tool is named %s: tools/list has the names", core.Quote(name))
	}
	if t.serve == nil {
		need := toolsetCaps[t.def.Toolset]
		return prepared{}, core.AsError(&security.Refusal{Code: security.CodeInputNotAllowed, Msg: fmt.Sprintf(
			"%s acts on the app, which needs the %s capability, and this server does not grant it: the user must restart uiscope mcp with --allow-input (or --allow-input=%s)", name, need, need)})
	}
	fields := map[string]json.RawMessage{}
	if len(args) > 0 && !bytes.Equal(args, []byte("null")) {
		if err := json.Unmarshal(args, &fields); err != nil {
			return prepared{}, core.Errorf(core.CodeInvalidArgument, "arguments must be a JSON object")
		}
	}
	if s, ok := fields["session"]; ok {
		var named string
		if json.Unmarshal(s, &named) != nil || named != session {
			return prepared{}, core.Errorf(core.CodeInvalidArgument, "a step runs in the run's session: leave session out of its arguments, or give the run's")
		}
	}
	fields["session"], _ = json.Marshal(session)
	b, err := json.Marshal(fields)
	if err != nil {
		return prepared{}, core.Errorf(core.CodeInvalidArgument, "arguments could not be read")
	}
	if err := t.def.check(b); err != nil {
		return prepared{}, err
	}
	p := prepared{tool: t, name: name, args: b}
	for _, a := range stepRefArgs {
		var ref string
		if v, ok := fields[a]; ok && json.Unmarshal(v, &ref) == nil && ref != "" {
			p.refs = append(p.refs, ref)
		}
	}
	return p, nil
}

// known says whether the inventory has a tool of that name.
func (h *handlers) known(name string) bool {
	for _, d := range h.all {
		if d.Tool.Name == name {
			return true
		}
	}
	return false
}
