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

// The secrets below are planted in every field a backend could fill; none
// may come out of a redacted element, in any form.
const (
	secretName = "name-s3cret"
	secretDesc = "desc-s3cret"
	secretAttr = "attr-s3cret"
	secretText = "text-s3cret"
)

func leaks(out string) []string {
	var found []string
	for _, s := range []string{secretName, secretDesc, secretAttr, secretText} {
		if strings.Contains(out, s) {
			found = append(found, s)
		}
	}
	return found
}

// redactedNodes are the two kinds of redacted element: a password field,
// and a plain text field the backend marked redacted (a GTK 4 entry that
// hides its text).
func redactedNodes() []*platform.Node {
	pw := fake.With(fake.Node("password text", secretName), fake.Desc(secretDesc), fake.Ifaces("component", "text", "editabletext"))
	pw.Key = "test:1.1/pw"
	hidden := fake.With(fake.Node("text", secretName), fake.Desc(secretDesc), fake.Ifaces("component", "text", "editabletext"))
	hidden.Key, hidden.Redacted = "test:1.1/hidden", true
	return []*platform.Node{pw, hidden}
}

func TestRedactedDescriptionInTree(t *testing.T) {
	kids := redactedNodes()
	root := fake.Node("application", "demo", fake.Node("frame", "Main", kids...))
	tr := NewTree(root, KindA11y)
	for _, k := range kids {
		id := tr.ID(k)
		e, _ := tr.Element(id)
		js, _ := json.Marshal(e)
		if got := leaks(string(js)); len(got) > 0 || !e.Redacted || !strings.Contains(string(js), `"redacted":true`) {
			t.Errorf("element %s (%s): leaks %v, redacted %v: %s", e.ID, e.Role, got, e.Redacted, js)
		}
	}
	for _, view := range []string{"raw", "control", "content"} {
		el, _, err := tr.Render(ViewOptions{View: view, Depth: -1})
		if err != nil {
			t.Fatal(err)
		}
		js, _ := json.Marshal(el)
		if got := leaks(string(js)); len(got) > 0 {
			t.Errorf("view %s JSON leaks %v: %s", view, got, js)
		}
		out, _, err := tr.Outline(ViewOptions{View: view, Depth: -1})
		if err != nil {
			t.Fatal(err)
		}
		if got := leaks(out); len(got) > 0 || strings.Count(out, "(redacted)") != 2 {
			t.Errorf("view %s outline leaks %v or lacks (redacted):\n%s", view, got, out)
		}
	}
	found, _, err := tr.Find(Query{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(found)
	if got := leaks(string(js)); len(got) > 0 {
		t.Errorf("find leaks %v: %s", got, js)
	}
}

func TestRedactedProperties(t *testing.T) {
	for _, n := range redactedNodes() {
		d := &platform.Details{
			Node:       *n,
			ParentKey:  "test:1.1/frame",
			Attributes: map[string]string{"toolkit": "GTK", "placeholder-text": secretAttr, "id": secretAttr},
			Text:       &platform.TextContent{Text: secretText, Length: len(secretText)},
			Value:      &platform.ValueInfo{Text: secretText},
		}
		p := Properties("a11y:e5", d)
		js, _ := json.Marshal(p)
		if got := leaks(string(js)); len(got) > 0 {
			t.Errorf("%s: properties leak %v: %s", n.Role, got, js)
		}
		if p["redacted"] != true {
			t.Errorf("%s: properties lack redacted: %s", n.Role, js)
		}
		if a, _ := p["attributes"].(map[string]string); len(a) != 1 || a["toolkit"] != "GTK" {
			t.Errorf("%s: attributes %v, want only toolkit", n.Role, p["attributes"])
		}
		for _, k := range []string{"text", "value"} {
			if _, ok := p[k]; ok {
				t.Errorf("%s: properties carry %s: %s", n.Role, k, js)
			}
		}
	}
	// An ordinary field keeps all of it.
	plain := fake.With(fake.Node("text", "Name"), fake.Desc("Your full name"), fake.Ifaces("text"))
	p := Properties("a11y:e1", &platform.Details{
		Node:       *plain,
		Attributes: map[string]string{"toolkit": "GTK", "placeholder-text": "Ada"},
		Text:       &platform.TextContent{Text: "Ada Lovelace", Length: 12},
	})
	if p["description"] != "Your full name" || p["text"] == nil || p["redacted"] != nil {
		t.Errorf("plain field: %v", p)
	}
	if a, _ := p["attributes"].(map[string]string); a["placeholder-text"] != "Ada" {
		t.Errorf("plain field attributes: %v", p["attributes"])
	}
}

// TestActingOnSecretsQuotesNothing: setting a password field's value
// answers without the value set or the text it held, also where the
// backend did not mark the field redacted (core knows the role itself).
func TestActingOnSecretsQuotesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pw := fake.With(fake.Keyed("f/pw", "password text", "Password"), fake.Ifaces("component", "text", "editabletext"), fake.Bounds(10, 10, 200, 30))
		d := fake.New()
		d.AddApp(fake.App{Pid: editorPid, Name: "editor", Tree: fake.Root("editor", fake.With(fake.Keyed("f/frame", "frame", "Main", pw), fake.Bounds(0, 0, 400, 300)))})
		d.SetActive(d.AddWindow(editorPid, "Main", platform.Rect{Width: 400, Height: 300}))
		if _, _, err := d.SetText(context.Background(), platform.App{Pid: editorPid}, "f/pw", secretText); err != nil {
			t.Fatal(err)
		}
		m, s, tr := formSession(t, d.Platform())
		ref := ""
		for i, n := range tr.nodes {
			if n.Key == "f/pw" {
				ref = tr.RefString(i)
			}
		}
		r, err := m.SetValue(context.Background(), s.ID, ref, "typed-s3cret")
		js, _ := json.Marshal(r)
		out := string(js)
		if err != nil {
			out += " " + err.Error()
		}
		if got := leaks(out); len(got) > 0 || strings.Contains(out, "typed-s3cret") {
			t.Errorf("set_value on a password field: the answer quotes a secret: %s", out)
		}
		if got := d.Text(editorPid, "f/pw"); got != "typed-s3cret" {
			t.Errorf("the field holds %q", got)
		}
	})
}
