//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// mcpEras are the protocol versions the MCP tests run under: the legacy
// initialize handshake, and the SDK default (2026-07-28, no handshake).
var mcpEras = []struct{ name, version string }{{"2025-11-25", "2025-11-25"}, {"default", ""}}

// mcpCallLimit bounds one tool call: generous, for a loaded machine.
const mcpCallLimit = 90 * time.Second

// mcpServer is one real `uiscope mcp` process and the SDK client on it.
type mcpServer struct {
	cs     *mcp.ClientSession
	stderr *syncBuffer
	cost   mcpCost
}

// mcpCost counts a server's tool calls and the bytes of their answers'
// text blocks: what a task costs an agent's context (logged by the task
// tests, the baseline an agent loop is measured against).
type mcpCost struct {
	mu    sync.Mutex
	calls int
	bytes int
	each  []string // "tool bytes ms", a call each, in order
}

func (c *mcpCost) add(tool string, res *mcp.CallToolResult, took time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	n := 0
	if res != nil {
		for _, b := range res.Content {
			if tc, ok := b.(*mcp.TextContent); ok {
				n += len(tc.Text)
			}
		}
	}
	c.bytes += n
	c.each = append(c.each, fmt.Sprintf("%s %d %dms", tool, n, took.Milliseconds()))
}

// logCost logs the calls and answer bytes so far, under the task's name.
func (s *mcpServer) logCost(t testing.TB, task string) {
	t.Helper()
	s.cost.mu.Lock()
	defer s.cost.mu.Unlock()
	t.Logf("task cost %s: %d MCP calls, %d bytes of answer text", task, s.cost.calls, s.cost.bytes)
}

// syncBuffer collects a process's stderr for failure messages.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startMCP runs `uiscope mcp args...` in the desktop and connects to it
// with the given protocol version ("" = the SDK default). It is closed when
// the test ends.
func startMCP(t testing.TB, d *testdesk.Desk, version string, args ...string) *mcpServer {
	t.Helper()
	cmd := exec.Command(uiscopeBin, append([]string{"mcp"}, args...)...)
	cmd.Env = d.Env()
	return startMCPVersion(t, cmd, version)
}

// startMCPCmd connects to a prepared `uiscope mcp` command with the SDK's
// default protocol version.
func startMCPCmd(t testing.TB, cmd *exec.Cmd) *mcpServer {
	t.Helper()
	return startMCPVersion(t, cmd, "")
}

func startMCPVersion(t testing.TB, cmd *exec.Cmd, version string) *mcpServer {
	t.Helper()
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting to uiscope mcp (protocol %q): %v\nstderr:\n%s", version, err, stderr.String())
	}
	t.Cleanup(func() { cs.Close() })
	return &mcpServer{cs: cs, stderr: stderr}
}

// callRaw runs a tool and checks the output contract: one text block that
// is the same JSON as structuredContent, ok agreeing with isError. It
// returns the decoded result; a protocol error is returned as is.
func (s *mcpServer) callRaw(t testing.TB, name string, args map[string]any) (map[string]any, *mcp.CallToolResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), mcpCallLimit)
	defer cancel()
	began := time.Now()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	s.cost.add(name, res, time.Since(began))
	if ctx.Err() != nil {
		t.Fatalf("%s %v: no answer within %v\nserver stderr:\n%s", name, args, mcpCallLimit, s.stderr.String())
	}
	if err != nil {
		return nil, nil, err
	}
	return s.check(t, name, res), res, nil
}

// check asserts the output contract on a result and decodes it (nil for
// the SDK's own input-validation errors, which are text only).
func (s *mcpServer) check(t testing.TB, name string, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content blocks, want one text block", name, len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: content is %T, want text", name, res.Content[0])
	}
	if res.StructuredContent == nil {
		// The SDK's own input validation answers with text only.
		if !res.IsError {
			t.Errorf("%s: a success without structuredContent: %s", name, tc.Text)
		}
		return nil
	}
	var text, structured any
	if err := json.Unmarshal([]byte(tc.Text), &text); err != nil {
		t.Fatalf("%s: text block is not JSON: %v\n%s", name, err, tc.Text)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &structured); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(text, structured) {
		t.Errorf("%s: structuredContent differs from the text block:\nstructured: %.2000s\ntext:       %.2000s", name, raw, tc.Text)
	}
	out, _ := structured.(map[string]any)
	if out == nil {
		t.Fatalf("%s: result is not an object: %.500s", name, raw)
	}
	if ok, _ := out["ok"].(bool); ok == res.IsError {
		t.Errorf("%s: ok=%v but isError=%v", name, out["ok"], res.IsError)
	}
	return out
}

