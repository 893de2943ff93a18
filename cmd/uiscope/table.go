package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/uiscope/uiscope/internal/core"
)

func init() {
	register(command{name: "table", summary: "print a range of a table's cells, on screen or not", run: runTable})
}

func runTable(ctx context.Context, c *cli, args []string) error {
	fs := newFlags(c, "table", "TARGET --element REF|KEY --rows FIRST:LAST [--columns FIRST:LAST] [--json]")
	t := appSpecFlags(fs, true)
	element := fs.String("element", "", "the table's ref from 'uiscope tree' or 'uiscope find --interface table' (a11y:eN), or its durable key (atspi:...)")
	rows := fs.String("rows", "", "rows to read, 0-based and inclusive: FIRST:LAST (0:99), FIRST, FIRST: or :LAST")
	columns := fs.String("columns", "", "columns to read, as --rows (default all)")
	asJSON := fs.Bool("json", false, "print JSON")
	timeoutMs := fs.Int("timeout-ms", core.DefaultTimeoutMs, "deadline")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	// As with props, a ref is a position in the tree this command reads,
	// a key the element for good.
	req := core.TableRequest{Element: *element, TimeoutMs: timeoutMs, Fresh: true}
	if *rows == "" {
		return cliError(c, "table", core.Errorf(core.CodeInvalidArgument, "--rows is required, e.g. --rows 0:99"))
	}
	var err error
	if req.Rows, err = core.ParseRange(*rows); err != nil {
		return cliError(c, "table", err)
	}
	if *columns != "" {
		if req.Columns, err = core.ParseRange(*columns); err != nil {
			return cliError(c, "table", err)
		}
	}
	if err := req.Validate(); err != nil {
		return cliError(c, "table", err)
	}
	sessions, s, done, err := openSession(ctx, t)
	if err != nil {
		return cliError(c, "table", err)
	}
	defer done()
	r, err := sessions.ReadTable(ctx, s.ID, req)
	if err != nil {
		return cliError(c, "table", err)
	}
	if *asJSON {
		if err := writeJSON(c.stdout, r); err != nil {
			return err
		}
	} else {
		printTable(c, r)
	}
	if r.Next != nil {
		fmt.Fprintf(c.stderr, "# more rows: --rows %d:%d --columns %d:%d\n", r.Next.Rows[0], r.Next.Rows[1], r.Next.Columns[0], r.Next.Columns[1])
		return exitError{exitPartial}
	}
	return nil
}

// printTable prints the cells for people: a line per row, the row's index
// (0-based) first, then its header where the table has row headers, then
// the cells, separated by tabs; the column headers above where it has them.
// A cell with a tab, a line break, another control character or a quote
// is quoted; a redacted cell is
// (redacted), an unread one (unread).
func printTable(c *cli, r *core.TableRead) {
	fmt.Fprintf(c.stdout, "# %s: %d rows x %d columns", r.Element, r.RowCount, r.ColumnCount)
	if r.Range != nil {
		fmt.Fprintf(c.stdout, "; rows %d:%d, columns %d:%d", r.Range.Rows[0], r.Range.Rows[1], r.Range.Columns[0], r.Range.Columns[1])
	}
	fmt.Fprintln(c.stdout)
	if r.Range == nil {
		return
	}
	mark := map[[2]int]string{}
	for _, x := range r.Redacted {
		mark[[2]int{x.Row, x.Column}] = "(redacted)"
	}
	for _, x := range r.Unread {
		mark[[2]int{x.Row, x.Column}] = "(unread)"
	}
	lead := "\t" // the index column; the row headers' after it
	if r.RowHeaders != nil {
		lead = "\t\t"
	}
	if r.ColumnHeaders != nil {
		fmt.Fprintln(c.stdout, lead+strings.Join(mapCells(r.ColumnHeaders), "\t"))
	}
	for i, row := range r.Cells {
		n := r.Range.Rows[0] + i
		line := []string{strconv.Itoa(n)}
		if r.RowHeaders != nil {
			line = append(line, cellText(r.RowHeaders[i]))
		}
		for j, cell := range row {
			switch {
			case cell != nil:
				line = append(line, cellText(*cell))
			default:
				line = append(line, mark[[2]int{n, r.Range.Columns[0] + j}])
			}
		}
		fmt.Fprintln(c.stdout, strings.Join(line, "\t"))
	}
	if r.Note != "" {
		fmt.Fprintf(c.stderr, "# %s\n", r.Note)
	}
}

func mapCells(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = cellText(x)
	}
	return out
}

// cellText keeps a cell on its line and in its column.
func cellText(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) || r == '"' }) >= 0 || s != strings.TrimSpace(s) {
		return strconv.Quote(s)
	}
	return s
}
