//go:build linux

package atspi

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/godbus/dbus/v5"

	"github.com/uiscope/uiscope/internal/platform"
)

// Tables by row and column. org.a11y.atspi.Table answers for any cell of a
// table, on screen or not: LibreOffice Calc (7.4) gives an accessible for
// a cell a million rows down and its text, where its child list holds
// 2^31-1 entries nobody can walk. So a range of cells is read as a grid:
// GetAccessibleAt per cell, then each cell's role, state and character
// count, then its text, each round pipelined (batch.go).

// tableSizeCalls is how many calls TableSize makes.
const tableSizeCalls = 5

// TableSize reads how many rows and columns a table reports;
// platform.ErrNotSupported when the element has no Table interface.
func (c *Conn) TableSize(ctx context.Context, key string) (rows, columns int, err error) {
	bus, path, err := ParseKey(key)
	if err != nil {
		return 0, 0, err
	}
	var (
		role   platform.Role
		states platform.StateSet
		ifaces []string
		nr, nc int32
		first  error
	)
	fail := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	b := c.newBatch(ctx)
	defer b.close()
	b.add(bus, path, ifaceAccessible+".GetRole", func(call *dbus.Call) {
		var r uint32
		if fail(call.Err); call.Err == nil && call.Store(&r) == nil {
			role = platform.Role(r)
		}
	})
	b.add(bus, path, ifaceAccessible+".GetState", func(call *dbus.Call) {
		var words []uint32
		if fail(call.Err); call.Err == nil && call.Store(&words) == nil {
			states = platform.StateSetFromWords(words)
		}
	})
	b.add(bus, path, ifaceAccessible+".GetInterfaces", func(call *dbus.Call) {
		if fail(call.Err); call.Err == nil {
			_ = call.Store(&ifaces)
		}
	})
	// Asked at once with the interfaces: on an element without Table they
	// fail, and that failure is read as the interface list says.
	b.get(bus, path, ifaceTable, "NRows", func(v any, err error) { nr, _ = v.(int32) })
	b.get(bus, path, ifaceTable, "NColumns", func(v any, err error) { nc, _ = v.(int32) })
	b.wait()
	if err := ctx.Err(); err != nil {
		return 0, 0, mapErr(err)
	}
	if first != nil {
		return 0, 0, mapErr(first)
	}
	if states.Has(platform.StateDefunct) {
		return 0, 0, platform.ErrElementGone
	}
	if !slices.Contains(ifaces, ifaceTable) {
		return 0, 0, fmt.Errorf("%w: a %s has no Table interface", platform.ErrNotSupported, role)
	}
	return max(0, int(nr)), max(0, int(nc)), nil
}

// tableCell is one cell during a read.
type tableCell struct {
	ref    objRef
	role   platform.Role
	states platform.StateSet
	count  int32
	noText bool // CharacterCount failed: the cell has no Text interface
	err    error
}

