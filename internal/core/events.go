package core

import (
	"slices"
	"sync"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
)

// Semantic events (get_events): what an agent asks "what happened since my
// last call?" about, derived from the watcher's diffs (changes_follow.go)
// rather than from raw accessibility events, so that they say what is
// true after the change (a name an event announced may be renamed again
// before anyone reads it) and read the same on every platform.

// Event types.
const (
	EventFocus        = "focusMoved"
	EventWindowOpened = "windowOpened"
	EventWindowClosed = "windowClosed"
	EventNameChanged  = "nameChanged"
	EventStateChanged = "stateChanged"
)

// MaxEvents bounds a session's event log; older events are dropped first.
const MaxEvents = 1000

// Event is one semantic event.
type Event struct {
	Seq  int64  `json:"seq"`
	Time string `json:"time"` // RFC 3339, with milliseconds
	Type string `json:"type"`
	Ref  string `json:"ref,omitempty"` // the element, in the read that saw the change
	Key  string `json:"key,omitempty"`
	Role string `json:"role,omitempty"`
	Name string `json:"name,omitempty"` // the element's name; a window's title
	// State and On: a state that was set (On) or cleared.
	State string `json:"state,omitempty"`
	On    *bool  `json:"on,omitempty"`
	// Old and New: a name before and after.
	Old *string `json:"old,omitempty"`
	New *string `json:"new,omitempty"`
}

// windowRoles are the roles of what opens and closes as a window.
var windowRoles = map[string]bool{platform.RoleFrame.String(): true, platform.RoleDialog.String(): true,
	platform.RoleWindow.String(): true, platform.RoleAlert.String(): true, platform.RoleFileChooser.String(): true}

// EventLog is a bounded log of a session's events. Safe for concurrent use.
type EventLog struct {
	mu      sync.Mutex
	max     int
	events  []Event
	next    int64 // the seq of the next event; seqs start at 1
	cursor  int64 // the last seq a Take without since returned
	dropped int64 // the last seq dropped for room
}

// NewEventLog keeps at most max events.
func NewEventLog(max int) *EventLog { return &EventLog{max: max, next: 1} }

func (l *EventLog) add(now time.Time, e Event) {
	e.Seq = l.next
	l.next++
	e.Time = now.UTC().Format("2006-01-02T15:04:05.000Z07:00")
	if len(l.events) == l.max {
		l.dropped = l.events[0].Seq
		l.events = slices.Delete(l.events, 0, 1)
	}
	l.events = append(l.events, e)
}

// derive turns one diff into events. t is the read the diff ends at.
func (l *EventLog) derive(evs []Change, t *Tree) {
	if len(evs) == 0 {
		return
	}
	root := ""
	if r := t.Root(); r != nil {
		root = r.Key
	}
	isWindow := func(role, parent string) bool {
		return windowRoles[role] && (parent == root || role == platform.RoleDialog.String() || role == platform.RoleAlert.String())
	}
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range evs {
		switch c.Type {
		case ChangeAdded:
			e := c.Element
			if isWindow(e.Role, c.ParentKey) {
				l.add(now, Event{Type: EventWindowOpened, Ref: c.Ref, Key: c.Key, Role: e.Role, Name: e.Name})
			}
			if slices.Contains(e.States, platform.StateFocused.String()) {
				l.add(now, Event{Type: EventFocus, Ref: c.Ref, Key: c.Key, Role: e.Role, Name: e.Name})
			}
		case ChangeRemoved:
			// A removed element's role and name are those of its last
			// read, which the removed event does not carry: look them up.
			if n, ok := removedWindow(c); ok && isWindow(n.role, c.ParentKey) {
				l.add(now, Event{Type: EventWindowClosed, Ref: c.Ref, Key: c.Key, Role: n.role, Name: n.name})
			}
		case ChangeChanged:
			pos, ok := t.ByKey(c.Key)
			if !ok {
				continue
			}
			cur := t.element(pos)
			if f, ok := c.Changes["name"]; ok {
				o, n := f.Old.(string), f.New.(string)
				l.add(now, Event{Type: EventNameChanged, Ref: c.Ref, Key: c.Key, Role: cur.Role, Name: cur.Name, Old: &o, New: &n})
			}
			if f, ok := c.Changes["states"]; ok {
				old, cur2 := f.Old.([]string), f.New.([]string)
				for _, st := range cur2 {
					if slices.Contains(old, st) {
						continue
					}
					if st == platform.StateFocused.String() {
						l.add(now, Event{Type: EventFocus, Ref: c.Ref, Key: c.Key, Role: cur.Role, Name: cur.Name})
						continue
					}
					l.add(now, Event{Type: EventStateChanged, Ref: c.Ref, Key: c.Key, Role: cur.Role, Name: cur.Name, State: st, On: ptrTo(true)})
				}
				for _, st := range old {
					if !slices.Contains(cur2, st) && st != platform.StateFocused.String() {
						l.add(now, Event{Type: EventStateChanged, Ref: c.Ref, Key: c.Key, Role: cur.Role, Name: cur.Name, State: st, On: ptrTo(false)})
					}
				}
			}
		}
	}
}

func ptrTo[T any](v T) *T { return &v }

type roleName struct{ role, name string }

// removedWindow is the role and name a removed event's element had.
func removedWindow(c Change) (roleName, bool) {
	if c.old == nil {
		return roleName{}, false
	}
	return roleName{c.old.Role, c.old.Name}, true
}

// EventsRead is one take from a log.
type EventsRead struct {
	Events []Event
	// Next is the seq to pass as since to continue after these.
	Next int64
	// Missed is set when events after since were dropped for room before
	// they were taken.
	Missed bool
	// More is set when limit left events in the log.
	More bool
}

// Take returns up to limit events after since; without since (nil),
// after the last event a Take without since returned, which it advances.
func (l *EventLog) Take(since *int64, limit int) EventsRead {
	l.mu.Lock()
	defer l.mu.Unlock()
	after := l.cursor
	if since != nil {
		after = *since
	}
	out := EventsRead{Events: []Event{}, Next: after, Missed: l.dropped > after}
	for _, e := range l.events {
		if e.Seq <= after {
			continue
		}
		if len(out.Events) == limit {
			out.More = true
			break
		}
		out.Events = append(out.Events, e)
		out.Next = e.Seq
	}
	if since == nil {
		l.cursor = out.Next
	}
	return out
}
