//go:build linux

package e2e

import "github.com/uiscope/uiscope/internal/platform"

// elem is an element as the tools and the CLI return it (docs/api.md): a
// node of get_a11y_tree, find_elements and hit_test, or a window of
// get_visual_tree. It holds the fields any test reads; a field a result
// does not carry stays zero.
type elem struct {
	ID             string         `json:"id"`
	Ref            string         `json:"ref"`
	Key            string         `json:"key"`
	Role           string         `json:"role"`
	Name           string         `json:"name"`
	Description    string         `json:"description"`
	Value          *string        `json:"value"`
	ValueTruncated bool           `json:"valueTruncated"`
	States         []string       `json:"states"`
	Bounds         *platform.Rect `json:"bounds"`
	Interfaces     []string       `json:"interfaces"`
	Actions        []string       `json:"actions"`
	Redacted       bool           `json:"redacted"`
	ChildCount     int            `json:"childCount"`
	Children       []*elem        `json:"children"`
	// ChildrenPartial: Children holds only what is on screen, the part
	// ChildrenRange says.
	ChildrenPartial bool           `json:"childrenPartial"`
	ChildrenRange   *childrenRange `json:"childrenRange"`

	// A window of get_visual_tree.
	Window           string `json:"window"`
	Pid              int    `json:"pid"`
	Class            string `json:"class"`
	Instance         string `json:"instance"`
	MapState         string `json:"mapState"`
	OverrideRedirect bool   `json:"overrideRedirect"`
	Frame            bool   `json:"frame"`
	Client           bool   `json:"client"`
	A11yRef          string `json:"a11yRef"`
	A11yAncestorRef  string `json:"a11yAncestorRef"`
}

// childrenRange is the part of a partial container's children a read
// holds.
type childrenRange struct {
	Rows        *[2]int `json:"rows"`
	Columns     *[2]int `json:"columns"`
	RowCount    *int    `json:"rowCount"`
	ColumnCount *int    `json:"columnCount"`
	First       *int    `json:"first"`
	Count       *int    `json:"count"`
	MoreBefore  bool    `json:"moreBefore"`
	MoreAfter   bool    `json:"moreAfter"`
}

// walk calls f on e and every element below it, in pre-order, with the
// element's parent (nil for e). A nil e has nothing to walk.
func (e *elem) walk(f func(e, parent *elem)) {
	var rec func(e, p *elem)
	rec = func(e, p *elem) {
		f(e, p)
		for _, k := range e.Children {
			rec(k, e)
		}
	}
	if e != nil {
		rec(e, nil)
	}
}

// find returns the first element in pre-order that ok accepts, or nil.
func (e *elem) find(ok func(*elem) bool) *elem {
	var found *elem
	e.walk(func(e, _ *elem) {
		if found == nil && ok(e) {
			found = e
		}
	})
	return found
}

// has says whether the element has the state.
func (e *elem) has(state string) bool {
	for _, s := range e.States {
		if s == state {
			return true
		}
	}
	return false
}
