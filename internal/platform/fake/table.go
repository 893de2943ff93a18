package fake

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/uiscope/uiscope/internal/platform"
)

var _ platform.TableReader = (*Desktop)(nil)

// Table is a table element's grid: its cells are made on demand, as a
// spreadsheet's are, so a table of a million rows costs nothing.
type Table struct {
	Rows, Columns int
	// ColumnHeaders and RowHeaders name the headers (nil: none).
	ColumnHeaders, RowHeaders []string
	// Cell returns the cell at row, column: its Name is its text, and a
	// password or redacted cell's text is never read. nil: no cell there.
	Cell func(row, column int) *platform.Node
}

// table finds a table element of a; d.mu is held.
func (d *Desktop) table(a platform.App, key string) (*Table, error) {
	st, n, _, _, err := d.element(a, key)
	if err != nil {
		return nil, err
	}
	t := st.Tables[key]
	if t == nil || !has(n, "table") {
		return nil, fmt.Errorf("%w: a %s has no Table interface", platform.ErrNotSupported, n.Role)
	}
	return t, nil
}

// TableSize is the table's size.
func (d *Desktop) TableSize(ctx context.Context, a platform.App, key string) (int, int, error) {
	if err := d.enter(ctx, "TableSize", a.Pid, true); err != nil {
		return 0, 0, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	t, err := d.table(a, key)
	if err != nil {
		return 0, 0, err
	}
	return t.Rows, t.Columns, nil
}

// TableCells reads a range of the table's cells, as the platform's
// contract says: text capped at platform.MaxValueRunes, never a redacted
// cell's.
func (d *Desktop) TableCells(ctx context.Context, a platform.App, key string, rows, columns [2]int) (*platform.TableCells, error) {
	if err := d.enter(ctx, "TableCells", a.Pid, true); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	t, err := d.table(a, key)
	if err != nil {
		return nil, err
	}
	if rows[0] < 0 || rows[0] > rows[1] || rows[1] >= t.Rows || columns[0] < 0 || columns[0] > columns[1] || columns[1] >= t.Columns {
		return nil, fmt.Errorf("%w: rows %d..%d, columns %d..%d of a table of %d rows and %d columns",
			platform.ErrOutOfRange, rows[0], rows[1], columns[0], columns[1], t.Rows, t.Columns)
	}
	out := &platform.TableCells{}
	for r := rows[0]; r <= rows[1]; r++ {
		for c := columns[0]; c <= columns[1]; c++ {
			cell := platform.TableCell{Row: r, Column: c}
			switch n := t.Cell(r, c); {
			case n == nil:
				cell.Err = "no cell"
			case n.IsPassword() || n.Redacted:
				cell.Redacted = true
			default:
				s := n.Name
				if utf8.RuneCountInString(s) > platform.MaxValueRunes {
					s, cell.Truncated = string([]rune(s)[:platform.MaxValueRunes]), true
				}
				cell.Text = &s
			}
			out.Cells = append(out.Cells, cell)
			out.Calls++
		}
	}
	headers := func(names []string, first, last int) []string {
		if names == nil {
			return nil
		}
		out := make([]string, 0, last-first+1)
		for i := first; i <= last; i++ {
			if i < len(names) {
				out = append(out, names[i])
			} else {
				out = append(out, "")
			}
		}
		return out
	}
	out.ColumnHeaders = headers(t.ColumnHeaders, columns[0], columns[1])
	out.RowHeaders = headers(t.RowHeaders, rows[0], rows[1])
	return out, nil
}
