package core

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
)

func intp(v int) *int { return &v }

// TestRequestValidate: each request refuses what the MCP tools refused
// before the requests existed, with the same codes, and fills defaults.
func TestRequestValidate(t *testing.T) {
	long := strings.Repeat("x", 5000)
	cases := []struct {
		name string
		req  interface{ Validate() error }
		code string // "" when valid
		msg  string // in the message
	}{
		{"tree defaults", &TreeRequest{}, "", ""},
		{"tree all set", &TreeRequest{Element: "a11y:e3", Depth: intp(0), View: ViewContent, Format: FormatJSON, MaxNodes: intp(MaxMaxNodes), TimeoutMs: intp(MaxTimeoutMs)}, "", ""},
		{"tree format", &TreeRequest{Format: "xml"}, CodeInvalidArgument, `format must be "outline" or "json", not "xml"`},
		{"tree format echoed short", &TreeRequest{Format: long}, CodeInvalidArgument, "…"},
		{"tree view", &TreeRequest{View: "fancy"}, CodeInvalidArgument, "unknown view"},
		{"tree depth", &TreeRequest{Depth: intp(-1)}, CodeInvalidArgument, "depth must be 0 or more"},
		{"tree maxNodes 0", &TreeRequest{MaxNodes: intp(0)}, CodeInvalidArgument, "maxNodes must be between 1 and 100000, not 0"},
		{"tree maxNodes big", &TreeRequest{MaxNodes: intp(MaxMaxNodes + 1)}, CodeInvalidArgument, "maxNodes"},
		{"tree timeout 0", &TreeRequest{TimeoutMs: intp(0)}, CodeInvalidArgument, "timeoutMs must be between 1 and 120000, not 0"},
		{"tree timeout big", &TreeRequest{TimeoutMs: intp(MaxTimeoutMs + 1)}, CodeInvalidArgument, "timeoutMs"},
		{"tree element", &TreeRequest{Element: "e12x"}, CodeMalformedRef, ""},
		{"tree element key", &TreeRequest{Element: "atspi::1.2/x", Fresh: true}, CodeMalformedRef, ""},
		{"find defaults", &FindRequest{}, "", ""},
		{"find role", &FindRequest{Query: Query{Role: "no such role"}}, CodeInvalidArgument, "unknown role"},
		{"find regex", &FindRequest{Query: Query{Name: "(", NameMatch: MatchRegex}}, CodeInvalidArgument, "regex"},
		{"find limit", &FindRequest{Query: Query{Limit: MaxFindLimit + 1}}, CodeInvalidArgument, "limit"},
		{"find timeout", &FindRequest{TimeoutMs: intp(-5)}, CodeInvalidArgument, "timeoutMs"},
		{"find within", &FindRequest{Within: "visual:e"}, CodeMalformedRef, ""},
		{"props ref", &PropsRequest{Element: "a11y:e4", Names: []string{"states", "text"}}, "", ""},
		{"props no element", &PropsRequest{}, CodeInvalidArgument, "element is required"},
		{"props no element, fresh", &PropsRequest{Fresh: true}, CodeInvalidArgument, "key"},
		{"props name", &PropsRequest{Element: "e1", Names: []string{"colour"}}, CodeInvalidArgument, `unknown property "colour"`},
		{"props malformed", &PropsRequest{Element: "e12x", Fresh: true}, CodeMalformedRef, ""},
		{"props key, session", &PropsRequest{Element: "atspi::1.2/org/a11y/atspi/accessible/4"}, CodeMalformedRef, ""},
		{"props key, fresh", &PropsRequest{Element: "atspi::1.2/org/a11y/atspi/accessible/4", Fresh: true}, "", ""},
		{"props other tree, fresh", &PropsRequest{Element: "visual:e3", Fresh: true}, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.req.Validate()
			if tc.code == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted; want %s", tc.code)
			}
			e := AsError(err)
			if e.Code != tc.code || !strings.Contains(e.Msg, tc.msg) {
				t.Errorf("got %s %q; want %s with %q", e.Code, e.Msg, tc.code, tc.msg)
			}
			if len(e.Msg) > 600 {
				t.Errorf("message of %d bytes echoes the input", len(e.Msg))
			}
		})
	}
	r := TreeRequest{}
	if err := r.Validate(); err != nil || r.Format != FormatOutline || r.View != ViewRaw {
		t.Errorf("defaults: %+v, %v", r, err)
	}
	if o := r.viewOptions(7); o.Depth != -1 || o.MaxNodes != 0 || o.Scope != 7 {
		t.Errorf("view options of the defaults: %+v", o)
	}
}