// call is callRaw where a protocol error fails the test.
func (s *mcpServer) call(t testing.TB, name string, args map[string]any) map[string]any {
	t.Helper()
	out, res, err := s.callRaw(t, name, args)
	if err != nil {
		t.Fatalf("%s %v: protocol error: %v\nserver stderr:\n%s", name, args, err, s.stderr.String())
	}
	if out == nil {
		t.Fatalf("%s %v: no structured result: %+v", name, args, res.Content)
	}
	return out
}

// ok runs a tool that must succeed.
func (s *mcpServer) ok(t testing.TB, name string, args map[string]any) map[string]any {
	t.Helper()
	out := s.call(t, name, args)
	if out["ok"] != true {
		t.Fatalf("%s %v failed: %v", name, args, out)
	}
	return out
}

// fail runs a tool that must fail with code.
func (s *mcpServer) fail(t testing.TB, name string, args map[string]any, code string) map[string]any {
	t.Helper()
	out := s.call(t, name, args)
	if out["ok"] != false || out["errorCode"] != code {
		t.Errorf("%s %v: want ok:false errorCode %s, got %v", name, args, code, out)
	}
	if msg, _ := out["error"].(string); msg == "" {
		t.Errorf("%s: a failure without a message: %v", name, out)
	}
	if _, ok := out["retryable"].(bool); !ok {
		t.Errorf("%s: a failure without retryable: %v", name, out)
	}
	return out
}

// refused asserts that a call is turned away: a protocol error or isError.
func (s *mcpServer) refused(t testing.TB, name string, args map[string]any) {
	t.Helper()
	out, res, err := s.callRaw(t, name, args)
	if err == nil && !res.IsError {
		t.Errorf("%s %v was accepted: %v", name, args, out)
	}
}

func (s *mcpServer) connect(t testing.TB, args map[string]any) string {
	t.Helper()
	out := s.ok(t, "connect", args)
	session, _ := out["session"].(string)
	if session == "" {
		t.Fatalf("connect %v: no session: %v", args, out)
	}
	return session
}

// decode converts part of a result into a typed value.
func decode[T any](t testing.TB, v any) T {
	t.Helper()
	var out T
	raw, _ := json.Marshal(v)
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("decoding %.300s: %v", raw, err)
	}
	return out
}

// mcpApp is an app the workflow runs against, with what to expect of it.
type mcpApp struct {
	name      string
	argv      []string
	fixture   bool   // a fixture app with the known names ("Submit", "Name")
	framework string // a substring of a get_frameworks name
}

// TestMCPWorkflow runs list_apps, connect, the tree reads, find, props,
// frameworks and hit_test on each toolkit's app, on each desktop.
func TestMCPWorkflow(t *testing.T) {
	testdesk.ForEach(t, mcpWorkflows)
}

func mcpWorkflows(t *testing.T, d *testdesk.Desk) {
	apps := []mcpApp{
		{name: "gtk3-fixture", argv: []string{testdesk.Python, testdesk.Fixture("gtk3_fixture.py")}, fixture: true, framework: "gtk"},
		{name: "gtk3-widget-factory", argv: []string{"gtk3-widget-factory"}, framework: "gtk"},
		{name: "gtk4-fixture", argv: []string{testdesk.Python, testdesk.Fixture("gtk4_fixture.py")}, fixture: true, framework: "gtk"},
		{name: "gtk4-widget-factory", argv: []string{"gtk4-widget-factory"}, framework: "gtk"},
		{name: "qt5-fixture", argv: []string{testdesk.Python, testdesk.Fixture("qt5_fixture.py")}, fixture: true, framework: "qt"},
	}
	for _, a := range apps {
		t.Run(a.name, func(t *testing.T) {
			app := d.Launch(t, a.argv...)
			for _, era := range mcpEras {
				t.Run(era.name, func(t *testing.T) {
					mcpWorkflow(t, startMCP(t, d, era.version), a, app)
				})
			}
		})
	}
}

