package mcpserver

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/procinfo"
)

// Deadlines and budgets for tool arguments.
const (
	defaultTimeoutMs = 10000
	maxTimeoutMs     = 120000
	safetyPoll       = 500 * time.Millisecond // wait_for re-reads at least this often
)

// timeout validates an optional timeoutMs argument.
func timeout(ms *int, def int) (time.Duration, error) {
	v := def
	if ms != nil {
		v = *ms
	}
	if v <= 0 || v > maxTimeoutMs {
		return 0, core.Errorf(core.CodeInvalidArgument, "timeoutMs must be between 1 and %d, not %d", maxTimeoutMs, v)
	}
	return time.Duration(v) * time.Millisecond, nil
}

// session checks a timeoutMs argument and returns the (identity-checked)
// session with it.
func (h *handlers) session(ctx context.Context, id string, timeoutMs *int) (*core.Session, time.Duration, error) {
	limit, err := timeout(timeoutMs, defaultTimeoutMs)
	if err != nil {
		return nil, 0, err
	}
	s, err := h.sessions.Get(ctx, id)
	return s, limit, err
}

const truncatedNote = "the tree read was cut short (%s): elements may be missing, and a negative answer proves nothing; retry with a larger timeoutMs"

func (h *handlers) inspectTools() []toolDef {
	return []toolDef{
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "list_apps",
			Annotations: readOnly("List applications"),
			Description: "List running desktop applications and their top-level windows: pid, process name, " +
				"toolkit, window ids and titles, and whether the app exposes an accessibility tree (accessible). " +
				"Start here to find what to connect to. An app with accessible=false has windows but no tree " +
				"(Tk, or started before accessibility was on).",
			OutputSchema: outputSchema(schema{"apps": arr(appSchema), "count": integer}, "apps"),
		}, h.listApps),
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "connect",
			Annotations: readOnlySession("Connect to an application"),
			Description: "Open a session on one application, named by exactly one of pid, name (process name), " +
				"title (window title substring) or window (X window id like 0x1a00003). Returns the session id " +
				"every other tool takes. A name or title matching several windows fails with errorCode " +
				"\"ambiguous\" and lists candidates; connect again by pid or window. mode \"a11y\" (default) reads " +
				"the accessibility tree.",
			OutputSchema: outputSchema(schema{
				"session": str, "mode": str, "pid": integer, "name": str, "executable": str,
				"toolkit": str, "toolkitVersion": str, "window": str, "windows": arr(windowSchema),
				"frameworks": arr(frameworkSchema),
			}, "session", "pid"),
		}, h.connect),
		newTool(ToolsetInspect, &mcp.Tool{
			Name:         "disconnect",
			Annotations:  readOnlySession("Close a session"),
			Description:  "Close a session opened by connect. The application is not affected.",
			OutputSchema: outputSchema(schema{"session": str}, "session"),
		}, h.disconnect),
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "get_a11y_tree",
			Annotations: readOnly("Read the accessibility tree"),
			Description: "Read the connected app's accessibility tree afresh. format \"outline\" (default) gives one " +
				"line per element — role, \"name\", [ref], key states, @x,y wxh screen bounds — at a fraction of " +
				"the tokens of \"json\", which gives full element objects. view \"control\" drops layout-only " +
				"containers, \"content\" keeps what carries text or actions, \"raw\" everything. element scopes to " +
				"a subtree, depth limits levels below it, maxNodes bounds the output (childrenOmitted / \"… N more\" " +
				"say what was cut). An element keeps its ref across reads in a session; the ref of an element that is " +
				"gone is refused, never reused.",
			OutputSchema: outputSchema(schema{
				"session": str, "format": str, "view": str, "outline": str, "root": elementSchema,
				"nodeCount": integer, "shown": integer, "omitted": integer, "truncated": boolean,
				"truncatedReason": str, "note": str, "fetch": fetchSchema,
			}, "session", "nodeCount", "truncated"),
		}, h.getTree),
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "find_elements",
			Annotations: readOnly("Find elements"),
			Description: "Find elements in the connected app by name (nameMatch exact, contains — the default — or " +
				"regex), role (e.g. \"push button\", \"check box\", \"text\"), accessibleId, states (all must hold; " +
				"\"!focused\" negates) and interface (action, value, text, editable, selection). within limits the " +
				"search to a subtree. Reads the tree afresh; returns flat elements with refs. No match in a " +
				"truncated read proves nothing.",
			OutputSchema: outputSchema(schema{
				"session": str, "elements": arr(elementSchema), "matched": integer, "returned": integer,
				"limitHit": boolean, "truncated": boolean, "note": str,
			}, "session", "elements", "matched"),
		}, h.findElements),
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "get_element_properties",
			Annotations: readOnly("Read one element"),
			Description: "Read one element live by its ref: role, name, description, states, bounds, interfaces, " +
				"actions, text (Text interface content, at most 4000 characters; never for password fields), " +
				"value (Value interface), attributes, parent. names selects a subset. A ref whose element is " +
				"gone fails with elementGone: read the tree again.",
			OutputSchema: outputSchema(schema{"session": str, "element": str, "properties": anyObj}, "session", "properties"),
		}, h.getProperties),
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "get_frameworks",
			Annotations: readOnly("Detect UI frameworks"),
			Description: "Name the UI toolkits the connected app uses, with versions where knowable: the AT-SPI " +
				"toolkit and the libraries mapped into the process (GTK 3/4, Qt 5/6, Tk, Chromium/Electron, Java, " +
				"wxWidgets, Flutter...). Useful to know what to expect of its tree.",
			OutputSchema: outputSchema(schema{"session": str, "frameworks": arr(frameworkSchema)}, "session", "frameworks"),
		}, h.getFrameworks),
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "hit_test",
			Annotations: readOnly("Element at a point"),
			Description: "Find the smallest visible element of the connected app covering a screen point (x, y in " +
				"screen pixels, as in bounds), with its ancestors, nearest first. element is null when no element " +
				"of this app covers the point.",
			OutputSchema: outputSchema(schema{
				"session": str, "element": schema{"anyOf": []any{elementSchema, schema{"type": "null"}}},
				"ancestors": arr(elementSchema), "truncated": boolean, "note": str,
			}, "session", "ancestors"),
		}, h.hitTest),
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "wait_for",
			Annotations: readOnly("Wait for a change"),
			Description: "Block until an element matching the criteria (as find_elements) appears, disappears, or " +
				"has a property value (until \"property\": property one of name, description, role, state, value, " +
				"text; for state, value is a state name, \"!state\" for its absence). It re-reads as soon as the app " +
				"reports a change (AT-SPI events), and at least every 500 ms for toolkits that stay silent. Returns " +
				"the matching elements when satisfied; fails with errorCode \"timeout\" (retryable) after " +
				"timeoutMs (default 10000).",
			OutputSchema: outputSchema(schema{
				"session": str, "satisfied": boolean, "elements": arr(elementSchema), "waitedMs": integer, "polls": integer,
			}, "session", "satisfied"),
		}, h.waitFor),
	}
}

