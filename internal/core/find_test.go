package core

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
)

// findTree:
//
//	e0 frame "Editor"
//	e1   push button "Save"        action, focusable, focused
//	e2   push button "Save As…"    action, disabled (not sensitive/enabled)
//	e3   check box "Autosave"      checked
//	e4   text "  Notes  "          editabletext, id "notes"
//	e5   password text (was "Save") redacted
//	e6   panel
//	e7     slider "Volume"         value
//	e8     label "save status"
//	e9     toggle button "Bold"    Action, Value (capitalized interfaces)
func findTree() *platform.Node {
	return fake.Node("frame", "Editor",
		fake.With(fake.Node("push button", "Save"), fake.Actions("click"), fake.Ifaces("action", "component"), fake.AddStates("focusable", "focused")),
		fake.With(fake.Node("push button", "Save As…"), fake.Actions("click"), fake.Ifaces("action"), fake.SetStates("showing", "visible")),
		fake.With(fake.Node("check box", "Autosave"), fake.Actions("toggle"), fake.Ifaces("action"), fake.AddStates("checked", "checkable")),
		fake.With(fake.Node("text", "  Notes  "), fake.Ifaces("text", "editabletext"), fake.AddStates("editable"), func(n *platform.Node) { n.AccessibleID = "notes" }),
		fake.With(fake.Node("password text", "Save"), fake.Ifaces("text", "editabletext")),
		fake.Node("panel", "",
			fake.With(fake.Node("slider", "Volume"), fake.Ifaces("value")),
			fake.Node("label", "save status"),
		),
		fake.With(fake.Node("toggle button", "Bold"), fake.Ifaces("Action", "Value")),
	)
}

func ids(es []*Element) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, e.ID)
	}
	return out
}

