//go:build linux

package atspi

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/godbus/dbus/v5"

	"github.com/uiscope/uiscope/internal/platform"
)

// Fields that hide their text.
//
// Password fields (role "password text") are redacted by role alone. GTK 4
// has another kind: a Gtk.Entry with visibility off is reported as a plain
// "text", with the states, attributes and text attributes of a visible one,
// and its Text.GetText and GetCharacterAtOffset answer the real characters
// (measured on GTK 4.8.3; see docs/security.md, "Redaction"). What tells
// it apart is what it shows: Text.GetStringAtOffset (and GetTextAtOffset)
// answer from the laid-out text, which for such a field is the invisible
// character ('●' by default) once per character.
//
// So the single-line editable fields of GTK 4 and later are never read with
// GetText: their text is read as shown, which cannot hold more than the
// screen does. When every character shown is the same symbol (no letter or
// digit), the field is taken to hide its text and is redacted like a
// password field. An empty hidden field cannot be told from an empty
// visible one; it holds nothing to leak, and is redacted once it holds text.

// lineGranularity is ATSPI_TEXT_GRANULARITY_LINE.
const lineGranularity uint32 = 3

// redact enforces the password rule at the source: a password field's name
// is never passed on and its text never read.
func redact(n *platform.Node) {
	if n.IsPassword() {
		hide(n)
	}
}

// hide redacts a node whatever its role.
func hide(n *platform.Node) { n.Name, n.Description, n.Redacted = "", "", true }

var (
	roleText, _    = platform.RoleByName("text")
	roleEntry, _   = platform.RoleByName("entry")
	stateMultiLine = mustState("multi-line")
)

func mustState(name string) platform.State {
	s, ok := platform.StateByName(name)
	if !ok {
		panic("atspi: unknown state " + name)
	}
	return s
}

// showsLayout reports whether the application on bus is a toolkit whose
// single-line fields are read as shown (GTK 4 and later). The answer is
// kept for the bus name, which names one connection of one process for
// good. An app that answers without a toolkit name is not GTK 4, which
// names itself; one that does not answer gets true, uncached: its fields
// are then read as shown (or redacted), which is safe for any toolkit.
func (c *Conn) showsLayout(ctx context.Context, bus string) bool {
	c.mu.Lock()
	v, ok := c.layoutText[bus]
	c.mu.Unlock()
	if ok {
		return v
	}
	var name, version string
	var first error
	b := c.newBatch(ctx)
	b.get(bus, rootPath, ifaceApp, "ToolkitName", func(v any, err error) {
		first = err
		name, _ = v.(string)
	})
	b.get(bus, rootPath, ifaceApp, "Version", func(v any, err error) {
		if first == nil {
			first = err
		}
		version, _ = v.(string)
	})
	b.wait()
	b.close()
	var answered dbus.Error
	if ctx.Err() != nil || first != nil && (!errors.As(first, &answered) || answered.Name == "org.freedesktop.DBus.Error.NoReply") {
		return true
	}
	major, _, _ := strings.Cut(version, ".")
	m, err := strconv.Atoi(major)
	v = strings.EqualFold(name, "gtk") && err == nil && m >= 4
	c.mu.Lock()
	if c.layoutText == nil {
		c.layoutText = map[string]bool{}
	}
	c.layoutText[bus] = v
	c.mu.Unlock()
	return v
}

// mayHide reports whether n is a field that may hide its text without
// saying so: a single-line editable text field (GTK 4's Gtk.Entry,
// Gtk.SearchEntry, Gtk.Text).
func mayHide(n *platform.Node) bool {
	if n.Redacted || n.Role != roleText && n.Role != roleEntry || n.States.Has(stateMultiLine) {
		return false
	}
	return hasInterface(n, "text") && hasInterface(n, "editabletext")
}

// hidesText reports whether a field that shows shown for its count
// characters is hiding them: every one shown as the same symbol.
func hidesText(shown string, count int) bool {
	if count <= 0 || utf8.RuneCountInString(shown) != count {
		return count > 0
	}
	first, _ := utf8.DecodeRuneInString(shown)
	if unicode.IsLetter(first) || unicode.IsDigit(first) {
		return false
	}
	for _, r := range shown {
		if r != first {
			return false
		}
	}
	return true
}

// shownText is what a field shows (its laid-out line) and its character
// count; failed is set when either could not be read.
type shownText struct {
	text   string
	count  int
	failed bool
}

// read queues the two calls on b.
func (s *shownText) read(b *batch, bus string, path dbus.ObjectPath) {
	b.get(bus, path, ifaceText, "CharacterCount", func(v any, err error) {
		c, ok := v.(int32)
		if err != nil || !ok {
			s.failed = true
		}
		s.count = int(c)
	})
	b.add(bus, path, ifaceText+".GetStringAtOffset", func(call *dbus.Call) {
		var start, end int32
		if call.Err != nil || call.Store(&s.text, &start, &end) != nil {
			s.failed = true
		}
	}, int32(0), lineGranularity)
}

// hidden reports whether the read shows a hidden field; a read that failed
// counts as one, so that a field is never shown for want of a check.
func (s *shownText) hidden() bool { return s.failed || hidesText(s.text, s.count) }

// hideHiddenFields redacts the fields of a GTK 4 tree that hide their text,
// in one pipelined round trip, and values the others from what they show.
// It returns the fields it read: their values come from here or nowhere.
func (w *walker) hideHiddenFields(bus string) map[*walkNode]bool {
	var fields []*walkNode
	for _, wn := range w.all {
		if wn.detailed && mayHide(wn.node) {
			fields = append(fields, wn)
		}
	}
	if len(fields) == 0 || !w.c.showsLayout(w.ctx, bus) {
		return nil
	}
	shown := make([]shownText, len(fields))
	b := w.c.newBatch(w.ctx)
	defer b.close()
	for i, wn := range fields {
		shown[i].read(b, wn.ref.Bus, wn.ref.Path)
	}
	w.stats.Calls += 2 * len(fields)
	b.wait()
	done := make(map[*walkNode]bool, len(fields))
	for i, wn := range fields {
		done[wn] = true
		if shown[i].hidden() {
			hide(wn.node)
			continue
		}
		showValue(wn.node, shown[i].text, false)
	}
	return done
}