type listAppsArgs struct{}

func (h *handlers) listApps(ctx context.Context, _ *mcp.CallToolRequest, _ listAppsArgs) (*mcp.CallToolResult, any, error) {
	ctx, cancel := context.WithTimeout(ctx, defaultTimeoutMs*time.Millisecond)
	defer cancel()
	apps, err := h.sessions.Apps(ctx)
	if err != nil {
		return fail(err)
	}
	out := []core.AppSummary{}
	for _, a := range apps {
		out = append(out, core.Summarize(a))
	}
	return success(map[string]any{"apps": out, "count": len(out)})
}

type connectArgs struct {
	Pid    int    `json:"pid,omitempty" jsonschema:"process id of the application"`
	Name   string `json:"name,omitempty" jsonschema:"process name, e.g. gtk3-widget-factory or app.py"`
	Title  string `json:"title,omitempty" jsonschema:"substring of a window title (case-insensitive)"`
	Window string `json:"window,omitempty" jsonschema:"X window id, e.g. 0x1a00003"`
	Mode   string `json:"mode,omitempty" jsonschema:"a11y (default): the accessibility tree; visual: the native window tree"`
}

func (h *handlers) connect(ctx context.Context, _ *mcp.CallToolRequest, in connectArgs) (*mcp.CallToolResult, any, error) {
	ctx, cancel := context.WithTimeout(ctx, defaultTimeoutMs*time.Millisecond)
	defer cancel()
	s, err := h.sessions.Connect(ctx, core.Target{Pid: in.Pid, Name: in.Name, Title: in.Title, Window: in.Window}, in.Mode)
	if err != nil {
		return fail(err)
	}
	sum := core.Summarize(s.App)
	fws, _ := procinfo.Frameworks(s.App.Pid)
	out := map[string]any{
		"session": s.ID, "mode": s.Mode, "pid": s.App.Pid, "name": s.App.Name, "executable": s.App.Executable,
		"toolkit": s.App.Toolkit, "toolkitVersion": s.App.ToolkitVersion,
		"windows": sum.Windows, "frameworks": frameworks(s.App, fws),
	}
	if s.Identity.Window != "" { // connected by window or title
		out["window"] = s.Identity.Window
	}
	return success(out)
}

