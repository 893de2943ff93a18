package core

import (
	"context"

	"github.com/uiscope/uiscope/internal/platform"
)

// HitTest returns the smallest on-screen element whose bounds cover the
// point, preferring the deeper one on a tie (a label inside a button of the
// same size). Elements that are neither showing nor visible, and those
// inside such an element, are skipped: hidden stack pages keep bounds.
func (t *Tree) HitTest(x, y int) (int, bool) {
	best, bestArea, bestDepth := -1, 0, -1
	var walk func(id, depth int)
	walk = func(id, depth int) {
		n, _ := t.Node(id)
		if id != 0 && !n.States.Has(platform.StateShowing) && !n.States.Has(platform.StateVisible) {
			return
		}
		if b := n.Bounds; b != nil && !b.Empty() && b.Contains(x, y) {
			area := b.Width * b.Height
			if best < 0 || area < bestArea || (area == bestArea && depth > bestDepth) {
				best, bestArea, bestDepth = id, area, depth
			}
		}
		for _, k := range t.Children(id) {
			walk(k, depth+1)
		}
	}
	if t.Len() > 0 {
		walk(0, 0)
	}
	return best, best >= 0
}

// HitRequest is one hit test: hit_test's point in screen pixels, and the
// deadline of the tree read (nil for DefaultTimeoutMs).
type HitRequest struct {
	X, Y      int
	TimeoutMs *int
	// Fields are the optional element fields to give (FieldKey).
	Fields Fields
}

// HitRead is what lies at a point: the smallest element of the app there
// (nil when none is), with its ancestors, nearest first.
type HitRead struct {
	Element   *Element
	Ancestors []*Element // never nil
	Stats     platform.TreeStats
}

// HitTest reads the session's application's tree afresh (it becomes the
// session's last read) and finds the element at the request's point
// (Tree.HitTest), once the deadline is valid and the session's identity
// checked (Get).
func (m *Sessions) HitTest(ctx context.Context, sessionID string, req HitRequest) (*HitRead, error) {
	limit, err := Timeout(req.TimeoutMs)
	if err != nil {
		return nil, err
	}
	if err := req.Fields.Validate(); err != nil {
		return nil, err
	}
	s, err := m.Get(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	t, st, err := m.Fetch(ctx, s, limit, platform.TreeOptions{Actions: true})
	if err != nil {
		return nil, err
	}
	out := &HitRead{Ancestors: []*Element{}, Stats: st}
	id, ok := t.HitTest(req.X, req.Y)
	if !ok {
		return out, nil
	}
	out.Element, _ = t.Element(id)
	for _, a := range t.Ancestors(id) {
		e, _ := t.Element(a)
		out.Ancestors = append(out.Ancestors, e)
	}
	req.Fields.trim(out.Element)
	req.Fields.trim(out.Ancestors...)
	return out, nil
}