func mcpWorkflow(t *testing.T, s *mcpServer, a mcpApp, app *testdesk.App) {
	listed := s.ok(t, "list_apps", nil)
	type appEntry struct {
		Pid        int    `json:"pid"`
		Name       string `json:"name"`
		Accessible bool   `json:"accessible"`
		Windows    []struct {
			Title string `json:"title"`
		} `json:"windows"`
	}
	var me *appEntry
	for _, e := range decode[[]appEntry](t, listed["apps"]) {
		if e.Pid == app.Pid {
			me = &e
		}
	}
	if me == nil || !me.Accessible || len(me.Windows) == 0 {
		t.Fatalf("list_apps does not show pid %d as accessible with windows: %v", app.Pid, listed)
	}

	conn := s.ok(t, "connect", map[string]any{"pid": app.Pid})
	session := conn["session"].(string)
	if conn["pid"] != float64(app.Pid) || conn["executable"] == "" {
		t.Errorf("connect: %v", conn)
	}

	outline := s.ok(t, "get_a11y_tree", map[string]any{"session": session, "timeoutMs": 60000})
	text, _ := outline["outline"].(string)
	if !strings.Contains(text, "[a11y:e") {
		t.Errorf("outline has no refs:\n%.3000s", text)
	}
	known := `"Submit"`
	if !a.fixture {
		known = fmt.Sprintf("application %q", me.Name)
	}
	if !strings.Contains(text, known) {
		t.Errorf("outline lacks %s:\n%.3000s", known, text)
	}

	tree := s.ok(t, "get_a11y_tree", map[string]any{"session": session, "format": "json", "timeoutMs": 60000, "maxNodes": 100000, "maxBytes": 100000000})
	count, _ := tree["nodeCount"].(float64)
	if tree["root"] == nil || count <= 0 {
		t.Fatalf("json tree: root %v, nodeCount %v", tree["root"] != nil, tree["nodeCount"])
	}
	if tree["truncated"] != false {
		t.Errorf("tree truncated: %v", tree["truncatedReason"])
	}

	// A button to hit test: the fixture's Submit, or any button on screen
	// (GTK 4 sets showing on windows only: visible stands in for it).
	find := map[string]any{"session": session, "role": "push button", "timeoutMs": 60000, "limit": 1000}
	if a.fixture {
		find["name"], find["nameMatch"] = "Submit", "exact"
	}
	found := s.ok(t, "find_elements", find)
	buttons := decode[[]*elem](t, found["elements"])
	var button *elem
	for _, b := range buttons {
		if b.Ref == "" || !strings.HasPrefix(b.Ref, "a11y:e") {
			t.Errorf("find_elements: element without an a11y ref: %+v", b)
		}
		if button == nil && (b.has("showing") || b.has("visible")) && b.Bounds != nil && b.Bounds.Width > 4 && b.Bounds.Height > 4 {
			button = b
		}
	}
	if button == nil {
		t.Fatalf("find_elements %v: no showing push button with bounds: %v", find, found)
	}

	if a.fixture {
		entry := s.ok(t, "find_elements", map[string]any{"session": session, "name": "Name", "nameMatch": "exact", "timeoutMs": 60000})
		els := decode[[]*elem](t, entry["elements"])
		if len(els) == 0 {
			t.Fatalf("find_elements name Name: %v", entry)
		}
		props := s.ok(t, "get_element_properties", map[string]any{"session": session, "element": els[0].Ref})
		p, _ := props["properties"].(map[string]any)
		if p["role"] == nil || p["role"] == "" || p["bounds"] == nil || p["name"] != "Name" {
			t.Errorf("get_element_properties on the Name entry: %v", props)
		}
	}

	fws := s.ok(t, "get_frameworks", map[string]any{"session": session})
	named := false
	for _, f := range decode[[]struct{ Name string }](t, fws["frameworks"]) {
		named = named || strings.Contains(strings.ToLower(f.Name), a.framework)
	}
	if !named {
		t.Errorf("get_frameworks does not name %s: %v", a.framework, fws)
	}

	b := button.Bounds
	x, y := b.X+b.Width/2, b.Y+b.Height/2
	hit := s.ok(t, "hit_test", map[string]any{"session": session, "x": x, "y": y, "timeoutMs": 60000})
	el := decode[*elem](t, hit["element"])
	inside := el != nil && el.Ref == button.Ref
	for _, anc := range decode[[]*elem](t, hit["ancestors"]) {
		inside = inside || anc.Ref == button.Ref
	}
	if !inside {
		t.Errorf("hit_test at the centre (%d,%d) of %s %q %+v: got %+v, not the button or inside it", x, y, button.Ref, button.Name, *b, el)
	}

	s.ok(t, "disconnect", map[string]any{"session": session})
	s.fail(t, "get_a11y_tree", map[string]any{"session": session}, "unknownSession")
}