// readDesk is one application whose tree the test changes between reads,
// and whose process the test may replace (a new start time, as after a
// restart under the same pid).
type readDesk struct {
	mu      sync.Mutex
	keys    []string // the widgets under the frame
	start   uint64   // the process's start time
	treeErr error    // what Tree fails with, if set
	elemErr error    // what Element fails with, if set
}

var readApp = platform.App{Pid: 4242, Name: "editor", Executable: "/usr/bin/editor", Accessible: true, BusName: ":1.7",
	Windows: []platform.Window{{ID: 0x600001, Title: "Editor"}}}

func (d *readDesk) Apps(context.Context) ([]platform.App, error) {
	return []platform.App{readApp}, nil
}
func (d *readDesk) Tree(context.Context, platform.App, platform.TreeOptions) (*platform.Node, platform.TreeStats, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.treeErr != nil {
		return nil, platform.TreeStats{}, d.treeErr
	}
	return app("k:", d.keys...), platform.TreeStats{Strategy: "test"}, nil
}
func (d *readDesk) Element(_ context.Context, _ platform.App, key string) (*platform.Details, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.elemErr != nil {
		return nil, d.elemErr
	}
	return &platform.Details{Node: platform.Node{Key: key, Name: strings.ToUpper(strings.TrimPrefix(key, "k:"))}}, nil
}
func (d *readDesk) Owner(context.Context, platform.App) (int, error) { return readApp.Pid, nil }
func (d *readDesk) Process(_ context.Context, pid int) (platform.Process, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return platform.Process{Pid: pid, StartTime: d.start, Executable: readApp.Executable}, nil
}
func (d *readDesk) Frameworks(context.Context, int) ([]platform.Framework, error) { return nil, nil }

func (d *readDesk) set(f func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	f()
}

func newReadDesk(t *testing.T) (*readDesk, *Sessions, *Session) {
	t.Helper()
	d := &readDesk{keys: []string{"a", "b", "c"}, start: 100}
	m := NewSessions(platform.Desktop{Accessibility: d, Processes: d})
	s, err := m.Connect(context.Background(), AppSpec{Pid: readApp.Pid}, "")
	if err != nil {
		t.Fatal(err)
	}
	return d, m, s
}

// TestFreshReads: the CLI's reads (Fresh) resolve a ref as a position in
// the tree they read, and props takes a durable key too. The tree is
//
//	e0 app "app"
//	e1   frame "frame"
//	e2     A, e3 B, e4 C
func TestFreshReads(t *testing.T) {
	ctx := context.Background()
	_, m, s := newReadDesk(t)

	tr := TreeRequest{Element: "a11y:e3", Depth: intp(0), Fresh: true}
	if err := tr.Validate(); err != nil {
		t.Fatal(err)
	}
	r, err := m.ReadTree(ctx, s.ID, tr)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Outline, `"B"`) || strings.Contains(r.Outline, `"A"`) || r.Render.Nodes != 1 {
		t.Errorf("tree at e3, depth 0: %d nodes\n%s", r.Render.Nodes, r.Outline)
	}

	fr := FindRequest{Query: Query{Name: "c"}, Within: "a11y:e1", Fresh: true}
	if err := fr.Validate(); err != nil {
		t.Fatal(err)
	}
	f, err := m.Find(ctx, s.ID, fr)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Elements) != 1 || f.Elements[0].Name != "C" || f.Elements[0].Ref != "a11y:e4" {
		t.Errorf("find C within e1: %+v", f.Elements)
	}
	none, err := m.Find(ctx, s.ID, FindRequest{Query: Query{Name: "zzz"}, Fresh: true})
	if err != nil || none.Elements == nil || len(none.Elements) != 0 {
		t.Errorf("a find without matches: %v, %#v (want an empty, non-nil list)", err, none.Elements)
	}

	for _, el := range []string{"a11y:e2", "k:a"} {
		p, err := m.Properties(ctx, s.ID, PropsRequest{Element: el, Fresh: true})
		if err != nil {
			t.Fatalf("props %s: %v", el, err)
		}
		if p.Key != "k:a" || p.Ref != "a11y:e2" || p.Properties["name"] != "A" {
			t.Errorf("props %s: %+v", el, p)
		}
	}
	for el, code := range map[string]string{"k:gone": CodeElementGone, "a11y:e99": CodeUnknownRef, "visual:e2": CodeWrongTree} {
		_, err := m.Properties(ctx, s.ID, PropsRequest{Element: el, Fresh: true})
		if e := AsError(err); e == nil || e.Code != code {
			t.Errorf("props %s: %v; want %s", el, err, code)
		}
	}
}

