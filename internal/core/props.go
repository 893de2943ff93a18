package core

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

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
	redacted := n.Redacted || n.IsPassword()
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