// TestMCPWaitFor: wait_for against a delayed dialog, a ticking label, an
// absent element, a state, and a condition that never holds.
func TestMCPWaitFor(t *testing.T) { testdesk.ForEach(t, testMCPWaitFor) }

func testMCPWaitFor(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--delayed-dialog", "1500", "--timer-label", "300")
	for _, era := range mcpEras {
		t.Run(era.name, func(t *testing.T) {
			s := startMCP(t, d, era.version)
			session := s.connect(t, map[string]any{"pid": app.Pid})
			wait := func(args map[string]any) map[string]any {
				args["session"] = session
				return s.ok(t, "wait_for", args)
			}

			got := wait(map[string]any{"name": "Delayed dialog", "nameMatch": "exact", "until": "appears", "timeoutMs": 30000})
			if got["satisfied"] != true || len(decode[[]*elem](t, got["elements"])) == 0 {
				t.Errorf("wait_for Delayed dialog: %v", got)
			}

			// The label ticks every 300 ms: wait for three ticks past now
			// (or any later one, so a slow poll cannot miss the moment).
			ticks := s.ok(t, "find_elements", map[string]any{"session": session, "name": `^Tick \d+$`, "nameMatch": "regex", "role": "label"})
			els := decode[[]*elem](t, ticks["elements"])
			if len(els) != 1 {
				t.Fatalf("find the tick label: %v", ticks)
			}
			now, _ := strconv.Atoi(strings.TrimPrefix(els[0].Name, "Tick "))
			var alts []string
			for n := now + 3; n < now+100; n++ {
				alts = append(alts, strconv.Itoa(n))
			}
			got = wait(map[string]any{"name": "^Tick (" + strings.Join(alts, "|") + ")$", "nameMatch": "regex", "until": "appears", "timeoutMs": 30000})
			els = decode[[]*elem](t, got["elements"])
			if len(els) != 1 {
				t.Fatalf("wait_for Tick %d: %v", now+3, got)
			}
			if n, _ := strconv.Atoi(strings.TrimPrefix(els[0].Name, "Tick ")); n < now+3 {
				t.Errorf("wait_for Tick ≥ %d returned %q", now+3, els[0].Name)
			}

			got = wait(map[string]any{"name": "No such element anywhere", "until": "disappears", "timeoutMs": 30000})
			if got["satisfied"] != true || got["polls"] != float64(1) {
				t.Errorf("wait_for disappears of an absent element should hold at once: %v", got)
			}

			got = wait(map[string]any{"name": "Remember me", "role": "check box", "until": "property", "property": "state", "value": "!checked", "timeoutMs": 30000})
			if len(decode[[]*elem](t, got["elements"])) != 1 {
				t.Errorf("wait_for the unchecked check box: %v", got)
			}
			got = wait(map[string]any{"name": "Remember me", "role": "check box", "until": "property", "property": "state", "value": "enabled", "timeoutMs": 30000})
			if got["satisfied"] != true {
				t.Errorf("wait_for the enabled check box: %v", got)
			}

			// Nothing clicks it: this never holds.
			start := time.Now()
			never := s.fail(t, "wait_for", map[string]any{"session": session, "name": "Remember me", "role": "check box",
				"until": "property", "property": "state", "value": "checked", "timeoutMs": 1500}, "timeout")
			took := time.Since(start)
			if never["retryable"] != true {
				t.Errorf("a wait_for timeout should be retryable: %v", never)
			}
			if took > 1500*time.Millisecond+10*time.Second {
				t.Errorf("wait_for with timeoutMs 1500 took %v", took)
			}
		})
	}
}

