package core

import (
	"context"
	"math"
	"strconv"

	"github.com/uiscope/uiscope/internal/security"
)

// Error codes of set_property and clear_property.
const (
	CodeUnknownDescriptor  = "unknownDescriptor"
	CodeStaleDescriptor    = "staleDescriptor"
	CodeDescriptorMismatch = "descriptorMismatch"
	CodeReadOnlyProperty   = "readOnlyProperty"
	CodeNotClearable       = "notClearable"
)

// issuedProperty is what a session remembers of a descriptor id it handed
// out, to say why an id no longer resolves.
type issuedProperty struct {
	key    string // the element's durable key
	schema string
}

// maxIssued bounds a session's memory of descriptor ids: past it the
// memory starts again, and an old id is then refused as unknown.
const maxIssued = 4096

func (s *Session) issue(p *EditableProperties) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.issued == nil || len(s.issued)+len(p.Descriptors) > maxIssued {
		s.issued = map[string]issuedProperty{}
	}
	for _, d := range p.Descriptors {
		s.issued[d.DescriptorID] = issuedProperty{key: p.Key, schema: p.SchemaID}
	}
}

func (s *Session) issuedFor(id string) (issuedProperty, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.issued[id]
	return i, ok
}

// PropertyResult is what set_property and clear_property did: the
// property as read back from the app after the change.
type PropertyResult struct {
	Element  string        `json:"element"`
	SchemaID string        `json:"schemaId"`
	Property string        `json:"property"`
	Value    PropertyValue `json:"value"`
	Method   string        `json:"method"`
	// Verified and Effects are those of the action that set it.
	Verified bool    `json:"verified"`
	Effects  Effects `json:"effects"`
	Note     string  `json:"note,omitempty"`
}