// TableCells reads the cells of rows[0]..rows[1] and columns[0]..columns[1]
// (inclusive), with their headers, in three pipelined rounds. The
// application's read lock is held throughout, so that two readers of one
// app take turns (each within its own deadline) rather than interleave.
//
// A password cell, or a single-line text field that may hide what it holds
// (hidden.go: GTK 4 entries hide without saying so), is never read: the
// read does not even ask which interfaces it has, so any text or entry
// cell that is not multi-line counts as one that may hide.
func (c *Conn) TableCells(ctx context.Context, key string, rows, columns [2]int) (*platform.TableCells, error) {
	bus, path, err := ParseKey(key)
	if err != nil {
		return nil, err
	}
	nr, nc, err := c.TableSize(ctx, key)
	if err != nil {
		return nil, err
	}
	if rows[0] < 0 || rows[0] > rows[1] || rows[1] >= nr || columns[0] < 0 || columns[0] > columns[1] || columns[1] >= nc {
		return nil, fmt.Errorf("%w: rows %d..%d, columns %d..%d of a table of %d rows and %d columns",
			platform.ErrOutOfRange, rows[0], rows[1], columns[0], columns[1], nr, nc)
	}
	unlock, err := c.lockApp(ctx, bus)
	if err != nil {
		return nil, err
	}
	defer unlock()

	height, width := rows[1]-rows[0]+1, columns[1]-columns[0]+1
	cells := make([]tableCell, height*width)
	out := &platform.TableCells{Cells: make([]platform.TableCell, len(cells))}
	colHead := make([]objRef, width)
	rowHead := make([]objRef, height)
	storeRef := func(dst *objRef, errp *error) func(*dbus.Call) {
		return func(call *dbus.Call) {
			if call.Err != nil {
				if errp != nil {
					*errp = call.Err
				}
				return
			}
			_ = call.Store(dst)
		}
	}

	// Round 1: the cells and the headers.
	b := c.newBatch(ctx)
	defer b.close()
	for i := range cells {
		r, col := rows[0]+i/width, columns[0]+i%width
		out.Cells[i].Row, out.Cells[i].Column = r, col
		b.add(bus, path, ifaceTable+".GetAccessibleAt", storeRef(&cells[i].ref, &cells[i].err), int32(r), int32(col))
	}
	for j := range colHead {
		b.add(bus, path, ifaceTable+".GetColumnHeader", storeRef(&colHead[j], nil), int32(columns[0]+j))
	}
	for j := range rowHead {
		b.add(bus, path, ifaceTable+".GetRowHeader", storeRef(&rowHead[j], nil), int32(rows[0]+j))
	}
	b.wait()
	if err := ctx.Err(); err != nil {
		return nil, mapErr(err)
	}

	// Round 2: what each cell is and how much text it has; the headers'
	// names.
	names := func(refs []objRef) []string {
		var out []string
		for j, h := range refs {
			if h.null() {
				continue
			}
			if out == nil {
				out = make([]string, len(refs))
			}
			b.get(h.Bus, h.Path, ifaceAccessible, "Name", func(v any, err error) { out[j], _ = v.(string) })
		}
		return out
	}
	for i := range cells {
		cl := &cells[i]
		if cl.err != nil {
			continue
		}
		if cl.ref.null() {
			cl.err = fmt.Errorf("the table gave no cell at row %d, column %d", out.Cells[i].Row, out.Cells[i].Column)
			continue
		}
		b.add(cl.ref.Bus, cl.ref.Path, ifaceAccessible+".GetRole", func(call *dbus.Call) {
			var r uint32
			if call.Err != nil {
				cl.err = call.Err
			} else if call.Store(&r) == nil {
				cl.role = platform.Role(r)
			}
		})
		b.states(cl.ref.Bus, cl.ref.Path, func(s platform.StateSet, err error) {
			cl.states, cl.err = s, cmp.Or(cl.err, err)
		})
		b.get(cl.ref.Bus, cl.ref.Path, ifaceText, "CharacterCount", func(v any, err error) {
			n, ok := v.(int32)
			cl.count, cl.noText = n, err != nil || !ok
		})
	}
	// The names handed out are filled in by b.wait below.
	colNames, rowNames := names(colHead), names(rowHead)
	b.wait()
	if err := ctx.Err(); err != nil {
		return nil, mapErr(err)
	}
	out.ColumnHeaders = c.headersAgain(b, bus, path, "GetColumnHeader", columns[0], colNames)
	out.RowHeaders = c.headersAgain(b, bus, path, "GetRowHeader", rows[0], rowNames)

	// Round 3: the text of every cell that may be read: its Text content
	// up to one rune past the cap (to know it was cut), never past the
	// count (Qt 5 and Firefox answer an end past it with ""), or its name
	// when it has no Text.
	texts := make([]string, len(cells))
	got := make([]bool, len(cells))
	for i := range cells {
		cl, oc := &cells[i], &out.Cells[i]
		switch {
		case cl.err != nil:
			oc.Err = mapErr(cl.err).Error()
			continue
		case cl.states.Has(platform.StateDefunct):
			oc.Err = platform.ErrElementGone.Error()
			continue
		case cellMayHide(cl.role, cl.states):
			oc.Redacted = true
			continue
		case !cl.noText && cl.count <= 0:
			texts[i], got[i] = "", true
			continue
		}
		if cl.noText {
			b.get(cl.ref.Bus, cl.ref.Path, ifaceAccessible, "Name", func(v any, err error) {
				if err != nil {
					out.Cells[i].Err = mapErr(err).Error()
					return
				}
				texts[i], got[i] = v.(string)
			})
			continue
		}
		b.add(cl.ref.Bus, cl.ref.Path, ifaceText+".GetText", func(call *dbus.Call) {
			if call.Err == nil && call.Store(&texts[i]) == nil {
				got[i] = true
			} else if call.Err != nil {
				out.Cells[i].Err = mapErr(call.Err).Error()
			}
		}, int32(0), int32(min(int(cl.count), platform.MaxValueRunes+1)))
	}
	b.wait()
	if err := ctx.Err(); err != nil {
		return nil, mapErr(err)
	}
	if err := c.expandEmbedded(b, cells, texts, got, out.Cells); err != nil {
		return nil, err
	}
	if err := c.expandContainers(b, cells, texts, got, out.Cells); err != nil {
		return nil, err
	}
	for i := range out.Cells {
		if !got[i] {
			continue
		}
		s := texts[i]
		if utf8.RuneCountInString(s) > platform.MaxValueRunes || int(cells[i].count) > platform.MaxValueRunes {
			s = string([]rune(s)[:min(utf8.RuneCountInString(s), platform.MaxValueRunes)])
			out.Cells[i].Truncated = true
		}
		out.Cells[i].Text = &s
	}
	out.Calls = b.sent + tableSizeCalls
	return out, nil
}

