//go:build linux

package atspi

import (
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
)

func vnode(role platform.Role, name string, ifaces []string, kids ...*platform.Node) *platform.Node {
	return &platform.Node{Role: role, Name: name, Interfaces: ifaces, Children: kids}
}

func TestValueKind(t *testing.T) {
	text := []string{"accessible", "text", "editabletext"}
	value := []string{"accessible", "value"}
	for _, tc := range []struct {
		n    *platform.Node
		want valueKind
	}{
		{vnode(roleEntry, "", text), textValue},
		{vnode(roleText, "", text), textValue},
		{vnode(roleTableCell, "", []string{"text"}), textValue},
		{vnode(roleSpinButton, "", append(text, "value")), numberValue}, // the number, not its text
		{vnode(roleSpinButton, "", text), textValue},                    // a spin button without Value
		{vnode(roleSlider, "", value), numberValue},
		{vnode(roleProgressBar, "", value), numberValue},
		{vnode(platform.RoleScrollBar, "", value), noValue}, // a position, not content
		{vnode(roleComboBox, "", nil), choiceValue},
		{vnode(roleLabel, "", text), noValue},
		{vnode(platform.RolePasswordText, "", text), noValue},
		{&platform.Node{Role: roleEntry, Interfaces: text, Redacted: true}, noValue},
		// Text a user reads: unnamed, not editable, its text not in a
		// child (Firefox's <p role=status>, Evince's page).
		{vnode(mustRole("status bar"), "", []string{"text"}), readValue},
		{vnode(mustRole("page"), "", []string{"text", "hypertext"}), readValue},
		{vnode(mustRole("status bar"), "Ready", []string{"text"}), noValue},
		{vnode(mustRole("status bar"), "", nil), noValue},
		{vnode(mustRole("paragraph"), "", []string{"text"}, vnode(roleStatic, "1 of 3 done", []string{"text"})), noValue}, // Chromium
		{&platform.Node{Role: mustRole("paragraph"), Interfaces: text, States: 1 << platform.StateEditable}, noValue},     // Writer's
		{vnode(platform.RoleFrame, "", []string{"text"}), noValue},
	} {
		if got := valueKindOf(tc.n); got != tc.want {
			t.Errorf("%s %v: kind %d, want %d", tc.n.Role, tc.n.Interfaces, got, tc.want)
		}
	}
}

