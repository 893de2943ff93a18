//go:build linux

package atspi

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/godbus/dbus/v5"

	"github.com/uiscope/uiscope/internal/platform"
)

// Values: what a control holds, read in the tree walk so that an agent sees
// a form in one call (platform.Node.Value; docs/api.md): the text of
// entries, text areas and table cells, the number of sliders, spin buttons
// and progress bars, the chosen item of a combo box, and the text a user
// reads where no name says it (readRoles). Never of a redacted
// field, and a field that may hide its text (GTK 4, hidden.go) is valued
// only from what it shows.
//
// Text is read up to the element's own character count, never past it: Qt
// 5 and Firefox answer Text.GetText with "" when the end is past the count,
// and GTK 4.8 answers an end of -1 with "" (docs/design.md, "How a tree
// is read", and docs/security.md, "Redaction"). So a text value costs two calls in two pipelined
// rounds: CharacterCount, then GetText(0, min(count, cap+1)).

var (
	roleTableCell   = mustRole("table cell")
	roleSpinButton  = mustRole("spin button")
	roleSlider      = mustRole("slider")
	roleProgressBar = mustRole("progress bar")
	roleLevelBar    = mustRole("level bar")
	roleDial        = mustRole("dial")
	roleComboBox    = mustRole("combo box")
	roleLabel       = mustRole("label")
	roleMenu        = mustRole("menu")
	roleList        = mustRole("list")
	roleListBox     = mustRole("list box")
	roleListItem    = mustRole("list item")
	roleMenuItem    = mustRole("menu item")
	roleStatic      = mustRole("static")
)

// readRoles hold text a user reads, often without a name that says it: a
// page's status line (<p role=status>: Firefox's status bar holds its text
// itself, no child does), a paragraph or a block of a web page, Evince's
// page (its text only in the Text interface). Unnamed, not editable and
// with the Text interface, they are valued with their text (readValue).
// Chromium's hold it in static children, which are named with it: those
// are left alone. A list of roles, not every Text element, to keep the
// tree read's cost where the text is (two calls an element): a frame, a
// panel or a web page's section (a div, an article) with Text mostly holds
// its children's embedded objects; a label is named with its text.
var readRoles = map[platform.Role]bool{}

func init() {
	for _, name := range []string{"status bar", "page", "paragraph", "caption", "block quote", "heading", "static",
		"notification", "alert", "log", "timer", "marquee", "comment", "footnote", "definition", "description value",
		"mark", "content deletion", "content insertion"} {
		if r, ok := platform.RoleByName(name); ok {
			readRoles[r] = true
		}
	}
}

func mustRole(name string) platform.Role {
	r, ok := platform.RoleByName(name)
	if !ok {
		panic("atspi: unknown role " + name)
	}
	return r
}

// valueKind is how an element's value is read.
type valueKind uint8

const (
	noValue     valueKind = iota
	textValue             // Text: CharacterCount, then GetText up to it
	numberValue           // Value.CurrentValue
	choiceValue           // a combo box: its selected item's name
	readValue             // text a user reads (readRoles): as textValue, never only embedded objects
)

// valueKindOf says how n's value is read. Scroll bars and split panes have
// the Value interface too, but their number is a position, not content:
// they are left out.
func valueKindOf(n *platform.Node) valueKind {
	if n.Secret() {
		return noValue
	}
	switch n.Role {
	case roleSlider, roleProgressBar, roleLevelBar, roleDial, roleSpinButton:
		if hasInterface(n, "value") {
			return numberValue
		}
	case roleComboBox:
		return choiceValue
	}
	switch n.Role {
	case roleEntry, roleText, roleTableCell, roleSpinButton:
		if hasInterface(n, "text") {
			return textValue
		}
	}
	if readRoles[n.Role] && n.Name == "" && !n.States.Has(platform.StateEditable) && hasInterface(n, "text") &&
		!slices.ContainsFunc(n.Children, func(k *platform.Node) bool { return k.Role == roleStatic }) {
		return readValue
	}
	return noValue
}

// onlyObjects reports a text that is nothing but embedded objects and
// space: a container's, whose children say what it holds.
func onlyObjects(s string) bool {
	return strings.TrimFunc(s, func(r rune) bool { return r == embeddedObject || unicode.IsSpace(r) }) == ""
}

