//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/atspi"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// The editable-property tests read and edit through a real `uiscope mcp`
// and check every value against the app read over AT-SPI by the test.

type propDesc struct {
	DescriptorID string   `json:"descriptorId"`
	Name         string   `json:"name"`
	Type         string   `json:"type"`
	Editor       string   `json:"editor"`
	Choices      []string `json:"choices"`
	Minimum      *float64 `json:"minimum"`
	Maximum      *float64 `json:"maximum"`
	Increment    *float64 `json:"increment"`
	Writable     bool     `json:"writable"`
	Clearable    bool     `json:"clearable"`
	Redacted     bool     `json:"redacted"`
}

type propValue struct {
	DescriptorID string `json:"descriptorId"`
	Value        any    `json:"value"`
	Type         string `json:"type"`
	CanClear     bool   `json:"canClear"`
	Redacted     bool   `json:"redacted"`
}

type propSchema struct {
	SchemaID string
	Desc     map[string]propDesc  // by name
	Val      map[string]propValue // by name
	Raw      map[string]any
}

// editable calls get_editable_properties and indexes its answer by
// property name, checking that descriptors and values pair up.
func editable(t *testing.T, s *mcpServer, session, ref string) propSchema {
	t.Helper()
	out := s.ok(t, "get_editable_properties", map[string]any{"session": session, "element": ref})
	descs := decode[[]propDesc](t, out["descriptors"])
	vals := decode[[]propValue](t, out["values"])
	if len(descs) != len(vals) {
		t.Fatalf("%d descriptors but %d values: %v", len(descs), len(vals), out)
	}
	p := propSchema{SchemaID: out["schemaId"].(string), Desc: map[string]propDesc{}, Val: map[string]propValue{}, Raw: out}
	for i, d := range descs {
		if vals[i].DescriptorID != d.DescriptorID || d.DescriptorID == "" {
			t.Fatalf("value %d is for %q, descriptor %q", i, vals[i].DescriptorID, d.DescriptorID)
		}
		p.Desc[d.Name], p.Val[d.Name] = d, vals[i]
	}
	return p
}

func (p propSchema) need(t *testing.T, name, editor string) (propDesc, propValue) {
	t.Helper()
	d, ok := p.Desc[name]
	if !ok {
		t.Fatalf("no %s property in %v", name, p.Raw)
	}
	if d.Editor != editor {
		t.Errorf("%s: editor %q, want %q", name, d.Editor, editor)
	}
	return d, p.Val[name]
}

func appDetails(t *testing.T, d *testdesk.Desk, key string) *platform.Details {
	t.Helper()
	det, err := d.A11y.Element(context.Background(), key, atspi.ElementOptions{})
	if err != nil {
		t.Fatalf("reading %s from the app: %v", key, err)
	}
	return det
}

func TestEditablePropertiesGTK3(t *testing.T) { testdesk.ForEach(t, testEditablePropertiesGTK3) }

