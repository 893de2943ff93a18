//go:build linux

package e2e

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// The agent task benchmark: whole tasks in real apps, each scripted twice
// — the way an agent drives uiscope one action per call, with a read after
// each action to learn what it caused (today), and the way the answers
// allow it to go without those reads (loop: a first look at what is on
// screen, what an action's effects say in place of a read, the steps
// whose refs are known — a search for the next ones among them — in one
// run_steps call, and a search by the text a result shows). Both
// ways start from a fresh app and end in the same state, read outside
// uiscope (the file on disk, the page's title); what differs is what the
// agent pays: tool calls, the bytes of the answers' text blocks (what a
// host puts in the model's context), and the time the calls take.
//
// TestAgentTasks runs every task once each way, so the scripts cannot
// rot, and checks the end states and that the loop takes fewer calls and
// fewer bytes; BenchmarkAgentTasks reports the figures (make bench, with
// -benchtime 1x: every run launches the app afresh).

// agentWay is one way of scripting a task.
type agentWay struct {
	name string
	// script drives the task through r.s; it returns once the task is
	// done as far as the agent can tell.
	script func(t testing.TB, r *taskRun)
}

// agentTask is one whole task, both ways.
type agentTask struct {
	name string // as the tables know it (bench/benchtable's agentCases)
	// start launches the app afresh and fills in r.app (and whatever the
	// scripts and end share through r).
	start func(t testing.TB, r *taskRun)
	today func(t testing.TB, r *taskRun)
	loop  func(t testing.TB, r *taskRun)
	// end waits until the task's end state holds, read outside uiscope,
	// and returns it in a form that does not depend on the run (no
	// temporary paths): both ways must end in the same state.
	end func(t testing.TB, r *taskRun) string
}

// taskRun is one run of a task: the app, the server and what the scripts
// hand the end check.
type taskRun struct {
	d    *testdesk.Desk
	app  *testdesk.App
	s    *mcpServer
	sess string
	dir  string // a directory of the run's own (files the task saves)
	path string // the file the task saves, when it saves one
	read string // what the agent read, in a task that reads
}

// taskCost is what one run cost the agent.
type taskCost struct {
	calls, bytes int
	wall         time.Duration
	state        string
	each         []string // each call's tool and answer bytes
}

// runTask runs one task one way against a fresh app and a fresh server:
// the script timed and counted from connect to its last answer, then the
// end state read outside uiscope. The app and the server are stopped
// before it returns, so that a benchmark's runs do not pile up.
func runTask(t testing.TB, d *testdesk.Desk, task agentTask, way agentWay) taskCost {
	t.Helper()
	r := &taskRun{d: d, dir: t.TempDir()}
	task.start(t, r)
	defer r.app.Proc.Stop()
	r.s = startMCP(t, d, "", "--allow-input")
	defer r.s.cs.Close()
	began := time.Now()
	way.script(t, r)
	wall := time.Since(began)
	state := task.end(t, r)
	r.s.cost.mu.Lock()
	defer r.s.cost.mu.Unlock()
	return taskCost{calls: r.s.cost.calls, bytes: r.s.cost.bytes, wall: wall, state: state, each: r.s.cost.each}
}

// ways are a task's two scripts, today's first.
func (task agentTask) ways() []agentWay {
	return []agentWay{{"today", task.today}, {"loop", task.loop}}
}

// agentTasks are the tasks of the benchmark.
var agentTasks = []agentTask{geditTask, gteTask, mousepadTask, kwriteTask, writerTask, evinceTask, calcTask, speedcrunchTask, todoTask}

func TestAgentTasks(t *testing.T) { testdesk.ForEach(t, testAgentTasks) }

func testAgentTasks(t *testing.T, d *testdesk.Desk) {
	for _, task := range agentTasks {
		t.Run(task.name, func(t *testing.T) {
			var costs []taskCost
			for _, way := range task.ways() {
				c := runTask(t, d, task, way)
				t.Logf("%s %s: %d calls, %d bytes, %v: %q\n\t%s", task.name, way.name, c.calls, c.bytes, c.wall.Round(time.Millisecond), c.state, strings.Join(c.each, ", "))
				costs = append(costs, c)
			}
			today, loop := costs[0], costs[1]
			if today.state != loop.state {
				t.Errorf("the two ways end in different states: today %q, loop %q", today.state, loop.state)
			}
			if loop.calls >= today.calls || loop.bytes >= today.bytes {
				t.Errorf("the loop's script costs %d calls and %d bytes, today's %d and %d: want fewer of both",
					loop.calls, loop.bytes, today.calls, today.bytes)
			}
		})
	}
}

