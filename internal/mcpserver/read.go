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
)

// session checks a timeoutMs argument and returns the (identity-checked)
// session with it.
func (h *handlers) session(ctx context.Context, id string, timeoutMs *int) (*core.Session, time.Duration, error) {
	limit, err := core.Timeout(timeoutMs)
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
		}, h.listApps),
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "connect",
			Annotations: readOnlySession("Connect to an application"),
			Description: "Open a session on one application, named by exactly one of pid, name (process name), " +
				"title (window title substring) or window (X window id like 0x1a00003). Returns the session id " +
				"every other tool takes. A name or title matching several windows fails with errorCode " +
				"\"ambiguous\" and lists candidates; connect again by pid or window. mode \"a11y\" (default) reads " +
				"the accessibility tree; mode \"visual\" the native window tree (get_visual_tree), for apps without " +
				"an accessibility tree (Tk) or what it hides. A session speaks one tree; two sessions (one per " +
				"mode) on the same app are fine.",
		}, h.connect),
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "disconnect",
			Annotations: readOnlySession("Close a session"),
			Description: "Close a session opened by connect. The application is not affected.",
		}, h.disconnect),
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "get_a11y_tree",
			Annotations: readOnly("Read the accessibility tree"),
			Description: "Read the connected app's accessibility tree afresh. format \"outline\" (default) gives one " +
				"line per element — role, \"name\", [ref], key states, @x,y wxh screen bounds — at a fraction of " +
				"the tokens of \"json\", which gives full element objects. view \"control\" drops layout-only " +
				"containers, \"content\" keeps what carries text or actions, \"raw\" everything. element scopes to " +
				"a subtree, depth limits levels below it. maxBytes (default 32000) and maxNodes bound the answer, cut " +
				"breadth-first: upper levels whole, childrenOmitted / \"… N more\" where children were left out, and note " +
				"says how to read on (element, read_table, a larger maxBytes). An element keeps its ref across reads in a session; the ref of an element that is " +
				"gone is refused, never reused.",
		}, h.getTree),
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "find_elements",
			Annotations: readOnly("Find elements"),
			Description: "Find elements in the connected app by name (nameMatch exact, contains — the default — or " +
				"regex), role (e.g. \"push button\", \"check box\", \"text\"), accessibleId, states (all must hold; " +
				"\"!focused\" negates) and interface (action, value, text, editable, selection). within limits the " +
				"search to a subtree. Reads the tree afresh; returns flat elements with refs. No match in a " +
				"truncated read proves nothing; visibleOnly says the search met containers that hold only their " +
				"children on screen (spreadsheets, long lists: partialContainers), so what is scrolled away was not searched.",
		}, h.findElements),
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "get_element_properties",
			Annotations: readOnly("Read one element"),
			Description: "Read one element live by its ref: role, name, description, states, bounds, interfaces, " +
				"actions, text (Text interface content, at most 4000 characters; never for redacted fields), " +
				"value (Value interface), attributes, parent. names selects a subset. A ref whose element is " +
				"gone fails with elementGone: read the tree again.",
		}, h.getProperties),
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "read_table",
			Annotations: readOnly("Read a table's cells"),
			Description: "Read a table's cells by row and column, on screen or not: a spreadsheet range without " +
				"scrolling, the rows of a long list or tree view. element is the table's ref (find_elements with " +
				"interface \"table\"); rows and columns are [first, last], 0-based and inclusive (columns default to " +
				"all, refused for tables wider than 2000). Returns rowCount, columnCount, headers where the table has " +
				"them, and cells as rows of text (at most 200 characters a cell; null where a cell holds nothing " +
				"readable; never the text of password or hidden fields). At most 2000 cells a call: when complete is " +
				"false, next is the range to ask for to read on.",
		}, h.readTable),
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "get_editable_properties",
			Annotations: readOnly("Editable properties"),
			Description: "Read one element's editable properties by its ref: a schemaId, descriptors (what can be " +
				"edited and how: descriptorId, name, type, editor readonly/string/boolean/integer/number/enum/command, " +
				"choices, minimum/maximum/increment, writable, clearable) and values (what each holds now, its runtime " +
				"type, canClear), read live. Derived from the element's Text/EditableText (text), Value (value), " +
				"checked/expanded/selected states, a Selection container's items (choice) and its actions (action). " +
				"A descriptorId belongs to this element in this session under this schemaId: when the element " +
				"changes (say it is disabled) the schemaId and ids change. A redacted field's text is never read.",
		}, h.getEditableProperties),
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "get_frameworks",
			Annotations: readOnly("Detect UI frameworks"),
			Description: "Name the UI toolkits the connected app uses, with versions where knowable: the AT-SPI " +
				"toolkit and the libraries mapped into the process (GTK 3/4, Qt 5/6, Tk, Chromium/Electron, Java, " +
				"wxWidgets, Flutter...). Useful to know what to expect of its tree.",
		}, h.getFrameworks),
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "hit_test",
			Annotations: readOnly("Element at a point"),
			Description: "Find the smallest visible element of the connected app covering a screen point (x, y in " +
				"screen pixels, as in bounds), with its ancestors, nearest first. element is null when no element " +
				"of this app covers the point.",
		}, h.hitTest),
		newTool(ToolsetInspect, &mcp.Tool{
			Name:        "wait_for",
			Annotations: readOnly("Wait for a change"),
			Description: "Block until an element matching the criteria (as find_elements) appears, disappears, or " +
				"has a property value (until \"property\": property one of name, description, role, state, value, " +
				"text; for state, value is a state name, \"!state\" for its absence). It re-reads as soon as the app " +
				"reports a change (AT-SPI events), and at least every 500 ms for toolkits that stay silent. Returns " +
				"the matching elements when satisfied; fails with errorCode \"timeout\" (retryable) after " +
				"timeoutMs (default 10000). visibleOnly, as in find_elements, says only the on-screen part of " +
				"partialContainers was searched.",
		}, h.waitFor),
	}
}

