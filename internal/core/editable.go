package core

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
)

// Editor kinds: how a property is edited (docs/api.md, get_editable_properties).
const (
	EditorReadonly = "readonly"
	EditorString   = "string"
	EditorBoolean  = "boolean"
	EditorInteger  = "integer"
	EditorNumber   = "number"
	EditorEnum     = "enum"
	EditorCommand  = "command"
)

// PropertyDescriptor is one editable property of an element as the provider
// declares it. It holds nothing that changes while the element stays the
// same; what the property holds now is its PropertyValue.
type PropertyDescriptor struct {
	// DescriptorID is opaque: it names this property of this element in
	// this session, under this schema, and nothing else.
	DescriptorID string   `json:"descriptorId"`
	Name         string   `json:"name" jsonschema:"text, value, checked, expanded, selected, choice or action"`
	Type         string   `json:"type" jsonschema:"declared type: string, number, integer, boolean, enum or command"`
	Editor       string   `json:"editor" jsonschema:"readonly, string, boolean, integer, number, enum or command"`
	Choices      []string `json:"choices,omitempty" jsonschema:"an enum's items, a command's actions"`
	Minimum      *float64 `json:"minimum,omitempty"`
	Maximum      *float64 `json:"maximum,omitempty"`
	Increment    *float64 `json:"increment,omitempty"`
	Writable     bool     `json:"writable"`
	Clearable    bool     `json:"clearable"`
	// Redacted: the property's content is never read (a password field).
	Redacted bool `json:"redacted,omitempty"`
}

// PropertyValue is what one property holds now.
type PropertyValue struct {
	DescriptorID string `json:"descriptorId"`
	// Value is the current value: a string, number, boolean, an enum's
	// item, or null (a command, a redacted field, an enum with nothing
	// chosen).
	Value any `json:"value"`
	// Type is the value's runtime type: string, number, integer, boolean
	// or null.
	Type     string `json:"type"`
	CanClear bool   `json:"canClear"`
	Redacted bool   `json:"redacted,omitempty"`
	// Truncated: a long text was cut at the reader's bound.
	Truncated bool `json:"truncated,omitempty"`
}

// EditableProperties is an element's property schema and its values.
type EditableProperties struct {
	Ref         string               `json:"element"`
	Key         string               `json:"-"`
	SchemaID    string               `json:"schemaId"`
	Descriptors []PropertyDescriptor `json:"descriptors"`
	Values      []PropertyValue      `json:"values"`

	tree *Tree // the read the element was found in, and its id there
	id   int
}

