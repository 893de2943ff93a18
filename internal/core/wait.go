package core

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
)

// Conditions a wait can be for.
const (
	UntilAppears    = "appears"
	UntilDisappears = "disappears"
	UntilProperty   = "property"
)

// Wait budgets.
const (
	// WaitSafetyPoll: a wait re-reads at least this often, for toolkits that
	// report no changes.
	WaitSafetyPoll = 500 * time.Millisecond
	// MaxLiveReadsPerPoll caps the elements read live (text, value) in one
	// poll of an until-property wait: each is a round trip to the app.
	MaxLiveReadsPerPoll = 50
)

// waitProperties are the properties an until-property wait can compare.
var waitProperties = []string{"name", "description", "role", "state", "value", "text"}

// WaitRequest is one wait: for an element matching Query to appear, to
// disappear, or to have Property equal to Value, within Timeout.
type WaitRequest struct {
	Query    Query
	Until    string // UntilAppears, UntilDisappears or UntilProperty
	Property string // with UntilProperty: one of name, description, role, state, value, text
	// Value is compared with the property: for state a state name, or
	// "!name" for its absence; for value a number or the value's text.
	Value   string
	Timeout time.Duration
	// Fields are the optional element fields to give (FieldKey).
	Fields Fields
}

// Validate checks the request before anything is read.
func (r WaitRequest) Validate() error {
	switch r.Until {
	case UntilAppears, UntilDisappears:
	case UntilProperty:
		if !slices.Contains(waitProperties, r.Property) {
			return Errorf(CodeInvalidArgument, "property must be one of %s, not %s", strings.Join(waitProperties, ", "), Quote(r.Property))
		}
		if r.Property == "state" {
			if _, ok := platform.StateByName(strings.TrimPrefix(r.Value, "!")); !ok {
				return Errorf(CodeInvalidArgument, "value %s is not a state name (e.g. \"focused\", or \"!focused\" for its absence)", Quote(r.Value))
			}
		}
	default:
		return Errorf(CodeInvalidArgument, "until must be appears, disappears or property, not %s", Quote(r.Until))
	}
	if r.Timeout <= 0 {
		return Errorf(CodeInvalidArgument, "a wait needs a positive timeout")
	}
	if _, err := r.Query.Compile(); err != nil {
		return AsError(err)
	}
	return r.Fields.Validate()
}

// WaitResult is a wait whose condition held.
type WaitResult struct {
	Elements []*Element // the matches that satisfy the condition
	Waited   time.Duration
	Polls    int
	// Note says when the check was partial: more matches than
	// MaxLiveReadsPerPoll, so only the first ones were read live.
	Note string
	// Partial: the last read's partial containers (refs, at most ten),
	// which held only their children on screen, so that only the visible
	// part was searched; PartialNote says so in words.
	Partial     []string
	PartialNote string
}

