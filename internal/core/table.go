package core

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
)

// Reading a table by row and column: read_table and 'uiscope table'. A
// container whose children are virtual (a spreadsheet's 2^31 cells, a tree
// view of thousands of rows) shows in the tree only what is on screen; its
// cells, on screen or not, are read here through the platform's
// TableReader, a bounded range at a time.

// Bounds of one table read.
const (
	// MaxTableCells is the most cells one call reads.
	MaxTableCells = 2000
	// maxTableTextBytes bounds the cell text one call returns (about
	// 15,000 tokens): rows past it are left for the next call.
	maxTableTextBytes = 60000
)

// TableRequest is one read of a range of a table's cells.
type TableRequest struct {
	// Element is the table's ref; with Fresh also its durable key.
	Element string
	// Rows is [first, last], 0-based and inclusive; a last past the
	// table's end stops at its end.
	Rows []int
	// Columns is [first, last] like Rows; nil for every column (refused
	// for a table wider than one call reads).
	Columns []int
	// TimeoutMs bounds the read; nil for DefaultTimeoutMs.
	TimeoutMs *int
	// Fresh resolves Element in a tree this call reads (as PropsRequest).
	Fresh bool
}

// Validate checks the request: an element, the ranges' form, the deadline.
// Errors are invalidArgument (malformedRef for an element that is no ref)
// and say what would be accepted.
func (r *TableRequest) Validate() error {
	if r.Element == "" {
		return missingElement(r.Fresh)
	}
	if r.Rows == nil {
		return Errorf(CodeInvalidArgument, "rows is required: [first, last], 0-based and inclusive, e.g. [0, 99]")
	}
	if err := validRange("rows", r.Rows); err != nil {
		return err
	}
	if r.Columns != nil {
		if err := validRange("columns", r.Columns); err != nil {
			return err
		}
		if w := r.Columns[1] - r.Columns[0] + 1; w > MaxTableCells {
			return Errorf(CodeInvalidArgument, "columns span %d columns; one call reads at most %d cells: ask for fewer columns, e.g. [%d, %d]",
				w, MaxTableCells, r.Columns[0], r.Columns[0]+9)
		}
	}
	if _, err := Timeout(r.TimeoutMs); err != nil {
		return err
	}
	return validElement(r.Element, r.Fresh)
}

// maxTableIndex is the largest row or column index a table can have: the
// platforms count them in 32 bits.
const maxTableIndex = 1<<31 - 1

// validRange checks a [first, last] range argument.
func validRange(name string, v []int) error {
	if len(v) != 2 {
		return Errorf(CodeInvalidArgument, "%s must be [first, last] (two integers, 0-based, inclusive), not %d numbers", name, len(v))
	}
	if v[0] < 0 || v[1] < 0 {
		return Errorf(CodeInvalidArgument, "%s must be 0 or more (0-based), not [%d, %d]", name, v[0], v[1])
	}
	if v[0] > v[1] {
		return Errorf(CodeInvalidArgument, "%s must be [first, last] with first <= last, not [%d, %d]", name, v[0], v[1])
	}
	if v[0] > maxTableIndex {
		return Errorf(CodeInvalidArgument, "%s starts past any table's end (%d is over %d)", name, v[0], maxTableIndex)
	}
	return nil
}

// ParseRange reads a range as people write it on a command line: "F:L"
// (first to last, inclusive), "F" (one), "F:" (to the end), ":L" (from 0).
// An empty or malformed string is invalidArgument.
func ParseRange(s string) ([]int, error) {
	bad := func() error {
		return Errorf(CodeInvalidArgument, "range %s must be FIRST:LAST (0-based, inclusive, e.g. 0:99), FIRST, FIRST: or :LAST", Quote(s))
	}
	num := func(x string) (int, bool) {
		n, err := strconv.Atoi(x)
		// Atoi takes a sign; a range is written without one.
		return n, err == nil && x[0] >= '0' && x[0] <= '9'
	}
	first, last, colon := strings.Cut(strings.TrimSpace(s), ":")
	first, last = strings.TrimSpace(first), strings.TrimSpace(last)
	var r [2]int
	switch {
	case first == "" && (!colon || last == ""):
		return nil, bad()
	case first == "":
		r[0] = 0
	default:
		n, ok := num(first)
		if !ok {
			return nil, bad()
		}
		r[0] = n
	}
	switch {
	case !colon:
		r[1] = r[0]
	case last == "":
		r[1] = maxTableIndex
	default:
		n, ok := num(last)
		if !ok {
			return nil, bad()
		}
		r[1] = n
	}
	if err := validRange("the range", r[:]); err != nil {
		return nil, err
	}
	return r[:], nil
}

