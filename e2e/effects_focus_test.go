//go:build linux

package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// TestEffectsFocusRefNewDialog: connect names the focused element by a
// ref (the document; in KWrite, the new document its Ctrl+N focuses is in
// that answer's effects), and the keys that open a Save dialog answer with the dialog and
// its focused name field, by a ref the session takes at once — no read of
// the tree between — in GTK 3 (mousepad), GTK 4 (GNOME Text Editor, which
// announces no focus moves, and on sway marks its focus a moment after its
// tree holds still) and Qt 5 (KWrite, whose dialog runs in a nested loop),
// on each desktop. The name field's ref is another session's unknownRef.
// The file on disk is the check outside uiscope.
func TestEffectsFocusRefNewDialog(t *testing.T) { testdesk.ForEach(t, testEffectsFocusRefNewDialog) }

func testEffectsFocusRefNewDialog(t *testing.T, d *testdesk.Desk) {
	cases := []struct {
		name, keys, dialog string
		argv               []string
		ends               string // what the app adds at the file's end
		// newDoc opens the document first (KWrite starts without one):
		// its answer's focus is the document.
		newDoc string
	}{
		{"mousepad", "Ctrl+S", "Save As", []string{"mousepad"}, "", ""},
		{"gnome-text-editor", "Ctrl+Shift+S", "Save As", []string{"gnome-text-editor", "--standalone"}, "\n", ""},
		{"kwrite", "Ctrl+Shift+S", "Save File", []string{"kwrite"}, "\n", "Ctrl+N"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			app := d.Launch(t, append(freshHome(t), c.argv...)...)
			s := startMCP(t, d, "", "--allow-input")
			conn := s.ok(t, "connect", map[string]any{"pid": app.Pid})
			sess, _ := conn["session"].(string)
			focus := decode[struct{ Focus *elem }](t, conn).Focus
			if c.newDoc != "" {
				if focus == nil || focus.Ref == "" {
					t.Fatalf("connect: focus %+v; want the focused element, by ref", focus)
				}
				focus = decode[actEffects](t, s.ok(t, "press_key", map[string]any{"session": sess, "keys": c.newDoc})).Effects.Focus
			}
			if focus == nil || focus.Ref == "" || focus.Role != "text" {
				t.Fatalf("focus %+v; want the document, by ref", focus)
			}
			const lines = "typed where connect said the focus is"
			s.ok(t, "type_text", map[string]any{"session": sess, "element": focus.Ref, "text": lines})

			out := s.ok(t, "press_key", map[string]any{"session": sess, "keys": c.keys})
			e := decode[actEffects](t, out).Effects
			opened := false
			for _, w := range e.WindowsOpened {
				opened = opened || strings.HasPrefix(w.Title, c.dialog)
			}
			if !opened || e.Focus == nil || e.Focus.Ref == "" || e.Focus.Role != "text" {
				t.Fatalf("%s: effects %+v; want %q (and whatever the app adds to the title) opened and its name field focused, by ref", c.keys, e, c.dialog)
			}
			name := e.Focus.Ref

			other := s.connect(t, map[string]any{"pid": app.Pid})
			s.fail(t, "get_element_properties", map[string]any{"session": other, "element": name}, "unknownRef")

			path := filepath.Join(t.TempDir(), c.name+".txt")
			set := s.ok(t, "set_value", map[string]any{"session": sess, "element": name, "value": path})
			if v := decode[actEffects](t, set).Verified; v == nil || !*v {
				t.Errorf("set_value on the focus's ref: %v; want verified", set)
			}
			s.ok(t, "press_key", map[string]any{"session": sess, "element": name, "keys": "Enter"})
			fileHolds(t, path, lines+c.ends)
		})
	}
}

// TestEffectsGTK3DialogsClose: in gedit (GTK 3), the Enter that saves
// through the Save As file chooser answers with the chooser closed, though
// the chooser checks the file before it closes, after the app went quiet;
// Ctrl+W on the changed document answers with the "Save changes?"
// question opened — an untitled window, named by its accessible: role
// alert, title "Question" — and its focused Save button by ref, whose
// click answers with the question closed. The file on disk is the check
// outside uiscope.
func TestEffectsGTK3DialogsClose(t *testing.T) { testdesk.ForEach(t, testEffectsGTK3DialogsClose) }

func testEffectsGTK3DialogsClose(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, append(freshHome(t), "gedit", "--new-window")...)
	s := startMCP(t, d, "", "--allow-input")
	conn := s.ok(t, "connect", map[string]any{"pid": app.Pid})
	sess, _ := conn["session"].(string)
	doc := decode[struct{ Focus *elem }](t, conn).Focus
	if doc == nil || doc.Ref == "" {
		t.Fatalf("connect: focus %v; want the document by ref", conn["focus"])
	}
	s.ok(t, "type_text", map[string]any{"session": sess, "element": doc.Ref, "text": "saved"})
	saveAs := s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Ctrl+S"})
	name := decode[actEffects](t, saveAs).Effects.Focus
	if name == nil || name.Ref == "" {
		t.Fatalf("Ctrl+S: no focused name field in the effects: %v", saveAs)
	}
	path := filepath.Join(t.TempDir(), "gedit.txt")
	s.ok(t, "set_value", map[string]any{"session": sess, "element": name.Ref, "value": path})
	e := decode[actEffects](t, s.ok(t, "press_key", map[string]any{"session": sess, "element": name.Ref, "keys": "Enter"})).Effects
	if w, ok := effectWindowTitled(e.WindowsClosed, "Save As"); !ok || w.Role != "file chooser" {
		t.Errorf("Enter in the file chooser: effects %+v; want the Save As file chooser closed", e)
	}
	fileHolds(t, path, "saved\n")

	s.ok(t, "type_text", map[string]any{"session": sess, "element": doc.Ref, "text": " again"})
	e = decode[actEffects](t, s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Ctrl+W"})).Effects
	if w, ok := effectWindowTitled(e.WindowsOpened, "Question"); !ok || w.Role != "alert" || e.Focus == nil || e.Focus.Ref == "" || e.Focus.Name != "Save" {
		t.Fatalf("Ctrl+W: effects %+v (focus %+v); want the alert \"Question\" opened, its Save button focused by ref", e, e.Focus)
	}
	e = decode[actEffects](t, s.ok(t, "click", map[string]any{"session": sess, "element": e.Focus.Ref})).Effects
	if w, ok := effectWindowTitled(e.WindowsClosed, "Question"); !ok || w.Role != "alert" {
		t.Errorf("Save in the question: effects %+v; want the alert closed", e)
	}
	fileHolds(t, path, "saved again\n")
}

func effectWindowTitled(ws []effectWindow, title string) (effectWindow, bool) {
	for _, w := range ws {
		if w.Title == title {
			return w, true
		}
	}
	return effectWindow{}, false
}