// headersAgain reads the headers one at a time, each name right after its
// header, when names read in one round repeat: Java's ATK wrapper answers
// each GetColumnHeader with a new object, but every one of them takes the
// name of the header asked for last (a Swing table's "City", "Country",
// "Population" all read "Population"). names starts at header first.
func (c *Conn) headersAgain(b *batch, bus string, path dbus.ObjectPath, method string, first int, names []string) []string {
	seen := map[string]bool{}
	again := false
	for _, n := range names {
		again = again || n != "" && seen[n]
		seen[n] = true
	}
	if !again {
		return names
	}
	out := make([]string, len(names))
	for j := range out {
		var h objRef
		b.add(bus, path, ifaceTable+"."+method, func(call *dbus.Call) {
			if call.Err == nil {
				_ = call.Store(&h)
			}
		}, int32(first+j))
		b.wait()
		if h.null() {
			continue
		}
		b.get(h.Bus, h.Path, ifaceAccessible, "Name", func(v any, err error) { out[j], _ = v.(string) })
		b.wait()
	}
	return out
}

// cellMayHide reports whether a cell's text must not be read: a password
// field, or a single-line text field (which may hide its text: hidden.go).
func cellMayHide(role platform.Role, states platform.StateSet) bool {
	if role == platform.RolePasswordText {
		return true
	}
	return (role == roleText || role == roleEntry) && !states.Has(stateMultiLine)
}

// expandEmbedded puts, for the cells whose text holds embedded objects
// (Firefox and Chromium give a cell holding a link the text "\uFFFC"), each
// object's name in its place (withEmbedded), from the cell's children read
// here: their roles and states, then the names of those that are objects
// and no password field (whose names are redacted too: docs/api.md). A
// cell holding a password field is not read (Redacted); one whose object
// is gone or unreadable has Err. A child's text is never read, only its
// name. Three pipelined rounds on b, for those cells alone.
func (c *Conn) expandEmbedded(b *batch, cells []tableCell, texts []string, got []bool, out []platform.TableCell) error {
	type child struct {
		ref  objRef
		node platform.Node
		err  error
	}
	kids := map[int][]child{}
	for i := range cells {
		if !got[i] || !strings.ContainsRune(texts[i], embeddedObject) {
			continue
		}
		ref := cells[i].ref
		kids[i] = nil
		b.add(ref.Bus, ref.Path, ifaceAccessible+".GetChildren", func(call *dbus.Call) {
			var refs []objRef
			if call.Err != nil || call.Store(&refs) != nil {
				return
			}
			ks := make([]child, len(refs))
			for j, r := range refs {
				ks[j].ref = r
			}
			kids[i] = ks
		})
	}
	if len(kids) == 0 {
		return nil
	}
	b.wait()
	for _, ks := range kids {
		for j := range ks {
			k := &ks[j]
			if k.ref.null() {
				continue
			}
			b.kind(k.ref, &k.node.Role, &k.node.States, &k.err)
		}
	}
	b.wait()
	for _, ks := range kids {
		for j := range ks {
			k := &ks[j]
			if k.ref.null() || k.err != nil || k.node.Role == roleStatic || k.node.IsPassword() {
				continue
			}
			b.get(k.ref.Bus, k.ref.Path, ifaceAccessible, "Name", func(v any, err error) {
				if err != nil {
					k.err = err
				}
				k.node.Name, _ = v.(string)
			})
		}
	}
	b.wait()
	if err := b.ctx.Err(); err != nil {
		return mapErr(err)
	}
	for i, ks := range kids {
		nodes := make([]*platform.Node, len(ks))
		var bad error
		for j := range ks {
			k := &ks[j]
			nodes[j] = &k.node
			if k.node.Role != roleStatic && bad == nil && (k.err != nil || k.node.States.Has(platform.StateDefunct)) {
				bad = cmp.Or(k.err, platform.ErrElementGone)
			}
		}
		text, ok := withEmbedded(texts[i], nodes)
		switch {
		case !ok:
			got[i], out[i].Redacted = false, true
		case bad != nil:
			got[i], out[i].Err = false, "an object in the cell could not be read: "+mapErr(bad).Error()
		default:
			texts[i] = text
		}
	}
	return nil
}

