package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/uiscope/uiscope/internal/core"
)

func init() {
	register(command{name: "find", summary: "find elements by name, role, state or interface", run: runFind})
}

func runFind(ctx context.Context, c *cli, args []string) error {
	fs := newFlags(c, "find", "TARGET [--name S] [--match exact|contains|regex] [--text S] [--role R] [--state S]... [--interface I] [--limit N] [--json [--fields key]]")
	t := appSpecFlags(fs, false)
	var q core.Query
	fs.StringVar(&q.Name, "name", "", "accessible name to match")
	fs.StringVar(&q.NameMatch, "match", "", "how --name matches: exact, contains (default) or regex")
	fs.StringVar(&q.Text, "text", "", "text or value the element holds (contains, case-insensitive)")
	fs.StringVar(&q.Role, "role", "", "role name, e.g. \"push button\"")
	fs.StringVar(&q.AccessibleID, "id", "", "accessible id")
	states := fs.String("state", "", "comma-separated states that must be set (!state: must not be)")
	fs.StringVar(&q.Interface, "interface", "", "supported interface: action, value, text, editable, selection")
	fs.IntVar(&q.Limit, "limit", 50, "most matches to print")
	asJSON := fs.Bool("json", false, "print JSON")
	fields := fieldsFlag(fs)
	timeoutMs := fs.Int("timeout-ms", core.DefaultTimeoutMs, "deadline for reading the tree")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *states != "" {
		q.States = strings.Split(*states, ",")
	}
	req := core.FindRequest{Query: q, TimeoutMs: timeoutMs, SkipActions: !*asJSON, Fresh: true, Fields: *fields}
	if err := req.Validate(); err != nil {
		return cliError(c, "find", err)
	}
	sessions, s, done, err := openSession(ctx, t)
	if err != nil {
		return cliError(c, "find", err)
	}
	defer done()
	r, err := sessions.Find(ctx, s.ID, req)
	if err != nil {
		return cliError(c, "find", err)
	}
	tree, st, fst := r.Tree, r.Stats, r.Find
	partial, note := tree.PartialRefs(fst.Partial)
	if *asJSON {
		out := map[string]any{
			"elements": r.Elements, "matched": fst.Matched, "returned": fst.Returned,
			"truncated": st.Truncated || r.TextUnread > 0, "limitHit": fst.LimitHit,
		}
		if len(partial) > 0 {
			out["visibleOnly"], out["partialContainers"] = true, partial
		}
		if err := writeJSON(c.stdout, out); err != nil {
			return err
		}
	} else {
		for _, e := range r.Elements {
			_, pos, _ := tree.LookupString(e.Ref)
			line, _ := tree.OutlineLine(pos)
			fmt.Fprintln(c.stdout, line)
		}
	}
	if fst.LimitHit {
		fmt.Fprintf(c.stderr, "# %d matches, %d shown (raise --limit)\n", fst.Matched, fst.Returned)
	}
	if st.Truncated {
		fmt.Fprintf(c.stderr, "warning: the tree is incomplete (%s); a missing match proves nothing\n", st.Reason)
	}
	if r.TextUnread > 0 {
		fmt.Fprintf(c.stderr, "warning: the text of %d elements could not be read in time; a missing match proves nothing\n", r.TextUnread)
	}
	if note != "" {
		fmt.Fprintf(c.stderr, "note: %s\n", note)
	}
	if st.Truncated || r.TextUnread > 0 {
		return exitError{exitPartial}
	}
	if fst.Matched == 0 {
		return exitError{1}
	}
	return nil
}
