package core

import (
	"context"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
)

// TestWindowUnknownIsNoClick: an element whose window the backend could
// not match has no bounds (BoundsUnknown): a pointer click is refused
// with windowUnknown and nothing is clicked; the tree says the bounds are
// unknown rather than leaving them out silently.
func TestWindowUnknownIsNoClick(t *testing.T) {
	box := &platform.Node{Key: "box", Role: fake.Role("check box"), Name: "Dialog option", States: fake.Shown | fake.States("focusable"),
		Interfaces: []string{"component"}, BoundsUnknown: true}
	dialog := &platform.Node{Key: "dialog", Role: fake.Role("dialog"), Name: "Question", States: fake.Shown, ChildCount: 1,
		Children: []*platform.Node{box}, Interfaces: []string{"component"}, BoundsUnknown: true}
	d := fake.New()
	d.AddApp(fake.App{Pid: editorPid, Name: "editor", Tree: fake.Root("editor", dialog)})
	win := d.AddWindow(editorPid, "Question", platform.Rect{Width: 400, Height: 300})
	d.SetActive(win)
	m, s, tr := formSession(t, d.Platform())
	ref := refOf(t, tr, "Dialog option")
	_, err := m.Click(context.Background(), s.ID, ref)
	wantErrCode(t, "click", err, CodeWindowUnknown)
	if c := d.Clicks(); len(c) > 0 {
		t.Errorf("clicked %+v", c)
	}
	id := -1
	for i, n := range tr.nodes {
		if n.Name == "Dialog option" {
			id = i
		}
	}
	line, _ := tr.OutlineLine(id)
	if !strings.Contains(line, "@unknown") {
		t.Errorf("outline line %q does not say the bounds are unknown", line)
	}
	if e, _ := tr.Element(id); !e.BoundsUnknown || e.Bounds != nil {
		t.Errorf("element %+v", e)
	}
}
