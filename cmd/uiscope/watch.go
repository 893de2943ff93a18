package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/uiscope/uiscope/internal/core"
)

func init() {
	register(command{name: "watch", summary: "print an application's tree changes as they happen", run: runWatch})
}

// watchLine is one patch of `uiscope watch`, one JSON line.
type watchLine struct {
	Time     string        `json:"time"`
	Snapshot bool          `json:"snapshot"`
	Events   []core.Change `json:"events"`
}

// watchReadTimeout bounds the read behind a patch.
const watchReadTimeout = 10 * time.Second

// runWatch follows the target the way an MCP subscription does (the
// session's watcher, core.Follow): a snapshot first, then each patch as
// the application changes, until interrupted or the application exits.
func runWatch(ctx context.Context, c *cli, args []string) error {
	fs := newFlags(c, "watch", "TARGET [--view raw|control|content|visible] [--outline]")
	t := appSpecFlags(fs, true)
	view := fs.String("view", core.ViewRaw, "raw, control, content or visible (on screen only)")
	outline := fs.Bool("outline", false, "print the changes as lines for people, not JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := core.ValidateView(*view); err != nil {
		return cliError(c, "watch", err)
	}
	sessions, s, done, err := openSession(ctx, t)
	if err != nil {
		return cliError(c, "watch", err)
	}
	defer done()
	if err := sessions.SetResourceView(s, *view); err != nil {
		return cliError(c, "watch", err)
	}
	changed := make(chan struct{}, 1)
	stop, err := sessions.Follow(ctx, s.ID, "", func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	if err != nil {
		return cliError(c, "watch", err)
	}
	defer stop()
	fmt.Fprintf(c.stderr, "watching pid %d (%s); Ctrl+C to stop\n", s.App.Pid, s.App.Name)
	for {
		p, err := sessions.ResourcePatch(ctx, s.ID, "", watchReadTimeout, 0)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return cliError(c, "watch", err)
		}
		if len(p.Events) > 0 || p.Snapshot {
			if err := printPatch(c.stdout, p, *outline); err != nil {
				return err
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-changed:
		}
		if err := sessions.FollowErr(s); err != nil {
			return cliError(c, "watch", err)
		}
	}
}

// printPatch writes one patch: a JSON line, or with outline the snapshot's
// outline and then one line per change, marked + (added, with its role,
// name, ref and path), - (removed: ref and key) or ~ (changed: ref, then
// each field's old and new value), as docs/design.md ("Live changes")
// shows.
func printPatch(w io.Writer, p core.Patch, outline bool) error {
	if !outline {
		b, err := json.Marshal(watchLine{Time: time.Now().UTC().Format(time.RFC3339Nano), Snapshot: p.Snapshot, Events: p.Events})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	var sb strings.Builder
	if p.Snapshot {
		fmt.Fprintf(&sb, "# snapshot, %d elements\n", len(p.Events))
		if p.Tree != nil {
			out, _, err := p.Tree.Outline(core.ViewOptions{View: p.View, Depth: -1, MaxNodes: core.MaxMaxNodes})
			if err == nil {
				sb.WriteString(strings.TrimSuffix(out, "\n") + "\n")
			}
		}
		_, err := io.WriteString(w, sb.String())
		return err
	}
	for _, e := range p.Events {
		switch e.Type {
		case core.ChangeAdded:
			fmt.Fprintf(&sb, "+ %s [%s] at %s\n", describe(e.Element), e.Ref, pathString(e.Path))
		case core.ChangeRemoved:
			fmt.Fprintf(&sb, "- [%s] %s\n", e.Ref, e.Key)
		case core.ChangeChanged:
			fmt.Fprintf(&sb, "~ [%s]", e.Ref)
			for _, f := range sortedFields(e.Changes) {
				fmt.Fprintf(&sb, " %s %s -> %s", f, short(e.Changes[f].Old), short(e.Changes[f].New))
			}
			sb.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

func describe(e *core.Element) string {
	if e == nil {
		return "?"
	}
	if e.Name != "" {
		return fmt.Sprintf("%s %q", e.Role, e.Name)
	}
	return e.Role
}

func pathString(p []int) string {
	parts := make([]string, len(p))
	for i, x := range p {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ".")
}

func sortedFields(m map[string]core.FieldChange) []string {
	return slices.Sorted(maps.Keys(m))
}

// short is a field value as JSON.
func short(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
