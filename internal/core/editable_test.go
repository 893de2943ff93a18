package core

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
)

func byName(t *testing.T, p *EditableProperties) (map[string]PropertyDescriptor, map[string]PropertyValue) {
	t.Helper()
	ds, vs := map[string]PropertyDescriptor{}, map[string]PropertyValue{}
	for i, d := range p.Descriptors {
		if p.Values[i].DescriptorID != d.DescriptorID {
			t.Fatalf("value %d is for %s, descriptor %s", i, p.Values[i].DescriptorID, d.DescriptorID)
		}
		ds[d.Name], vs[d.Name] = d, p.Values[i]
	}
	return ds, vs
}

// TestEditablePropertiesFromTheFake: each kind of property is derived from
// what the element offers, with its live value.
func TestEditablePropertiesFromTheFake(t *testing.T) {
	m, s, tr := formSession(t, formDesk().Platform())
	ctx := context.Background()
	read := func(name string) (map[string]PropertyDescriptor, map[string]PropertyValue, *EditableProperties) {
		p, err := m.EditableProperties(ctx, s.ID, refOf(t, tr, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ds, vs := byName(t, p)
		return ds, vs, p
	}
	ds, vs, cb := read("Remember")
	if d := ds["checked"]; d.Editor != EditorBoolean || !d.Writable || vs["checked"].Value != false {
		t.Errorf("check box: %+v %+v", d, vs["checked"])
	}
	if d := ds["action"]; d.Editor != EditorCommand || len(d.Choices) != 1 || d.Choices[0] != "toggle" {
		t.Errorf("check box action: %+v", d)
	}
	if _, ok := ds["text"]; ok {
		t.Errorf("a check box without Text has a text property: %+v", ds["text"])
	}
	ds, _, _ = read("Volume")
	if d := ds["value"]; d.Minimum == nil || d.Maximum == nil || !d.Writable {
		t.Errorf("slider value: %+v", d)
	}
	ds, vs, name := read("Name")
	if d := ds["text"]; d.Editor != EditorString || !d.Clearable || vs["text"].Type != "string" {
		t.Errorf("entry text: %+v %+v", d, vs["text"])
	}
	if cb.Descriptors[0].DescriptorID == name.Descriptors[0].DescriptorID || cb.SchemaID == name.SchemaID {
		t.Error("two elements share a descriptor id or schema id")
	}

	// Another session on the same element gets other ids.
	s2, err := m.Connect(ctx, AppSpec{Pid: editorPid}, "")
	if err != nil {
		t.Fatal(err)
	}
	tr2, _, err := m.Fetch(ctx, s2, 5e9, platform.TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p2, err := m.EditableProperties(ctx, s2.ID, refOf(t, tr2, "Name"))
	if err != nil {
		t.Fatal(err)
	}
	if p2.Descriptors[0].DescriptorID == name.Descriptors[0].DescriptorID {
		t.Error("two sessions share a descriptor id")
	}

	if _, err := m.EditableProperties(ctx, s.ID, "a11y:e999"); AsError(err).Code != CodeUnknownRef {
		t.Errorf("an unknown ref: %v", err)
	}
}

// TestEditableSchemaChangesWithTheElementOnly: the schema id follows what
// is declared — a disabled element has another — and not what is held.
func TestEditableSchemaChangesWithTheElementOnly(t *testing.T) {
	d := &platform.Details{Node: platform.Node{Key: "k", Role: fake.Role("text"), States: fake.States("enabled", "sensitive", "editable"),
		Interfaces: []string{"text", "editabletext"}}, Text: &platform.TextContent{Text: "a", Length: 1}}
	a := editableProperties("s1", "a11y:e1", d, nil, -1)
	d.Text = &platform.TextContent{Text: "something else", Length: 14}
	b := editableProperties("s1", "a11y:e1", d, nil, -1)
	if a.SchemaID != b.SchemaID || a.Descriptors[0].DescriptorID != b.Descriptors[0].DescriptorID {
		t.Error("a new value changed the schema")
	}
	if b.Values[0].Value != "something else" {
		t.Errorf("value %v", b.Values[0].Value)
	}
	d.Node.States = fake.States("editable")
	c := editableProperties("s1", "a11y:e1", d, nil, -1)
	if c.SchemaID == a.SchemaID || c.Descriptors[0].DescriptorID == a.Descriptors[0].DescriptorID {
		t.Error("disabling the element kept its schema")
	}
	if c.Descriptors[0].Writable || c.Descriptors[0].Editor != EditorReadonly {
		t.Errorf("a disabled entry is writable: %+v", c.Descriptors[0])
	}
}

// TestEditableRedacted: a password field's, or a hidden field's, text
// never appears, even when a backend read it.
func TestEditableRedacted(t *testing.T) {
	for _, n := range []platform.Node{
		{Key: "pw", Role: platform.RolePasswordText, States: fake.States("enabled", "editable"), Interfaces: []string{"text", "editabletext", "value"}},
		{Key: "hidden", Role: fake.Role("text"), Redacted: true, States: fake.States("enabled", "editable"), Interfaces: []string{"text", "editabletext", "value"}},
	} {
		d := &platform.Details{Node: n, Text: &platform.TextContent{Text: "hunter2", Length: 7},
			Value: &platform.ValueInfo{Current: 1234, Text: "hunter2"}}
		p := editableProperties("s1", "a11y:e1", d, []string{"hunter2"}, 0)
		b, _ := json.Marshal(p)
		if strings.Contains(string(b), "hunter2") || strings.Contains(string(b), "1234") {
			t.Errorf("%s leaked: %s", n.Key, b)
		}
		ds, vs := byName(t, p)
		if !ds["text"].Redacted || !vs["text"].Redacted || vs["text"].Value != nil {
			t.Errorf("%s: %+v %+v", n.Key, ds["text"], vs["text"])
		}
	}
}

// TestSetPropertyOnTheFake: a set goes through the verified action and
// answers with what the app holds after; ids that do not name a property
// of the element now are refused, each with its own code.
func TestSetPropertyOnTheFake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := formDesk()
		m, s, tr := formSession(t, d.Platform())
		ctx := context.Background()
		name, cb := refOf(t, tr, "Name"), refOf(t, tr, "Remember")
		p, err := m.EditableProperties(ctx, s.ID, name)
		if err != nil {
			t.Fatal(err)
		}
		ds, _ := byName(t, p)
		r, err := m.SetProperty(ctx, s.ID, name, ds["text"].DescriptorID, "Ada", false)
		if err != nil {
			t.Fatal(err)
		}
		if r.Value.Value != "Ada" || d.Text(editorPid, "name") != "Ada" {
			t.Errorf("set text: read back %+v, the app holds %q", r.Value, d.Text(editorPid, "name"))
		}
		if _, err := m.SetProperty(ctx, s.ID, name, ds["text"].DescriptorID, nil, true); err != nil || d.Text(editorPid, "name") != "" {
			t.Errorf("clear text: %v, the app holds %q", err, d.Text(editorPid, "name"))
		}
		if _, err := m.SetProperty(ctx, s.ID, name, ds["text"].DescriptorID, true, false); AsError(err).Code != CodeInvalidArgument {
			t.Errorf("a boolean for a string: %v", err)
		}
		pc, err := m.EditableProperties(ctx, s.ID, cb)
		if err != nil {
			t.Fatal(err)
		}
		dc, _ := byName(t, pc)
		for _, c := range []struct {
			ref, id, code string
		}{
			{name, "pffffffffffffffff", CodeUnknownDescriptor},
			{name, dc["checked"].DescriptorID, CodeDescriptorMismatch},
		} {
			if _, err := m.SetProperty(ctx, s.ID, c.ref, c.id, "x", false); AsError(err).Code != c.code {
				t.Errorf("%s on %s: %v, want %s", c.id, c.ref, err, c.code)
			}
		}
		if _, err := m.SetProperty(ctx, s.ID, cb, dc["checked"].DescriptorID, nil, true); AsError(err).Code != CodeNotClearable {
			t.Errorf("clearing a check box: %v", err)
		}

		m.Caps = 0
		if _, err := m.SetProperty(ctx, s.ID, name, ds["text"].DescriptorID, "x", false); AsError(err).Code != CodeInputNotAllowed {
			t.Errorf("without input: %v", err)
		}
	})
}
