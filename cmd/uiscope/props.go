package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/uiscope/uiscope/internal/core"
)

func init() {
	register(command{name: "props", summary: "print one element's properties", run: runProps})
}

func runProps(ctx context.Context, c *cli, args []string) error {
	fs := newFlags(c, "props", "TARGET --element REF|KEY [--json]")
	t := appSpecFlags(fs, true)
	element := fs.String("element", "", "element ref from 'uiscope tree' (a11y:eN), or its durable key (atspi:...)")
	asJSON := fs.Bool("json", false, "print JSON")
	timeoutMs := fs.Int("timeout-ms", core.DefaultTimeoutMs, "deadline")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	// A key names one element for good; a ref is a position in a tree read,
	// and a command is a process of its own: the ref is resolved as that
	// position in the tree read now, so it is only as good as the UI is
	// unchanged. The key is the safe form between commands.
	req := core.PropsRequest{Element: *element, TimeoutMs: timeoutMs, Fresh: true}
	if err := req.Validate(); err != nil {
		return cliError(c, "props", err)
	}
	sessions, s, done, err := openSession(ctx, t)
	if err != nil {
		return cliError(c, "props", err)
	}
	defer done()
	r, err := sessions.Properties(ctx, s.ID, req)
	if err != nil {
		return cliError(c, "props", err)
	}
	props := r.Properties
	if *asJSON {
		return writeJSON(c.stdout, props)
	}
	for _, k := range core.PropertyOrder(props) {
		fmt.Fprintf(c.stdout, "%-14s %s\n", k+":", strings.TrimSpace(core.FormatValue(props[k])))
	}
	return nil
}
