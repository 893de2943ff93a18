package core

import (
	"strings"
	"testing"
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
