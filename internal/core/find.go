package core

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/uiscope/uiscope/internal/platform"
)

// Find limits.
const (
	DefaultFindLimit = 50
	MaxFindLimit     = 1000
	MaxRegexLen      = 1000
	// MaxTextLen bounds a text criterion.
	MaxTextLen = 1000
	// MaxTextReads bounds the elements whose text one search reads live.
	MaxTextReads = 5000
	// textRunes is how much of an element's text a search reads: a
	// document's first pages, as get_element_properties reads them.
	textRunes = 4000
)

// Name match modes.
const (
	MatchExact    = "exact"
	MatchContains = "contains"
	MatchRegex    = "regex"
)

// Query selects elements. Every criterion given must hold; an empty query
// matches every element.
type Query struct {
	// Name matches the element's name, per NameMatch. Redacted elements
	// never match by name.
	Name string
	// Text matches the element's text or value: it contains Text,
	// case-insensitive (surrounding whitespace of Text ignored). The tree
	// read's values are matched first; the text of the elements they do
	// not hold (the Text interface of a label, a section, a text past a
	// value's 200 characters) is read live (Sessions.readTexts). A
	// redacted element never matches by text.
	Text string
	// NameMatch is "contains" (the default: case-insensitive substring),
	// "exact" (case-sensitive, surrounding whitespace of both sides
	// ignored) or "regex" (RE2 syntax, case-sensitive unless (?i); at most
	// 1000 bytes). Ignored when Name is empty.
	NameMatch string
	// Role is a canonical role name ("push button"; dashes, underscores and
	// case are forgiven).
	Role string
	// AccessibleID matches the toolkit's accessible id exactly.
	AccessibleID string
	// States must all be set; a leading "!" requires the state to be unset
	// ("!sensitive" for disabled elements).
	States []string
	// Interface is one the element must implement: accessible, action,
	// component, text, editabletext (alias editable), value, selection,
	// table, image, hyperlink, hypertext, document, collection, application.
	Interface string
	// Within is the position of the element whose subtree (itself
	// included) is searched, as Lookup and ByKey return it (not the id a
	// ref shows); 0 is the root.
	Within int
	// Limit caps the elements returned: 0 means 50, at most 1000.
	Limit int

	// texts are the texts read live for the text criterion, by key
	// (readTexts).
	texts map[string]string
}

// FindStats says how a find went.
type FindStats struct {
	Matched  int  // elements matching in the searched subtree
	Returned int  // elements returned (at most Limit)
	LimitHit bool // more matched than were returned
	// Partial lists the positions of the partial containers in the
	// searched subtree (virtual containers that hold only what is on
	// screen): elements scrolled out of view were not searched.
	Partial []int
}

// knownInterfaces are the interface short names the backends report.
var knownInterfaces = []string{
	"accessible", "action", "component", "text", "editabletext", "value",
	"selection", "table", "image", "hyperlink", "hypertext", "document",
	"collection", "application",
}

// Matcher is a compiled Query's criteria (all but Within and Limit).
type Matcher struct {
	name         string // trimmed (exact), lower-cased (contains)
	nameMode     string // "" when no name criterion
	re           *regexp.Regexp
	role         platform.Role
	hasRole      bool
	accessibleID string
	want, not    platform.StateSet
	iface        string
	text         string // lower-cased; "" when no text criterion
	texts        map[string]string
	limit        int
}