// SetProperty sets (clear false) or clears (clear true) one property named
// by a descriptor id from get_editable_properties, through the verified
// action for its kind (SetValue, Toggle, SetExpanded, Select, Invoke), and
// answers with the property read back from the app afterwards.
func (m *Sessions) SetProperty(ctx context.Context, sessionID, ref, descriptorID string, value any, clear bool) (*PropertyResult, error) {
	if err := m.require(security.Interact, "setting properties"); err != nil {
		return nil, err
	}
	s, err := m.Get(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	now, err := m.editable(ctx, s, ref)
	if err != nil {
		return nil, err
	}
	desc, ok := now.descriptor(descriptorID)
	if !ok {
		return nil, descriptorRefusal(s, now, descriptorID)
	}
	if !desc.Writable {
		return nil, Errorf(CodeReadOnlyProperty, "%s's %s is read-only (editor readonly): it cannot be set", now.Ref, desc.Name)
	}
	if clear && !desc.Clearable {
		return nil, Errorf(CodeNotClearable, "%s's %s cannot be cleared (clearable false); set it instead", now.Ref, desc.Name)
	}
	var r *ActResult
	switch {
	case clear:
		r, err = m.SetValue(ctx, s.ID, now.Ref, "")
	default:
		r, err = m.setTo(ctx, s, now, desc, value)
	}
	if err != nil {
		return nil, err
	}
	after, err := m.editable(ctx, s, now.Ref)
	if err != nil {
		return nil, Errorf(CodeNoEffect, "%s of %s was changed but could not be read back (%s): the change is not confirmed; read it with get_editable_properties", desc.Name, now.Ref, AsError(err).Msg)
	}
	for i, d := range after.Descriptors {
		if d.Name == desc.Name {
			return &PropertyResult{Element: after.Ref, SchemaID: after.SchemaID, Property: d.Name, Value: after.Values[i], Method: r.Method,
				Verified: r.Verified, Effects: r.Effects, Note: r.Note}, nil
		}
	}
	return nil, Errorf(CodeNoEffect, "after the change %s no longer has a %s property: the change is not confirmed; read it with get_editable_properties", now.Ref, desc.Name)
}

// editable reads the element's properties live and remembers the ids.
func (m *Sessions) editable(ctx context.Context, s *Session, ref string) (*EditableProperties, error) {
	n, id, t, err := s.Resolve(ref)
	if err != nil {
		return nil, err
	}
	d, err := m.Element(ctx, s, n.Key)
	if err != nil {
		return nil, err
	}
	items, chosen := m.items(ctx, s, t, id, d)
	p := editableProperties(s.ID, t.RefString(id), d, items, chosen)
	p.tree, p.id = t, id
	s.issue(p)
	return p, nil
}

func (p *EditableProperties) descriptor(id string) (PropertyDescriptor, bool) {
	for _, d := range p.Descriptors {
		if d.DescriptorID == id {
			return d, true
		}
	}
	return PropertyDescriptor{}, false
}

// descriptorRefusal says why id does not name a property of the element now.
func descriptorRefusal(s *Session, now *EditableProperties, id string) error {
	was, ok := s.issuedFor(id)
	switch {
	case !ok:
		return Errorf(CodeUnknownDescriptor, "descriptor %s was not issued in session %s: take descriptorIds from get_editable_properties on %s in this session", Quote(id), s.ID, now.Ref)
	case was.key != now.Key:
		return Errorf(CodeDescriptorMismatch, "descriptor %s belongs to another element, not %s: take descriptorIds from get_editable_properties on %s", Quote(id), now.Ref, now.Ref)
	}
	return Errorf(CodeStaleDescriptor, "descriptor %s is stale: %s changed since it was read (schema %s, now %s); call get_editable_properties again and use the new ids", Quote(id), now.Ref, was.schema, now.SchemaID)
}

// setTo converts value for desc and sets it through the verified action
// for its kind.
func (m *Sessions) setTo(ctx context.Context, s *Session, now *EditableProperties, desc PropertyDescriptor, value any) (*ActResult, error) {
	bad := func(want string) error {
		return Errorf(CodeInvalidArgument, "value for %s (editor %s) must be %s, not %s", desc.Name, desc.Editor, want, JSONKind(value))
	}
	switch desc.Editor {
	case EditorString:
		v, ok := value.(string)
		if !ok {
			return nil, bad("a string")
		}
		return m.SetValue(ctx, s.ID, now.Ref, v)
	case EditorInteger, EditorNumber:
		v, ok := value.(float64)
		if !ok {
			return nil, bad("a number")
		}
		if desc.Editor == EditorInteger && v != math.Trunc(v) {
			return nil, bad("a whole number")
		}
		if (desc.Minimum != nil && v < *desc.Minimum) || (desc.Maximum != nil && v > *desc.Maximum) {
			return nil, Errorf(CodeInvalidArgument, "value %s for %s is out of range [%s, %s]", fmtNum(v), desc.Name, fmtNum(*desc.Minimum), fmtNum(*desc.Maximum))
		}
		return m.SetValue(ctx, s.ID, now.Ref, fmtNum(v))
	case EditorBoolean:
		v, ok := value.(bool)
		if !ok {
			return nil, bad("true or false")
		}
		cur, _ := now.value(desc.DescriptorID).(bool)
		if cur == v {
			return &ActResult{Element: now.Ref, Method: MethodNone, Verified: true}, nil
		}
		switch desc.Name {
		case "checked":
			return m.Toggle(ctx, s.ID, now.Ref)
		case "expanded":
			return m.SetExpanded(ctx, s.ID, now.Ref, v)
		case "selected":
			return m.Select(ctx, s.ID, now.Ref, map[bool]string{true: "replace", false: "remove"}[v])
		}
	case EditorEnum:
		v, ok := value.(string)
		if !ok {
			return nil, bad("one of the choices")
		}
		for i, c := range desc.Choices {
			if c == v {
				if item, ok := now.item(i); ok {
					return m.Select(ctx, s.ID, item, "replace")
				}
				return nil, Errorf(CodeStaleDescriptor, "item %s of %s is no longer in the session's last read: read the tree again, then get_editable_properties", Quote(v), now.Ref)
			}
		}
		return nil, Errorf(CodeInvalidArgument, "value %s for %s is not one of its choices", Quote(v), desc.Name)
	case EditorCommand:
		v, ok := value.(string)
		if !ok {
			return nil, bad("one of the action names")
		}
		for _, c := range desc.Choices {
			if c == v {
				return m.Invoke(ctx, s.ID, now.Ref, v)
			}
		}
		return nil, Errorf(CodeInvalidArgument, "value %s for %s is not one of its actions", Quote(v), desc.Name)
	}
	return nil, Errorf(CodeNotSupported, "%s (editor %s) cannot be set", desc.Name, desc.Editor)
}

func (p *EditableProperties) value(id string) any {
	for _, v := range p.Values {
		if v.DescriptorID == id {
			return v.Value
		}
	}
	return nil
}

// item is the ref of the i-th item of a Selection container, as
// itemNames listed them.
func (p *EditableProperties) item(i int) (string, bool) {
	kids := itemIDs(p.tree, p.id)
	if i < 0 || i >= len(kids) {
		return "", false
	}
	return p.tree.RefString(kids[i]), true
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