// TableRange names a rectangle of a table: rows and columns, each [first,
// last] inclusive.
type TableRange struct {
	Rows    [2]int `json:"rows"`
	Columns [2]int `json:"columns"`
}

// TableCellRef names one cell, with why it was not read where that is
// said.
type TableCellRef struct {
	Row    int    `json:"row"`
	Column int    `json:"column"`
	Error  string `json:"error,omitempty"`
}

// TableRead is a range of a table's cells. Field names are part of the
// contract (docs/api.md).
type TableRead struct {
	// Element is the table's ref.
	Element     string `json:"element"`
	RowCount    int    `json:"rowCount"`
	ColumnCount int    `json:"columnCount"`
	// Range is the rectangle read (absent when the table is empty).
	Range *TableRange `json:"range,omitempty"`
	// ColumnHeaders and RowHeaders name the range's headers where the
	// table has them.
	ColumnHeaders []string `json:"columnHeaders,omitempty"`
	RowHeaders    []string `json:"rowHeaders,omitempty"`
	// Cells holds the range's text row by row: Cells[i][j] is row
	// Range.Rows[0]+i, column Range.Columns[0]+j; null where a cell holds
	// nothing readable (redacted, unreadable, no text).
	Cells [][]*string `json:"cells"`
	// Redacted lists cells whose text is never read (password fields and
	// fields that may hide their text); Truncated those cut at
	// platform.MaxValueRunes characters; Unread those that failed.
	Redacted  []TableCellRef `json:"redactedCells,omitempty"`
	Truncated []TableCellRef `json:"truncatedCells,omitempty"`
	Unread    []TableCellRef `json:"unreadCells,omitempty"`
	// Complete says every cell asked for (up to the table's end) is here;
	// otherwise Next is the call that reads on.
	Complete bool        `json:"complete"`
	Next     *TableRange `json:"next,omitempty"`
	Note     string      `json:"note,omitempty"`
	// Calls is how many calls the backend made.
	Calls int `json:"-"`
}

// tableReader is the platform's table reader: the accessibility part
// offers it when it can read tables by row and column (docs/platform.md).
func (m *Sessions) tableReader() (platform.TableReader, error) {
	if tr, ok := m.desk.Accessibility.(platform.TableReader); ok && m.desk.Accessibility != nil {
		return tr, nil
	}
	return nil, Errorf(CodeNotSupported, "this platform cannot read tables by row and column; read the table's visible cells with get_a11y_tree")
}

