package core

import (
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
)

func TestHitTest(t *testing.T) {
	vis := platform.StateSet(1<<platform.StateVisible | 1<<platform.StateShowing)
	rect := func(x, y, w, h int) *platform.Rect { return &platform.Rect{X: x, Y: y, Width: w, Height: h} }
	root := &platform.Node{Key: "app", Role: platform.RoleApplication, Children: []*platform.Node{
		{Key: "frame", Role: platform.RoleFrame, States: vis, Bounds: rect(0, 0, 100, 100), Children: []*platform.Node{
			{Key: "button", States: vis, Bounds: rect(10, 10, 20, 20), Children: []*platform.Node{
				{Key: "label", States: vis, Bounds: rect(10, 10, 20, 20)},
			}},
			{Key: "hidden", Bounds: rect(50, 50, 5, 5)},
		}},
	}}
	tr := NewTree(root, KindA11y)
	cases := []struct {
		x, y int
		want string
	}{
		{15, 15, "label"}, {5, 5, "frame"}, {51, 51, "frame"}, {200, 200, ""},
	}
	for _, c := range cases {
		id, ok := tr.HitTest(c.x, c.y)
		got := ""
		if ok {
			n, _ := tr.Node(id)
			got = n.Key
		}
		if got != c.want {
			t.Errorf("HitTest(%d,%d) = %q, want %q", c.x, c.y, got, c.want)
		}
	}
}
