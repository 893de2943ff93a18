package core

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
)

// propertyOrder is the order properties are shown in; others follow sorted.
var propertyOrder = []string{"ref", "key", "role", "name", "description", "accessibleId", "states",
	"bounds", "interfaces", "actions", "text", "value", "childCount", "parentKey", "indexInParent", "attributes", "redacted"}

// Properties shapes one element's live details as get_element_properties
// and 'uiscope props' return them.
//
// A redacted element (a password field, or a field the backend saw hiding
// its text) shows neither name, description, text nor value, and of its
// attributes only those that cannot carry text the user typed or was shown
// (see redactedAttributes): "placeholder-text", for one, can name what the
// field holds. The backend should have left them unread; this holds even
// when it did not.
func Properties(ref string, d *platform.Details) map[string]any {
	n := &d.Node
	redacted := n.Secret()
	p := map[string]any{
		"ref":           ref,
		"key":           n.Key,
		"role":          n.Role.String(),
		"name":          n.Name,
		"description":   n.Description,
		"states":        n.States.Names(),
		"interfaces":    nonNil(n.Interfaces),
		"actions":       nonNil(n.Actions),
		"childCount":    n.ChildCount,
		"indexInParent": d.IndexInParent,
	}
	if n.AccessibleID != "" {
		p["accessibleId"] = n.AccessibleID
	}
	if n.Bounds != nil {
		p["bounds"] = *n.Bounds
	}
	if d.ParentKey != "" {
		p["parentKey"] = d.ParentKey
	}
	attrs := d.Attributes
	if redacted {
		attrs = redactAttributes(attrs)
	}
	if len(attrs) > 0 {
		p["attributes"] = attrs
	}
	if redacted {
		p["name"], p["description"], p["redacted"] = "", "", true
		return p
	}
	if d.Text != nil {
		p["text"] = d.Text
	}
	if d.Value != nil {
		p["value"] = d.Value
	}
	return p
}

// redactedAttributes are the attributes a redacted element keeps: they
// describe the toolkit, never the content. Every other attribute is left
// out: toolkits put text in them (GTK 4's "placeholder-text"), and a list
// of the harmful ones could never be complete.
var redactedAttributes = map[string]bool{"toolkit": true}

func redactAttributes(attrs map[string]string) map[string]string {
	var out map[string]string
	for k, v := range attrs {
		if redactedAttributes[k] {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

// SelectProperties keeps only the named properties (ref always stays). An
// unknown name is an error listing the known ones.
func SelectProperties(p map[string]any, names []string) (map[string]any, error) {
	if len(names) == 0 {
		return p, nil
	}
	out := map[string]any{"ref": p["ref"]}
	for _, n := range names {
		known := false
		for _, k := range propertyOrder {
			known = known || k == n
		}
		if !known {
			return nil, Errorf(CodeInvalidArgument, "unknown property %s; known: %s", Quote(n), strings.Join(propertyOrder, ", "))
		}
		if v, ok := p[n]; ok {
			out[n] = v
		}
	}
	return out, nil
}

// PropertyOrder lists p's keys in display order.
func PropertyOrder(p map[string]any) []string {
	var keys []string
	seen := map[string]bool{}
	for _, k := range propertyOrder {
		if _, ok := p[k]; ok {
			keys = append(keys, k)
			seen[k] = true
		}
	}
	var rest []string
	for k := range p {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(keys, rest...)
}

// FormatValue renders a property value on one line for people.
func FormatValue(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("%q", x)
	case []string:
		return strings.Join(x, " ")
	case platform.Rect:
		return fmt.Sprintf("%d,%d %dx%d", x.X, x.Y, x.Width, x.Height)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// PropsRequest is one live read of one element: get_element_properties and
// 'uiscope props'.
type PropsRequest struct {
	// Element is a ref; with Fresh also a durable key (a "backend:..."
	// string from a tree read's key field).
	Element string
	// Names selects properties (ref is always there); empty for all.
	Names []string
	// TimeoutMs bounds each read (with Fresh, the tree read, then the
	// element's); nil for DefaultTimeoutMs.
	TimeoutMs *int
	// Fresh resolves Element in a tree this call reads (read.go).
	Fresh bool
}

// Validate checks the request: an element, known property names, the
// deadline.
func (r *PropsRequest) Validate() error {
	if r.Element == "" {
		return missingElement(r.Fresh)
	}
	for _, n := range r.Names {
		if !slices.Contains(propertyOrder, n) {
			return Errorf(CodeInvalidArgument, "unknown property %s; known: %s", Quote(n), strings.Join(propertyOrder, ", "))
		}
	}
	if _, err := Timeout(r.TimeoutMs); err != nil {
		return err
	}
	return validElement(r.Element, r.Fresh)
}

// PropsRead is one element's properties, read live.
type PropsRead struct {
	Ref        string         // the element's ref in the session's last read
	Key        string         // its durable key
	Properties map[string]any // as Properties shapes them, narrowed to Names
}

// Properties reads one element live. Without Fresh the element is the one
// the ref names in the session's last read, and no tree is read; with it
// the tree is read first (it becomes the session's last read) and the ref
// or key is found in it. req is validated (PropsRequest.Validate), then
// the session's identity checked (Get).
func (m *Sessions) Properties(ctx context.Context, sessionID string, req PropsRequest) (*PropsRead, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	s, err := m.Get(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	limit, err := Timeout(req.TimeoutMs)
	if err != nil {
		return nil, err
	}
	key, shown, err := m.elementKey(ctx, s, req.Element, req.Fresh, limit)
	if err != nil {
		return nil, err
	}
	ectx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	d, err := m.Element(ectx, s, key)
	if err != nil {
		return nil, err
	}
	props, err := SelectProperties(Properties(shown, d), req.Names)
	if err != nil {
		return nil, AsError(err)
	}
	return &PropsRead{Ref: shown, Key: key, Properties: props}, nil
}

// elementKey resolves the element a request names (a ref, or with fresh
// also a durable key: read.go) to its durable key and the ref it is
// shown as. Without fresh no tree is read; with it the tree is read within
// limit and becomes the session's last read.
func (m *Sessions) elementKey(ctx context.Context, s *Session, element string, fresh bool, limit time.Duration) (key, shown string, err error) {
	switch {
	case !fresh:
		n, id, t, err := s.Resolve(element)
		if err != nil {
			return "", "", err
		}
		return n.Key, t.RefString(id), nil
	case isKey(element):
		t, _, err := m.Fetch(ctx, s, limit, platform.TreeOptions{})
		if err != nil {
			return "", "", err
		}
		pos, ok := t.ByKey(element)
		if !ok {
			return "", "", Errorf(CodeElementGone, "no element %s in %s's tree: it is gone, or belongs to another application", Quote(element), s.App.Name)
		}
		return element, t.RefString(pos), nil
	}
	t, _, pos, err := m.fetchAt(ctx, s, element, true, limit, platform.TreeOptions{})
	if err != nil {
		return "", "", err
	}
	n, _ := t.Node(pos)
	return n.Key, t.RefString(pos), nil
}
