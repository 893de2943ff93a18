package core

import (
	"slices"
	"strings"
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
	EventValueChanged = "valueChanged"
)

// EventTypes are the event types, in the order docs/api.md lists them.
var EventTypes = []string{EventWindowOpened, EventWindowClosed, EventFocus, EventNameChanged, EventStateChanged, EventValueChanged}

// EventFilter selects the events a take returns.
type EventFilter struct {
	// Types are the types wanted; none means every type.
	Types []string
	// Churn keeps the state changes of unnamed layout containers (a
	// popover's fillers turning showing on and off), which are left out
	// otherwise: they say nothing an agent acts on, and come by the dozen.
	Churn bool
}

// Validate checks the filter's types.
func (f EventFilter) Validate() error {
	for _, t := range f.Types {
		if !slices.Contains(EventTypes, t) {
			return Errorf(CodeInvalidArgument, "unknown event type %s (want %s)", Quote(t), strings.Join(EventTypes, ", "))
		}
	}
	return nil
}

func (f EventFilter) keeps(e Event) bool {
	return len(f.Types) == 0 || slices.Contains(f.Types, e.Type)
}

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
	// Old and New: a name or a value before and after (a value is cut as
	// the tree cuts it; a redacted element has none).
	Old *string `json:"old,omitempty"`
	New *string `json:"new,omitempty"`

	churn bool // a state change of an unnamed layout container
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
			if f, ok := c.Changes["value"]; ok && !cur.Redacted {
				l.add(now, Event{Type: EventValueChanged, Ref: c.Ref, Key: c.Key, Role: cur.Role, Name: cur.Name, Old: stringOf(f.Old), New: stringOf(f.New)})
			}
			if f, ok := c.Changes["states"]; ok {
				old, cur2 := f.Old.([]string), f.New.([]string)
				churn := cur.Name == "" && structureRoles[t.nodes[pos].Role]
				for _, st := range cur2 {
					if slices.Contains(old, st) {
						continue
					}
					if st == platform.StateFocused.String() {
						l.add(now, Event{Type: EventFocus, Ref: c.Ref, Key: c.Key, Role: cur.Role, Name: cur.Name})
						continue
					}
					l.add(now, Event{Type: EventStateChanged, Ref: c.Ref, Key: c.Key, Role: cur.Role, Name: cur.Name, State: st, On: ptrTo(true), churn: churn})
				}
				for _, st := range old {
					if !slices.Contains(cur2, st) && st != platform.StateFocused.String() {
						l.add(now, Event{Type: EventStateChanged, Ref: c.Ref, Key: c.Key, Role: cur.Role, Name: cur.Name, State: st, On: ptrTo(false), churn: churn})
					}
				}
			}
		}
	}
}

func ptrTo[T any](v T) *T { return &v }

// stringOf is a value field's side as a pointer (nil for no value).
func stringOf(v any) *string {
	if s, ok := v.(string); ok {
		return &s
	}
	return nil
}

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
	// they were taken; Dropped says how many.
	Missed  bool
	Dropped int64
	// More is set when limit left events the filter keeps in the log.
	More bool
	// Churn counts the state changes of unnamed layout containers the
	// filter left out (EventFilter.Churn).
	Churn int
}

// Take returns up to limit events after since that f keeps; without since
// (nil), after the last event a Take without since returned, which it
// advances. Events the filter leaves out are passed over as read: the
// next take starts after them.
func (l *EventLog) Take(since *int64, limit int, f EventFilter) EventsRead {
	l.mu.Lock()
	defer l.mu.Unlock()
	after := l.cursor
	if since != nil {
		after = *since
	}
	out := EventsRead{Events: []Event{}, Next: after}
	if l.dropped > after {
		out.Missed, out.Dropped = true, l.dropped-after
	}
	for _, e := range l.events {
		if e.Seq <= after {
			continue
		}
		if !f.keeps(e) {
			out.Next = e.Seq
			continue
		}
		if e.churn && !f.Churn {
			out.Churn++
			out.Next = e.Seq
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
