package core

import (
	"strings"
	"testing"
)

// TestFieldsKey: elements carry their keys only when a read asks, in a
// render (whose byte budget counts what it gives) and in a find; an
// unknown field is refused.
func TestFieldsKey(t *testing.T) {
	tr := NewTree(sampleTree(), KindA11y)
	keys := func(e *Element) (with, without int) {
		var walk func(*Element)
		walk = func(e *Element) {
			if e.Key != "" {
				with++
			} else {
				without++
			}
			for _, c := range e.Children {
				walk(c)
			}
		}
		walk(e)
		return
	}
	for _, asked := range []bool{false, true} {
		e, st, err := tr.Render(ViewOptions{Depth: -1, MaxBytes: 100000, Keys: asked})
		if err != nil {
			t.Fatal(err)
		}
		with, without := keys(e)
		if asked && without > 0 || !asked && with > 0 {
			t.Errorf("keys asked %v: %d elements with a key, %d without", asked, with, without)
		}
		js := e.AppendJSON(nil)
		if strings.Contains(string(js), `"key"`) != asked {
			t.Errorf("keys asked %v: JSON %s", asked, js)
		}
		// A budget just below the view's size cuts it: the count is
		// exact for what the render gives.
		if _, cut, _ := tr.Render(ViewOptions{Depth: -1, MaxBytes: len(js) - 1, Keys: asked}); !cut.BytesHit {
			t.Errorf("keys asked %v: a budget of %d bytes (the JSON's %d less one) does not cut (render counted %d)", asked, len(js)-1, len(js), st.Bytes)
		}
		if _, whole, _ := tr.Render(ViewOptions{Depth: -1, MaxBytes: len(js), Keys: asked}); whole.BytesHit {
			t.Errorf("keys asked %v: a budget of the JSON's %d bytes cuts", asked, len(js))
		}
	}

	for _, f := range []Fields{nil, {}, {"key"}} {
		if err := f.Validate(); err != nil {
			t.Errorf("fields %q: %v", f, err)
		}
	}
	for _, f := range []Fields{{"colour"}, {"key", "Key"}, {""}} {
		if err := f.Validate(); err == nil || AsError(err).Code != CodeInvalidArgument {
			t.Errorf("fields %q: err %v, want invalidArgument", f, err)
		}
	}
	els, _, err := tr.Find(Query{Role: "push button"})
	if err != nil || len(els) != 1 {
		t.Fatalf("find: %v %v", els, err)
	}
	Fields(nil).trim(els...)
	if els[0].Key != "" {
		t.Errorf("trimmed element keeps its key %q", els[0].Key)
	}
}