func testEditablePropertiesGTK3(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "props gtk3", "--lockable", "--rows", "3")
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})

	t.Run("entry", func(t *testing.T) {
		el := findKeyed(t, s, sess, map[string]any{"name": "Name", "nameMatch": "exact", "role": "text"})
		s.ok(t, "set_value", map[string]any{"session": sess, "element": el.Ref, "value": "Ada"})
		until(t, "entry text", func(ctx context.Context) (bool, string) {
			got := liveText(ctx, d, el.Key)
			return got == "Ada", got
		})
		p := editable(t, s, sess, el.Ref)
		desc, val := p.need(t, "text", "string")
		if desc.Type != "string" || !desc.Writable || !desc.Clearable {
			t.Errorf("entry text descriptor %+v: want a writable, clearable string", desc)
		}
		if want := appDetails(t, d, el.Key).Text.Text; val.Value != want || val.Type != "string" || !val.CanClear {
			t.Errorf("entry text value %+v, the app holds %q", val, want)
		}
	})
	t.Run("password", func(t *testing.T) {
		el := findKeyed(t, s, sess, map[string]any{"role": "password text"})
		p := editable(t, s, sess, el.Ref)
		desc, val := p.need(t, "text", "string")
		if !desc.Redacted || !val.Redacted || val.Value != nil {
			t.Errorf("password text %+v %+v: want redacted with no value", desc, val)
		}
		if raw, _ := jsonString(p.Raw); strings.Contains(raw, "hunter2") {
			t.Fatalf("the password leaked: %s", raw)
		}
	})
	t.Run("spin button", func(t *testing.T) {
		el := findKeyed(t, s, sess, map[string]any{"name": "Count", "role": "spin button"})
		p := editable(t, s, sess, el.Ref)
		desc, val := p.need(t, "value", "integer")
		app := appDetails(t, d, el.Key).Value
		if desc.Minimum == nil || *desc.Minimum != app.Minimum || desc.Maximum == nil || *desc.Maximum != app.Maximum ||
			desc.Increment == nil || *desc.Increment != app.Increment || !desc.Writable {
			t.Errorf("spin button descriptor %+v, the app says %+v", desc, app)
		}
		if val.Value != app.Current || val.Type != "integer" {
			t.Errorf("spin button value %+v, the app holds %v", val, app.Current)
		}
	})
	t.Run("check button", func(t *testing.T) {
		el := findKeyed(t, s, sess, map[string]any{"name": "Remember me", "role": "check box"})
		p := editable(t, s, sess, el.Ref)
		desc, val := p.need(t, "checked", "boolean")
		if !desc.Writable || desc.Type != "boolean" {
			t.Errorf("check box descriptor %+v", desc)
		}
		if want := appDetails(t, d, el.Key).Node.States.Has(platform.StateChecked); val.Value != want {
			t.Errorf("checked %v, the app says %v", val.Value, want)
		}
		act, _ := p.need(t, "action", "command")
		if len(act.Choices) == 0 || !slices.Equal(act.Choices, appDetails(t, d, el.Key).Node.Actions) {
			t.Errorf("action choices %v, the app has %v", act.Choices, appDetails(t, d, el.Key).Node.Actions)
		}
	})
	t.Run("combo box", func(t *testing.T) {
		s.ok(t, "get_a11y_tree", map[string]any{"session": sess, "view": "raw"})
		el := findKeyed(t, s, sess, map[string]any{"role": "combo box"})
		p := editable(t, s, sess, el.Ref)
		desc, val := p.need(t, "choice", "enum")
		if !slices.Equal(desc.Choices, []string{"Red", "Green", "Blue"}) {
			t.Errorf("combo box choices %v, want Red, Green, Blue", desc.Choices)
		}
		keys, err := d.A11y.SelectedChildren(context.Background(), el.Key)
		if err != nil || len(keys) != 1 {
			t.Fatalf("the app's combo box selection: %v, %v", keys, err)
		}
		if want := appDetails(t, d, keys[0]).Node.Name; val.Value != want || want != "Red" {
			t.Errorf("combo box choice %v, the app's selection is %q (want Red)", val.Value, want)
		}
	})
	t.Run("set and clear text", func(t *testing.T) {
		el := findKeyed(t, s, sess, map[string]any{"name": "Name", "nameMatch": "exact", "role": "text"})
		desc, _ := editable(t, s, sess, el.Ref).need(t, "text", "string")
		out := s.ok(t, "set_property", map[string]any{"session": sess, "element": el.Ref, "descriptorId": desc.DescriptorID, "value": "Grace Hopper"})
		if got := liveText(context.Background(), d, el.Key); got != "Grace Hopper" {
			t.Errorf("after set_property the app holds %q", got)
		}
		if v := decode[propValue](t, out["value"]); v.Value != "Grace Hopper" || v.DescriptorID != desc.DescriptorID {
			t.Errorf("set_property read back %+v", v)
		}
		out = s.ok(t, "clear_property", map[string]any{"session": sess, "element": el.Ref, "descriptorId": desc.DescriptorID})
		if got := liveText(context.Background(), d, el.Key); got != "" {
			t.Errorf("after clear_property the app holds %q", got)
		}
		if v := decode[propValue](t, out["value"]); v.Value != "" || v.CanClear {
			t.Errorf("clear_property read back %+v", v)
		}
		s.fail(t, "set_property", map[string]any{"session": sess, "element": el.Ref, "descriptorId": desc.DescriptorID, "value": 12}, "invalidArgument")
	})
	t.Run("set number", func(t *testing.T) {
		el := findKeyed(t, s, sess, map[string]any{"name": "Count", "role": "spin button"})
		desc, _ := editable(t, s, sess, el.Ref).need(t, "value", "integer")
		out := s.ok(t, "set_property", map[string]any{"session": sess, "element": el.Ref, "descriptorId": desc.DescriptorID, "value": 42})
		if got := appDetails(t, d, el.Key).Value.Current; got != 42 {
			t.Errorf("after set_property the spin button holds %v", got)
		}
		if v := decode[propValue](t, out["value"]); v.Value != float64(42) {
			t.Errorf("set_property read back %+v", v)
		}
		s.fail(t, "set_property", map[string]any{"session": sess, "element": el.Ref, "descriptorId": desc.DescriptorID, "value": 1000}, "invalidArgument")
		s.fail(t, "set_property", map[string]any{"session": sess, "element": el.Ref, "descriptorId": desc.DescriptorID, "value": 1.5}, "invalidArgument")
		s.fail(t, "clear_property", map[string]any{"session": sess, "element": el.Ref, "descriptorId": desc.DescriptorID}, "notClearable")
	})
	t.Run("set boolean", func(t *testing.T) {
		el := findKeyed(t, s, sess, map[string]any{"name": "Remember me", "role": "check box"})
		desc, _ := editable(t, s, sess, el.Ref).need(t, "checked", "boolean")
		for _, want := range []bool{true, false} {
			out := s.ok(t, "set_property", map[string]any{"session": sess, "element": el.Ref, "descriptorId": desc.DescriptorID, "value": want})
			if got := liveStates(context.Background(), d, el.Key).Has(platform.StateChecked); got != want {
				t.Errorf("set checked %v: the app says %v", want, got)
			}
			if v := decode[propValue](t, out["value"]); v.Value != want {
				t.Errorf("set checked %v: read back %+v", want, v)
			}
		}
	})
	t.Run("set enum", func(t *testing.T) {
		s.ok(t, "get_a11y_tree", map[string]any{"session": sess, "view": "raw"})
		el := findKeyed(t, s, sess, map[string]any{"role": "combo box"})
		desc, _ := editable(t, s, sess, el.Ref).need(t, "choice", "enum")
		out := s.ok(t, "set_property", map[string]any{"session": sess, "element": el.Ref, "descriptorId": desc.DescriptorID, "value": "Blue"})
		keys, err := d.A11y.SelectedChildren(context.Background(), el.Key)
		if err != nil || len(keys) != 1 || appDetails(t, d, keys[0]).Node.Name != "Blue" {
			t.Errorf("after set_property Blue the app's selection is %v (%v)", keys, err)
		}
		if v := decode[propValue](t, out["value"]); v.Value != "Blue" {
			t.Errorf("set_property read back %+v", v)
		}
		s.fail(t, "set_property", map[string]any{"session": sess, "element": el.Ref, "descriptorId": desc.DescriptorID, "value": "Purple"}, "invalidArgument")
	})
	t.Run("tree row", func(t *testing.T) {
		row := findKeyed(t, s, sess, map[string]any{"name": "Row 2", "nameMatch": "exact", "role": "table cell"})
		p := editable(t, s, sess, row.Ref)
		desc, val := p.need(t, "selected", "boolean")
		if want := liveStates(context.Background(), d, row.Key).Has(platform.StateSelected); val.Value != want {
			t.Errorf("row selected %v, the app says %v", val.Value, want)
		}
		out := s.ok(t, "set_property", map[string]any{"session": sess, "element": row.Ref, "descriptorId": desc.DescriptorID, "value": true})
		if !liveStates(context.Background(), d, row.Key).Has(platform.StateSelected) {
			t.Error("after set_property selected true the app's row is not selected")
		}
		if v := decode[propValue](t, out["value"]); v.Value != true {
			t.Errorf("set_property read back %+v", v)
		}
	})
	t.Run("refused descriptors", func(t *testing.T) {
		el := findKeyed(t, s, sess, map[string]any{"name": "Name", "nameMatch": "exact", "role": "text"})
		cb := findKeyed(t, s, sess, map[string]any{"name": "Remember me", "role": "check box"})
		text, _ := editable(t, s, sess, el.Ref).need(t, "text", "string")
		checked, _ := editable(t, s, sess, cb.Ref).need(t, "checked", "boolean")
		s.fail(t, "set_property", map[string]any{"session": sess, "element": el.Ref, "descriptorId": "p0000000000000000", "value": "x"}, "unknownDescriptor")
		s.fail(t, "set_property", map[string]any{"session": sess, "element": el.Ref, "descriptorId": checked.DescriptorID, "value": "x"}, "descriptorMismatch")
		other := s.connect(t, map[string]any{"pid": app.Pid})
		el2 := findKeyed(t, s, other, map[string]any{"name": "Name", "nameMatch": "exact", "role": "text"})
		s.fail(t, "set_property", map[string]any{"session": other, "element": el2.Ref, "descriptorId": text.DescriptorID, "value": "x"}, "unknownDescriptor")

		// The entry changes: locked, it is no longer editable.
		lock := findKeyed(t, s, sess, map[string]any{"name": "Lock name", "role": "check box"})
		s.ok(t, "toggle", map[string]any{"session": sess, "element": lock.Ref})
		until(t, "entry locked", func(ctx context.Context) (bool, string) {
			st := liveStates(ctx, d, el.Key)
			return !st.Has(platform.StateEditable), strings.Join(st.Names(), ",")
		})
		before := liveText(context.Background(), d, el.Key)
		s.fail(t, "set_property", map[string]any{"session": sess, "element": el.Ref, "descriptorId": text.DescriptorID, "value": "stale"}, "staleDescriptor")
		locked, _ := editable(t, s, sess, el.Ref).need(t, "text", "readonly")
		s.fail(t, "set_property", map[string]any{"session": sess, "element": el.Ref, "descriptorId": locked.DescriptorID, "value": "ro"}, "readOnlyProperty")
		if got := liveText(context.Background(), d, el.Key); got != before {
			t.Errorf("a refused set changed the entry: %q, was %q", got, before)
		}
		out := s.call(t, "set_property", map[string]any{"session": sess, "element": el.Ref, "descriptorId": text.DescriptorID, "value": "x"})
		for _, f := range []string{"errorCode", "errorDisposition", "retryable", "error"} {
			if _, ok := out[f]; !ok {
				t.Errorf("a refusal without %s: %v", f, out)
			}
		}
	})
	t.Run("bad arguments", func(t *testing.T) {
		s.fail(t, "get_editable_properties", map[string]any{"session": sess, "element": "e999999"}, "unknownRef")
		s.fail(t, "get_editable_properties", map[string]any{"session": sess, "element": "nonsense!"}, "malformedRef")
		s.fail(t, "get_editable_properties", map[string]any{"session": sess}, "invalidArgument")
		s.fail(t, "get_editable_properties", map[string]any{"session": "nope", "element": "e1"}, "unknownSession")
	})
}