// frameworks merges the AT-SPI toolkit with what the process maps.
func frameworks(app platform.App, mapped []procinfo.Framework) []procinfo.Framework {
	out := []procinfo.Framework{}
	if app.Toolkit != "" {
		out = append(out, procinfo.Framework{Name: app.Toolkit, Version: app.ToolkitVersion, Evidence: "AT-SPI Application.ToolkitName"})
	}
	return append(out, mapped...)
}

type sessionArgs struct {
	Session string `json:"session" jsonschema:"session id from connect"`
}

func (h *handlers) disconnect(ctx context.Context, _ *mcp.CallToolRequest, in sessionArgs) (*mcp.CallToolResult, any, error) {
	if err := h.sessions.Disconnect(in.Session); err != nil {
		return fail(err)
	}
	return success(map[string]any{"session": in.Session})
}

type treeArgs struct {
	Session   string `json:"session" jsonschema:"session id from connect"`
	Element   string `json:"element,omitempty" jsonschema:"ref of the subtree root (a11y:eN from an earlier read); default the app root"`
	Depth     *int   `json:"depth,omitempty" jsonschema:"levels below the start element; omit for all, 0 for the element alone"`
	View      string `json:"view,omitempty" jsonschema:"raw (default), control or content"`
	Format    string `json:"format,omitempty" jsonschema:"outline (default, compact text) or json"`
	MaxNodes  *int   `json:"maxNodes,omitempty" jsonschema:"most elements to return (default 2000, at most 100000)"`
	TimeoutMs *int   `json:"timeoutMs,omitempty" jsonschema:"deadline for reading the tree in ms (default 10000)"`
}

func (h *handlers) getTree(ctx context.Context, _ *mcp.CallToolRequest, in treeArgs) (*mcp.CallToolResult, any, error) {
	format := in.Format
	if format == "" {
		format = "outline"
	}
	if format != "outline" && format != "json" {
		return fail(core.Errorf(core.CodeInvalidArgument, "format must be \"outline\" or \"json\", not %q", in.Format))
	}
	opts := core.ViewOptions{View: in.View, Depth: -1}
	if in.Depth != nil {
		if *in.Depth < 0 {
			return fail(core.Errorf(core.CodeInvalidArgument, "depth must be 0 or more (omit it for the whole tree), not %d", *in.Depth))
		}
		opts.Depth = *in.Depth
	}
	if in.MaxNodes != nil {
		if *in.MaxNodes <= 0 || *in.MaxNodes > core.MaxMaxNodes {
			return fail(core.Errorf(core.CodeInvalidArgument, "maxNodes must be between 1 and %d, not %d", core.MaxMaxNodes, *in.MaxNodes))
		}
		opts.MaxNodes = *in.MaxNodes
	}
	if err := core.ValidateView(in.View); err != nil && in.View != "" {
		return fail(err)
	}
	s, limit, err := h.session(ctx, in.Session, in.TimeoutMs)
	if err != nil {
		return fail(err)
	}
	var scopeKey string
	if in.Element != "" {
		n, _, _, err := s.Resolve(in.Element)
		if err != nil {
			return fail(err)
		}
		scopeKey = n.Key
	}
	t, st, err := h.sessions.Fetch(ctx, s, limit, platform.TreeOptions{Actions: format == "json"})
	if err != nil {
		return fail(err)
	}
	if scopeKey != "" {
		id, ok := t.ByKey(scopeKey)
		if !ok {
			return fail(core.Errorf(core.CodeElementGone, "element %s is no longer in the tree (the UI changed): read the tree again without element, then use the new refs", in.Element))
		}
		opts.Scope = id
	}
	out := map[string]any{"session": s.ID, "format": format, "view": viewName(in.View), "nodeCount": t.Len(),
		"truncated": st.Truncated, "fetch": map[string]any{"strategy": st.Strategy, "ms": st.Elapsed.Milliseconds(), "calls": st.Calls}}
	var rs core.RenderStats
	if format == "outline" {
		text, r, err := t.Outline(opts)
		if err != nil {
			return fail(err)
		}
		out["outline"], rs = text, r
	} else {
		root, r, err := t.Render(opts)
		if err != nil {
			return fail(err)
		}
		out["root"], rs = root, r
	}
	out["shown"], out["omitted"] = rs.Nodes, rs.Omitted
	if st.Truncated {
		out["truncatedReason"] = st.Reason
		out["note"] = fmt.Sprintf(truncatedNote, st.Reason)
	} else if rs.BudgetHit {
		out["note"] = fmt.Sprintf("%d elements left out by maxNodes; narrow with element/depth/view or raise maxNodes", rs.Omitted)
	}
	return success(out)
}

