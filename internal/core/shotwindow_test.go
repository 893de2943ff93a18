package core

import (
	"context"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
)

// layoutWindows is the fake's windows part with a WindowLayout that says
// which window shows which top level, as a backend that can tell does.
type layoutWindows struct {
	platform.Windows
	shows map[string]platform.WindowID
	wins  []platform.Window
}

func (l layoutWindows) WindowLayout(context.Context, platform.App, *platform.Node) (*platform.WindowLayout, error) {
	return &platform.WindowLayout{Windows: l.wins, Shows: l.shows}, nil
}

// dialogDesk: an editor's main window with a dialog open over it (its
// top level "Question", in a window of its own) and a third top level
// that no window could be told for.
func dialogDesk(t *testing.T) (*Sessions, *Session, *Tree, platform.WindowID, platform.WindowID) {
	t.Helper()
	el := func(key, role, name string, b platform.Rect, kids ...*platform.Node) *platform.Node {
		return &platform.Node{Key: key, Role: fake.Role(role), Name: name, States: fake.Shown | fake.States("focusable"), Bounds: &b,
			Interfaces: []string{"component"}, Actions: []string{"click"}, ChildCount: len(kids), Children: kids}
	}
	mainB := platform.Rect{X: 0, Y: 0, Width: 600, Height: 400}
	dlgB := platform.Rect{X: 100, Y: 100, Width: 300, Height: 150}
	main := el("main", "frame", "Editor", mainB, el("save", "push button", "Save", platform.Rect{X: 120, Y: 120, Width: 80, Height: 30}))
	dlg := el("dlg", "dialog", "Question", dlgB, el("yes", "push button", "Yes", platform.Rect{X: 130, Y: 130, Width: 60, Height: 30}))
	lost := el("lost", "dialog", "Lost", dlgB, el("no", "push button", "No", platform.Rect{X: 220, Y: 130, Width: 60, Height: 30}))
	d := fake.New()
	d.AddApp(fake.App{Pid: editorPid, Name: "editor", Tree: &platform.Node{Key: "root", Role: platform.RoleApplication, Name: "editor",
		ChildCount: 3, Children: []*platform.Node{main, dlg, lost}}})
	mainID := d.AddWindow(editorPid, "Editor", mainB)
	dlgID := d.AddWindow(editorPid, "Save changes?", dlgB)
	desk := d.Platform()
	desk.Windows = layoutWindows{Windows: desk.Windows, shows: map[string]platform.WindowID{"main": mainID, "dlg": dlgID},
		wins: []platform.Window{{ID: mainID, Pid: editorPid, Title: "Editor", Bounds: mainB, Mapped: true},
			{ID: dlgID, Pid: editorPid, Title: "Save changes?", Bounds: dlgB, Mapped: true}}}
	m := NewSessions(desk)
	s, err := m.Connect(context.Background(), AppSpec{Pid: editorPid}, ModeA11y)
	if err != nil {
		t.Fatal(err)
	}
	tr, _, err := m.Fetch(context.Background(), s, 5e9, platform.TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return m, s, tr, mainID, dlgID
}

func TestScreenshotWindowOfElement(t *testing.T) {
	m, s, tr, mainID, dlgID := dialogDesk(t)
	ctx := context.Background()
	// An element of the dialog: the dialog's window, though its top
	// level's name is not the window's title.
	shot, err := m.Screenshot(ctx, s.ID, ScreenshotRequest{Element: refOf(t, tr, "Yes")})
	if err != nil {
		t.Fatal(err)
	}
	if shot.Window != dlgID.String() {
		t.Errorf("the dialog's button was captured in %s, want the dialog %s", shot.Window, dlgID)
	}
	// The dialog by window id: marks for its own elements only, not the
	// main window's Save under it.
	shot, err = m.Screenshot(ctx, s.ID, ScreenshotRequest{Window: dlgID.String()})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range shot.Annotations {
		if a.Name != "Yes" {
			t.Errorf("the dialog's capture marks %s %q", a.Role, a.Name)
		}
	}
	if len(shot.Annotations) != 1 {
		t.Errorf("the dialog's capture marks %+v, want Yes", shot.Annotations)
	}
	// The main window: Save, not the dialog's Yes over it.
	shot, err = m.Screenshot(ctx, s.ID, ScreenshotRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if shot.Window != mainID.String() || len(shot.Annotations) != 1 || shot.Annotations[0].Name != "Save" {
		t.Errorf("the main window's capture: window %s, marks %+v", shot.Window, shot.Annotations)
	}
	// A top level no window could be told for: no image, never the main
	// window's.
	_, err = m.Screenshot(ctx, s.ID, ScreenshotRequest{Element: refOf(t, tr, "No")})
	wantErrCode(t, "an element of an unknown window", err, CodeWindowUnknown)
	_, err = m.Screenshot(ctx, s.ID, ScreenshotRequest{Window: "0x999"})
	wantErrCode(t, "a window of no app", err, CodeNotFound)
	req := ScreenshotRequest{Window: dlgID.String(), Element: refOf(t, tr, "Yes")}
	wantErrCode(t, "window and element", req.Validate(), CodeInvalidArgument)
}