// WaitFor reads the session's app until the request's condition holds or
// its timeout passes. It reads again as soon as the app reports a change
// (Watch) and at least every WaitSafetyPoll.
//
// One deadline bounds the whole call: every tree read and every live
// element read gets what is left of it, so a frozen app costs the timeout,
// not a multiple of it. An until-property wait on text or value reads at
// most MaxLiveReadsPerPoll matches live per poll.
func (m *Sessions) WaitFor(ctx context.Context, sessionID string, r WaitRequest) (*WaitResult, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	s, err := m.Get(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if s.Mode == ModeVisual && r.Until == UntilProperty && r.Property != "name" && r.Property != "state" && r.Property != "role" {
		return nil, Errorf(CodeNotSupported, "windows of the visual tree have a name and states (showing, visible) but no %s; wait for name or state here, or connect with mode \"a11y\"", r.Property)
	}
	if err := textInSession(s, r.Query); err != nil {
		return nil, err
	}
	r.Query.Limit = MaxFindLimit
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, r.Timeout)
	defer cancel()
	changes, stop := m.Watch(ctx, s)
	defer stop()
	timeout := func(why string) error {
		e := Errorf(CodeTimeout, "the condition (%s) did not hold within %d ms%s; check the criteria with find_elements, or wait longer", r.Until, r.Timeout.Milliseconds(), why)
		e.Retryable, e.Disposition = true, DispositionTransient
		return e
	}
	capped, partial := "", ""
	for polls := 1; ; polls++ {
		t, _, err := m.Fetch(ctx, s, max(time.Until(start.Add(r.Timeout)), time.Millisecond), TreeOptions{})
		if err != nil {
			if e := AsError(err); !e.Retryable && ctx.Err() == nil {
				return nil, err
			}
		} else {
			q := r.Query
			unread := m.readTexts(ctx, s, t, &q, 0)
			els, _, err := t.Find(q)
			if err != nil {
				return nil, err
			}
			showTexts(els, q.texts)
			// Text left unread proves no disappearance, as a cut-short read does not.
			hits, note := m.satisfying(ctx, s, r, els, t.Truncated || unread > 0)
			if note != "" {
				capped = note
			}
			refs, pnote := t.PartialRefs(t.PartialWithin(0))
			partial = pnote
			if hits != nil {
				if pnote != "" && r.Until == UntilDisappears {
					pnote += "; an element that disappeared may only have scrolled out of view"
				}
				r.Fields.trim(hits...)
				return &WaitResult{Elements: hits, Waited: time.Since(start), Polls: polls, Note: note, Partial: refs, PartialNote: pnote}, nil
			}
		}
		if ctx.Err() != nil {
			why := ""
			for _, w := range []string{capped, partial} {
				if w != "" {
					why += " (" + w + ")"
				}
			}
			return nil, timeout(why)
		}
		select {
		case <-ctx.Done():
		case <-changes:
		case <-time.After(WaitSafetyPoll):
		}
	}
}

// satisfying checks one poll's matches against the condition: non-nil (an
// empty slice for a disappearance) when it holds. note is set when the cap
// on live reads cut the check short.
func (m *Sessions) satisfying(ctx context.Context, s *Session, r WaitRequest, els []*Element, truncated bool) (hits []*Element, note string) {
	switch r.Until {
	case UntilAppears:
		if len(els) > 0 {
			return els, ""
		}
		return nil, ""
	case UntilDisappears:
		if len(els) == 0 && !truncated {
			return []*Element{}, ""
		}
		return nil, ""
	}
	live := 0
	for i, e := range els {
		if ctx.Err() != nil {
			break
		}
		if needsLiveRead(r.Property) {
			if live == MaxLiveReadsPerPoll {
				note = fmt.Sprintf("only the first %d of %d matches were read live per poll; narrow the criteria", MaxLiveReadsPerPoll, len(els))
				break
			}
			live++
		}
		if m.propertyHolds(ctx, s, els[i], r.Property, r.Value) {
			hits = append(hits, e)
		}
	}
	return hits, note
}

func needsLiveRead(prop string) bool { return prop == "value" || prop == "text" }

// propertyHolds compares one property of e. Text and value are read live
// under ctx; a redacted element's text is never compared, so a wait cannot
// be used to guess a password.
func (m *Sessions) propertyHolds(ctx context.Context, s *Session, e *Element, prop, want string) bool {
	switch prop {
	case "name":
		return !e.Redacted && e.Name == want
	case "description":
		return e.Description == want
	case "role":
		return e.Role == want
	case "state":
		neg := strings.HasPrefix(want, "!")
		return slices.Contains(e.States, strings.TrimPrefix(want, "!")) != neg
	}
	if e.Redacted && prop == "text" {
		return false
	}
	d, err := m.Element(ctx, s, e.Key)
	if err != nil || d.Node.Secret() {
		return false
	}
	switch prop {
	case "value":
		if d.Value == nil {
			return false
		}
		if f, err := strconv.ParseFloat(want, 64); err == nil {
			return d.Value.Current == f
		}
		return d.Value.Text == want
	case "text":
		return d.Text != nil && d.Text.Text == want
	}
	return false
}
