//go:build linux

package atspi

import (
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
)

// TestWithEmbedded: the one substitution read_table and the tree's values
// share, on the children Firefox and Chromium give a cell.
func TestWithEmbedded(t *testing.T) {
	link := func(name string) *platform.Node { return vnode(mustRole("link"), name, nil) }
	static := func(text string) *platform.Node { return vnode(roleStatic, text, nil) }
	pw := &platform.Node{Role: platform.RolePasswordText}
	redacted := &platform.Node{Role: roleEntry, Redacted: true}
	for _, tc := range []struct {
		what     string
		text     string
		children []*platform.Node
		want     string
		ok       bool
	}{
		{"plain text", "plain", nil, "plain", true},
		{"plain text beside a password field", "plain", []*platform.Node{pw}, "plain", true},
		{"Firefox: a link", "see \uFFFC here", []*platform.Node{link("uiscope")}, "see uiscope here", true},
		{"more objects than children", "\uFFFC and \uFFFC", []*platform.Node{link("uiscope")}, "uiscope and ", true},
		{"no children read", "a \uFFFC b", nil, "a  b", true},
		{"two links in order", "\uFFFC, \uFFFC", []*platform.Node{link("one"), link("two")}, "one, two", true},
		// Chromium: the cell's text leaves are children too, no objects.
		{"Chromium: text, link, text", "x \uFFFC y", []*platform.Node{static("x "), link("link"), static(" y")}, "x link y", true},
		{"Chromium: link first", "\uFFFC y", []*platform.Node{link("link"), static(" y")}, "link y", true},
		{"Chromium: static leaves between links", "\uFFFC x \uFFFC", []*platform.Node{link("a"), static(" x "), link("b")}, "a x b", true},
		{"non-ASCII around an object", "é\uFFFC中", []*platform.Node{link("ü")}, "éü中", true},
		{"a password field", "\uFFFC", []*platform.Node{pw}, "", false},
		{"a password field after a link", "\uFFFC", []*platform.Node{link("a"), pw}, "", false},
		{"a redacted child", "x \uFFFC", []*platform.Node{static("x "), redacted}, "", false},
	} {
		got, ok := withEmbedded(tc.text, tc.children)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: %q %v, want %q %v", tc.what, got, ok, tc.want, tc.ok)
		}
	}
}