func TestOnlyObjects(t *testing.T) {
	for s, want := range map[string]bool{"": true, "\uFFFC \uFFFC\n": true, "1 of 3 done": false, "x \uFFFC": false} {
		if got := onlyObjects(s); got != want {
			t.Errorf("onlyObjects(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestSetValue(t *testing.T) {
	n := &platform.Node{Role: roleEntry}
	showValue(n, "Ada", false)
	if n.Value == nil || *n.Value != "Ada" || n.ValueTruncated {
		t.Errorf("short value: %v %v", n.Value, n.ValueTruncated)
	}
	showValue(n, "", false)
	if n.Value != nil {
		t.Errorf("an empty field has a value: %q", *n.Value)
	}
	long := strings.Repeat("é", platform.MaxValueRunes+1)
	showValue(n, long, false)
	if n.Value == nil || len([]rune(*n.Value)) != platform.MaxValueRunes || !n.ValueTruncated {
		t.Errorf("long value: %d runes, truncated %v", len([]rune(*n.Value)), n.ValueTruncated)
	}
	// The text read was cut by the caller: the count says there was more.
	showValue(n, "abc", true)
	if n.Value == nil || *n.Value != "abc" || !n.ValueTruncated {
		t.Errorf("value cut by the read: %v %v", n.Value, n.ValueTruncated)
	}
	pw := &platform.Node{Role: platform.RolePasswordText}
	showValue(pw, "secret", false)
	hidden := &platform.Node{Role: roleText, Redacted: true}
	showValue(hidden, "secret", false)
	if pw.Value != nil || hidden.Value != nil {
		t.Error("a redacted field got a value")
	}
}

func TestFormatNumber(t *testing.T) {
	for f, want := range map[float64]string{5: "5", 0.25: "0.25", -3.5: "-3.5", 100: "100", 1e20: "1e+20"} {
		if got := formatNumber(f); got != want {
			t.Errorf("formatNumber(%v) = %q, want %q", f, got, want)
		}
	}
}

func TestChoiceFromSubtree(t *testing.T) {
	shown := func(n *platform.Node, w int) *platform.Node {
		n.Bounds = &platform.Rect{Width: w, Height: 20}
		return n
	}
	selected := func(n *platform.Node) *platform.Node {
		n.States |= 1 << platform.StateSelected
		return n
	}
	for _, tc := range []struct {
		what string
		n    *platform.Node
		want string // "" for none
	}{
		{"browser: the selected option", vnode(roleComboBox, "Color", nil,
			vnode(roleMenu, "", nil, vnode(roleMenuItem, "Red", nil), selected(vnode(roleMenuItem, "Green", nil)))), "Green"},
		{"GTK 4: the one label on screen in the button", vnode(roleComboBox, "Color", nil,
			vnode(platform.RolePanel, "", nil, shown(vnode(roleLabel, "(None)", nil), 0), shown(vnode(roleLabel, "Green", nil), 39))), "Green"},
		{"Qt 5: named after its current item", vnode(roleComboBox, "Green", nil,
			vnode(roleList, "", nil, vnode(roleListItem, "Red", nil), vnode(roleListItem, "Green", nil))), "Green"},
		{"a name that is no item", vnode(roleComboBox, "Color", nil,
			vnode(roleList, "", nil, vnode(roleListItem, "Red", nil))), ""},
		{"labels in the popup do not count", vnode(roleComboBox, "Color", nil,
			vnode(roleList, "", nil, shown(vnode(roleLabel, "Red", nil), 30))), ""},
		{"two labels on screen: no guess", vnode(roleComboBox, "Color", nil,
			shown(vnode(roleLabel, "A", nil), 30), shown(vnode(roleLabel, "B", nil), 30)), ""},
		{"with Selection: read through it, not guessed", vnode(roleComboBox, "Green", []string{"selection"},
			vnode(roleList, "", nil, vnode(roleListItem, "Green", nil))), ""},
	} {
		choiceFromSubtree(tc.n)
		got := ""
		if tc.n.Value != nil {
			got = *tc.n.Value
		}
		if got != tc.want {
			t.Errorf("%s: value %q, want %q", tc.what, got, tc.want)
		}
	}
}

// A GTK 3 cell drawn by an icon and a text renderer (System Monitor's
// Process Name) holds the renderers' cells; its value is theirs.
func TestRendererCells(t *testing.T) {
	v := func(s string) *string { return &s }
	icon := vnode(roleTableCell, "", []string{"image"})
	name := vnode(roleTableCell, "", []string{"text"})
	name.Value = v("gnome-shell")
	cell := vnode(roleTableCell, "", nil, icon, name)
	plain := vnode(roleTableCell, "", []string{"text"})
	w := &walker{}
	for _, n := range []*platform.Node{cell, icon, name, plain} {
		w.all = append(w.all, &walkNode{node: n, detailed: true})
	}
	w.rendererCells()
	if cell.Value == nil || *cell.Value != "gnome-shell" || plain.Value != nil || icon.Value != nil {
		t.Errorf("cell %v, plain %v, icon %v", cell.Value, plain.Value, icon.Value)
	}
	secret := vnode(roleTableCell, "", nil, vnode(roleTableCell, "", []string{"text"}), &platform.Node{Role: roleTableCell, Redacted: true})
	secret.Children[0].Value = v("shown")
	w = &walker{all: []*walkNode{{node: secret, detailed: true}}}
	if w.rendererCells(); secret.Value != nil {
		t.Errorf("a cell with a redacted renderer got the value %q", *secret.Value)
	}
}