func viewName(v string) string {
	if v == "" {
		return core.ViewRaw
	}
	return v
}

// criteria are the element-matching arguments find_elements and wait_for
// share.
type criteria struct {
	Name         string   `json:"name,omitempty" jsonschema:"accessible name to match"`
	NameMatch    string   `json:"nameMatch,omitempty" jsonschema:"exact, contains (default) or regex"`
	Role         string   `json:"role,omitempty" jsonschema:"role name, e.g. push button, check box, text, entry, menu item"`
	AccessibleID string   `json:"accessibleId,omitempty" jsonschema:"toolkit accessible id"`
	States       []string `json:"states,omitempty" jsonschema:"states that must all be set, e.g. focused; !name for unset"`
	Interface    string   `json:"interface,omitempty" jsonschema:"action, value, text, editable, selection, component..."`
}

func (c criteria) query(limit int) core.Query {
	return core.Query{Name: c.Name, NameMatch: c.NameMatch, Role: c.Role, AccessibleID: c.AccessibleID,
		States: c.States, Interface: c.Interface, Limit: limit}
}

type findArgs struct {
	Session string `json:"session" jsonschema:"session id from connect"`
	criteria
	Within    string `json:"within,omitempty" jsonschema:"ref of a subtree to search in"`
	Limit     int    `json:"limit,omitempty" jsonschema:"most matches to return (default 50, at most 1000)"`
	TimeoutMs *int   `json:"timeoutMs,omitempty" jsonschema:"deadline for reading the tree in ms (default 10000)"`
}

// findIn reads the tree afresh and runs the query, resolving within against
// the previous tree first.
func (h *handlers) findIn(ctx context.Context, s *core.Session, q core.Query, within string, limit time.Duration, actions bool) (*core.Tree, []*core.Element, core.FindStats, platform.TreeStats, error) {
	var withinKey string
	if within != "" {
		n, _, _, err := s.Resolve(within)
		if err != nil {
			return nil, nil, core.FindStats{}, platform.TreeStats{}, err
		}
		withinKey = n.Key
	}
	t, st, err := h.sessions.Fetch(ctx, s, limit, platform.TreeOptions{Actions: actions})
	if err != nil {
		return nil, nil, core.FindStats{}, st, err
	}
	if withinKey != "" {
		id, ok := t.ByKey(withinKey)
		if !ok {
			return nil, nil, core.FindStats{}, st, core.Errorf(core.CodeElementGone, "element %s is no longer in the tree: read the tree again", within)
		}
		q.Within = id
	}
	els, fs, err := t.Find(q)
	return t, els, fs, st, err
}