type listAppsArgs struct{}

type listAppsResult struct {
	Apps  []core.AppSummary `json:"apps"`
	Count int               `json:"count"`
}

func (h *handlers) listApps(ctx context.Context, _ *mcp.CallToolRequest, _ listAppsArgs) (listAppsResult, error) {
	ctx, cancel := context.WithTimeout(ctx, core.DefaultTimeoutMs*time.Millisecond)
	defer cancel()
	apps, err := h.sessions.Apps(ctx)
	if err != nil {
		return listAppsResult{}, err
	}
	out := listAppsResult{Apps: []core.AppSummary{}}
	for _, a := range apps {
		out.Apps = append(out.Apps, core.Summarize(a))
	}
	out.Count = len(out.Apps)
	return out, nil
}

type connectArgs struct {
	Pid    int    `json:"pid,omitempty" jsonschema:"process id of the application"`
	Name   string `json:"name,omitempty" jsonschema:"process name, e.g. gtk3-widget-factory or app.py"`
	Title  string `json:"title,omitempty" jsonschema:"substring of a window title (case-insensitive)"`
	Window string `json:"window,omitempty" jsonschema:"X window id, e.g. 0x1a00003"`
	Mode   string `json:"mode,omitempty" jsonschema:"a11y (default): the accessibility tree; visual: the native window tree"`
}

type connectResult struct {
	Session        string               `json:"session"`
	Mode           string               `json:"mode"`
	Pid            int                  `json:"pid"`
	Name           string               `json:"name"`
	Executable     string               `json:"executable"`
	Toolkit        string               `json:"toolkit"`
	ToolkitVersion string               `json:"toolkitVersion"`
	Window         string               `json:"window,omitempty"` // when connected by window or title
	Windows        []core.WindowSummary `json:"windows"`
	Frameworks     []core.Framework     `json:"frameworks"`
}

