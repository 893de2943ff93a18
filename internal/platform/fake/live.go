package fake

import "github.com/uiscope/uiscope/internal/platform"

// SetTree replaces an application's tree, as the application changing its
// UI would, and tells its watchers.
func (d *Desktop) SetTree(pid int, root *platform.Node) {
	d.mu.Lock()
	defer d.mu.Unlock()
	st := d.apps[pid]
	if st == nil {
		return
	}
	st.Tree = copyTree(root)
	d.changed(st)
}

// Watchers is how many watches of an application are open: a watch that
// outlives its session shows here.
func (d *Desktop) Watchers(pid int) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	if st := d.apps[pid]; st != nil {
		return len(st.changes)
	}
	return 0
}
