package core

import (
	"errors"
	"strings"
	"testing"
)

func TestParseRef(t *testing.T) {
	good := []struct {
		in   string
		want Ref
	}{
		{"a11y:e12", Ref{KindA11y, 12}},
		{"a11y:e0", Ref{KindA11y, 0}},
		{"visual:e3", Ref{KindVisual, 3}},
		{"e12", Ref{"", 12}},
		{"e0", Ref{"", 0}},
		{"e999999999", Ref{"", 999999999}},
		{"e999999999999999", Ref{"", 999999999999999}}, // a long run's ids
	}
	for _, tc := range good {
		got, err := ParseRef(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseRef(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
		if got.String() != tc.in {
			t.Errorf("%+v.String() = %q want %q", got, got.String(), tc.in)
		}
	}
	bad := []struct {
		in, msg string
	}{
		{"", "empty"},
		{"12", `must start with "e"`},
		{"e", `no number after "e"`},
		{"e01", "leading zero"},
		{"e00", "leading zero"},
		{"e-1", "digits"},
		{"e+1", "digits"},
		{"e 1", "digits"},
		{" e1", `must start with "e"`},
		{"e1 ", "digits"},
		{"e1234567890123456", "too long"},
		{"e12a", "digits"},
		{"e١٢", "digits"}, // Arabic-Indic digits
		{"E12", `must start with "e"`},
		{"A11Y:e12", "unknown tree"},
		{"uia:e12", "unknown tree"},
		{":e12", "unknown tree"},
		{"a11y:", `must start with "e"`},
		{"a11y:e", `no number`},
		{"a11y:a11y:e1", `must start with "e"`},
		{"a11y:12", `must start with "e"`},
		{"a11y e12", `must start with "e"`},
		{strings.Repeat("x", 500) + ":e1", "unknown tree"},
	}
	for _, tc := range bad {
		_, err := ParseRef(tc.in)
		if !errors.Is(err, ErrMalformedRef) {
			t.Errorf("ParseRef(%q) err = %v; want ErrMalformedRef", tc.in, err)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.msg) || !strings.Contains(msg, `"a11y:e12"`) {
			t.Errorf("ParseRef(%q) message %q lacks %q or the ref form", tc.in, msg, tc.msg)
		}
		if len(msg) > 400 { // two quotes of at most 60 characters each, and the advice
			t.Errorf("ParseRef(%s) message too long: %d bytes", Quote(tc.in), len(msg))
		}
	}
}

func TestLookup(t *testing.T) {
	a11y := NewTree(sampleTree(), KindA11y)
	visual := NewTree(sampleTree(), KindVisual)
	tests := []struct {
		name string
		tree *Tree
		ref  string
		id   int
		is   error
		msg  string
	}{
		{"qualified", a11y, "a11y:e4", 4, nil, ""},
		{"bare", a11y, "e10", 10, nil, ""},
		{"root", a11y, "e0", 0, nil, ""},
		{"visual in visual", visual, "visual:e3", 3, nil, ""},
		{"bare in visual", visual, "e3", 3, nil, ""},
		{"visual in a11y", a11y, "visual:e3", 0, ErrWrongTree, "a visual ref cannot be used in an a11y session; connect in visual mode"},
		{"a11y in visual", visual, "a11y:e3", 0, ErrWrongTree, "an a11y ref cannot be used in a visual session; connect in a11y mode"},
		{"past the end", a11y, "a11y:e11", 0, ErrUnknownRef, "a11y:e11 is not in the tree last read (it has e0 to e10); ids are positions and go stale when the UI changes: re-read the tree (get_a11y_tree or find_elements)"},
		{"past the end visual", visual, "e99", 0, ErrUnknownRef, "re-read the tree (get_visual_tree)"},
		{"malformed", a11y, "button", 0, ErrMalformedRef, "a ref looks like"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, id, err := tc.tree.LookupString(tc.ref)
			if tc.is == nil {
				if err != nil || id != tc.id {
					t.Fatalf("got %d, %v; want %d", id, err, tc.id)
				}
				if want, _ := tc.tree.Node(tc.id); n != want {
					t.Fatal("wrong node")
				}
				return
			}
			if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.msg) || n != nil {
				t.Fatalf("err = %v; want %v containing %q", err, tc.is, tc.msg)
			}
		})
	}
	// Hand-built refs: negative ids and unknown kinds.
	if _, _, err := a11y.Lookup(Ref{ID: -1}); !errors.Is(err, ErrUnknownRef) {
		t.Errorf("negative id: %v", err)
	}
	if _, _, err := a11y.Lookup(Ref{Tree: "uia", ID: 1}); !errors.Is(err, ErrMalformedRef) {
		t.Errorf("unknown kind: %v", err)
	}
	if _, _, err := NewTree(nil, KindA11y).Lookup(Ref{ID: 0}); !errors.Is(err, ErrUnknownRef) || !strings.Contains(err.Error(), "it is empty") {
		t.Errorf("empty tree: %v", err)
	}
}

func FuzzParseRef(f *testing.F) {
	for _, s := range []string{"a11y:e12", "visual:e3", "e0", "e12", "e01", "a11y:", ":e1", "e999999999", "e1234567890", "a11y:e-1", "x:y:e1", "e١"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRef(s)
		if err != nil {
			if !errors.Is(err, ErrMalformedRef) {
				t.Fatalf("ParseRef(%q): error does not wrap ErrMalformedRef: %v", s, err)
			}
			return
		}
		if r.ID < 0 || (r.Tree != "" && r.Tree != KindA11y && r.Tree != KindVisual) {
			t.Fatalf("ParseRef(%q) = %+v", s, r)
		}
		printed := r.String()
		if printed != s {
			t.Fatalf("ParseRef(%q).String() = %q: a ref has one spelling", s, printed)
		}
		again, err := ParseRef(printed)
		if err != nil || again != r {
			t.Fatalf("round trip %q -> %+v -> %q -> %+v, %v", s, r, printed, again, err)
		}
	})
}
