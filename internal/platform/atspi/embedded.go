//go:build linux

package atspi

import (
	"strings"

	"github.com/uiscope/uiscope/internal/platform"
)

// embeddedObject stands in a Text for each child object the text holds
// (a link, an image, a form field in a browser's table cell).
const embeddedObject = '\uFFFC'

// withEmbedded puts in place of each embedded object in text (Firefox and
// Chromium give a table cell holding a link the text "\uFFFC") the name of
// the child it stands for, as a screen reader reads it: the element's
// children, in order, are its embedded objects — but for Chromium's static
// text children, whose text is the parent's own ("x <a>link</a> y" is a
// cell with the text "x \uFFFC y" and the children static "x ", link,
// static " y"). A text whose element holds a password field or a redacted
// child is no value at all (ok false): read_table and the tree's values
// both keep a field's text out (docs/api.md). Both readers call it, the
// tree walk with the children it read, read_table with those it asked for.
func withEmbedded(text string, children []*platform.Node) (s string, ok bool) {
	if !strings.ContainsRune(text, embeddedObject) {
		return text, true
	}
	objects := make([]*platform.Node, 0, len(children))
	for _, k := range children {
		if k.Role == roleStatic {
			continue
		}
		if k.Secret() {
			return "", false
		}
		objects = append(objects, k)
	}
	var sb strings.Builder
	next := 0
	for _, r := range text {
		if r != embeddedObject {
			sb.WriteRune(r)
			continue
		}
		if next < len(objects) {
			sb.WriteString(objects[next].Name)
		}
		next++
	}
	return sb.String(), true
}