// Compile checks q and compiles its criteria. Errors wrap ErrInvalidArgument
// and say what would be accepted.
func (q Query) Compile() (Matcher, error) {
	var m Matcher
	bad := func(format string, args ...any) (Matcher, error) {
		return Matcher{}, fmt.Errorf("%w: "+format, append([]any{ErrInvalidArgument}, args...)...)
	}

	switch q.NameMatch {
	case "", MatchContains, MatchExact, MatchRegex:
	default:
		return bad("unknown nameMatch %s (want exact, contains or regex)", Quote(q.NameMatch))
	}
	if q.Name != "" {
		m.nameMode = q.NameMatch
		if m.nameMode == "" {
			m.nameMode = MatchContains
		}
		switch m.nameMode {
		case MatchRegex:
			if len(q.Name) > MaxRegexLen {
				return bad("name regex is %d bytes; at most %d", len(q.Name), MaxRegexLen)
			}
			re, err := regexp.Compile(q.Name)
			if err != nil {
				return bad("bad name regex: %v", err)
			}
			m.re = re
		case MatchExact:
			m.name = strings.TrimSpace(q.Name)
		case MatchContains:
			m.name = strings.ToLower(strings.TrimSpace(q.Name))
		}
		if m.nameMode != MatchRegex && m.name == "" {
			return bad("name is only whitespace")
		}
	}

	if q.Role != "" {
		r, ok := platform.RoleByName(q.Role)
		if !ok {
			msg := "unknown role " + Quote(q.Role)
			if s := suggestRoles(q.Role); len(s) > 0 {
				msg += " (did you mean " + strings.Join(s, ", ") + "?)"
			} else {
				msg += ` (roles are AT-SPI role names such as "push button", "check box", "text", "label", "menu item")`
			}
			return bad("%s", msg)
		}
		m.role, m.hasRole = r, true
	}

	m.accessibleID = q.AccessibleID

	if q.Text != "" {
		if len(q.Text) > MaxTextLen {
			return bad("text is %d bytes; at most %d", len(q.Text), MaxTextLen)
		}
		m.text = strings.ToLower(strings.TrimSpace(q.Text))
		if m.text == "" {
			return bad("text is only whitespace")
		}
		m.texts = q.texts
	}

	for _, s := range q.States {
		neg := strings.HasPrefix(s, "!")
		name := strings.TrimPrefix(s, "!")
		st, ok := platform.StateByName(name)
		if !ok || st == 0 {
			msg := "unknown state " + Quote(s)
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "disabled":
				msg += ` (for disabled elements use "!sensitive")`
			case "":
				msg = `empty state name (give a state such as "focused", or "!focused" to negate)`
			default:
				msg += ` (states are lower-case AT-SPI names such as "focused", "checked", "sensitive", "showing"; prefix "!" to negate)`
			}
			return bad("%s", msg)
		}
		if neg {
			m.not |= 1 << st
		} else {
			m.want |= 1 << st
		}
	}

	if q.Interface != "" {
		i := normalizeInterface(q.Interface)
		if !slices.Contains(knownInterfaces, i) {
			return bad("unknown interface %s (want one of %s, or editable)", Quote(q.Interface), strings.Join(knownInterfaces, ", "))
		}
		m.iface = i
	}

	switch {
	case q.Within < 0:
		return bad("within position %d: positions are 0 and up", q.Within)
	case q.Limit < 0 || q.Limit > MaxFindLimit:
		return bad("limit %d (want 1 to %d, or 0 for the default %d)", q.Limit, MaxFindLimit, DefaultFindLimit)
	}
	m.limit = q.Limit
	if m.limit == 0 {
		m.limit = DefaultFindLimit
	}
	return m, nil
}

// normalizeInterface folds case and separators, and resolves aliases.
func normalizeInterface(s string) string {
	s = strings.ToLower(strings.NewReplacer(" ", "", "_", "", "-", "").Replace(strings.TrimSpace(s)))
	if s == "editable" {
		return "editabletext"
	}
	return s
}

// Match reports whether n meets every criterion.
func (m Matcher) Match(n *platform.Node) bool {
	if !m.matchOthers(n) {
		return false
	}
	return m.text == "" || m.matchText(n)
}

// matchText holds n's text against the text criterion: its value, or the
// text read live.
func (m Matcher) matchText(n *platform.Node) bool {
	if n.Redacted || n.IsPassword() {
		return false
	}
	if n.Value != nil && strings.Contains(strings.ToLower(*n.Value), m.text) {
		return true
	}
	t, ok := m.texts[n.Key]
	return ok && strings.Contains(strings.ToLower(t), m.text)
}

