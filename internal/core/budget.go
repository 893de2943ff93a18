package core

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/uiscope/uiscope/internal/platform"
)

// Byte budgets. Hosts cap what one tool result may put in a model's context
// (Claude Code at 25,000 tokens), and a tree answer is the one that grows
// with the app. A render with a byte budget (ViewOptions.MaxBytes) keeps the
// tree within it, cutting breadth-first (render); a tree request's budget
// (TreeRequest.MaxBytes) is the whole answer's, of which answerReserve is
// left for the answer's other fields.
const (
	// DefaultMaxBytes keeps a default tree answer at about 8,000 to 11,000
	// tokens of JSON text (3 to 4 bytes a token), and both copies an MCP
	// result carries (the text block and structuredContent) under about
	// 70 KB, within the ~20,000 tokens a host allows a result even when it
	// counts both.
	DefaultMaxBytes = 32000
	// MinMaxBytes leaves room for the answer's other fields and a start
	// element.
	MinMaxBytes = 2000
	// MaxMaxBytes is far above any tree a walk of MaxMaxNodes gives.
	MaxMaxBytes = 100_000_000
	// answerReserve is the part of a tree request's budget left to what
	// the answer holds besides the tree: session, counts, the fetch's
	// figures and the note saying how to read on (the MCP layer's tests
	// keep those within it).
	answerReserve = 1500
)

// Cut is an element whose children a budget (maxNodes or maxBytes) left
// out: where an agent reads on.
type Cut struct {
	Pos     int // position, as Lookup returns it
	Omitted int // its children left out
}

// maxCuts is how many cuts RenderStats keeps: the largest.
const maxCuts = 3

// renderFormat is what a render's byte budget measures.
type renderFormat int

const (
	formatJSON    renderFormat = iota // the root Element's JSON
	formatOutline                     // the outline text as a JSON string's contents
)

// Bytes of the parts of a render besides the elements themselves.
const (
	// `,"children":[` and `]` around a JSON element's children.
	jsonChildrenBytes = len(`,"children":[]`)
	// `,"childrenOmitted":` before the count.
	jsonOmittedBytes = len(`,"childrenOmitted":`)
	// "… " and " more" around an outline marker's count, and its newline
	// as a JSON string has it (\n).
	outlineMarkerBytes = len("… ") + len(" more") + len(`\n`)
)

// markerBytes is the most the mark of n children left out costs, for a
// node whose children would be at level.
func markerBytes(f renderFormat, level, n int) int {
	if n == 0 {
		return 0
	}
	digits := len(strconv.Itoa(n))
	if f == formatJSON {
		return jsonOmittedBytes + digits
	}
	return 2*level + outlineMarkerBytes + digits
}

// nodeBytes is what r's element costs at level, children and marks aside;
// it keeps what it built in r (the element, or the outline line) for the
// output.
func (t *Tree) nodeBytes(f renderFormat, r *rnode, level int, keys bool, scratch *[]byte) int {
	if f == formatJSON {
		r.el = t.shownElement(r.id, keys)
		*scratch = r.el.AppendJSON((*scratch)[:0])
		return len(*scratch)
	}
	r.line, _ = t.OutlineLine(r.id)
	return 2*level + jsonStringLen(r.line) + len(`\n`)
}

// jsonStringLen is the length of s as encoding/json writes it inside a
// string (HTML-escaped, as json.Marshal does), quotes aside.
func jsonStringLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
				n += 2
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 6 // \ufffd
		case r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

const hexDigits = "0123456789abcdef"

// jsonSafe marks the ASCII bytes json.Marshal writes as they are inside a
// string: not a control character, quote, backslash, or one of <, >, &
// (which it escapes for HTML).
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// jsonSafeNoHTML is jsonSafe with <, > and & written as they are.
var jsonSafeNoHTML = func() (t [utf8.RuneSelf]bool) {
	t = jsonSafe
	t['<'], t['>'], t['&'] = true, true, true
	return t
}()

// appendJSONString appends s as json.Marshal writes a string (HTML-escaped,
// invalid UTF-8 as U+FFFD).
func appendJSONString(b []byte, s string) []byte { return AppendJSONString(b, s, true) }

// AppendJSONString appends s as encoding/json writes a string: invalid
// UTF-8 as U+FFFD, and <, > and & escaped when escapeHTML is set, as
// json.Marshal does and an Encoder told SetEscapeHTML(false) does not.
func AppendJSONString(b []byte, s string, escapeHTML bool) []byte {
	b = append(b, '"')
	b = AppendJSONStringContent(b, s, escapeHTML)
	return append(b, '"')
}