// TestMCPAmbiguousConnect: a name two apps share is refused with
// candidates; a title picks one.
func TestMCPAmbiguousConnect(t *testing.T) { testdesk.ForEach(t, testMCPAmbiguousConnect) }

func testMCPAmbiguousConnect(t *testing.T, d *testdesk.Desk) {
	tag := strconv.Itoa(os.Getpid())
	titles := []string{"uiscope ambiguity one " + tag, "uiscope ambiguity two " + tag}
	var apps []*testdesk.App
	for _, title := range titles {
		apps = append(apps, d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", title))
	}
	for _, era := range mcpEras {
		t.Run(era.name, func(t *testing.T) {
			s := startMCP(t, d, era.version)
			out := s.fail(t, "connect", map[string]any{"name": "gtk3_fixture.py"}, "ambiguous")
			type candidate struct {
				Pid    int    `json:"pid"`
				Window string `json:"window"`
				Title  string `json:"title"`
			}
			cands := decode[[]candidate](t, out["candidates"])
			if len(cands) < 2 {
				t.Fatalf("want ≥ 2 candidates: %v", out)
			}
			seen := map[int]string{}
			for _, c := range cands {
				if c.Pid == 0 || !isWindowOf(t, d, c.Window, c.Pid) || c.Title == "" {
					t.Errorf("candidate lacks pid, window or title: %+v", c)
				}
				seen[c.Pid] = c.Title
			}
			for i, a := range apps {
				if seen[a.Pid] != titles[i] {
					t.Errorf("candidates %+v lack pid %d with title %q", cands, a.Pid, titles[i])
				}
			}
			for i, title := range titles {
				conn := s.ok(t, "connect", map[string]any{"title": title})
				if conn["pid"] != float64(apps[i].Pid) {
					t.Errorf("connect by title %q: pid %v, want %d", title, conn["pid"], apps[i].Pid)
				}
			}
		})
	}
}

// isWindowOf says whether id names a window of pid: on sway one of its
// views as swaymsg lists them; on X11 an X window id (uiscope's own
// matching of X windows is checked elsewhere).
func isWindowOf(t testing.TB, d *testdesk.Desk, id string, pid int) bool {
	t.Helper()
	if d.Sway == nil {
		return strings.HasPrefix(id, "0x")
	}
	for _, v := range swayViews(t, d, pid) {
		if id == "sway:"+strconv.FormatInt(v.con, 10) {
			return true
		}
	}
	return false
}

// TestMCPOwnershipLost: a session whose app exited says so, and the server
// goes on serving other sessions.
func TestMCPOwnershipLost(t *testing.T) { testdesk.ForEach(t, testMCPOwnershipLost) }

func testMCPOwnershipLost(t *testing.T, d *testdesk.Desk) {
	other := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "uiscope survivor")
	for _, era := range mcpEras {
		t.Run(era.name, func(t *testing.T) {
			doomed := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "uiscope doomed "+era.name)
			s := startMCP(t, d, era.version)
			gone := s.connect(t, map[string]any{"pid": doomed.Pid})
			alive := s.connect(t, map[string]any{"pid": other.Pid})
			s.ok(t, "get_a11y_tree", map[string]any{"session": gone})
			if err := doomed.Proc.Stop(); err != nil {
				t.Fatal(err)
			}
			out := s.fail(t, "get_a11y_tree", map[string]any{"session": gone}, "ownershipLost")
			if out["errorDisposition"] != "ownershipLost" {
				t.Errorf("errorDisposition: %v", out)
			}
			s.fail(t, "find_elements", map[string]any{"session": gone, "name": "Submit"}, "ownershipLost")
			s.fail(t, "get_element_properties", map[string]any{"session": gone, "element": "a11y:e1"}, "ownershipLost")
			tree := s.ok(t, "get_a11y_tree", map[string]any{"session": alive})
			if !strings.Contains(tree["outline"].(string), `"Submit"`) {
				t.Errorf("the other session's tree lacks Submit")
			}
			s.ok(t, "list_apps", nil)
			s.ok(t, "disconnect", map[string]any{"session": gone})
		})
	}
}

