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
	fs := newFlags(c, "props", "TARGET --element REF [--json]")
	t := targetFlags(fs, true)
	element := fs.String("element", "", "element ref from 'uiscope tree' (a11y:eN)")
	asJSON := fs.Bool("json", false, "print JSON")
	timeoutMs := fs.Int("timeout-ms", 10000, "deadline")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *element == "" {
		return cliError(c, "props", core.Errorf(core.CodeInvalidArgument, "--element is required (a ref like a11y:e12 from 'uiscope tree')"))
	}
	ref, err := core.ParseRef(*element)
	if err != nil {
		return cliError(c, "props", err)
	}
	d, app, err := openTarget(ctx, t)
	if err != nil {
		return cliError(c, "props", err)
	}
	defer d.Close()
	timeout := time.Duration(*timeoutMs) * time.Millisecond
	// Positional ids are defined by a tree read; the CLI has no session, so
	// it reads the tree again and resolves the id in it.
	tree, _, err := fetchTree(ctx, d, app, timeout, platform.TreeOptions{})
	if err != nil {
		return cliError(c, "props", err)
	}
	n, id, err := tree.Lookup(ref)
	if err != nil {
		return cliError(c, "props", err)
	}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	det, err := d.Element(pctx, app, n.Key)
	if err != nil {
		return cliError(c, "props", err)
	}
	props := core.Properties(tree.RefString(id), det)
	if *asJSON {
		return writeJSON(c.stdout, props)
	}
	for _, k := range core.PropertyOrder(props) {
		fmt.Fprintf(c.stdout, "%-14s %s\n", k+":", strings.TrimSpace(core.FormatValue(props[k])))
	}
	return nil
}