// ReadTable reads a range of the cells of the table req names, on screen
// or not: at most MaxTableCells cells and about maxTableTextBytes of text,
// whole rows at a time, with Next saying how to read on. req is validated
// first, then the session's identity checked (Get).
func (m *Sessions) ReadTable(ctx context.Context, sessionID string, req TableRequest) (*TableRead, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	s, err := m.Get(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if s.Mode == ModeVisual {
		return nil, Errorf(CodeWrongTree, "session %s reads the visual (native window) tree, whose windows have no cells: connect with mode \"a11y\" and read the table there", s.ID)
	}
	tr, err := m.tableReader()
	if err != nil {
		return nil, err
	}
	limit, err := Timeout(req.TimeoutMs)
	if err != nil {
		return nil, err
	}
	key, shown, err := m.elementKey(ctx, s, req.Element, req.Fresh, limit)
	if err != nil {
		return nil, err
	}
	tctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	nr, nc, err := tr.TableSize(tctx, s.App, key)
	if err != nil {
		return nil, m.tableError(ctx, s, shown, limit, err)
	}
	out := &TableRead{Element: shown, RowCount: nr, ColumnCount: nc, Cells: [][]*string{}}
	if nr == 0 || nc == 0 {
		out.Complete, out.Note = true, fmt.Sprintf("the table has %d rows and %d columns: no cells to read", nr, nc)
		return out, nil
	}
	rows := [2]int{req.Rows[0], req.Rows[1]}
	if rows[0] >= nr {
		return nil, Errorf(CodeInvalidArgument, "rows start at %d, past the table's last row %d (it has %d rows): ask for rows within [0, %d]", rows[0], nr-1, nr, nr-1)
	}
	var notes []string
	if rows[1] >= nr {
		rows[1] = nr - 1
		notes = append(notes, fmt.Sprintf("the table ends at row %d", nr-1))
	}
	cols := [2]int{0, nc - 1}
	if req.Columns == nil {
		if nc > MaxTableCells {
			return nil, Errorf(CodeInvalidArgument, "the table has %d columns, more than one call reads (%d cells): pass columns, e.g. [0, 9]", nc, MaxTableCells)
		}
	} else {
		cols = [2]int{req.Columns[0], req.Columns[1]}
		if cols[0] >= nc {
			return nil, Errorf(CodeInvalidArgument, "columns start at %d, past the table's last column %d (it has %d columns): ask for columns within [0, %d]", cols[0], nc-1, nc, nc-1)
		}
		if cols[1] >= nc {
			cols[1] = nc - 1
			notes = append(notes, fmt.Sprintf("the table ends at column %d", nc-1))
		}
	}
	width := cols[1] - cols[0] + 1
	asked := rows
	rows[1] = min(rows[1], rows[0]+MaxTableCells/width-1)
	cells, err := tr.TableCells(tctx, s.App, key, rows, cols)
	if err != nil {
		return nil, m.tableError(ctx, s, shown, limit, err)
	}
	if len(cells.Cells) != (rows[1]-rows[0]+1)*width {
		return nil, Errorf(CodeInternal, "the platform read %d cells of a range of %d", len(cells.Cells), (rows[1]-rows[0]+1)*width)
	}
	out.Calls = cells.Calls
	// Whole rows, until the text budget is spent (the first row always).
	size := 0
	for i := 0; i < len(cells.Cells); i += width {
		row := cells.Cells[i : i+width]
		n := 0
		for _, c := range row {
			if c.Text != nil {
				n += len(*c.Text)
			}
		}
		if len(out.Cells) > 0 && size+n > maxTableTextBytes {
			rows[1] = rows[0] + len(out.Cells) - 1
			break
		}
		size += n
		line := make([]*string, width)
		for j, c := range row {
			ref := TableCellRef{Row: c.Row, Column: c.Column}
			switch {
			case c.Redacted:
				out.Redacted = append(out.Redacted, ref)
			case c.Err != "":
				ref.Error = c.Err
				out.Unread = append(out.Unread, ref)
			default:
				line[j] = c.Text
				if c.Truncated {
					out.Truncated = append(out.Truncated, ref)
				}
			}
		}
		out.Cells = append(out.Cells, line)
	}
	out.Range = &TableRange{Rows: rows, Columns: cols}
	if cells.ColumnHeaders != nil {
		out.ColumnHeaders = cells.ColumnHeaders
	}
	if cells.RowHeaders != nil {
		out.RowHeaders = cells.RowHeaders[:len(out.Cells)]
	}
	if rows[1] < asked[1] {
		out.Next = &TableRange{Rows: [2]int{rows[1] + 1, asked[1]}, Columns: cols}
		notes = append(notes, fmt.Sprintf("rows %d to %d are not read yet (one call reads at most %d cells and about %d KB of text): call again with rows [%d, %d] and columns [%d, %d]",
			rows[1]+1, asked[1], MaxTableCells, maxTableTextBytes/1000, rows[1]+1, asked[1], cols[0], cols[1]))
	} else {
		out.Complete = true
	}
	if len(out.Unread) > 0 {
		notes = append(notes, fmt.Sprintf("%d cells could not be read (unreadCells says why); the table may have changed: read them again", len(out.Unread)))
	}
	out.Note = strings.Join(notes, "; ")
	return out, nil
}

// tableError turns a table read's failure into what the agent can act on.
func (m *Sessions) tableError(ctx context.Context, s *Session, ref string, limit time.Duration, err error) error {
	if cerr := m.check(ctx, s); cerr != nil {
		return cerr
	}
	switch {
	case errors.Is(err, platform.ErrNotSupported):
		return &Error{Code: CodeNotSupported, Disposition: DispositionTerminal, Err: err, Msg: fmt.Sprintf(
			"%s cannot be read by row and column (%v): pass the ref of a table (find_elements with interface \"table\"), or read this element with get_a11y_tree or get_element_properties", ref, err)}
	case errors.Is(err, platform.ErrElementGone):
		return &Error{Code: CodeElementGone, Disposition: DispositionTerminal, Err: err,
			Msg: "the table no longer exists (the UI changed): re-read the tree with get_a11y_tree or find_elements and use the new refs"}
	case errors.Is(err, platform.ErrTimeout):
		return &Error{Code: CodeTimeout, Retryable: true, Disposition: DispositionTransient, Err: err, Msg: fmt.Sprintf(
			"reading the table took longer than %d ms (%v); the application may be busy or frozen: try again, with a smaller range or a larger timeoutMs", limit.Milliseconds(), err)}
	}
	return AsError(err)
}
