package core

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/uiscope/uiscope/internal/platform"
)

// Ref errors. Callers test them with errors.Is; the wrapped message says what
// went wrong and what to do.
var (
	// ErrMalformedRef: the string is not a ref at all.
	ErrMalformedRef = errors.New("malformed element ref")
	// ErrWrongTree: a ref of the other tree kind (visual in an a11y session,
	// or the reverse). Never matched to something similar.
	ErrWrongTree = errors.New("element ref is from the other tree")
	// ErrUnknownRef: the id is not in the tree last read (stale or invented).
	ErrUnknownRef = errors.New("unknown element ref")
)

// refForm is what a ref looks like, for error messages.
const refForm = `a ref looks like "a11y:e12" (or "visual:e3", or a bare "e12" for the session's own tree)`

// maxRefDigits bounds the id part of a ref. Ids are numbered for the
// server's whole run and never reused, so a long run with a busy UI may
// count past a billion; fifteen digits fit any int64 with room to spare.
const maxRefDigits = 15

// Ref names an element of a fetched tree: tree kind and positional id.
// Tree is "a11y", "visual", or "" for a bare "e12" (the session's own tree).
type Ref struct {
	Tree string
	ID   int
}

// String prints the ref as ParseRef reads it: "a11y:e12", or "e12" when Tree
// is empty.
func (r Ref) String() string {
	if r.Tree == "" {
		return "e" + strconv.Itoa(r.ID)
	}
	return r.Tree + ":e" + strconv.Itoa(r.ID)
}

// ParseRef reads "a11y:e12", "visual:e3" or a bare "e12". Anything else —
// other prefixes, upper case, spaces, signs, leading zeros, more than 15
// digits — is refused with an error wrapping ErrMalformedRef.
func ParseRef(s string) (Ref, error) {
	bad := func(why string) (Ref, error) {
		return Ref{}, fmt.Errorf("%w %s: %s; %s", ErrMalformedRef, Quote(s), why, refForm)
	}
	if s == "" {
		return bad("empty")
	}
	var r Ref
	rest := s
	if i := strings.IndexByte(s, ':'); i >= 0 {
		switch prefix := s[:i]; prefix {
		case KindA11y, KindVisual:
			r.Tree = prefix
		default:
			return bad(fmt.Sprintf("unknown tree %s (want a11y or visual)", Quote(prefix)))
		}
		rest = s[i+1:]
	}
	if !strings.HasPrefix(rest, "e") {
		return bad(`the id must start with "e"`)
	}
	digits := rest[1:]
	switch {
	case digits == "":
		return bad(`no number after "e"`)
	case len(digits) > maxRefDigits:
		return bad("id too long")
	case len(digits) > 1 && digits[0] == '0':
		return bad("leading zero in the id")
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return bad(`the id must be "e" followed by digits`)
		}
	}
	id, err := strconv.Atoi(digits)
	if err != nil { // unreachable after the checks above; kept for safety
		return bad("bad number")
	}
	r.ID = id
	return r, nil
}

// Lookup resolves a ref against this tree, to the node and its position.
// A bare ref (Tree "") means this tree. A ref of the other kind is refused with ErrWrongTree; an id not in
// the tree with ErrUnknownRef, whose message says to re-read the tree.
func (t *Tree) Lookup(r Ref) (*platform.Node, int, error) {
	switch {
	case r.Tree == "" || r.Tree == t.kind:
	case r.Tree == KindA11y || r.Tree == KindVisual:
		return nil, 0, fmt.Errorf("%w: %s cannot be used in %s session; connect in %s mode",
			ErrWrongTree, article(r.Tree)+" "+r.Tree+" ref", article(t.kind)+" "+t.kind, r.Tree)
	default:
		return nil, 0, fmt.Errorf("%w %s: unknown tree %s; %s", ErrMalformedRef, r, Quote(r.Tree), refForm)
	}
	id, ok := t.intID(r.ID)
	if !ok {
		reread := "get_a11y_tree or find_elements"
		if t.kind == KindVisual {
			reread = "get_visual_tree"
		}
		if t.ext != nil {
			return nil, 0, fmt.Errorf("%w: %s is not in the tree last read: the element is gone (the UI changed), or the ref is from another session or from before a disconnect (refs are unique for the server's run), or it was never handed out; re-read the tree (%s) and use a fresh ref",
				ErrUnknownRef, Ref{Tree: t.kind, ID: r.ID}, reread)
		}
		span := "it is empty"
		if len(t.nodes) > 0 {
			span = fmt.Sprintf("it has e0 to e%d", len(t.nodes)-1)
		}
		return nil, 0, fmt.Errorf("%w: %s is not in the tree last read (%s); ids are positions and go stale when the UI changes: re-read the tree (%s) and use a fresh ref",
			ErrUnknownRef, Ref{Tree: t.kind, ID: r.ID}, span, reread)
	}
	return t.nodes[id], id, nil
}

// LookupString parses s and looks it up: ParseRef then Lookup.
func (t *Tree) LookupString(s string) (*platform.Node, int, error) {
	r, err := ParseRef(s)
	if err != nil {
		return nil, 0, err
	}
	return t.Lookup(r)
}

func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}