func (h *handlers) findElements(ctx context.Context, _ *mcp.CallToolRequest, in findArgs) (*mcp.CallToolResult, any, error) {
	q := in.query(in.Limit)
	if _, err := q.Compile(); err != nil {
		return fail(err)
	}
	s, limit, err := h.session(ctx, in.Session, in.TimeoutMs)
	if err != nil {
		return fail(err)
	}
	_, els, fs, st, err := h.findIn(ctx, s, q, in.Within, limit, true)
	if err != nil {
		return fail(err)
	}
	out := map[string]any{"session": s.ID, "elements": nonNilEls(els), "matched": fs.Matched, "returned": fs.Returned,
		"limitHit": fs.LimitHit, "truncated": st.Truncated}
	if st.Truncated {
		out["note"] = fmt.Sprintf(truncatedNote, st.Reason)
	}
	return success(out)
}

func nonNilEls(els []*core.Element) []*core.Element {
	if els == nil {
		return []*core.Element{}
	}
	return els
}

type propsArgs struct {
	Session string   `json:"session" jsonschema:"session id from connect"`
	Element string   `json:"element" jsonschema:"element ref, e.g. a11y:e12"`
	Names   []string `json:"names,omitempty" jsonschema:"only these properties (e.g. states, value, text)"`
}

func (h *handlers) getProperties(ctx context.Context, _ *mcp.CallToolRequest, in propsArgs) (*mcp.CallToolResult, any, error) {
	s, err := h.sessions.Get(ctx, in.Session)
	if err != nil {
		return fail(err)
	}
	n, id, t, err := s.Resolve(in.Element)
	if err != nil {
		return fail(err)
	}
	ctx, cancel := context.WithTimeout(ctx, defaultTimeoutMs*time.Millisecond)
	defer cancel()
	d, err := h.sessions.Element(ctx, s, n.Key)
	if err != nil {
		return fail(err)
	}
	props, err := core.SelectProperties(core.Properties(t.RefString(id), d), in.Names)
	if err != nil {
		return fail(err)
	}
	return success(map[string]any{"session": s.ID, "element": t.RefString(id), "properties": props})
}

func (h *handlers) getFrameworks(ctx context.Context, _ *mcp.CallToolRequest, in sessionArgs) (*mcp.CallToolResult, any, error) {
	s, err := h.sessions.Get(ctx, in.Session)
	if err != nil {
		return fail(err)
	}
	fws, err := procinfo.Frameworks(s.App.Pid)
	if err != nil {
		return fail(core.Errorf(core.CodeOwnershipLost, "cannot read pid %d's libraries: %v", s.App.Pid, err))
	}
	return success(map[string]any{"session": s.ID, "frameworks": frameworks(s.App, fws)})
}

type hitArgs struct {
	Session   string `json:"session" jsonschema:"session id from connect"`
	X         int    `json:"x" jsonschema:"screen x in pixels"`
	Y         int    `json:"y" jsonschema:"screen y in pixels"`
	TimeoutMs *int   `json:"timeoutMs,omitempty" jsonschema:"deadline for reading the tree in ms (default 10000)"`
}

func (h *handlers) hitTest(ctx context.Context, _ *mcp.CallToolRequest, in hitArgs) (*mcp.CallToolResult, any, error) {
	s, limit, err := h.session(ctx, in.Session, in.TimeoutMs)
	if err != nil {
		return fail(err)
	}
	t, st, err := h.sessions.Fetch(ctx, s, limit, platform.TreeOptions{Actions: true})
	if err != nil {
		return fail(err)
	}
	out := map[string]any{"session": s.ID, "element": nil, "ancestors": []*core.Element{}, "truncated": st.Truncated}
	if st.Truncated {
		out["note"] = fmt.Sprintf(truncatedNote, st.Reason)
	}
	id, ok := t.HitTest(in.X, in.Y)
	if !ok {
		return success(out)
	}
	el, _ := t.Element(id)
	out["element"] = el
	var anc []*core.Element
	for _, a := range t.Ancestors(id) {
		e, _ := t.Element(a)
		anc = append(anc, e)
	}
	out["ancestors"] = nonNilEls(anc)
	return success(out)
}

type waitArgs struct {
	Session string `json:"session" jsonschema:"session id from connect"`
	criteria
	Until     string `json:"until" jsonschema:"appears, disappears or property"`
	Property  string `json:"property,omitempty" jsonschema:"with until=property: name, description, role, state, value or text"`
	Value     string `json:"value,omitempty" jsonschema:"with until=property: the value to wait for (a state name, or !state)"`
	TimeoutMs *int   `json:"timeoutMs,omitempty" jsonschema:"how long to wait in ms (default 10000)"`
}