// textUnread reports whether n meets every criterion but the text one,
// which its value does not settle and a live read of its text could: it
// has the Text interface and no value, or a value cut short.
func (m Matcher) textUnread(n *platform.Node) bool {
	if m.text == "" || n.Redacted || n.IsPassword() || !slices.Contains(n.Interfaces, "text") {
		return false
	}
	if n.Value != nil && !n.ValueTruncated {
		return false
	}
	if _, ok := m.texts[n.Key]; ok || m.matchText(n) {
		return false
	}
	return m.matchOthers(n)
}

// matchOthers holds n against every criterion but the text one.
func (m Matcher) matchOthers(n *platform.Node) bool {
	if n == nil {
		return false
	}
	if m.hasRole && n.Role != m.role {
		return false
	}
	if m.accessibleID != "" && n.AccessibleID != m.accessibleID {
		return false
	}
	if n.States&m.want != m.want || n.States&m.not != 0 {
		return false
	}
	if m.iface != "" && !slices.ContainsFunc(n.Interfaces, func(i string) bool { return normalizeInterface(i) == m.iface }) {
		return false
	}
	if m.nameMode != "" {
		if n.Secret() {
			return false
		}
		if m.matchName(n.Name) {
			return true
		}
		if readsAsName(n) && m.matchName(*n.Value) {
			return true
		}
		// GTK 4.8 names a button "_Save Save": the label a user sees
		// matches too.
		seen, ok := platform.SeenLabel(n.Name)
		return ok && m.matchName(seen)
	}
	return true
}

// readsAsName reports an element whose value stands for the name it
// lacks: unnamed, not editable, with the Text interface and a value — text
// a user reads, as a page's status line or a PDF page (docs/api.md). A
// field's content is no name: an editable element never matches by it.
func readsAsName(n *platform.Node) bool {
	return n.Name == "" && n.Value != nil && !n.States.Has(platform.StateEditable) && slices.Contains(n.Interfaces, "text")
}

// matchName holds one name against the query's name, per its mode.
func (m Matcher) matchName(name string) bool {
	switch m.nameMode {
	case MatchExact:
		return strings.TrimSpace(name) == m.name
	case MatchContains:
		return strings.Contains(strings.ToLower(name), m.name)
	case MatchRegex:
		return m.re.MatchString(name)
	}
	return false
}

// Find returns the elements under q.Within (itself included) that match q,
// flat (no children; childCount set) and in pre-order, at most q.Limit of
// them; FindStats counts every match. It searches the raw tree: views do not
// apply. On a truncated tree (t.Truncated) no match is not proof of absence.
func (t *Tree) Find(q Query) ([]*Element, FindStats, error) {
	m, err := q.Compile()
	if err != nil {
		return nil, FindStats{}, err
	}
	if q.Interface != "" && t.kind == KindVisual {
		return nil, FindStats{}, Errorf(CodeNotSupported, "native windows have no accessibility interfaces, so the interface filter cannot match in a visual session; search by name or state here, or connect with mode \"a11y\" to filter by interface")
	}
	if err := t.checkPos(q.Within, "within"); err != nil {
		return nil, FindStats{}, err
	}
	var st FindStats
	out := []*Element{}
	for id := q.Within; id < t.end[q.Within]; id++ {
		if !m.Match(t.nodes[id]) {
			continue
		}
		st.Matched++
		if len(out) < m.limit {
			out = append(out, t.element(id))
		}
	}
	st.Returned = len(out)
	st.LimitHit = st.Matched > st.Returned
	st.Partial = t.PartialWithin(q.Within)
	return out, st, nil
}

