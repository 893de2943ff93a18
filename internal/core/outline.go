package core

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/uiscope/uiscope/internal/platform"
)

// outlineNameRunes is where the outline cuts names (and errors).
const outlineNameRunes = 80

var (
	statePressed       = mustState("pressed")
	stateIndeterminate = mustState("indeterminate")
	roleTableCell      = mustRole("table cell")
)

// Outline renders the tree like Render but as compact text for agents: one
// line per element, indented two spaces per level:
//
//	role "name" [a11y:e12] state state @x,y wxh
//
// for example `push button "Save" [a11y:e12] focused @10,20 80x30`.
//
//   - The name is omitted when empty, quoted with Go escaping, and cut at 80
//     runes with "…". A redacted element prints (redacted) in its place.
//   - The value follows as = "…", cut the same way; a table cell whose
//     value is its name (GTK's cells are named by their text) prints it
//     once, as its name.
//   - Only the states that tell an agent something are printed, in this
//     order: focused, checked, selected, expanded, collapsed (an expandable
//     element that is not expanded), pressed, indeterminate, editable, and
//     disabled (neither sensitive nor enabled; not printed when the element
//     reported no states at all, i.e. they could not be read).
//   - Bounds are omitted when the element has none or they are empty;
//     "@unknown" stands for them when its window could not be told
//     (BoundsUnknown).
//   - An element whose details could not be read ends with error="…".
//   - Where children were left out (depth, budget), a line "… N more" at
//     the child level says how many.
func (t *Tree) Outline(opts ViewOptions) (string, RenderStats, error) {
	opts, err := t.normalize(opts)
	if err != nil {
		return "", RenderStats{}, err
	}
	r, stats := t.render(opts, formatOutline)
	var b strings.Builder
	t.writeOutline(&b, r, 0)
	return b.String(), stats, nil
}

func (t *Tree) writeOutline(b *strings.Builder, r *rnode, level int) {
	indent(b, level)
	if r.line != "" {
		b.WriteString(r.line)
	} else {
		t.writeLine(b, r.id)
	}
	b.WriteByte('\n')
	for _, k := range r.kids {
		t.writeOutline(b, k, level+1)
	}
	if r.omitted > 0 {
		indent(b, level+1)
		b.WriteString("… ")
		b.WriteString(strconv.Itoa(r.omitted))
		b.WriteString(" more\n")
	}
}

func indent(b *strings.Builder, level int) {
	for range level {
		b.WriteString("  ")
	}
}

// OutlineLine is one element's outline line, without indentation.
func (t *Tree) OutlineLine(id int) (string, bool) {
	if id < 0 || id >= len(t.nodes) {
		return "", false
	}
	var b strings.Builder
	t.writeLine(&b, id)
	return b.String(), true
}

func (t *Tree) writeLine(b *strings.Builder, id int) {
	n := t.nodes[id]
	b.WriteString(n.Role.String())
	switch {
	case n.Redacted:
		b.WriteString(" (redacted)")
	case n.Name != "":
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(cutRunes(n.Name, outlineNameRunes)))
	}
	if n.Value != nil && !n.Redacted && !(n.Role == roleTableCell && *n.Value == n.Name) {
		b.WriteString(" = ")
		b.WriteString(strconv.Quote(cutRunes(*n.Value, outlineNameRunes)))
	}
	b.WriteString(" [")
	b.WriteString(t.RefString(id))
	b.WriteByte(']')
	for _, s := range outlineStates(n.States) {
		b.WriteByte(' ')
		b.WriteString(s)
	}
	if r := n.Bounds; r != nil && !r.Empty() {
		b.WriteString(" @")
		b.WriteString(strconv.Itoa(r.X))
		b.WriteByte(',')
		b.WriteString(strconv.Itoa(r.Y))
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(r.Width))
		b.WriteByte('x')
		b.WriteString(strconv.Itoa(r.Height))
	} else if n.BoundsUnknown {
		b.WriteString(" @unknown")
	}
	if n.ChildrenPartial {
		b.WriteString(" (")
		b.WriteString(partialText(n))
		b.WriteByte(')')
	}
	if n.Err != "" {
		b.WriteString(" error=")
		b.WriteString(strconv.Quote(cutRunes(n.Err, outlineNameRunes)))
	}
}

// outlineStates picks the states an outline prints.
func outlineStates(s platform.StateSet) []string {
	var out []string
	add := func(ok bool, name string) {
		if ok {
			out = append(out, name)
		}
	}
	add(s.Has(platform.StateFocused), "focused")
	add(s.Has(platform.StateChecked), "checked")
	add(s.Has(platform.StateSelected), "selected")
	add(s.Has(platform.StateExpanded), "expanded")
	add(s.Has(platform.StateExpandable) && !s.Has(platform.StateExpanded), "collapsed")
	add(s.Has(statePressed), "pressed")
	add(s.Has(stateIndeterminate), "indeterminate")
	add(s.Has(platform.StateEditable), "editable")
	add(s != 0 && !s.Has(platform.StateSensitive) && !s.Has(platform.StateEnabled), "disabled")
	return out
}

// cutRunes cuts s to n runes, marking a cut with "…".
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, count := 0, 0
	for i = range s {
		if count == n {
			break
		}
		count++
	}
	return s[:i] + "…"
}

// partialText says which children a partial container holds, for the
// outline: "rows 0–24, columns 0–7 on screen of 1048576×16384" for a table,
// "children 120–151 on screen of 5000" otherwise.
func partialText(n *platform.Node) string {
	r := n.ChildrenRange
	var b strings.Builder
	switch {
	case r != nil && r.Rows != nil && r.Columns != nil:
		fmt.Fprintf(&b, "rows %d–%d, columns %d–%d on screen", r.Rows[0], r.Rows[1], r.Columns[0], r.Columns[1])
		if r.RowCount != nil && r.ColumnCount != nil {
			fmt.Fprintf(&b, " of %d×%d", *r.RowCount, *r.ColumnCount)
		}
		return b.String()
	case r != nil && (r.MoreBefore || r.MoreAfter):
		// The application holds only what is on screen: the count is not
		// the whole.
		b.WriteString("only what is on screen; more ")
		switch {
		case r.MoreBefore && r.MoreAfter:
			b.WriteString("before and after")
		case r.MoreBefore:
			b.WriteString("before")
		default:
			b.WriteString("after")
		}
		return b.String()
	case r != nil && r.First != nil && r.Count != nil && *r.Count > 0:
		fmt.Fprintf(&b, "children %d–%d on screen", *r.First, *r.First+*r.Count-1)
	default:
		b.WriteString("none on screen")
	}
	fmt.Fprintf(&b, " of %d", n.ChildCount)
	return b.String()
}