func TestFind(t *testing.T) {
	tr := NewTree(findTree(), KindA11y)
	tests := []struct {
		name string
		q    Query
		want []string
	}{
		{"empty query matches all", Query{}, []string{"e0", "e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8", "e9"}},
		{"contains default, case-insensitive, redacted never", Query{Name: "save"}, []string{"e1", "e2", "e3", "e8"}},
		{"contains trims the query", Query{Name: "  SAVE as "}, []string{"e2"}},
		{"contains unicode", Query{Name: "as…"}, []string{"e2"}},
		{"exact case-sensitive", Query{Name: "Save", NameMatch: "exact"}, []string{"e1"}},
		{"exact lower misses", Query{Name: "save", NameMatch: "exact"}, []string{}},
		{"exact trims both", Query{Name: " Notes", NameMatch: "exact"}, []string{"e4"}},
		{"regex", Query{Name: "^Save( As)?", NameMatch: "regex"}, []string{"e1", "e2"}},
		{"regex case-insensitive flag", Query{Name: "(?i)^save", NameMatch: "regex"}, []string{"e1", "e2", "e8"}},
		{"regex never matches redacted", Query{Name: "", NameMatch: "regex", Role: "password text"}, []string{"e5"}},
		{"regex redacted by name", Query{Name: ".*", NameMatch: "regex", Role: "password text"}, []string{}},
		{"role", Query{Role: "push button"}, []string{"e1", "e2"}},
		{"role forgiving", Query{Role: "Push_Button"}, []string{"e1", "e2"}},
		{"role and name", Query{Role: "push button", Name: "as"}, []string{"e2"}},
		{"accessible id", Query{AccessibleID: "notes"}, []string{"e4"}},
		{"accessible id exact", Query{AccessibleID: "note"}, []string{}},
		{"state", Query{States: []string{"focused"}}, []string{"e1"}},
		{"states all", Query{States: []string{"checked", "checkable"}}, []string{"e3"}},
		{"negated state", Query{Role: "push button", States: []string{"!sensitive"}}, []string{"e2"}},
		{"state and negation", Query{States: []string{"focusable", "!focused"}}, []string{}},
		{"interface action", Query{Interface: "action"}, []string{"e1", "e2", "e3", "e9"}},
		{"interface value case-insensitive", Query{Interface: "VALUE"}, []string{"e7", "e9"}},
		{"interface editable alias", Query{Interface: "editable"}, []string{"e4", "e5"}},
		{"interface editabletext", Query{Interface: "EditableText"}, []string{"e4", "e5"}},
		{"within", Query{Within: 6}, []string{"e6", "e7", "e8"}},
		{"within and name", Query{Within: 6, Name: "save"}, []string{"e8"}},
		{"within a leaf", Query{Within: 3}, []string{"e3"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, st, err := tr.Find(tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if g := ids(got); !slices.Equal(g, tc.want) {
				t.Errorf("got %v want %v", g, tc.want)
			}
			if st.Matched != len(tc.want) || st.Returned != len(tc.want) || st.LimitHit {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

func TestFindElementsAreFlat(t *testing.T) {
	tr := NewTree(findTree(), KindA11y)
	got, _, err := tr.Find(Query{Role: "panel"})
	if err != nil || len(got) != 1 {
		t.Fatalf("find panel: %v %v", got, err)
	}
	e := got[0]
	if e.ID != "e6" || e.Ref != "a11y:e6" || e.ChildCount != 2 || e.Children != nil || e.ChildrenOmitted != 0 {
		t.Fatalf("element %+v", e)
	}
	got, _, _ = tr.Find(Query{Role: "password text"})
	if got[0].Name != "" || !got[0].Redacted {
		t.Fatalf("password element %+v", got[0])
	}
}

func TestFindLimit(t *testing.T) {
	rows := make([]*platform.Node, 1200)
	for i := range rows {
		rows[i] = fake.Node("list item", "row")
	}
	tr := NewTree(fake.Node("list", "rows", rows...), KindA11y)
	tests := []struct {
		limit, returned int
	}{{0, DefaultFindLimit}, {1, 1}, {1000, 1000}, {7, 7}}
	for _, tc := range tests {
		got, st, err := tr.Find(Query{Role: "list item", Limit: tc.limit})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != tc.returned || st.Returned != tc.returned || st.Matched != 1200 || !st.LimitHit {
			t.Errorf("limit %d: %d returned, stats %+v", tc.limit, len(got), st)
		}
		if got[0].ID != "e1" || got[len(got)-1].ID != "e"+itoa(tc.returned) {
			t.Errorf("limit %d: not the first in pre-order: %s..%s", tc.limit, got[0].ID, got[len(got)-1].ID)
		}
	}
}

func itoa(i int) string { return (Ref{ID: i}).String()[1:] }

func TestFindErrors(t *testing.T) {
	tr := NewTree(findTree(), KindA11y)
	tests := []struct {
		name string
		q    Query
		is   error
		msg  string
	}{
		{"bad nameMatch", Query{Name: "x", NameMatch: "fuzzy"}, ErrInvalidArgument, `unknown nameMatch "fuzzy" (want exact, contains or regex)`},
		{"bad nameMatch without name", Query{NameMatch: "glob"}, ErrInvalidArgument, "unknown nameMatch"},
		{"bad regex", Query{Name: "(", NameMatch: "regex"}, ErrInvalidArgument, "bad name regex"},
		{"long regex", Query{Name: strings.Repeat("a", MaxRegexLen+1), NameMatch: "regex"}, ErrInvalidArgument, "at most 1000"},
		{"blank name", Query{Name: "   "}, ErrInvalidArgument, "only whitespace"},
		{"unknown role suggests", Query{Role: "button"}, ErrInvalidArgument, `did you mean "push button"`},
		{"typo role suggests", Query{Role: "chek box"}, ErrInvalidArgument, `"check box"`},
		{"unknown role lists examples", Query{Role: "zzzzzzzzzz"}, ErrInvalidArgument, `AT-SPI role names`},
		{"unknown state", Query{States: []string{"shiny"}}, ErrInvalidArgument, `unknown state "shiny"`},
		{"disabled hint", Query{States: []string{"disabled"}}, ErrInvalidArgument, `"!sensitive"`},
		{"empty state", Query{States: []string{"!"}}, ErrInvalidArgument, "empty state name"},
		{"invalid state", Query{States: []string{"invalid"}}, ErrInvalidArgument, "unknown state"},
		{"unknown interface", Query{Interface: "clickable"}, ErrInvalidArgument, `unknown interface "clickable"`},
		{"negative limit", Query{Limit: -1}, ErrInvalidArgument, "limit -1"},
		{"limit over cap", Query{Limit: MaxFindLimit + 1}, ErrInvalidArgument, "limit 1001"},
		{"negative within", Query{Within: -1}, ErrInvalidArgument, "within"},
		{"within not in tree", Query{Within: 10}, ErrUnknownRef, "re-read"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := tr.Find(tc.q)
			if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("err = %v; want %v containing %q", err, tc.is, tc.msg)
			}
		})
	}
}

func TestMatcherDirect(t *testing.T) {
	m, err := Query{Role: "label", Name: "status"}.Compile()
	if err != nil {
		t.Fatal(err)
	}
	if m.Match(nil) {
		t.Error("matched nil")
	}
	tr := NewTree(findTree(), KindA11y)
	if got := tr.FindIDs(m, 0); !slices.Equal(got, []int{8}) {
		t.Errorf("FindIDs = %v", got)
	}
	if got := tr.FindIDs(m, 99); got != nil {
		t.Errorf("FindIDs out of range = %v", got)
	}
	// A password node matches no name criterion even if a backend forgot
	// to redact it and the node is matched outside a Tree.
	pw := &platform.Node{Role: platform.RolePasswordText, Name: "status"}
	m, _ = Query{Name: "status"}.Compile()
	if m.Match(pw) {
		t.Error("matched an unredacted password node by name")
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"chek box", "check box", 1}, {"é", "e", 1}}
	for _, tc := range tests {
		if got := editDistance(tc.a, tc.b); got != tc.d {
			t.Errorf("editDistance(%q,%q) = %d want %d", tc.a, tc.b, got, tc.d)
		}
	}
	if len(roleNames()) < 120 || !slices.Contains(roleNames(), "push button") || slices.Contains(roleNames()[1:], "invalid") {
		t.Errorf("roleNames: %v", roleNames())
	}
}

// Find says which partial containers the searched subtree holds, and only
// those inside it.
func TestFindPartial(t *testing.T) {
	first, count := 0, 1
	table := fake.Node("table", "Sheet1", fake.Node("table cell", "A1"))
	table.ChildCount, table.ChildrenPartial = 1<<31-1, true
	table.ChildrenRange = &platform.ChildRange{First: &first, Count: &count}
	panel := fake.Node("panel", "side", fake.Node("push button", "OK"))
	tr := NewTree(fake.Node("frame", "Calc", panel, table), KindA11y)
	_, st, err := tr.Find(Query{Name: "A1"})
	if err != nil || len(st.Partial) != 1 || st.Partial[0] != 3 {
		t.Fatalf("whole tree: partial %v, err %v", st.Partial, err)
	}
	refs, note := tr.PartialRefs(st.Partial)
	if len(refs) != 1 || refs[0] != "a11y:e3" || !strings.Contains(note, "a11y:e3 holds only") || !strings.Contains(note, "read_table") {
		t.Errorf("refs %v, note %q", refs, note)
	}
	if _, note := tr.PartialRefs([]int{3, 3}); !strings.Contains(note, "a11y:e3, a11y:e3 hold only") || !strings.Contains(note, "inside them") {
		t.Errorf("two partial containers: note %q", note)
	}
	if _, st, _ := tr.Find(Query{Name: "OK", Within: 1}); st.Partial != nil {
		t.Errorf("within the panel: partial %v", st.Partial)
	}
	if refs, note := tr.PartialRefs(nil); refs != nil || note != "" {
		t.Errorf("no partial containers: %v %q", refs, note)
	}
}

// GTK 4.8 names a button by its mnemonic label and its label ("_Save
// Save"): a search for the label a user sees finds it, in every mode.
func TestFindSeenLabel(t *testing.T) {
	tr := NewTree(fake.Node("dialog", "Save", fake.Node("push button", "_Save Save"), fake.Node("push button", "Replace _All Replace All")), KindA11y)
	for _, q := range []Query{
		{Name: "Save", NameMatch: MatchExact, Role: "push button"},
		{Name: "_Save Save", NameMatch: MatchExact},
		{Name: "replace all", NameMatch: MatchContains},
		{Name: "^Replace All$", NameMatch: MatchRegex},
	} {
		els, _, err := tr.Find(q)
		if err != nil || len(els) != 1 {
			t.Errorf("Find(%+v): %d elements, err %v", q, len(els), err)
		}
	}
}

// Text a user reads without a name (a status line, a PDF page) is found by
// its value; a field's content, or a named element's value, is not a name.
func TestFindReadText(t *testing.T) {
	withValue := func(n *platform.Node, v string, ifaces ...string) *platform.Node {
		n.Value, n.Interfaces = &v, ifaces
		n.Key += "/" + v
		return n
	}
	status := withValue(fake.Node("status bar", ""), "1 of 3 done", "text")
	field := withValue(fake.Node("text", ""), "done already", "text", "editabletext")
	field.States |= 1 << platform.StateEditable
	named := withValue(fake.Node("status bar", "Progress"), "all done", "text")
	slider := withValue(fake.Node("slider", ""), "50", "value")
	tr := NewTree(fake.Node("frame", "App", status, field, named, slider), KindA11y)
	for _, tc := range []struct {
		q    Query
		want []string
	}{
		{Query{Name: "done"}, []string{"1 of 3 done"}},
		{Query{Name: "1 of 3 done", NameMatch: MatchExact}, []string{"1 of 3 done"}},
		{Query{Name: "^1 of", NameMatch: MatchRegex}, []string{"1 of 3 done"}},
		{Query{Name: "50"}, nil},
		{Query{Name: "Progress"}, []string{"all done"}},
	} {
		els, _, err := tr.Find(tc.q)
		var got []string
		for _, e := range els {
			got = append(got, *e.Value)
		}
		if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("Find(%+v): %q, err %v; want %q", tc.q, got, err, tc.want)
		}
	}
}
