package core

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
)

// chain is an app whose elements nest n deep, one in another.
func chain(n int) *platform.Node {
	var n0 *platform.Node
	for i := n - 1; i >= 0; i-- {
		if n0 == nil {
			n0 = node(fmt.Sprint("k", i), fmt.Sprint("level ", i))
		} else {
			n0 = node(fmt.Sprint("k", i), fmt.Sprint("level ", i), n0)
		}
	}
	return n0
}

// depthOf is how deep an element's children nest.
func depthOf(e *Element) int {
	d := 0
	for len(e.Children) > 0 {
		e, d = e.Children[0], d+1
	}
	return d
}

// However deep an app nests, and whatever depth the caller asks, an answer
// shows at most MaxDepth levels below its start, and says so.
func TestDepthCapped(t *testing.T) {
	tr := NewTree(chain(MaxDepth*40), KindA11y)
	for _, depth := range []int{-1, MaxDepth + 1, 1 << 30} {
		root, st, err := tr.Render(ViewOptions{Depth: depth, MaxNodes: MaxMaxNodes})
		if err != nil {
			t.Fatal(err)
		}
		if got := depthOf(root); got != MaxDepth || !st.DepthCapped || st.Nodes != MaxDepth+1 {
			t.Errorf("depth %d: %d levels, %d nodes, capped %v; want %d levels, capped", depth, got, st.Nodes, st.DepthCapped, MaxDepth)
		}
		b, err := json.Marshal(root)
		if err != nil {
			t.Fatal(err)
		}
		var back any
		if err := json.Unmarshal(b, &back); err != nil {
			t.Errorf("depth %d: the answer does not decode: %v", depth, err)
		}
		out, ost, err := tr.Outline(ViewOptions{Depth: depth, MaxNodes: MaxMaxNodes})
		if err != nil {
			t.Fatal(err)
		}
		if lines := strings.Count(out, "\n"); lines > MaxDepth+2 || !ost.DepthCapped {
			t.Errorf("depth %d: outline of %d lines, capped %v", depth, lines, ost.DepthCapped)
		}
	}
	// A caller's own smaller depth is not the cap.
	if _, st, _ := tr.Render(ViewOptions{Depth: 3}); st.DepthCapped || st.Nodes != 4 {
		t.Errorf("depth 3: %d nodes, capped %v", st.Nodes, st.DepthCapped)
	}
	// Starting deeper reads further down.
	if root, st, _ := tr.Render(ViewOptions{Depth: -1, Scope: MaxDepth * 39, MaxNodes: MaxMaxNodes}); depthOf(root) != MaxDepth-1 || st.DepthCapped {
		t.Errorf("from level %d: %d levels, capped %v", MaxDepth*39, depthOf(root), st.DepthCapped)
	}
	// A shallow tree is shown whole, uncapped.
	if _, st, _ := NewTree(chain(10), KindA11y).Render(ViewOptions{Depth: -1}); st.DepthCapped || st.Nodes != 10 {
		t.Errorf("10 levels: %d nodes, capped %v", st.Nodes, st.DepthCapped)
	}
}
