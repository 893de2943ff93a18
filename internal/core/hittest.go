package core

import "github.com/uiscope/uiscope/internal/platform"

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
