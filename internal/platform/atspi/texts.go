//go:build linux

package atspi

import (
	"context"
	"fmt"

	"github.com/godbus/dbus/v5"

	"github.com/uiscope/uiscope/internal/platform"
)

// Texts reads the text of each node as a tree read found it, at most
// maxRunes runes each, in two pipelined rounds (CharacterCount, then
// GetText up to it, as values.go reads a value): a search by text costs
// two round trips of latency, not two per element. Password and redacted
// fields are never read; a field that may hide its text (GTK 4's
// single-line fields, hidden.go) is read as it shows, and left unread when
// it shows only the invisible character. The answer is aligned with
// nodes, nil where nothing was read; the error wraps platform.ErrTimeout
// when ctx ended before every read came back.
func (c *Conn) Texts(ctx context.Context, nodes []*platform.Node, maxRunes int) ([]*string, error) {
	out := make([]*string, len(nodes))
	type read struct {
		i     int
		bus   string
		path  dbus.ObjectPath
		count int
		ok    bool
		shown *shownText
	}
	var reads []*read
	layout := map[string]bool{} // by bus: fields read as shown (showsLayout)
	b := c.newBatch(ctx)
	defer b.close()
	for i, n := range nodes {
		if n == nil || n.Redacted || n.IsPassword() || !hasInterface(n, "text") {
			continue
		}
		bus, path, err := ParseKey(n.Key)
		if err != nil {
			continue
		}
		r := &read{i: i, bus: bus, path: path}
		reads = append(reads, r)
		if mayHide(n) {
			shows, ok := layout[bus]
			if !ok {
				shows = c.showsLayout(ctx, bus)
				layout[bus] = shows
			}
			if shows {
				r.shown = &shownText{}
				r.shown.read(b, bus, path)
				continue
			}
		}
		b.get(bus, path, ifaceText, "CharacterCount", func(v any, err error) {
			if cc, ok := v.(int32); ok && err == nil {
				r.count, r.ok = int(cc), true
			}
		})
	}
	b.wait()
	set := func(i int, s string) {
		if r := []rune(s); len(r) > maxRunes {
			s = string(r[:maxRunes])
		}
		out[i] = &s
	}
	for _, r := range reads {
		switch {
		case r.shown != nil:
			if !r.shown.hidden() {
				set(r.i, r.shown.text)
			}
		case r.ok && r.count <= 0:
			set(r.i, "")
		case r.ok:
			// The end is the element's own count, never past it (values.go).
			b.add(r.bus, r.path, ifaceText+".GetText", func(call *dbus.Call) {
				var s string
				if call.Err == nil && call.Store(&s) == nil {
					set(r.i, s)
				}
			}, int32(0), int32(min(r.count, maxRunes+1)))
		}
	}
	b.wait()
	if err := ctx.Err(); err != nil {
		return out, fmt.Errorf("%w: reading the text of %d elements: %v", platform.ErrTimeout, len(reads), err)
	}
	return out, nil
}