func TestEditablePropertiesGTK4(t *testing.T) { testdesk.ForEach(t, testEditablePropertiesGTK4) }

func testEditablePropertiesGTK4(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk4_fixture.py"), "--title", "props gtk4")
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})

	el := findKeyed(t, s, sess, map[string]any{"name": "Name", "nameMatch": "exact", "interface": "editable"})
	p := editable(t, s, sess, el.Ref)
	desc, val := p.need(t, "text", "string")
	if !desc.Writable || !desc.Clearable {
		t.Errorf("GTK 4 entry text descriptor %+v", desc)
	}
	if want := appDetails(t, d, el.Key).Text.Text; val.Value != want {
		t.Errorf("GTK 4 entry text %v, the app holds %q", val.Value, want)
	}
	s.ok(t, "set_property", map[string]any{"session": sess, "element": el.Ref, "descriptorId": desc.DescriptorID, "value": "Grace"})
	if got := liveText(context.Background(), d, el.Key); got != "Grace" {
		t.Errorf("after set_property the GTK 4 entry holds %q", got)
	}
	s.ok(t, "clear_property", map[string]any{"session": sess, "element": el.Ref, "descriptorId": desc.DescriptorID})
	if got := liveText(context.Background(), d, el.Key); got != "" {
		t.Errorf("after clear_property the GTK 4 entry holds %q", got)
	}
	cb := findKeyed(t, s, sess, map[string]any{"name": "Remember me", "role": "check box"})
	_, cval := editable(t, s, sess, cb.Ref).need(t, "checked", "boolean")
	if want := appDetails(t, d, cb.Key).Node.States.Has(platform.StateChecked); cval.Value != want {
		t.Errorf("GTK 4 checked %v, the app says %v", cval.Value, want)
	}
}