// PartialWithin lists, in pre-order, the positions of the partial
// containers under within (a position; itself included): containers whose
// children are virtual and were read as what is on screen. A search there
// saw only the visible part.
func (t *Tree) PartialWithin(within int) []int {
	if within < 0 || within >= len(t.nodes) {
		return nil
	}
	var out []int
	for id := within; id < t.end[within]; id++ {
		if t.nodes[id].ChildrenPartial {
			out = append(out, id)
		}
	}
	return out
}

// maxPartialListed bounds the partial containers a result names.
const maxPartialListed = 10

// PartialRefs returns the refs of the given positions, at most ten, and a
// note saying the search saw only what these containers show; "" when
// there are none.
func (t *Tree) PartialRefs(ids []int) ([]string, string) {
	if len(ids) == 0 {
		return nil, ""
	}
	refs := make([]string, 0, min(len(ids), maxPartialListed))
	for _, id := range ids[:min(len(ids), maxPartialListed)] {
		refs = append(refs, t.RefString(id))
	}
	more := ""
	if len(ids) > len(refs) {
		more = fmt.Sprintf(" and %d more", len(ids)-len(refs))
	}
	holds, it := "holds", "it"
	if len(ids) > 1 {
		holds, it = "hold", "them"
	}
	return refs, fmt.Sprintf("only the visible part was searched: %s%s %s only the children on screen "+
		"(childrenPartial), so elements scrolled out of view inside %s were not searched — scroll them into view, or read a table's cells with read_table",
		strings.Join(refs, ", "), more, holds, it)
}

// FindIDs lists, in pre-order and without limit, the positions under
// within (a position; itself included) that m matches; nil when within is
// not in the tree. For
// callers that go on to use the nodes (wait_for, actions).
func (t *Tree) FindIDs(m Matcher, within int) []int {
	if within < 0 || within >= len(t.nodes) {
		return nil
	}
	var out []int
	for id := within; id < t.end[within]; id++ {
		if m.Match(t.nodes[id]) {
			out = append(out, id)
		}
	}
	return out
}

// suggestRoles lists role names close to a name that did not resolve:
// names containing it or contained in it, or within two edits.
func suggestRoles(name string) []string {
	q := strings.ToLower(strings.NewReplacer("-", " ", "_", " ").Replace(strings.TrimSpace(name)))
	if q == "" {
		return nil
	}
	var out []string
	for _, rn := range roleNames() {
		near := strings.Contains(rn, q) || (len(rn) >= 4 && strings.Contains(q, rn)) || editDistance(q, rn) <= 2
		if near {
			out = append(out, fmt.Sprintf("%q", rn))
			if len(out) == 6 {
				break
			}
		}
	}
	return out
}

// roleNames lists the canonical role names, in role order.
func roleNames() []string {
	var out []string
	for i := range 256 {
		rn := platform.Role(i).String()
		if r, ok := platform.RoleByName(rn); ok && r == platform.Role(i) {
			out = append(out, rn)
		}
	}
	return out
}

// editDistance is the Levenshtein distance between two short strings.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		return 1 << 30
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// FindRequest is one search of an application's tree: find_elements and
// 'uiscope find'.
type FindRequest struct {
	// Query holds the criteria and Limit; its Within is set from Within.
	Query Query
	// Within is the ref of the subtree to search; "" for the whole tree.
	Within string
	// TimeoutMs is the deadline for reading the tree; nil for
	// DefaultTimeoutMs.
	TimeoutMs *int
	// SkipActions leaves action names out of the read (a call per
	// actionable element saved) for a caller that does not show them.
	SkipActions bool
	// Fresh resolves Within in the tree this call reads (read.go).
	Fresh bool
	// Fields are the optional element fields to give (FieldKey).
	Fields Fields
}

// Validate checks the request: the query's criteria (Query.Compile), the
// deadline and the form of Within.
func (r *FindRequest) Validate() error {
	if _, err := r.Query.Compile(); err != nil {
		return AsError(err)
	}
	if _, err := Timeout(r.TimeoutMs); err != nil {
		return err
	}
	if err := r.Fields.Validate(); err != nil {
		return err
	}
	return validRef(r.Within)
}