// expandContainers gives the cells that are containers of other cells
// their children's text: a GTK 3 tree view column drawn by several
// renderers (an icon and a name: GNOME System Monitor's Process Name, the
// file chooser's Name) is a cell with no text and no name whose children,
// one a renderer, carry it (atk-bridge answers its CharacterCount with 0,
// though it has no Text). For each cell that reads "":
// its children, then each child's role, state and character count, then
// the text of those with some, joined by a space, in pipelined rounds for
// those cells alone. A child that may hide its text makes the cell
// Redacted; one that cannot be read gives the cell Err.
func (c *Conn) expandContainers(b *batch, cells []tableCell, texts []string, got []bool, out []platform.TableCell) error {
	type child struct {
		tableCell
		text string
	}
	kids := map[int][]child{}
	asked := false
	for i := range cells {
		if !got[i] || texts[i] != "" {
			continue
		}
		ref := cells[i].ref
		asked = true
		b.add(ref.Bus, ref.Path, ifaceAccessible+".GetChildren", func(call *dbus.Call) {
			var refs []objRef
			if call.Err != nil || call.Store(&refs) != nil || len(refs) == 0 {
				return
			}
			ks := make([]child, len(refs))
			for j, r := range refs {
				ks[j].ref = r
			}
			kids[i] = ks
		})
	}
	if !asked {
		return nil
	}
	b.wait()
	if len(kids) == 0 {
		return mapErr(b.ctx.Err())
	}
	for _, ks := range kids {
		for j := range ks {
			k := &ks[j]
			if k.ref.null() {
				continue
			}
			b.kind(k.ref, &k.role, &k.states, &k.err)
			b.get(k.ref.Bus, k.ref.Path, ifaceText, "CharacterCount", func(v any, err error) {
				n, ok := v.(int32)
				k.count, k.noText = n, err != nil || !ok
			})
		}
	}
	b.wait()
	for _, ks := range kids {
		for j := range ks {
			k := &ks[j]
			if k.ref.null() || k.err != nil || k.noText || k.count <= 0 || cellMayHide(k.role, k.states) {
				continue
			}
			b.add(k.ref.Bus, k.ref.Path, ifaceText+".GetText", func(call *dbus.Call) {
				if k.err = call.Err; call.Err == nil {
					_ = call.Store(&k.text)
				}
			}, int32(0), int32(min(int(k.count), platform.MaxValueRunes+1)))
		}
	}
	b.wait()
	if err := b.ctx.Err(); err != nil {
		return mapErr(err)
	}
	for i, ks := range kids {
		var parts []string
		var bad error
		hide := false
		for j := range ks {
			k := &ks[j]
			switch {
			case k.ref.null():
			case k.err != nil || k.states.Has(platform.StateDefunct):
				bad = cmp.Or(bad, k.err, platform.ErrElementGone)
			case cellMayHide(k.role, k.states):
				hide = true
			case k.text != "":
				parts = append(parts, k.text)
			}
		}
		switch {
		case hide:
			got[i], out[i].Redacted = false, true
		case bad != nil:
			got[i], out[i].Err = false, "a part of the cell could not be read: "+mapErr(bad).Error()
		default:
			texts[i] = strings.Join(parts, " ")
		}
	}
	return nil
}

// kind queues a GetRole and a GetState for ref, into role and states; the
// first call that fails leaves its error in *errp.
func (b *batch) kind(ref objRef, role *platform.Role, states *platform.StateSet, errp *error) {
	b.add(ref.Bus, ref.Path, ifaceAccessible+".GetRole", func(call *dbus.Call) {
		var r uint32
		if call.Err != nil {
			*errp = cmp.Or(*errp, call.Err)
		} else if call.Store(&r) == nil {
			*role = platform.Role(r)
		}
	})
	b.states(ref.Bus, ref.Path, func(s platform.StateSet, err error) {
		*states, *errp = s, cmp.Or(*errp, err)
	})
}
