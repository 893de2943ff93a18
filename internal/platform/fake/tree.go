package fake

import (
	"context"

	"github.com/uiscope/uiscope/internal/platform"
)

var _ platform.WindowTree = (*Desktop)(nil)

// AddChild adds a child window inside a top-level window (or inside another
// child), as toolkits that give widgets windows (Tk) do, and returns its
// id. It shows in WindowTree; input lands on its top-level window.
func (d *Desktop) AddChild(parent platform.WindowID, bounds platform.Rect) platform.WindowID {
	d.mu.Lock()
	defer d.mu.Unlock()
	id := d.next
	d.next++
	if d.kids == nil {
		d.kids = map[platform.WindowID][]*platform.NativeWindow{}
	}
	d.kids[parent] = append(d.kids[parent], &platform.NativeWindow{ID: id, Bounds: bounds})
	return id
}

// WindowTree lists pid's top-level windows as managed client windows (the
// fake has no frames) with the children AddChild gave them, in stacking
// order. Keys are "fake:" and the id.
func (d *Desktop) WindowTree(ctx context.Context, pid int, _ platform.WindowTreeOptions) (*platform.NativeTree, error) {
	if err := d.enter(ctx, "WindowTree", pid, false); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	t := &platform.NativeTree{}
	var kids func(id platform.WindowID, state string) []*platform.NativeWindow
	kids = func(id platform.WindowID, state string) []*platform.NativeWindow {
		var out []*platform.NativeWindow
		for _, k := range d.kids[id] {
			c := &platform.NativeWindow{ID: k.ID, Key: "fake:" + k.ID.String(), Pid: pid, Bounds: k.Bounds, MapState: state}
			c.Children = kids(k.ID, state)
			c.ChildCount = len(c.Children)
			out = append(out, c)
			t.Windows++
		}
		return out
	}
	for _, w := range d.wins {
		if w.Pid != pid {
			continue
		}
		state, inner := platform.MapViewable, platform.MapViewable
		if !w.Mapped {
			state, inner = platform.MapUnmapped, platform.MapUnviewable
		}
		n := &platform.NativeWindow{ID: w.ID, Key: "fake:" + w.ID.String(), Pid: pid, Name: w.Title,
			Bounds: w.Bounds, MapState: state, Client: true, Children: kids(w.ID, inner)}
		n.ChildCount = len(n.Children)
		t.Roots = append(t.Roots, n)
		t.Windows++
	}
	return t, nil
}