// FindRead is the outcome of a FindRequest.
type FindRead struct {
	Tree     *Tree
	Stats    platform.TreeStats
	Elements []*Element // never nil
	Find     FindStats
	// TextUnread counts the elements whose text a text criterion needed
	// and the search could not read (the deadline, MaxTextReads): no
	// match among them proves nothing.
	TextUnread int
}

// Find reads the session's application's tree afresh (it becomes the
// session's last read) and searches it, once req is valid
// (FindRequest.Validate) and the session's identity checked (Get).
func (m *Sessions) Find(ctx context.Context, sessionID string, req FindRequest) (*FindRead, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	s, err := m.Get(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	limit, err := Timeout(req.TimeoutMs)
	if err != nil {
		return nil, err
	}
	if err := textInSession(s, req.Query); err != nil {
		return nil, err
	}
	// One deadline for the tree read and the text reads.
	tctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	t, st, within, err := m.fetchAt(ctx, s, req.Within, req.Fresh, limit, platform.TreeOptions{Actions: !req.SkipActions})
	if err != nil {
		return nil, err
	}
	q := req.Query
	q.Within = within
	unread := m.readTexts(tctx, s, t, &q, within)
	els, fs, err := t.Find(q)
	if err != nil {
		return nil, AsError(err)
	}
	if els == nil {
		els = []*Element{}
	}
	showTexts(els, q.texts)
	req.Fields.trim(els...)
	return &FindRead{Tree: t, Stats: st, Elements: els, Find: fs, TextUnread: unread}, nil
}

// textInSession refuses a text criterion in a visual session: native
// windows hold no text.
func textInSession(s *Session, q Query) error {
	if q.Text != "" && s.Mode == ModeVisual {
		return Errorf(CodeNotSupported, "native windows hold no text, so the text criterion cannot match in a visual session; search by name here, or connect with mode \"a11y\"")
	}
	return nil
}

// readTexts reads live the text of the elements under within (a position)
// that q's text criterion can match only by it (Matcher.textUnread), at
// most MaxTextReads of them, by ctx's deadline, and keeps it in q for the
// match. It returns how many it could not read for want of time or room
// (or of a platform that reads texts); an element that has no text to
// read, or hides it, is not counted.
func (m *Sessions) readTexts(ctx context.Context, s *Session, t *Tree, q *Query, within int) int {
	if q.Text == "" || within < 0 || within >= t.Len() {
		return 0
	}
	mt, err := q.Compile()
	if err != nil {
		return 0
	}
	var nodes []*platform.Node
	unread := 0
	for id := within; id < t.end[within]; id++ {
		if n := t.nodes[id]; mt.textUnread(n) {
			if len(nodes) == MaxTextReads {
				unread++
				continue
			}
			nodes = append(nodes, n)
		}
	}
	if len(nodes) == 0 {
		return unread
	}
	tr, ok := m.desk.Accessibility.(platform.TextReader)
	if !ok {
		return unread + len(nodes)
	}
	texts, err := tr.Texts(ctx, s.App, nodes, textRunes)
	if q.texts == nil {
		q.texts = map[string]string{}
	}
	for i, n := range nodes {
		switch {
		case i < len(texts) && texts[i] != nil:
			q.texts[n.Key] = strings.ReplaceAll(*texts[i], "\uFFFC", "") // embedded objects: the children say what they hold
		case err != nil:
			unread++
		}
	}
	return unread
}

// showTexts gives an unnamed element found by a text read live the text
// as its value (cut as a tree read cuts one): what it was found by.
func showTexts(els []*Element, texts map[string]string) {
	for _, e := range els {
		t, ok := texts[e.Key]
		if !ok || e.Name != "" || e.Value != nil || e.Redacted {
			continue
		}
		over := false
		if r := []rune(t); len(r) > platform.MaxValueRunes {
			t, over = string(r[:platform.MaxValueRunes]), true
		}
		e.Value, e.ValueTruncated = &t, over
	}
}
