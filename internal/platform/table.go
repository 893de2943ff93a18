package platform

import "context"

// TableReader is the optional part of Accessibility that reads a table's
// cells by row and column, whether they are on screen or not: the way to
// read a container whose children are virtual (a spreadsheet's 2^31 cells)
// without walking or scrolling it. An Accessibility that can also
// implements it; the core finds it by type assertion and answers
// notSupported without it (docs/platform.md).
//
// Both calls fail with ErrNotSupported when the element is no table, and
// bound every call by the context's deadline like the rest of the seam.
type TableReader interface {
	// TableSize is how many rows and columns the table reports.
	TableSize(ctx context.Context, app App, key string) (rows, columns int, err error)
	// TableCells reads the cells of rows first..last and columns
	// first..last (inclusive, within TableSize; ErrOutOfRange otherwise),
	// with the headers of those rows and columns where the table has them.
	// The caller bounds the range: a backend reads all of it.
	TableCells(ctx context.Context, app App, key string, rows, columns [2]int) (*TableCells, error)
}

// TableCells is one read of a range of a table's cells.
type TableCells struct {
	// Cells holds every cell of the range, row by row.
	Cells []TableCell
	// ColumnHeaders and RowHeaders are the names of the range's column and
	// row headers, one per column or row ("" where it has none); nil when
	// the table has none in the range.
	ColumnHeaders []string
	RowHeaders    []string
	// Calls is how many calls the read made.
	Calls int
}

// TableCell is one cell of a table as read.
type TableCell struct {
	Row, Column int
	// Text is what the cell shows (its Text content, or its name when it
	// has none), at most MaxValueRunes runes, Truncated when cut; nil when
	// it holds nothing readable, and always nil when Redacted.
	Text      *string
	Truncated bool
	// Redacted marks a cell whose text is never read: a password field,
	// or a field that may hide what it holds.
	Redacted bool
	// Err says why a cell could not be read (it vanished, the app refused).
	Err string
}