// TestMCPBadInput: arguments an agent gets wrong, a frozen target and a
// target that exits mid-call; the server answers throughout.
func TestMCPBadInput(t *testing.T) { testdesk.ForEach(t, testMCPBadInput) }

func testMCPBadInput(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"))
	for _, era := range mcpEras {
		t.Run(era.name, func(t *testing.T) {
			s := startMCP(t, d, era.version)
			session := s.connect(t, map[string]any{"pid": app.Pid})
			props := func(ref string) map[string]any { return map[string]any{"session": session, "element": ref} }

			s.fail(t, "get_a11y_tree", map[string]any{"session": "s424242"}, "unknownSession")
			s.fail(t, "get_element_properties", props("a11y:e999999"), "unknownRef") // no element of the app has it
			s.refused(t, "get_a11y_tree", map[string]any{"session": session, "bogus": true})
			s.refused(t, "connect", map[string]any{"pid": "not a number"})
			s.ok(t, "get_a11y_tree", map[string]any{"session": session})
			s.fail(t, "get_element_properties", props("e12x"), "malformedRef")
			s.fail(t, "get_element_properties", props("visual:e1"), "wrongTree")
			s.fail(t, "get_element_properties", props("a11y:e99999"), "unknownRef")
			s.fail(t, "get_a11y_tree", map[string]any{"session": session, "depth": -1}, "invalidArgument")
			s.fail(t, "get_a11y_tree", map[string]any{"session": session, "maxNodes": 100000000}, "invalidArgument")
			s.fail(t, "get_a11y_tree", map[string]any{"session": session, "timeoutMs": 0}, "invalidArgument")
			s.fail(t, "find_elements", map[string]any{"session": session, "name": "(", "nameMatch": "regex"}, "invalidArgument")
			s.fail(t, "connect", map[string]any{"pid": 999999999}, "notFound")
			s.ok(t, "list_apps", nil)
		})
	}
}

// TestMCPFrozenTarget: a walk of an app stopped with SIGSTOP returns by its
// deadline, and the app reads again once continued.
func TestMCPFrozenTarget(t *testing.T) { testdesk.ForEach(t, testMCPFrozenTarget) }

func testMCPFrozenTarget(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"))
	s := startMCP(t, d, "")
	session := s.connect(t, map[string]any{"pid": app.Pid})
	// A first read fills the session's mirror of the app (GTK 3): a frozen
	// app must not be served from it as if it had answered.
	s.ok(t, "get_a11y_tree", map[string]any{"session": session, "timeoutMs": 60000})
	if err := syscall.Kill(app.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(app.Pid, syscall.SIGCONT)
	start := time.Now()
	out := s.call(t, "get_a11y_tree", map[string]any{"session": session, "format": "json", "timeoutMs": 1500})
	took := time.Since(start)
	if out["ok"] == true && out["truncated"] != true {
		t.Errorf("a frozen app's tree is not marked truncated: %.500v", out)
	}
	if out["ok"] == false && out["errorCode"] != "timeout" {
		t.Errorf("a frozen app: want truncated:true or errorCode timeout, got %v", out)
	}
	if took > 1500*time.Millisecond+10*time.Second {
		t.Errorf("get_a11y_tree with timeoutMs 1500 on a frozen app took %v", took)
	}
	s.ok(t, "list_apps", nil)
	if err := syscall.Kill(app.Pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	again := s.ok(t, "get_a11y_tree", map[string]any{"session": session, "timeoutMs": 60000})
	if again["truncated"] != false || !strings.Contains(again["outline"].(string), `"Submit"`) {
		t.Errorf("after SIGCONT: %.1000v", again)
	}
}

// TestMCPTargetExitsMidCall: an app killed while its tree is read gives a
// clear answer, never a hang, and the server goes on.
func TestMCPTargetExitsMidCall(t *testing.T) { testdesk.ForEach(t, testMCPTargetExitsMidCall) }

func testMCPTargetExitsMidCall(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--rows", "3000")
	s := startMCP(t, d, "")
	session := s.connect(t, map[string]any{"pid": app.Pid})
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), mcpCallLimit)
		defer cancel()
		res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_a11y_tree", Arguments: map[string]any{"session": session, "format": "json", "timeoutMs": 30000}})
		done <- answer{res, err}
	}()
	app.Proc.Stop()
	select {
	case a := <-done:
		if a.err != nil {
			t.Fatalf("get_a11y_tree of a dying app: protocol error %v", a.err)
		}
		out := s.check(t, "get_a11y_tree", a.res)
		if out["ok"] == true && out["truncated"] != true {
			// The read may have finished before the app died.
			t.Logf("the read finished before the app exited (nodeCount %v)", out["nodeCount"])
		}
		if out["ok"] == false {
			switch out["errorCode"] {
			case "ownershipLost", "elementGone", "notFound", "timeout":
			default:
				t.Errorf("unclear failure for an app that exited: %v", out)
			}
		}
	case <-time.After(mcpCallLimit + 10*time.Second):
		t.Fatal("get_a11y_tree hung on an app that exited")
	}
	s.fail(t, "get_a11y_tree", map[string]any{"session": session}, "ownershipLost")
	s.ok(t, "list_apps", nil)
}