func BenchmarkAgentTasks(b *testing.B) {
	d := testdesk.Shared(b)
	for _, task := range agentTasks {
		b.Run(task.name, func(b *testing.B) {
			for _, way := range task.ways() {
				b.Run(way.name, func(b *testing.B) {
					var calls, bytes int
					var walls []time.Duration
					b.StopTimer()
					for range b.N {
						c := runTask(b, d, task, way)
						calls += c.calls
						bytes += c.bytes
						walls = append(walls, c.wall)
					}
					var total time.Duration
					for _, w := range walls {
						total += w
					}
					b.ReportMetric(float64(calls)/float64(b.N), "calls/op")
					b.ReportMetric(float64(bytes)/float64(b.N), "bytes/op")
					b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "wall-ms/op")
				})
			}
		})
	}
}

// Reading answers as an agent does: the refs it needs are in what the
// last answers said.

// outlineLine matches an outline line (role "name" = "value" [ref] the
// rest): role, name, ref, the rest.
var outlineLine = regexp.MustCompile(`^\s*([a-z][a-z -]*?)(?: "((?:[^"\\]|\\.)*)")?(?: = "(?:[^"\\]|\\.)*")? \[(a11y:e\d+)\](.*)$`)

// outlineRef is the ref of the first element of an outline with this role
// whose name contains name and whose line lists every state ("" when none).
func outlineRef(outline, role, name string, states ...string) string {
	for _, line := range strings.Split(outline, "\n") {
		m := outlineLine.FindStringSubmatch(line)
		if m == nil || m[1] != role || !strings.Contains(m[2], name) {
			continue
		}
		words := strings.Fields(m[4])
		if !slices.ContainsFunc(states, func(s string) bool { return !slices.Contains(words, s) }) {
			return m[3]
		}
	}
	return ""
}

// expect fails the run when a script's expectation of an answer fails: the
// agent would be lost there.
func expect(t testing.TB, ok bool, what string, out map[string]any) {
	t.Helper()
	if !ok {
		t.Fatalf("%s: %.3000v", what, out)
	}
}

// the shared reads of today's scripts

// look is today's first look: the default outline.
func (r *taskRun) look(t testing.TB) string {
	t.Helper()
	out := r.s.ok(t, "get_a11y_tree", map[string]any{"session": r.sess})
	return fmt.Sprint(out["outline"])
}

// step is one step of a run_steps call.
func step(tool string, args map[string]any) map[string]any {
	return map[string]any{"tool": tool, "arguments": args}
}

// steps runs the steps in one run_steps call, which must succeed.
func (r *taskRun) steps(t testing.TB, steps ...map[string]any) map[string]any {
	t.Helper()
	return r.s.ok(t, "run_steps", map[string]any{"session": r.sess, "steps": steps})
}

// stepFound is the elements step i of a run_steps answer found.
func stepFound(t testing.TB, out map[string]any, i int) []elem {
	t.Helper()
	results, _ := out["results"].([]any)
	if i >= len(results) {
		t.Fatalf("run_steps answered %d results, want step %d's: %.2000v", len(results), i, out)
	}
	step, _ := results[i].(map[string]any)
	return decode[[]elem](t, step["elements"])
}

// glance is the loop's first look: the outline of what is on screen.
func (r *taskRun) glance(t testing.TB) string {
	t.Helper()
	out := r.s.ok(t, "get_a11y_tree", map[string]any{"session": r.sess, "view": "visible"})
	return fmt.Sprint(out["outline"])
}

// textOf reads an element's text back (today's check after typing).
func (r *taskRun) textOf(t testing.TB, ref string) string {
	t.Helper()
	out := r.s.ok(t, "get_element_properties", map[string]any{"session": r.sess, "element": ref, "names": []string{"text"}})
	return decode[struct {
		Properties struct {
			Text struct{ Text string } `json:"text"`
		} `json:"properties"`
	}](t, out).Properties.Text.Text
}

// gone waits for the elements args match to disappear.
func (r *taskRun) gone(t testing.TB, args map[string]any) {
	t.Helper()
	args["session"], args["until"] = r.sess, "disappears"
	if _, ok := args["timeoutMs"]; !ok {
		args["timeoutMs"] = 30000
	}
	r.s.ok(t, "wait_for", args)
}
