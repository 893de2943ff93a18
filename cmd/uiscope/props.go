package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/platform"
)

func init() {
	register(command{name: "props", summary: "print one element's properties", run: runProps})
}

func runProps(ctx context.Context, c *cli, args []string) error {
	fs := newFlags(c, "props", "TARGET --element REF|KEY [--json]")
	t := targetFlags(fs, true)
	element := fs.String("element", "", "element ref from 'uiscope tree' (a11y:eN), or its durable key (atspi:...)")
	asJSON := fs.Bool("json", false, "print JSON")
	timeoutMs := fs.Int("timeout-ms", 10000, "deadline")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *element == "" {
		return cliError(c, "props", core.Errorf(core.CodeInvalidArgument, "--element is required (a ref like a11y:e12, or a key like atspi::1.42/org/a11y/atspi/accessible/12, from 'uiscope tree')"))
	}
	// A key names one element for good; a ref is a position in a tree read,
	// and the CLI has no session: it reads the tree again and resolves the
	// position in it, so a ref is only as good as the UI is unchanged. The
	// key is the safe form between commands.
	byKey := strings.HasPrefix(*element, "atspi:")
	var ref core.Ref
	if !byKey {
		r, err := core.ParseRef(*element)
		if err != nil {
			return cliError(c, "props", err)
		}
		ref = r
	}
	timeout := time.Duration(*timeoutMs) * time.Millisecond
	tt, err := readTarget(ctx, t, timeout, platform.TreeOptions{})
	if err != nil {
		return cliError(c, "props", err)
	}
	defer tt.desk.Close()
	d, app, tree := tt.desk, tt.app, tt.tree
	var key, shown string
	if byKey {
		id, ok := tree.ByKey(*element)
		if !ok {
			return cliError(c, "props", core.Errorf(core.CodeElementGone, "no element %s in %s's tree: it is gone, or belongs to another application", *element, app.Name))
		}
		key, shown = *element, tree.RefString(id)
	} else {
		n, id, err := tree.Lookup(ref)
		if err != nil {
			return cliError(c, "props", err)
		}
		key, shown = n.Key, tree.RefString(id)
	}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	det, err := d.Element(pctx, app, key)
	if err != nil {
		return cliError(c, "props", err)
	}
	props := core.Properties(shown, det)
	if *asJSON {
		return writeJSON(c.stdout, props)
	}
	for _, k := range core.PropertyOrder(props) {
		fmt.Fprintf(c.stdout, "%-14s %s\n", k+":", strings.TrimSpace(core.FormatValue(props[k])))
	}
	return nil
}