// TestMCPConcurrentSessions: two trees read at once, on two apps.
func TestMCPConcurrentSessions(t *testing.T) { testdesk.ForEach(t, testMCPConcurrentSessions) }

func testMCPConcurrentSessions(t *testing.T, d *testdesk.Desk) {
	apps := []*testdesk.App{
		d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "uiscope concurrent"),
		d.Launch(t, testdesk.Python, testdesk.Fixture("qt5_fixture.py")),
	}
	for _, era := range mcpEras {
		t.Run(era.name, func(t *testing.T) {
			s := startMCP(t, d, era.version)
			var sessions []string
			for _, a := range apps {
				sessions = append(sessions, s.connect(t, map[string]any{"pid": a.Pid}))
			}
			for round := range 3 {
				var wg sync.WaitGroup
				results := make([]*mcp.CallToolResult, len(sessions))
				errs := make([]error, len(sessions))
				for i, session := range sessions {
					wg.Go(func() {
						ctx, cancel := context.WithTimeout(context.Background(), mcpCallLimit)
						defer cancel()
						results[i], errs[i] = s.cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_a11y_tree",
							Arguments: map[string]any{"session": session, "format": "json", "timeoutMs": 60000}})
					})
				}
				wg.Wait()
				for i, res := range results {
					if errs[i] != nil {
						t.Fatalf("round %d, session %s: %v", round, sessions[i], errs[i])
					}
					out := s.check(t, "get_a11y_tree", res)
					if out["ok"] != true {
						t.Errorf("round %d, session %s: %v", round, sessions[i], out)
						continue
					}
					root := decode[*elem](t, out["root"])
					if out["truncated"] != false || root == nil || len(root.Children) == 0 {
						t.Errorf("round %d, session %s: truncated %v, root %v", round, sessions[i], out["truncated"], root)
					}
				}
			}
		})
	}
}

// TestMCPStdoutIsJSONRPC drives `uiscope mcp` over plain pipes: every line
// it writes to stdout is a JSON-RPC message, and it exits when stdin closes.
func TestMCPStdoutIsJSONRPC(t *testing.T) { testdesk.ForEach(t, testMCPStdoutIsJSONRPC) }