// TestSessionReads: without Fresh (MCP) a ref is the session's: resolved in
// its earlier read and found again by key, so a scoped read still finds the
// element after one before it is gone, and a ref before any read is
// unknownRef.
func TestSessionReads(t *testing.T) {
	ctx := context.Background()
	d, m, s := newReadDesk(t)
	if _, err := m.ReadTree(ctx, s.ID, TreeRequest{Element: "a11y:e2", Format: FormatOutline, View: ViewRaw}); AsError(err).Code != CodeUnknownRef {
		t.Fatalf("a scoped read before any read: %v; want unknownRef", err)
	}
	first, err := m.ReadTree(ctx, s.ID, TreeRequest{Format: FormatJSON, View: ViewRaw})
	if err != nil {
		t.Fatal(err)
	}
	refC := refOf(t, first.Tree, "C")
	d.set(func() { d.keys = []string{"b", "c"} }) // A is gone
	r, err := m.ReadTree(ctx, s.ID, TreeRequest{Element: refC, Format: FormatJSON, View: ViewRaw})
	if err != nil {
		t.Fatal(err)
	}
	if r.Root == nil || r.Root.Name != "C" || r.Root.Ref != refC {
		t.Errorf("scoped read at %s after A went: %+v", refC, r.Root)
	}
	f, err := m.Find(ctx, s.ID, FindRequest{Within: refC})
	if err != nil || len(f.Elements) != 1 || f.Elements[0].Ref != refC {
		t.Errorf("find within %s: %v %+v", refC, err, f)
	}
	p, err := m.Properties(ctx, s.ID, PropsRequest{Element: refC, Names: []string{"name"}})
	if err != nil || p.Properties["name"] != "C" || len(p.Properties) != 2 {
		t.Errorf("props %s: %v %+v", refC, err, p)
	}
}

// TestReadsCheckIdentity: a read that fails because the application is
// gone says so (ownershipLost), through the session's identity check, for
// both front ends.
func TestReadsCheckIdentity(t *testing.T) {
	ctx := context.Background()
	for _, fresh := range []bool{true, false} {
		d, m, s := newReadDesk(t)
		if _, err := m.ReadTree(ctx, s.ID, TreeRequest{Format: FormatOutline, View: ViewRaw}); err != nil {
			t.Fatal(err)
		}
		// The app restarted under the same pid: a new start time, its old
		// bus name gone.
		d.set(func() { d.start, d.treeErr, d.elemErr = 101, platform.ErrElementGone, platform.ErrElementGone })
		reads := map[string]func() error{
			"tree": func() error {
				_, err := m.ReadTree(ctx, s.ID, TreeRequest{Format: FormatOutline, View: ViewRaw, Fresh: fresh})
				return err
			},
			"find": func() error { _, err := m.Find(ctx, s.ID, FindRequest{Fresh: fresh}); return err },
		}
		if !fresh {
			reads["props"] = func() error { _, err := m.Properties(ctx, s.ID, PropsRequest{Element: "a11y:e2"}); return err }
		}
		for name, read := range reads {
			if e := AsError(read()); e == nil || e.Code != CodeOwnershipLost {
				t.Errorf("%s (fresh %v) of a restarted app: %v; want ownershipLost", name, fresh, e)
			}
		}
	}
}