// AppendJSONStringContent is AppendJSONString without the quotes. A string
// cut where a rune starts (utf8.RuneStart) is written the same in pieces
// as whole.
func AppendJSONStringContent(b []byte, s string, escapeHTML bool) []byte {
	safe := &jsonSafe
	if !escapeHTML {
		safe = &jsonSafeNoHTML
	}
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if safe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(b, s[start:]...)
}

func appendStrings(b []byte, name string, list []string) []byte {
	b = append(b, name...)
	if list == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

func appendPair(b []byte, name string, v *[2]int) []byte {
	b = append(b, name...)
	b = append(b, '[')
	b = strconv.AppendInt(b, int64(v[0]), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(v[1]), 10)
	return append(b, ']')
}

// AppendJSON appends e as json.Marshal writes it, children included, at a
// fraction of its cost (no reflection): the exact size a render's byte
// budget counts, and how the MCP layer writes a tree answer (budget_test.go
// checks the two agree for every field).
func (e *Element) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, e.ID)
	b = append(b, `,"ref":`...)
	b = appendJSONString(b, e.Ref)
	if e.Key != "" {
		b = append(b, `,"key":`...)
		b = appendJSONString(b, e.Key)
	}
	b = append(b, `,"role":`...)
	b = appendJSONString(b, e.Role)
	if e.Name != "" {
		b = append(b, `,"name":`...)
		b = appendJSONString(b, e.Name)
	}
	if e.Description != "" {
		b = append(b, `,"description":`...)
		b = appendJSONString(b, e.Description)
	}
	if e.AccessibleID != "" {
		b = append(b, `,"accessibleId":`...)
		b = appendJSONString(b, e.AccessibleID)
	}
	b = appendStrings(b, `,"states":`, e.States)
	if r := e.Bounds; r != nil {
		b = append(b, `,"bounds":{"x":`...)
		b = strconv.AppendInt(b, int64(r.X), 10)
		b = append(b, `,"y":`...)
		b = strconv.AppendInt(b, int64(r.Y), 10)
		b = append(b, `,"width":`...)
		b = strconv.AppendInt(b, int64(r.Width), 10)
		b = append(b, `,"height":`...)
		b = strconv.AppendInt(b, int64(r.Height), 10)
		b = append(b, '}')
	}
	if e.BoundsUnknown {
		b = append(b, `,"boundsUnknown":true`...)
	}
	if len(e.Interfaces) > 0 {
		b = appendStrings(b, `,"interfaces":`, e.Interfaces)
	}
	if len(e.Actions) > 0 {
		b = appendStrings(b, `,"actions":`, e.Actions)
	}
	if e.Redacted {
		b = append(b, `,"redacted":true`...)
	}
	if e.Value != nil {
		b = append(b, `,"value":`...)
		b = appendJSONString(b, *e.Value)
	}
	if e.ValueTruncated {
		b = append(b, `,"valueTruncated":true`...)
	}
	if e.ChildCount != 0 {
		b = append(b, `,"childCount":`...)
		b = strconv.AppendInt(b, int64(e.ChildCount), 10)
	}
	if len(e.Children) > 0 {
		b = append(b, `,"children":[`...)
		for i, c := range e.Children {
			if i > 0 {
				b = append(b, ',')
			}
			if c == nil {
				b = append(b, "null"...)
				continue
			}
			b = c.AppendJSON(b)
		}
		b = append(b, ']')
	}
	if e.ChildrenOmitted != 0 {
		b = append(b, `,"childrenOmitted":`...)
		b = strconv.AppendInt(b, int64(e.ChildrenOmitted), 10)
	}
	if e.ChildrenPartial {
		b = append(b, `,"childrenPartial":true`...)
	}
	if cr := e.ChildrenRange; cr != nil {
		b = append(b, `,"childrenRange":{`...)
		sep := ""
		if cr.Rows != nil {
			b = appendPair(b, `"rows":`, cr.Rows)
			sep = ","
		}
		if cr.Columns != nil {
			b = appendPair(b, sep+`"columns":`, cr.Columns)
			sep = ","
		}
		for _, f := range []struct {
			name string
			v    *int
		}{{`"rowCount":`, cr.RowCount}, {`"columnCount":`, cr.ColumnCount}, {`"first":`, cr.First}, {`"count":`, cr.Count}} {
			if f.v != nil {
				b = append(append(b, sep...), f.name...)
				b = strconv.AppendInt(b, int64(*f.v), 10)
				sep = ","
			}
		}
		for _, f := range []struct {
			name string
			v    bool
		}{{`"moreBefore":true`, cr.MoreBefore}, {`"moreAfter":true`, cr.MoreAfter}} {
			if f.v {
				b = append(append(b, sep...), f.name...)
				sep = ","
			}
		}
		b = append(b, '}')
	}
	if e.Error != "" {
		b = append(b, `,"error":`...)
		b = appendJSONString(b, e.Error)
	}
	return append(b, '}')
}