func testMCPStdoutIsJSONRPC(t *testing.T, d *testdesk.Desk) {
	cmd := exec.Command(uiscopeBin, "mcp")
	cmd.Env = d.Env()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})

	type line struct {
		raw string
		msg map[string]any
	}
	lines := make(chan line, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			l := line{raw: sc.Text()}
			if err := json.Unmarshal(sc.Bytes(), &l.msg); err != nil {
				l.msg = nil
			}
			lines <- l
		}
		close(lines)
		exited <- cmd.Wait()
	}()
	send := func(v any) {
		b, _ := json.Marshal(v)
		if _, err := stdin.Write(append(b, '\n')); err != nil {
			t.Fatalf("writing to uiscope mcp: %v", err)
		}
	}
	responses := map[int]map[string]any{}
	deadline := time.After(60 * time.Second)
	// await reads stdout until a response with id arrives, checking every line.
	await := func(id int) map[string]any {
		for responses[id] == nil {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("stdout closed before response %d; stderr:\n%s", id, stderr.String())
				}
				if l.msg == nil || l.msg["jsonrpc"] != "2.0" {
					t.Errorf("stdout line is not JSON-RPC 2.0: %q", l.raw)
					continue
				}
				if n, ok := l.msg["id"].(float64); ok {
					responses[int(n)] = l.msg
				}
			case <-deadline:
				t.Fatalf("no response %d within 60 s; stderr:\n%s", id, stderr.String())
			}
		}
		if e := responses[id]["error"]; e != nil {
			t.Errorf("response %d is an error: %v", id, e)
		}
		return responses[id]
	}

	send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "pipes", "version": "1"}}})
	init := await(1)
	if v := decode[struct {
		Result struct{ ProtocolVersion string }
	}](t, init).Result.ProtocolVersion; v != "2025-11-25" {
		t.Errorf("negotiated protocol %q", v)
	}
	send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
	send(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": map[string]any{"name": "list_apps", "arguments": map[string]any{}}})
	send(map[string]any{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": map[string]any{"name": "get_a11y_tree", "arguments": map[string]any{"session": "nope"}}})
	for id := 2; id <= 4; id++ {
		await(id)
	}
	if tools := decode[struct{ Result struct{ Tools []any } }](t, responses[2]).Result.Tools; len(tools) == 0 {
		t.Errorf("tools/list lists nothing: %v", responses[2])
	}
	type callResult struct {
		Result struct {
			IsError           bool
			StructuredContent map[string]any
		}
	}
	if r := decode[callResult](t, responses[3]).Result; r.IsError || r.StructuredContent["ok"] != true {
		t.Errorf("list_apps: %v", responses[3])
	}
	if r := decode[callResult](t, responses[4]).Result; !r.IsError || r.StructuredContent["errorCode"] != "unknownSession" {
		t.Errorf("get_a11y_tree with a bad session: %v", responses[4])
	}

	stdin.Close()
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				select {
				case err := <-exited:
					exited <- err // for the cleanup
					if err != nil {
						t.Errorf("uiscope mcp exited with %v after stdin closed; stderr:\n%s", err, stderr.String())
					}
				case <-time.After(30 * time.Second):
					t.Fatal("uiscope mcp did not exit after stdin closed")
				}
				return
			}
			if l.msg == nil || l.msg["jsonrpc"] != "2.0" {
				t.Errorf("stdout line is not JSON-RPC 2.0: %q", l.raw)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("uiscope mcp did not close stdout after stdin closed")
		}
	}
}

// TestMCPInputGate: without --allow-input nothing destructive is listed and
// an interaction tool cannot be called.
func TestMCPInputGate(t *testing.T) { testdesk.ForEach(t, testMCPInputGate) }

func testMCPInputGate(t *testing.T, d *testdesk.Desk) {
	for _, era := range mcpEras {
		t.Run(era.name, func(t *testing.T) {
			s := startMCP(t, d, era.version)
			n := 0
			for tool, err := range s.cs.Tools(context.Background(), nil) {
				if err != nil {
					t.Fatal(err)
				}
				n++
				a := tool.Annotations
				if a == nil || !a.ReadOnlyHint || (a.DestructiveHint != nil && *a.DestructiveHint) {
					t.Errorf("without --allow-input, %s is listed with annotations %+v", tool.Name, a)
				}
			}
			if n == 0 {
				t.Fatal("no tools listed")
			}
			for _, name := range []string{"click", "type_text", "press_key"} {
				s.refused(t, name, map[string]any{"session": "s1", "element": "a11y:e1", "text": "x", "keys": "Enter"})
			}

			// With the flag, the mutating tools are there and say so.
			allowed := startMCP(t, d, era.version, "--allow-input")
			destructive := 0
			for tool, err := range allowed.cs.Tools(context.Background(), nil) {
				if err != nil {
					t.Fatal(err)
				}
				if a := tool.Annotations; a != nil && a.DestructiveHint != nil && *a.DestructiveHint {
					destructive++
				}
			}
			if destructive == 0 {
				t.Errorf("with --allow-input, no destructive tool is listed")
			}
			if out := allowed.call(t, "click", map[string]any{"session": "s1", "element": "a11y:e1"}); out["ok"] != false {
				t.Errorf("click on a session that does not exist: %v", out)
			}
		})
	}
}