// EditableProperties reads an element live and derives its editable
// properties from what AT-SPI offers: Text/EditableText, Value, the
// checked, expanded and selected states, a Selection container's items and
// the element's actions, within DefaultTimeoutMs. ref names an element of
// the session's last read.
func (m *Sessions) EditableProperties(ctx context.Context, sessionID, ref string) (*EditableProperties, error) {
	ctx, cancel := context.WithTimeout(ctx, DefaultTimeoutMs*time.Millisecond)
	defer cancel()
	s, err := m.Get(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	return m.editable(ctx, s, ref)
}

// items lists a Selection container's items (itemNames) and which is
// selected (-1: none, or not known).
func (m *Sessions) items(ctx context.Context, s *Session, t *Tree, id int, d *platform.Details) ([]string, int) {
	items := itemNames(t, id)
	if slices.Contains(d.Node.Interfaces, "selection") && m.desk.Actions != nil {
		// A read, not an action: Selection.IsChildSelected asks the
		// container, as GTK 3 combo box items carry no SELECTED state.
		for i := range items {
			if sel, err := m.desk.Actions.IsSelected(ctx, s.App, d.Node.Key, i); err == nil && sel {
				return items, i
			}
		}
	}
	return items, -1
}

// itemIDs are the items a Selection container offers, from the session's
// last read: its children, or the children of its only child when that is
// a menu or list (a GTK combo box holds a menu).
func itemIDs(t *Tree, id int) []int {
	kids := t.Children(id)
	if len(kids) == 1 {
		if k, ok := t.Node(kids[0]); ok && (k.Role == platform.RoleMenu || k.Role == platform.RoleList) {
			kids = t.Children(kids[0])
		}
	}
	return kids
}

func itemNames(t *Tree, id int) []string {
	names := []string{}
	for _, k := range itemIDs(t, id) {
		if n, ok := t.Node(k); ok {
			names = append(names, n.Name)
		}
	}
	return names
}

// checkRoles are the roles whose checked state Toggle changes.
var checkRoles = map[platform.Role]bool{platform.RoleCheckBox: true, platform.RoleRadioButton: true,
	platform.RoleToggleButton: true, platform.RoleCheckMenuItem: true, platform.RoleRadioMenuItem: true}

// readOnlyValueRoles show a Value no one sets.
var readOnlyValueRoles = map[platform.Role]bool{platform.RoleProgressBar: true, platform.RoleLevelBar: true}

// editableProperties derives the schema and values of d. items are a
// Selection container's item names, chosen the index of its selected one
// (-1: none, or not known).
func editableProperties(sessionID, ref string, d *platform.Details, items []string, chosen int) *EditableProperties {
	n := &d.Node
	redacted := n.Secret()
	enabled := n.States.Has(platform.StateEnabled) || n.States.Has(platform.StateSensitive)
	has := func(iface string) bool { return slices.Contains(n.Interfaces, iface) }
	type prop struct {
		desc PropertyDescriptor
		val  PropertyValue
	}
	var props []prop
	add := func(desc PropertyDescriptor, val PropertyValue) {
		props = append(props, prop{desc, val})
	}

	if has("text") {
		// A field without EditableText that says it is editable is set by
		// typing (SetValue): writable all the same.
		editable := (has("editabletext") || typable(n)) && n.States.Has(platform.StateEditable)
		desc := PropertyDescriptor{Name: "text", Type: "string", Editor: EditorReadonly, Redacted: redacted}
		if editable && enabled {
			desc.Editor, desc.Writable, desc.Clearable = EditorString, true, true
		}
		val := PropertyValue{Value: nil, Type: "null", Redacted: redacted}
		if !redacted && d.Text != nil {
			val.Value, val.Type, val.Truncated = d.Text.Text, "string", d.Text.Truncated
			val.CanClear = desc.Clearable && d.Text.Length > 0
		} else if redacted {
			// Whether a hidden field is empty is not read either: clearing
			// an empty one is harmless.
			val.CanClear = desc.Clearable
		}
		add(desc, val)
	}
	if has("value") && d.Value != nil && !redacted {
		v := d.Value
		desc := PropertyDescriptor{Name: "value", Type: "number", Editor: EditorReadonly,
			Minimum: ptrTo(v.Minimum), Maximum: ptrTo(v.Maximum), Increment: ptrTo(v.Increment)}
		if integral(v.Minimum) && integral(v.Maximum) && integral(v.Increment) && v.Increment != 0 {
			desc.Type = "integer"
		}
		if enabled && !readOnlyValueRoles[n.Role] {
			desc.Editor, desc.Writable = desc.Type, true
		}
		typ := "number"
		if integral(v.Current) {
			typ = "integer"
		}
		add(desc, PropertyValue{Value: v.Current, Type: typ})
	}
	if checkRoles[n.Role] || n.States.Has(platform.StateCheckable) {
		desc := PropertyDescriptor{Name: "checked", Type: "boolean", Editor: EditorReadonly}
		if enabled {
			desc.Editor, desc.Writable = EditorBoolean, true
		}
		add(desc, PropertyValue{Value: n.States.Has(platform.StateChecked), Type: "boolean"})
	}
	if n.States.Has(platform.StateExpandable) {
		desc := PropertyDescriptor{Name: "expanded", Type: "boolean", Editor: EditorReadonly}
		if enabled {
			desc.Editor, desc.Writable = EditorBoolean, true
		}
		add(desc, PropertyValue{Value: n.States.Has(platform.StateExpanded), Type: "boolean"})
	}
	if n.States.Has(platform.StateSelectable) {
		desc := PropertyDescriptor{Name: "selected", Type: "boolean", Editor: EditorReadonly}
		if enabled {
			desc.Editor, desc.Writable = EditorBoolean, true
		}
		add(desc, PropertyValue{Value: n.States.Has(platform.StateSelected), Type: "boolean"})
	}
	if has("selection") && len(items) > 0 && !redacted {
		desc := PropertyDescriptor{Name: "choice", Type: "enum", Editor: EditorReadonly, Choices: items}
		if enabled {
			desc.Editor, desc.Writable = EditorEnum, true
		}
		val := PropertyValue{Value: nil, Type: "null"}
		switch {
		case chosen >= 0 && chosen < len(items):
			val.Value, val.Type = items[chosen], "string"
		case slices.Contains(items, n.Name):
			// Qt 5's combo box selects nothing through AT-SPI but names
			// itself after its current item.
			val.Value, val.Type = n.Name, "string"
		}
		add(desc, val)
	}
	if len(n.Actions) > 0 {
		desc := PropertyDescriptor{Name: "action", Type: "command", Editor: EditorReadonly, Choices: slices.Clone(n.Actions)}
		if enabled {
			desc.Editor, desc.Writable = EditorCommand, true
		}
		add(desc, PropertyValue{Value: nil, Type: "null"})
	}

	// The schema is everything declared, none of what is held: it changes
	// when the element does (its role, interfaces, actions, items, or
	// whether it can be edited), and only then.
	h := sha256.New()
	for _, part := range []string{sessionID, n.Key, n.Role.String()} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	for _, p := range props {
		dd := p.desc
		h.Write([]byte(dd.Name + "\x00" + dd.Type + "\x00" + dd.Editor + "\x00" + strings.Join(dd.Choices, "\x01") + "\x00"))
		for _, f := range []*float64{dd.Minimum, dd.Maximum, dd.Increment} {
			if f != nil {
				h.Write([]byte(strconv.FormatFloat(*f, 'g', -1, 64)))
			}
			h.Write([]byte{0})
		}
		h.Write([]byte{b2(dd.Writable), b2(dd.Clearable), b2(dd.Redacted)})
	}
	schema := h.Sum(nil)
	out := &EditableProperties{Ref: ref, Key: n.Key, SchemaID: "s" + hex.EncodeToString(schema[:8]),
		Descriptors: []PropertyDescriptor{}, Values: []PropertyValue{}}
	for _, p := range props {
		id := sha256.Sum256(append(append([]byte{}, schema...), p.desc.Name...))
		p.desc.DescriptorID = "p" + hex.EncodeToString(id[:8])
		p.val.DescriptorID = p.desc.DescriptorID
		out.Descriptors = append(out.Descriptors, p.desc)
		out.Values = append(out.Values, p.val)
	}
	return out
}

func integral(f float64) bool { return f == math.Trunc(f) && !math.IsInf(f, 0) }

func b2(b bool) byte {
	if b {
		return 1
	}
	return 0
}
