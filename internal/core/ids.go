package core

// Session-stable ids. A tree numbers its nodes by position (pre-order), and
// a fresh tree alone can do no better. A session reads its app's tree many
// times, though, and a positional id reused for another element after the
// UI changed would make an agent's old ref point at the wrong element.
// So a session numbers elements by durable key: an element keeps its id for
// as long as the session lasts, a new element gets a number never used
// before, and an id whose element is gone is refused rather than reused.

// IDs is a session's numbering of elements by durable key.
type IDs struct {
	byKey map[string]int
	next  int
}

// Number gives the tree the session's ids: known keys keep theirs, new
// ones get fresh numbers in pre-order. The first tree of a session is
// numbered exactly by position.
func (s *IDs) Number(t *Tree) {
	if s.byKey == nil {
		s.byKey = map[string]int{}
	}
	t.ext = make([]int, len(t.nodes))
	t.byExt = make(map[int]int, len(t.nodes))
	for i, n := range t.nodes {
		id, ok := s.byKey[n.Key]
		if !ok || n.Key == "" {
			id = s.next
			s.next++
			if n.Key != "" {
				s.byKey[n.Key] = id
			}
		}
		if _, dup := t.byExt[id]; dup { // a key twice in one tree: never share an id
			id = s.next
			s.next++
		}
		t.ext[i] = id
		t.byExt[id] = i
	}
}

// extID is the id a node is shown with.
func (t *Tree) extID(i int) int {
	if t.ext == nil {
		return i
	}
	return t.ext[i]
}

// intID maps a shown id back to the node's position.
func (t *Tree) intID(id int) (int, bool) {
	if t.ext == nil {
		return id, id >= 0 && id < len(t.nodes)
	}
	i, ok := t.byExt[id]
	return i, ok
}
