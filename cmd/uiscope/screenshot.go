package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/uiscope/uiscope/internal/core"
)

func init() {
	register(command{name: "screenshot", summary: "write an annotated PNG of an application's window or one element", run: runScreenshot})
}

func runScreenshot(ctx context.Context, c *cli, args []string) error {
	fs := newFlags(c, "screenshot", "TARGET -o FILE.png [--element REF] [--annotate=false] [--max-width N] [--json]")
	t := appSpecFlags(fs, true)
	out := fs.String("o", "", "the PNG file to write (replaced if it exists, never left half-written)")
	element := fs.String("element", "", "capture only this element: a ref from 'uiscope tree' (a11y:eN), as positioned in the tree read now")
	annotate := fs.Bool("annotate", true, "box and number the controls; false for a clean image")
	maxWidth := fs.Int("max-width", 0, "scale down to at most this many pixels wide (0: the window's size)")
	asJSON := fs.Bool("json", false, "print what the image shows (size, scale, annotations) as JSON")
	timeoutMs := fs.Int("timeout-ms", core.DefaultTimeoutMs, "deadline")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" {
		fmt.Fprintln(fs.Output(), "-o FILE.png is required")
		fs.Usage()
		return exitError{2}
	}
	// The file is the user's own request, written here by the command: the
	// core's path (an agent's request) needs input rights and never
	// replaces a file, which a person saying -o does not want.
	path, err := filepath.Abs(*out)
	if err != nil {
		return cliError(c, "screenshot", core.Errorf(core.CodeInvalidArgument, "-o %s: %v", core.Quote(*out), err))
	}
	req := core.ScreenshotRequest{Element: *element, Annotate: annotate, TimeoutMs: timeoutMs, Fresh: true}
	if *maxWidth != 0 {
		req.MaxWidth = maxWidth
	}
	if err := req.Validate(); err != nil {
		return cliError(c, "screenshot", err)
	}
	sessions, s, done, err := openSession(ctx, t)
	if err != nil {
		return cliError(c, "screenshot", err)
	}
	defer done()
	shot, err := sessions.Screenshot(ctx, s.ID, req)
	if err != nil {
		return cliError(c, "screenshot", err)
	}
	if err := core.WriteFileAtomic(path, shot.PNG, true, 0o644); err != nil {
		return cliError(c, "screenshot", err)
	}
	shot.Path = path
	if *asJSON {
		return writeJSON(c.stdout, shot)
	}
	fmt.Fprintf(c.stdout, "%s\n", path)
	fmt.Fprintf(c.stderr, "# %dx%d at scale %.3g, %d elements marked, %d fields covered, %d bytes\n",
		shot.Width, shot.Height, shot.Scale, len(shot.Annotations), shot.Redacted, shot.Bytes)
	return nil
}
