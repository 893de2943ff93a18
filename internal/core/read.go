package core

import (
	"context"
	"strings"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
)

// Reads. Each read a front end offers (a tree, a find, one element's
// properties, a table, a screenshot) has one request type in its feature's
// file (TreeRequest in tree.go, FindRequest in find.go, PropsRequest in
// props.go, ...), validated and carried out there through a session: the
// MCP tools and the CLI build the same request from their arguments, so
// both refuse the same input with the same errors and read through the
// same identity checks (session.go). This file holds what they share.
//
// The one difference between the front ends is where a ref comes from. An
// MCP agent sends back refs its session handed out, resolved in the
// session's earlier read and then found again by key in the fresh one. A
// CLI command is a process of its own: its refs come from an earlier
// process's read, so with Fresh set a ref names the element at that
// position in the tree this call reads (the same element only while the UI
// is unchanged), and a durable key, which names one element for good, is
// accepted where a ref is (PropsRequest).

// Deadlines of one read (timeoutMs).
const (
	DefaultTimeoutMs = 10000
	MaxTimeoutMs     = 120000
)

// Timeout checks an optional timeoutMs (nil: DefaultTimeoutMs) and returns
// it as a duration.
func Timeout(ms *int) (time.Duration, error) {
	v := DefaultTimeoutMs
	if ms != nil {
		v = *ms
	}
	if v <= 0 || v > MaxTimeoutMs {
		return 0, Errorf(CodeInvalidArgument, "timeoutMs must be between 1 and %d, not %d", MaxTimeoutMs, v)
	}
	return time.Duration(v) * time.Millisecond, nil
}

// validRef checks an optional ref's form.
func validRef(ref string) error {
	if ref == "" {
		return nil
	}
	if _, err := ParseRef(ref); err != nil {
		return AsError(err)
	}
	return nil
}

// fetchAt reads the tree and finds the element ref names in it, as a
// position (0, the root, when ref is empty). Without fresh, ref is resolved
// in the session's earlier read before this one and found again by its key.
func (m *Sessions) fetchAt(ctx context.Context, s *Session, ref string, fresh bool, limit time.Duration, opts platform.TreeOptions) (*Tree, platform.TreeStats, int, error) {
	var key string
	if ref != "" && !fresh {
		n, _, _, err := s.Resolve(ref)
		if err != nil {
			return nil, platform.TreeStats{}, 0, err
		}
		key = n.Key
	}
	t, st, err := m.Fetch(ctx, s, limit, opts)
	if err != nil {
		return nil, st, 0, err
	}
	switch {
	case ref == "":
		return t, st, 0, nil
	case fresh:
		_, pos, err := t.LookupString(ref)
		if err != nil {
			return nil, st, 0, AsError(err)
		}
		return t, st, pos, nil
	}
	pos, ok := t.ByKey(key)
	if key == "" || !ok {
		return nil, st, 0, Errorf(CodeElementGone, "element %s is no longer in the tree (the UI changed): read the tree again without it, then use the new refs", Quote(ref))
	}
	return t, st, pos, nil
}

// missingElement is the error for a request without its element.
func missingElement(fresh bool) error {
	if fresh {
		return Errorf(CodeInvalidArgument, "an element is required: a ref like a11y:e12 from 'uiscope tree' or 'uiscope find', or the element's key from their JSON")
	}
	return Errorf(CodeInvalidArgument, "element is required: a ref like a11y:e12 from get_a11y_tree or find_elements")
}

// validElement checks the form of the element a request names: a ref, or
// with fresh also a durable key.
func validElement(element string, fresh bool) error {
	if fresh && isKey(element) {
		return nil
	}
	return validRef(element)
}

// isKey tells a durable key from a ref: a key is "backend:..." with a
// prefix that is no tree kind (refs are "a11y:eN", "visual:eN" or "eN").
func isKey(s string) bool {
	i := strings.IndexByte(s, ':')
	return i > 0 && s[:i] != KindA11y && s[:i] != KindVisual
}