func (h *handlers) connect(ctx context.Context, _ *mcp.CallToolRequest, in connectArgs) (connectResult, error) {
	limit := core.DefaultTimeoutMs * time.Millisecond
	if c := h.sessions.Consent; c != nil {
		limit += c.Timeout // the user may be asked
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	s, err := h.sessions.Connect(ctx, core.Target{Pid: in.Pid, Name: in.Name, Title: in.Title, Window: in.Window}, in.Mode)
	if err != nil {
		return connectResult{}, err
	}
	fws, _ := h.sessions.Frameworks(ctx, s) // what could be read; the session is open either way
	h.res.opened(s)
	return connectResult{Session: s.ID, Mode: s.Mode, Pid: s.App.Pid, Name: s.App.Name, Executable: s.App.Executable,
		Toolkit: s.App.Toolkit, ToolkitVersion: s.App.ToolkitVersion, Window: s.Identity.Window,
		Windows: core.Summarize(s.App).Windows, Frameworks: fws}, nil
}

type sessionArgs struct {
	Session string `json:"session" jsonschema:"session id from connect"`
}

type sessionResult struct {
	Session string `json:"session"`
}

func (h *handlers) disconnect(ctx context.Context, _ *mcp.CallToolRequest, in sessionArgs) (sessionResult, error) {
	if err := h.sessions.Disconnect(ctx, in.Session); err != nil {
		return sessionResult{}, err
	}
	h.res.closed(in.Session)
	return sessionResult(in), nil
}

type treeArgs struct {
	Session   string `json:"session" jsonschema:"session id from connect"`
	Element   string `json:"element,omitempty" jsonschema:"ref of the subtree root (a11y:eN from an earlier read); default the app root"`
	Depth     *int   `json:"depth,omitempty" jsonschema:"levels below the start element; omit for all, 0 for the element alone"`
	View      string `json:"view,omitempty" jsonschema:"raw (default), control or content"`
	Format    string `json:"format,omitempty" jsonschema:"outline (default, compact text) or json"`
	MaxNodes  *int   `json:"maxNodes,omitempty" jsonschema:"most elements to return (default 2000, at most 100000)"`
	MaxBytes  *int   `json:"maxBytes,omitempty" jsonschema:"most bytes of this result's JSON (default 32000, about 10000 tokens; 2000 to 100000000)"`
	TimeoutMs *int   `json:"timeoutMs,omitempty" jsonschema:"deadline for reading the tree in ms (default 10000)"`
}

// fetchInfo says how a tree was read.
type fetchInfo struct {
	Strategy string `json:"strategy"`
	Ms       int64  `json:"ms"`
	Calls    int    `json:"calls"`
}

type treeResult struct {
	Session         string        `json:"session"`
	Format          string        `json:"format"`
	View            string        `json:"view"`
	Outline         string        `json:"outline,omitempty"` // format outline
	Root            *core.Element `json:"root,omitempty"`    // format json
	NodeCount       int           `json:"nodeCount"`
	Shown           int           `json:"shown"`
	Omitted         int           `json:"omitted"`
	Truncated       bool          `json:"truncated"`
	TruncatedReason string        `json:"truncatedReason,omitempty"`
	// CutBy names the budget that left elements out: maxBytes or maxNodes.
	CutBy string    `json:"cutBy,omitempty"`
	Note  string    `json:"note,omitempty"`
	Fetch fetchInfo `json:"fetch"`

	rootBytes int // about Root's JSON, for the buffer
}

// appendMembers writes the answer as successResult makes of json.Marshal's,
// its elements through core.Element.AppendJSON: the rest is marshalled
// without the root, which goes in its place, before nodeCount (no string
// before it can hold that key unescaped: session, format, view, and no
// outline beside a root).
func (r treeResult) appendMembers(b []byte) ([]byte, error) {
	root := r.Root
	r.Root = nil
	rest, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	b = append(b, `{"ok":true,`...)
	if root == nil {
		return append(b, rest[1:]...), nil
	}
	at := bytes.Index(rest, []byte(`,"nodeCount":`))
	if at < 0 {
		return nil, fmt.Errorf("tree answer without nodeCount: %.100s", rest)
	}
	b = append(b, rest[1:at]...)
	b = append(b, `,"root":`...)
	b = root.AppendJSON(b)
	return append(b, rest[at:]...), nil
}

// sizeHint: rootBytes is exact when the budget measured the elements, a
// bound up to six times too high when it did not; elements are rarely
// longer than elementBytesHint.
func (r treeResult) sizeHint() int {
	return len(r.Outline) + min(r.rootBytes, r.Shown*elementBytesHint) + 1024
}

// elementBytesHint is about the longest an element's JSON usually is.
const elementBytesHint = 400

func (h *handlers) getTree(ctx context.Context, _ *mcp.CallToolRequest, in treeArgs) (treeResult, error) {
	req := core.TreeRequest{Element: in.Element, Depth: in.Depth, View: in.View, Format: in.Format, MaxNodes: in.MaxNodes,
		MaxBytes: in.MaxBytes, TimeoutMs: in.TimeoutMs}
	if err := req.Validate(); err != nil {
		return treeResult{}, err
	}
	s, err := h.sessions.Get(ctx, in.Session)
	if err != nil {
		return treeResult{}, err
	}
	r, err := h.sessions.ReadTree(ctx, s, req)
	if err != nil {
		return treeResult{}, err
	}
	st, rs := r.Stats, r.Render
	out := treeResult{Session: s.ID, Format: req.Format, View: req.View, Outline: r.Outline, Root: r.Root, rootBytes: rs.Bytes,
		NodeCount: r.Tree.Len(), Shown: rs.Nodes, Omitted: rs.Omitted, Truncated: st.Truncated, CutBy: r.CutBy(),
		Fetch: fetchInfo{Strategy: st.Strategy, Ms: st.Elapsed.Milliseconds(), Calls: st.Calls}}
	var notes []string
	if st.Truncated {
		out.TruncatedReason = st.Reason
		notes = append(notes, fmt.Sprintf(truncatedNote, st.Reason))
	}
	if n := r.ReadOnNote(false); n != "" {
		notes = append(notes, n)
	}
	if rs.DepthCapped {
		notes = append(notes, fmt.Sprintf("elements more than %d levels below the start were left out (the server's depth cap); read further down by passing element, the ref of a deep element shown", core.MaxDepth))
	}
	out.Note = strings.Join(notes, " ")
	return out, nil
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

type findResult struct {
	Session   string          `json:"session"`
	Elements  []*core.Element `json:"elements"`
	Matched   int             `json:"matched"`
	Returned  int             `json:"returned"`
	LimitHit  bool            `json:"limitHit"`
	Truncated bool            `json:"truncated"`
	// VisibleOnly: the searched subtree holds partial containers (their
	// refs in PartialContainers, at most ten), whose children off screen
	// were not searched.
	VisibleOnly       bool     `json:"visibleOnly,omitempty"`
	PartialContainers []string `json:"partialContainers,omitempty"`
	Note              string   `json:"note,omitempty"`
}

func (h *handlers) findElements(ctx context.Context, _ *mcp.CallToolRequest, in findArgs) (findResult, error) {
	req := core.FindRequest{Query: in.query(in.Limit), Within: in.Within, TimeoutMs: in.TimeoutMs}
	if err := req.Validate(); err != nil {
		return findResult{}, err
	}
	s, err := h.sessions.Get(ctx, in.Session)
	if err != nil {
		return findResult{}, err
	}
	r, err := h.sessions.Find(ctx, s, req)
	if err != nil {
		return findResult{}, err
	}
	fs, st := r.Find, r.Stats
	out := findResult{Session: s.ID, Elements: r.Elements, Matched: fs.Matched, Returned: fs.Returned,
		LimitHit: fs.LimitHit, Truncated: st.Truncated}
	refs, note := r.Tree.PartialRefs(fs.Partial)
	if len(refs) > 0 {
		out.VisibleOnly, out.PartialContainers, out.Note = true, refs, note
	}
	if st.Truncated {
		out.Note = joinNotes(fmt.Sprintf(truncatedNote, st.Reason), out.Note)
	}
	return out, nil
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

type propsResult struct {
	Session    string         `json:"session"`
	Element    string         `json:"element"`
	Properties map[string]any `json:"properties"`
}

func (h *handlers) getProperties(ctx context.Context, _ *mcp.CallToolRequest, in propsArgs) (propsResult, error) {
	req := core.PropsRequest{Element: in.Element, Names: in.Names}
	if err := req.Validate(); err != nil {
		return propsResult{}, err
	}
	s, err := h.sessions.Get(ctx, in.Session)
	if err != nil {
		return propsResult{}, err
	}
	r, err := h.sessions.Properties(ctx, s, req)
	if err != nil {
		return propsResult{}, err
	}
	return propsResult{Session: s.ID, Element: r.Ref, Properties: r.Properties}, nil
}

type editableArgs struct {
	Session string `json:"session" jsonschema:"session id from connect"`
	Element string `json:"element" jsonschema:"element ref, e.g. a11y:e12"`
}

type editableResult struct {
	Session string `json:"session"`
	*core.EditableProperties
}

func (h *handlers) getEditableProperties(ctx context.Context, _ *mcp.CallToolRequest, in editableArgs) (editableResult, error) {
	ctx, cancel := context.WithTimeout(ctx, core.DefaultTimeoutMs*time.Millisecond)
	defer cancel()
	p, err := h.sessions.EditableProperties(ctx, in.Session, in.Element)
	if err != nil {
		return editableResult{}, err
	}
	return editableResult{Session: in.Session, EditableProperties: p}, nil
}

type frameworksResult struct {
	Session    string           `json:"session"`
	Frameworks []core.Framework `json:"frameworks"`
}

func (h *handlers) getFrameworks(ctx context.Context, _ *mcp.CallToolRequest, in sessionArgs) (frameworksResult, error) {
	s, err := h.sessions.Get(ctx, in.Session)
	if err != nil {
		return frameworksResult{}, err
	}
	fws, err := h.sessions.Frameworks(ctx, s)
	if err != nil {
		return frameworksResult{}, err
	}
	return frameworksResult{Session: s.ID, Frameworks: fws}, nil
}

type hitArgs struct {
	Session   string `json:"session" jsonschema:"session id from connect"`
	X         int    `json:"x" jsonschema:"screen x in pixels"`
	Y         int    `json:"y" jsonschema:"screen y in pixels"`
	TimeoutMs *int   `json:"timeoutMs,omitempty" jsonschema:"deadline for reading the tree in ms (default 10000)"`
}

type hitResult struct {
	Session   string          `json:"session"`
	Element   *core.Element   `json:"element"` // null when nothing of the app is there
	Ancestors []*core.Element `json:"ancestors"`
	Truncated bool            `json:"truncated"`
	Note      string          `json:"note,omitempty"`
}

func (h *handlers) hitTest(ctx context.Context, _ *mcp.CallToolRequest, in hitArgs) (hitResult, error) {
	s, limit, err := h.session(ctx, in.Session, in.TimeoutMs)
	if err != nil {
		return hitResult{}, err
	}
	t, st, err := h.sessions.Fetch(ctx, s, limit, core.TreeOptions{Actions: true})
	if err != nil {
		return hitResult{}, err
	}
	out := hitResult{Session: s.ID, Ancestors: []*core.Element{}, Truncated: st.Truncated}
	if st.Truncated {
		out.Note = fmt.Sprintf(truncatedNote, st.Reason)
	}
	id, ok := t.HitTest(in.X, in.Y)
	if !ok {
		return out, nil
	}
	out.Element, _ = t.Element(id)
	for _, a := range t.Ancestors(id) {
		e, _ := t.Element(a)
		out.Ancestors = append(out.Ancestors, e)
	}
	return out, nil
}

type waitArgs struct {
	Session string `json:"session" jsonschema:"session id from connect"`
	criteria
	Until     string `json:"until" jsonschema:"appears, disappears or property"`
	Property  string `json:"property,omitempty" jsonschema:"with until=property: name, description, role, state, value or text"`
	Value     string `json:"value,omitempty" jsonschema:"with until=property: the value to wait for (a state name, or !state)"`
	TimeoutMs *int   `json:"timeoutMs,omitempty" jsonschema:"how long to wait in ms (default 10000)"`
}

type waitResult struct {
	Session   string          `json:"session"`
	Satisfied bool            `json:"satisfied"`
	Elements  []*core.Element `json:"elements"`
	WaitedMs  int64           `json:"waitedMs"`
	Polls     int             `json:"polls"`
	// VisibleOnly and PartialContainers: as find_elements'.
	VisibleOnly       bool     `json:"visibleOnly,omitempty"`
	PartialContainers []string `json:"partialContainers,omitempty"`
	Note              string   `json:"note,omitempty"` // the live reads were capped; the search saw the visible part
}

func (h *handlers) waitFor(ctx context.Context, _ *mcp.CallToolRequest, in waitArgs) (waitResult, error) {
	limit, err := core.Timeout(in.TimeoutMs)
	if err != nil {
		return waitResult{}, err
	}
	req := core.WaitRequest{Query: in.query(core.MaxFindLimit), Until: in.Until, Property: in.Property, Value: in.Value, Timeout: limit}
	if err := req.Validate(); err != nil {
		return waitResult{}, err
	}
	s, err := h.sessions.Get(ctx, in.Session)
	if err != nil {
		return waitResult{}, err
	}
	r, err := h.sessions.WaitFor(ctx, s, req)
	if err != nil {
		return waitResult{}, err
	}
	return waitResult{Session: s.ID, Satisfied: true, Elements: nonNilEls(r.Elements),
		WaitedMs: r.Waited.Milliseconds(), Polls: r.Polls, VisibleOnly: len(r.Partial) > 0, PartialContainers: r.Partial,
		Note: joinNotes(r.Note, r.PartialNote)}, nil
}

// joinNotes joins the notes that are not empty.
func joinNotes(notes ...string) string {
	var out []string
	for _, n := range notes {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, "; ")
}

type tableArgs struct {
	Session   string `json:"session" jsonschema:"session id from connect"`
	Element   string `json:"element" jsonschema:"ref of a table (an element with the table interface), e.g. a11y:e12"`
	Rows      []int  `json:"rows" jsonschema:"[first, last]: rows to read, 0-based and inclusive, e.g. [0, 99]"`
	Columns   []int  `json:"columns,omitempty" jsonschema:"[first, last]: columns to read, 0-based and inclusive; default all"`
	TimeoutMs *int   `json:"timeoutMs,omitempty" jsonschema:"deadline for the read in ms (default 10000)"`
}

type tableResult struct {
	Session string `json:"session"`
	*core.TableRead
}

func (h *handlers) readTable(ctx context.Context, _ *mcp.CallToolRequest, in tableArgs) (tableResult, error) {
	req := core.TableRequest{Element: in.Element, Rows: in.Rows, Columns: in.Columns, TimeoutMs: in.TimeoutMs}
	if err := req.Validate(); err != nil {
		return tableResult{}, err
	}
	s, err := h.sessions.Get(ctx, in.Session)
	if err != nil {
		return tableResult{}, err
	}
	r, err := h.sessions.ReadTable(ctx, s, req)
	if err != nil {
		return tableResult{}, err
	}
	return tableResult{Session: s.ID, TableRead: r}, nil
}
