package core

import (
	"slices"
	"sync/atomic"
)

// Run-unique ids. A tree numbers its nodes by position (pre-order), and a
// fresh tree alone can do no better. A session reads its app's tree many
// times, though, and the server holds many sessions, one after another or
// at once: a positional id reused for another element (after the UI
// changed, in another session, after a reconnect) would make an agent's old
// ref point at the wrong element. So ids are numbered by durable key, from
// one counter for the server's whole run (docs/api.md: refs are unique for
// the run): within a session an element keeps its id while the session
// remembers its key, a new element gets a number never handed out before,
// in any session, and an id whose element is gone, or that another session
// handed out, is refused rather than reused.
//
// The invariant everything rests on: an id ever names at most one key.
// Numbers only go up; a key the session forgot and sees again gets a new
// number; a key twice in one tree, and a node without a key, get fresh
// numbers. So any tree that holds an id names the same element by it, and
// a session may resolve a ref in an older tree than its last (see
// Session.Resolve) without ever aliasing.

// Counter hands out element numbers for a server's whole run; the zero
// value starts at 0. Safe for concurrent use.
type Counter struct{ next atomic.Int64 }

// take hands out a number.
func (c *Counter) take() int { return int(c.next.Add(1) - 1) }

// Bounds of a session's memory of keys. A key not seen in the last
// keyReads complete reads is forgotten (a truncated read missing an element
// proves nothing, so it does not count), and beyond maxKeys the least
// recently seen keys go first (never those of the read being numbered).
// Forgetting is safe: the element gets a new number when seen again, and
// its old ref is refused (unknownRef), never given to something else.
const (
	keyReads = 8
	maxKeys  = 60000 // above a whole tree's node cap (50,000 in atspi)
)

// IDs is a session's numbering of elements by durable key. The zero value
// numbers from a counter of its own; sessions share the server's.
type IDs struct {
	Counter *Counter

	own      Counter
	byKey    map[string]*keyID
	reads    int // trees numbered so far
	complete int // complete (not truncated) trees numbered so far
}

type keyID struct {
	id       int
	seen     int // the read that last saw the key
	complete int // the count of complete reads when it was last seen
}

// Number gives the tree the session's ids: known keys keep theirs, new
// ones get numbers never handed out before, in pre-order.
func (s *IDs) Number(t *Tree) {
	if s.byKey == nil {
		s.byKey = map[string]*keyID{}
	}
	c := s.Counter
	if c == nil {
		c = &s.own
	}
	s.reads++
	if !t.Truncated {
		s.complete++
	}
	t.ext = make([]int, len(t.nodes))
	t.byExt = make(map[int]int, len(t.nodes))
	for i, n := range t.nodes {
		var id int
		switch k := s.byKey[n.Key]; {
		case n.Key == "":
			id = c.take()
		case k == nil:
			id = c.take()
			s.byKey[n.Key] = &keyID{id: id, seen: s.reads, complete: s.complete}
		case k.seen == s.reads: // a key twice in one tree: never share an id
			id = c.take()
		default:
			id = k.id
			k.seen, k.complete = s.reads, s.complete
		}
		t.ext[i] = id
		t.byExt[id] = i
	}
	s.forget()
}

// forget drops keys not seen for keyReads complete reads, then the least
// recently seen beyond maxKeys.
func (s *IDs) forget() {
	var old []string
	for key, k := range s.byKey {
		if k.complete <= s.complete-keyReads {
			delete(s.byKey, key)
		} else if k.seen < s.reads {
			old = append(old, key)
		}
	}
	over := len(s.byKey) - maxKeys
	if over <= 0 {
		return
	}
	slices.SortFunc(old, func(a, b string) int { return s.byKey[a].seen - s.byKey[b].seen })
	for _, key := range old[:min(over, len(old))] {
		delete(s.byKey, key)
	}
}

// Keys is how many keys the session remembers.
func (s *IDs) Keys() int { return len(s.byKey) }

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