func (h *handlers) waitFor(ctx context.Context, _ *mcp.CallToolRequest, in waitArgs) (*mcp.CallToolResult, any, error) {
	switch in.Until {
	case "appears", "disappears":
	case "property":
		switch in.Property {
		case "name", "description", "role", "state", "value", "text":
		default:
			return fail(core.Errorf(core.CodeInvalidArgument, "property must be one of name, description, role, state, value, text, not %q", in.Property))
		}
	default:
		return fail(core.Errorf(core.CodeInvalidArgument, "until must be appears, disappears or property, not %q", in.Until))
	}
	q := in.query(core.MaxFindLimit)
	if _, err := q.Compile(); err != nil {
		return fail(err)
	}
	if in.Until == "property" && in.Property == "state" {
		if _, ok := platform.StateByName(strings.TrimPrefix(in.Value, "!")); !ok {
			return fail(core.Errorf(core.CodeInvalidArgument, "value %q is not a state name", in.Value))
		}
	}
	s, limit, err := h.session(ctx, in.Session, in.TimeoutMs)
	if err != nil {
		return fail(err)
	}
	// Event-driven: read again as soon as the app reports a change, and at
	// least every safetyPoll for toolkits that stay silent.
	changes, stop := h.sessions.Watch(ctx, s)
	defer stop()
	start := time.Now()
	deadline := start.Add(limit)
	polls := 0
	for {
		polls++
		remaining := time.Until(deadline)
		readLimit := min(max(remaining, 500*time.Millisecond), defaultTimeoutMs*time.Millisecond)
		_, els, _, st, err := h.findIn(ctx, s, q, "", readLimit, false)
		if err != nil {
			if e := core.AsError(err); !e.Retryable {
				return fail(err)
			}
		} else if done, matched := h.satisfied(ctx, s, in, els, st.Truncated); done {
			return success(map[string]any{"session": s.ID, "satisfied": true, "elements": nonNilEls(matched),
				"waitedMs": time.Since(start).Milliseconds(), "polls": polls})
		}
		left := time.Until(deadline)
		if left <= 0 {
			e := core.Errorf(core.CodeTimeout, "the condition (%s) did not hold within %d ms; check the criteria with find_elements, or wait longer", in.Until, limit.Milliseconds())
			e.Retryable, e.Disposition = true, "transient"
			return fail(e)
		}
		select {
		case <-ctx.Done():
			return fail(core.Errorf(core.CodeTimeout, "cancelled"))
		case <-changes:
		case <-time.After(min(safetyPoll, left)):
		}
	}
}

// satisfied checks one poll's matches against the condition.
func (h *handlers) satisfied(ctx context.Context, s *core.Session, in waitArgs, els []*core.Element, truncated bool) (bool, []*core.Element) {
	switch in.Until {
	case "appears":
		return len(els) > 0, els
	case "disappears":
		return len(els) == 0 && !truncated, els
	}
	var hits []*core.Element
	for _, e := range els {
		if h.propertyHolds(ctx, s, e, in.Property, in.Value) {
			hits = append(hits, e)
		}
	}
	return len(hits) > 0, hits
}

func (h *handlers) propertyHolds(ctx context.Context, s *core.Session, e *core.Element, prop, want string) bool {
	switch prop {
	case "name":
		return e.Name == want
	case "description":
		return e.Description == want
	case "role":
		return e.Role == want
	case "state":
		neg := strings.HasPrefix(want, "!")
		has := false
		for _, st := range e.States {
			has = has || st == strings.TrimPrefix(want, "!")
		}
		return has != neg
	}
	d, err := h.sessions.Element(ctx, s, e.Key)
	if err != nil {
		return false
	}
	switch prop {
	case "value":
		if d.Value == nil {
			return false
		}
		if f, err := strconv.ParseFloat(want, 64); err == nil {
			return d.Value.Current == f
		}
		return d.Value.Text == want
	case "text":
		return d.Text != nil && d.Text.Text == want
	}
	return false
}