// CutBy names the budget that cut the answer short: "maxBytes",
// "maxNodes", or "" when neither did.
func (r *TreeRead) CutBy() string {
	switch {
	case r.Render.BytesHit:
		return "maxBytes"
	case r.Render.BudgetHit:
		return "maxNodes"
	}
	return ""
}

// ReadOnNote says what a budget left out of the answer and how to read the
// rest: "" when no budget cut it. flags names the CLI's flags instead of
// get_a11y_tree's arguments.
func (r *TreeRead) ReadOnNote(flags bool) string {
	by := r.CutBy()
	if by == "" {
		return ""
	}
	arg := func(name, flag string) string {
		if flags {
			return flag
		}
		return name
	}
	rs := r.Render
	limit := fmt.Sprintf("%s %d", arg("maxBytes", "--max-bytes"), r.MaxBytes)
	raise := fmt.Sprintf("raise %s (at most %d)", arg("maxBytes", "--max-bytes"), MaxMaxBytes)
	if by == "maxNodes" {
		limit = arg("maxNodes", "--max-nodes")
		raise = fmt.Sprintf("raise %s (at most %d)", limit, MaxMaxNodes)
	}
	mark := `a line "… N more"`
	if r.Format == FormatJSON {
		mark = "childrenOmitted"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d elements left out by %s, cut breadth-first: the upper levels are whole, and an element whose children were left out says how many (%s). Read on from such an element: %s its ref",
		rs.Omitted, rs.Nodes+rs.Omitted, limit, mark, arg("get_a11y_tree with element set to", "--element"))
	table := ""
	for i, c := range rs.Cuts {
		sep := ", "
		if i == 0 {
			sep = " (the largest cuts: "
		}
		n := r.Tree.nodes[c.Pos]
		fmt.Fprintf(&b, "%s%s %s, %d", sep, r.Tree.RefString(c.Pos), n.Role, c.Omitted)
		if table == "" && (n.Role == platform.RoleTable || hasInterface(n, "table")) {
			table = r.Tree.RefString(c.Pos)
		}
	}
	if len(rs.Cuts) > 0 {
		b.WriteString(")")
	}
	fmt.Fprintf(&b, "; narrow with %s or %s visible, control or content", arg("depth", "--depth"), arg("view", "--view"))
	if r.Format == FormatJSON {
		fmt.Fprintf(&b, "; %s is a fraction of json's size", arg(`format "outline"`, "--format outline"))
	}
	if table != "" {
		fmt.Fprintf(&b, "; the read_table tool reads a table's cells by row and column (%s)", table)
	} else {
		b.WriteString("; the read_table tool reads a table's cells")
	}
	b.WriteString("; or " + raise + ".")
	return b.String()
}

// Bounding a view's JSON without writing it.
//
// A budget measures every element it keeps by writing its JSON (nodeBytes),
// and the answer writes it again. A whole-tree read under a budget it could
// never reach (maxBytes raised to read everything) would pay twice for
// nothing: render skips the measure when jsonBound, no less than the view's
// JSON, is within the budget. The bound counts every string as if each of
// its bytes were escaped six bytes long (\u00XX, \ufffd, \u2028 are the
// most encoding/json makes of one byte), and every key, number, flag and
// mark an element may write as jsonElementFixed; budget_test.go holds it
// above the JSON of a node whose every field is as long as it can be.

// jsonElementFixed bounds what an element writes besides its strings: keys,
// ids, bounds, counts, flags, the child range, the children's brackets and
// mark, and the comma before it.
const jsonElementFixed = 1024

// stateJSON is what each state writes in an element's states: its name as
// a JSON string, and a comma.
var stateJSON = func() (t [64]int) {
	for i := range t {
		for _, name := range platform.StateSet(1 << i).Names() {
			t[i] += jsonStringLen(name) + len(`"",`)
		}
	}
	return t
}()

// jsonBound is at least the JSON of the view's elements under scope, marks
// and brackets included.
func (t *Tree) jsonBound(scope int, keep []bool, keys bool) int {
	total := 0
	for i := scope; i < t.end[scope]; i++ {
		if keep != nil && !keep[i] && i != scope {
			continue
		}
		n := t.nodes[i]
		b := jsonElementFixed + jsonStringLen(n.Role.String()) + 6*(len(n.Name)+len(n.Description)+len(n.AccessibleID)+len(n.Err))
		if keys {
			b += 6 * len(n.Key)
		}
		if n.Value != nil {
			b += 6 * len(*n.Value)
		}
		for set := uint64(n.States); set != 0; set &= set - 1 {
			b += stateJSON[bits.TrailingZeros64(set)]
		}
		for _, s := range n.Interfaces {
			b += 6*len(s) + 3
		}
		for _, s := range n.Actions {
			b += 6*len(s) + 3
		}
		total += b
	}
	return total
}