func TestEditablePropertiesQt5(t *testing.T) { testdesk.ForEach(t, testEditablePropertiesQt5) }

func testEditablePropertiesQt5(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("qt5_fixture.py"), "--title", "props qt5")
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})

	cb := findKeyed(t, s, sess, map[string]any{"name": "Remember me", "role": "check box"})
	desc, val := editable(t, s, sess, cb.Ref).need(t, "checked", "boolean")
	if !desc.Writable {
		t.Errorf("Qt 5 check box descriptor %+v", desc)
	}
	if want := appDetails(t, d, cb.Key).Node.States.Has(platform.StateChecked); val.Value != want {
		t.Errorf("Qt 5 checked %v, the app says %v", val.Value, want)
	}
	el := findKeyed(t, s, sess, map[string]any{"name": "Name", "nameMatch": "exact", "role": "text"})
	tdesc, tval := editable(t, s, sess, el.Ref).need(t, "text", "string")
	if want := appDetails(t, d, el.Key).Text.Text; tval.Value != want || !tdesc.Clearable {
		t.Errorf("Qt 5 line edit %+v %+v, the app holds %q", tdesc, tval, want)
	}
	s.ok(t, "set_property", map[string]any{"session": sess, "element": el.Ref, "descriptorId": tdesc.DescriptorID, "value": "Alan Turing"})
	if got := liveText(context.Background(), d, el.Key); got != "Alan Turing" {
		t.Errorf("after set_property the Qt line edit holds %q", got)
	}
	s.ok(t, "clear_property", map[string]any{"session": sess, "element": el.Ref, "descriptorId": tdesc.DescriptorID})
	if got := liveText(context.Background(), d, el.Key); got != "" {
		t.Errorf("after clear_property the Qt line edit holds %q", got)
	}
	out := s.ok(t, "set_property", map[string]any{"session": sess, "element": cb.Ref, "descriptorId": desc.DescriptorID, "value": !val.Value.(bool)})
	if got := liveStates(context.Background(), d, cb.Key).Has(platform.StateChecked); got == val.Value || decode[propValue](t, out["value"]).Value != got {
		t.Errorf("Qt 5 set checked: the app says %v, read back %v", got, out["value"])
	}
}

func jsonString(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}