// showValue sets the value n shows in the tree (Node.Value), cut to
// platform.MaxValueRunes; over says the element holds more than s. Empty
// values are left out: an empty field holds nothing to show. (SetValue,
// in actions.go, sets an application's value through its Value interface.)
func showValue(n *platform.Node, s string, over bool) {
	if n.Secret() {
		return
	}
	if utf8.RuneCountInString(s) > platform.MaxValueRunes {
		s, over = string([]rune(s)[:platform.MaxValueRunes]), true
	}
	if s == "" && !over {
		n.Value, n.ValueTruncated = nil, false
		return
	}
	n.Value, n.ValueTruncated = &s, over
}

// formatNumber writes a Value number as people read it: 5, 0.25, -3.5.
func formatNumber(f float64) string {
	if math.Abs(f) < 1e15 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// readValues reads the values of the walked nodes in two pipelined rounds.
// done holds the nodes already valued or redacted from what they show
// (hideHiddenFields): they are never read with GetText.
func (w *walker) readValues(done map[*walkNode]bool) {
	type textRead struct {
		wn    *walkNode
		count int
		text  string
		ok    bool
		read  bool // readValue
	}
	type choiceRead struct {
		wn  *walkNode
		sel objRef
		ok  bool
	}
	var texts []*textRead
	var choices []*choiceRead
	b := w.c.newBatch(w.ctx)
	defer b.close()
	for _, wn := range w.all {
		if !wn.detailed || done[wn] {
			continue
		}
		n := wn.node
		switch kind := valueKindOf(n); kind {
		case textValue, readValue:
			t := &textRead{wn: wn, read: kind == readValue}
			texts = append(texts, t)
			b.get(wn.ref.Bus, wn.ref.Path, ifaceText, "CharacterCount", func(v any, err error) {
				if c, ok := v.(int32); ok && err == nil {
					t.count, t.ok = int(c), true
				}
			})
			w.stats.Calls++
		case numberValue:
			b.get(wn.ref.Bus, wn.ref.Path, ifaceValue, "CurrentValue", func(v any, err error) {
				if f, ok := v.(float64); ok && err == nil {
					showValue(n, formatNumber(f), false)
				}
			})
			w.stats.Calls++
		case choiceValue:
			if !hasInterface(n, "selection") {
				continue // read from the subtree once bounds are known (shownChoices)
			}
			ch := &choiceRead{wn: wn}
			choices = append(choices, ch)
			b.add(wn.ref.Bus, wn.ref.Path, ifaceSelection+".GetSelectedChild", func(call *dbus.Call) {
				ch.ok = call.Err == nil && call.Store(&ch.sel) == nil && !ch.sel.null()
			}, int32(0))
			w.stats.Calls++
		}
	}
	b.wait()

	// Second round: the texts up to their counts, and the names of chosen
	// items the walk did not reach.
	var byKey map[string]*walkNode
	if len(choices) > 0 {
		byKey = make(map[string]*walkNode, len(w.all))
		for _, wn := range w.all {
			byKey[wn.node.Key] = wn
		}
	}
	for _, t := range texts {
		if !t.ok || t.count <= 0 {
			continue
		}
		end := min(t.count, platform.MaxValueRunes+1)
		b.add(t.wn.ref.Bus, t.wn.ref.Path, ifaceText+".GetText", func(call *dbus.Call) {
			t.ok = call.Err == nil && call.Store(&t.text) == nil
		}, int32(0), int32(end))
		w.stats.Calls++
	}
	for _, ch := range choices {
		if !ch.ok {
			continue
		}
		if item := byKey[ch.sel.key()]; item != nil && item.detailed {
			if !item.node.Redacted {
				showValue(ch.wn.node, item.node.Name, false)
			}
			continue
		}
		n := ch.wn.node
		b.get(ch.sel.Bus, ch.sel.Path, ifaceAccessible, "Name", func(v any, err error) {
			if s, ok := v.(string); ok && err == nil {
				showValue(n, s, false)
			}
		})
		w.stats.Calls++
	}
	b.wait()
	for _, t := range texts {
		if !t.ok || t.count <= 0 {
			continue
		}
		if t.read && onlyObjects(t.text) {
			continue
		}
		text, ok := withEmbedded(t.text, t.wn.node.Children)
		if ok {
			showValue(t.wn.node, text, t.count > platform.MaxValueRunes)
		}
	}
}

// rendererCells values the GTK 3 table cells drawn by several renderers
// (an icon and a name: GNOME System Monitor's Process Name, the file
// chooser's Name): a cell with no text of its own whose children are the
// renderers' cells, valued by the walk already; the cell's value is
// theirs, joined by a space, as read_table gives it (expandContainers). No
// call: the children were read. A renderer that is redacted leaves the
// cell without a value. The mirror walks such a cell again when one of
// its renderers changes (mirror.plan).
func (w *walker) rendererCells() {
	for _, wn := range w.all {
		if n := wn.node; wn.detailed && isRendererCell(n) && n.Value == nil {
			n.Value, n.ValueTruncated = nil, false
			var parts []string
			over := false
			for _, k := range n.Children {
				if k.Secret() {
					parts = nil
					break
				}
				if k.Value != nil && *k.Value != "" {
					parts = append(parts, *k.Value)
					over = over || k.ValueTruncated
				}
			}
			if len(parts) > 0 {
				showValue(n, strings.Join(parts, " "), over)
			}
		}
	}
}

// isRendererCell reports a table cell with no name and only
// table cells as children.
func isRendererCell(n *platform.Node) bool {
	if n.Role != roleTableCell || n.Name != "" || n.Redacted || len(n.Children) == 0 {
		return false
	}
	for _, k := range n.Children {
		if k.Role != roleTableCell {
			return false
		}
	}
	return true
}

// shownChoices values the combo boxes without a Selection interface from
// what their subtree shows, once bounds are read: Firefox and Chromium mark
// the chosen item of an HTML select selected; GTK 4's drop-down shows the
// chosen item as the one label on screen inside its button (the other
// stack page is laid out at 0x0); Qt 5 names a combo box after its current
// text, which is then one of its list's items.
func (w *walker) shownChoices() {
	for _, wn := range w.all {
		if wn.detailed && wn.node.Value == nil {
			choiceFromSubtree(wn.node)
		}
	}
}

// choiceFromSubtree values a combo box without a Selection interface from
// its subtree as read (see shownChoices).
func choiceFromSubtree(n *platform.Node) {
	if valueKindOf(n) != choiceValue || hasInterface(n, "selection") {
		return
	}
	n.Value, n.ValueTruncated = nil, false
	if s, ok := selectedItem(n); ok {
		showValue(n, s, false)
	} else if s, ok := shownLabel(n); ok {
		showValue(n, s, false)
	} else if n.Name != "" && hasItemNamed(n, n.Name) {
		showValue(n, n.Name, false)
	}
}

// shownLabel is the name of the one label on screen inside a combo box,
// outside its popup (menus, lists, windows).
func shownLabel(n *platform.Node) (string, bool) {
	var found []string
	var visit func(k *platform.Node)
	visit = func(k *platform.Node) {
		switch k.Role {
		case roleMenu, roleList, roleListBox, platform.RoleWindow:
			return
		case roleLabel:
			if k.Bounds != nil && !k.Bounds.Empty() && !k.Redacted {
				found = append(found, k.Name)
			}
		}
		for _, c := range k.Children {
			visit(c)
		}
	}
	for _, c := range n.Children {
		visit(c)
	}
	if len(found) != 1 {
		return "", false
	}
	return found[0], true
}

// selectedItem is the name of the first selected list or menu item under n.
func selectedItem(n *platform.Node) (string, bool) {
	for _, c := range n.Children {
		if (c.Role == roleListItem || c.Role == roleMenuItem) && c.States.Has(platform.StateSelected) && !c.Redacted {
			return c.Name, true
		}
		if s, ok := selectedItem(c); ok {
			return s, true
		}
	}
	return "", false
}

// hasItemNamed reports whether a list or menu item under n is named name.
func hasItemNamed(n *platform.Node, name string) bool {
	for _, c := range n.Children {
		if (c.Role == roleListItem || c.Role == roleMenuItem) && c.Name == name {
			return true
		}
		if hasItemNamed(c, name) {
			return true
		}
	}
	return false
}
