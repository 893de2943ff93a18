//go:build linux

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// The effects matrix: on GTK 3, GTK 4, Qt 5 and Chromium, an action's
// effects say that a dialog opened, that it closed, where the focus went
// and that the element acted on is gone, and the other acting tools answer
// effects that claim nothing that did not happen. Each effect is checked
// outside uiscope: xdotool's (or swaymsg's) view of the app's windows, the fixture's (or
// the page's) own account of its focus, of what it removed and of what it
// did.

// matrixApp is one toolkit's app and the server session driving it, shared
// by its subtests.
type matrixApp struct {
	d    *testdesk.Desk
	app  *testdesk.App
	s    *mcpServer
	sess string
	// focused waits until the app itself says that the element named
	// name has the keyboard focus.
	focused func(t *testing.T, name string)
	// removed waits until the app itself says that it removed "Remove me".
	removed func(t *testing.T)
}

// fixtureFocus waits until the last "focus NAME" line of the fixture's log
// names name.
func fixtureFocus(log fixtureLog) func(t *testing.T, name string) {
	return func(t *testing.T, name string) {
		t.Helper()
		until(t, "the fixture's focus on "+name, func(context.Context) (bool, string) {
			last := ""
			for _, l := range log.lines() {
				if f, ok := strings.CutPrefix(l, "focus "); ok {
					last = f
				}
			}
			return last == name, fmt.Sprintf("last focus %q", last)
		})
	}
}

func fixtureRemoved(log fixtureLog) func(t *testing.T) {
	return func(t *testing.T) {
		t.Helper()
		log.await(t, "removed Remove me", 1)
	}
}

// act calls an acting tool, checks that its success says what it caused,
// and that it opened and closed no window unless asked to.
func (m *matrixApp) act(t *testing.T, tool string, args map[string]any, windows bool) actEffects {
	t.Helper()
	args["session"] = m.sess
	what := fmt.Sprintf("%s %v", tool, args)
	a := acted(t, what, m.s.ok(t, tool, args))
	if !windows && (len(a.Effects.WindowsOpened) > 0 || len(a.Effects.WindowsClosed) > 0) {
		t.Errorf("%s: effects %+v; no window opened or closed", what, *a.Effects)
	}
	return a
}

// opens acts on the button named opener with tool and checks that the
// answer names the dialog titled title (a match for xdotool's --name when
// prefix, as a browser adds its name to a page's title) with role, which X
// then shows, active, and that effects.focus names the dialog's element
// focus, which took the focus. It returns the dialog's window id.
func (m *matrixApp) opens(t *testing.T, tool, opener, title, role, focus string, prefix bool) string {
	t.Helper()
	btn := findKeyed(t, m.s, m.sess, map[string]any{"name": opener, "nameMatch": "exact", "role": "push button"})
	a := m.act(t, tool, map[string]any{"element": btn.Ref}, true)
	var w effectWindow
	ok := false
	for _, o := range a.Effects.WindowsOpened {
		if o.Title == title || prefix && strings.HasPrefix(o.Title, title) {
			w, ok = o, true
		}
	}
	if !ok || w.Role != role {
		t.Errorf("%s %s: effects.windowsOpened %+v; want the %s %q", tool, opener, a.Effects.WindowsOpened, role, title)
	}
	if len(a.Effects.WindowsClosed) > 0 || a.Effects.Gone {
		t.Errorf("%s %s: effects %+v; nothing closed or gone", tool, opener, *a.Effects)
	}
	pattern := title
	if prefix {
		pattern += ".*"
	}
	until(t, fmt.Sprintf("the desktop shows the window %q, active", title), func(context.Context) (bool, string) {
		wins := shownWindows(t, m.d, m.app.Pid, pattern)
		active := focusedID(t, m.d)
		return len(wins) == 1 && (!ok || wins[0] == w.Window) && wins[0] == active,
			fmt.Sprintf("%v, effects name %q, the active window is %s", wins, w.Window, active)
	})
	if f := a.Effects.Focus; f == nil || f.Name != focus {
		t.Errorf("%s %s: effects.focus %+v; want the dialog's %q", tool, opener, f, focus)
	}
	return w.Window
}

// parseWindow reads xdotool's decimal window id.
func parseWindow(s string) uint32 {
	var id uint32
	_, _ = fmt.Sscan(s, &id)
	return id
}

// closed checks that a's effects name the window id closed and that X no
// longer shows a window titled title (pattern as for opens).
func (m *matrixApp) closed(t *testing.T, what string, a actEffects, id, title string, prefix bool) {
	t.Helper()
	w, ok := effectWindow{}, false
	for _, c := range a.Effects.WindowsClosed {
		if c.Window == id {
			w, ok = c, true
		}
	}
	if !ok || w.Title != title && !(prefix && strings.HasPrefix(w.Title, title)) {
		t.Errorf("%s: effects.windowsClosed %+v; want %s %q", what, a.Effects.WindowsClosed, id, title)
	}
	if len(a.Effects.WindowsOpened) > 0 {
		t.Errorf("%s: effects.windowsOpened %+v; none opened", what, a.Effects.WindowsOpened)
	}
	pattern := title
	if prefix {
		pattern += ".*"
	}
	until(t, fmt.Sprintf("the desktop no longer shows %q", title), func(context.Context) (bool, string) {
		wins := shownWindows(t, m.d, m.app.Pid, pattern)
		return len(wins) == 0, fmt.Sprint(wins)
	})
}

// focusMoves gives the entry the focus with focus, presses Tab, and types
// into the entry: each answer's effects.focus names the element the app
// says has the focus.
func (m *matrixApp) focusMoves(t *testing.T, entryRole, next string) {
	t.Helper()
	entry := findKeyed(t, m.s, m.sess, map[string]any{"name": "Effects entry", "nameMatch": "exact", "role": entryRole})
	a := m.act(t, "focus", map[string]any{"element": entry.Ref}, false)
	m.focused(t, "Effects entry")
	if f := a.Effects.Focus; f == nil || f.Name != "Effects entry" || f.Role != entryRole || f.Ref != entry.Ref {
		t.Errorf("focus Effects entry: effects.focus %+v; want %s %s \"Effects entry\"", f, entry.Ref, entryRole)
	}
	a = m.act(t, "press_key", map[string]any{"keys": "Tab"}, false)
	m.focused(t, next)
	if f := a.Effects.Focus; f == nil || f.Name != next || f.Role != "push button" {
		t.Errorf("press_key Tab: effects.focus %+v; want the push button %q", f, next)
	}
	// Typing into the entry gives it the focus back.
	a = m.act(t, "type_text", map[string]any{"element": entry.Ref, "text": "typed"}, false)
	m.focused(t, "Effects entry")
	if f := a.Effects.Focus; !*a.Verified || f == nil || f.Name != "Effects entry" || f.Ref != entry.Ref {
		t.Errorf("type_text into Effects entry: verified %v, effects.focus %+v; want verified, the entry %s", *a.Verified, f, entry.Ref)
	}
}

// gone acts on "Remove me" with tool: the app removes it, and the answer
// says it is gone.
func (m *matrixApp) gone(t *testing.T, tool string) {
	t.Helper()
	btn := findKeyed(t, m.s, m.sess, map[string]any{"name": "Remove me", "nameMatch": "exact", "role": "push button"})
	a := m.act(t, tool, map[string]any{"element": btn.Ref}, false)
	m.removed(t)
	if !a.Effects.Gone {
		t.Errorf("%s Remove me: effects %+v; want gone", tool, *a.Effects)
	}
	m.s.fail(t, "click", map[string]any{"session": m.sess, "element": btn.Ref}, "elementGone")
}

func TestEffectsMatrix(t *testing.T) { testdesk.ForEach(t, testEffectsMatrix) }

func testEffectsMatrix(t *testing.T, d *testdesk.Desk) {
	t.Run("gtk3", func(t *testing.T) {
		log := newFixtureLog(t)
		app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "effects gtk3",
			"--effects", "--rows", "30", "--log", log.path)
		s := startMCP(t, d, "", "--allow-input")
		m := &matrixApp{d: d, app: app, s: s, sess: s.connect(t, map[string]any{"pid": app.Pid}),
			focused: fixtureFocus(log), removed: fixtureRemoved(log)}
		t.Run("dialog", func(t *testing.T) {
			id := m.opens(t, "click", "Open dialog", "Effects dialog", "dialog", "Close", false)
			log.await(t, "dialog-open", 1)
			closeBtn := findKeyed(t, s, m.sess, map[string]any{"name": "Close", "nameMatch": "exact", "role": "push button"})
			a := m.act(t, "click", map[string]any{"element": closeBtn.Ref}, true)
			log.await(t, "dialog-closed", 1)
			m.closed(t, "click Close", a, id, "Effects dialog", false)
			if !a.Effects.Gone {
				t.Errorf("click Close: effects %+v; the button went with its dialog, want gone", *a.Effects)
			}
		})
		t.Run("focus", func(t *testing.T) { m.focusMoves(t, "text", "Effects next") })
		t.Run("gone", func(t *testing.T) { m.gone(t, "invoke") })
		t.Run("other tools", func(t *testing.T) {
			ctx := context.Background()
			cb := findKeyed(t, s, m.sess, map[string]any{"name": "Remember me", "role": "check box"})
			m.act(t, "toggle", map[string]any{"element": cb.Ref}, false)
			log.await(t, "toggled Remember me True", 1)

			spin := findKeyed(t, s, m.sess, map[string]any{"name": "Count", "role": "spin button"})
			m.act(t, "set_value", map[string]any{"element": spin.Ref, "value": "42"}, false)
			until(t, "Count holds 42", func(ctx context.Context) (bool, string) {
				v, got := liveValue(ctx, d, spin.Key)
				return v == 42, got
			})

			// The combo box's menu opens and closes within the action.
			combo := findKeyed(t, s, m.sess, map[string]any{"name": "Color", "role": "combo box"})
			green := findKeyed(t, s, m.sess, map[string]any{"name": "Green", "role": "menu item"})
			m.act(t, "select", map[string]any{"element": green.Ref}, false)
			until(t, "Green selected", func(ctx context.Context) (bool, string) {
				sel, err := d.A11y.SelectedChildren(ctx, combo.Key)
				return err == nil && len(sel) == 1 && sel[0] == green.Key, fmt.Sprint(sel, err)
			})

			row := findKeyed(t, s, m.sess, map[string]any{"name": "Fruits", "nameMatch": "exact", "role": "table cell"})
			m.act(t, "set_expanded", map[string]any{"element": row.Ref, "expanded": true}, false)
			until(t, "Fruits expanded", func(ctx context.Context) (bool, string) {
				st := liveStates(ctx, d, row.Key)
				return st.Has(platform.StateExpanded), fmt.Sprint(st.Names())
			})

			// The focus is on the entry (typed into last) or comes back
			// to it (the combo box's menu took it meanwhile): a focus
			// reported is the entry's. (GTK selects an entry's text when
			// it takes the focus, so what it held may be typed over.)
			entry := findKeyed(t, s, m.sess, map[string]any{"name": "Effects entry", "nameMatch": "exact", "role": "text"})
			a := m.act(t, "type_text", map[string]any{"element": entry.Ref, "text": " more"}, false)
			m.focused(t, "Effects entry")
			if f := a.Effects.Focus; f != nil && (f.Name != "Effects entry" || f.Ref != entry.Ref) || a.Effects.Gone {
				t.Errorf("type_text into the entry: effects %+v (focus %+v); want at most the focus on the entry %s", *a.Effects, f, entry.Ref)
			}
			if got := liveText(ctx, d, entry.Key); !strings.HasSuffix(got, " more") {
				t.Errorf("the entry holds %q after type_text", got)
			}
			a = m.act(t, "select_text", map[string]any{"element": entry.Ref, "start": 0, "end": 3}, false)
			if a.Effects.Gone || a.Effects.Focus != nil && a.Effects.Focus.Name != "Effects entry" {
				t.Errorf("select_text: effects %+v", *a.Effects)
			}
			// Pressed on the entry, which has the focus: it stays there.
			a = m.act(t, "press_key", map[string]any{"element": entry.Ref, "keys": "End"}, false)
			if a.Effects.Focus != nil || a.Effects.Gone {
				t.Errorf("press_key End in the focused entry: effects %+v; nothing moved", *a.Effects)
			}

			rows := findKeyed(t, s, m.sess, map[string]any{"name": "Rows", "nameMatch": "exact", "role": "table"})
			a = m.act(t, "scroll", map[string]any{"element": rows.Ref, "direction": "down", "amount": 5}, false)
			log.await(t, "scrolled Rows", 1)
			if a.Effects.Gone {
				t.Errorf("scroll: effects %+v; the list is not gone", *a.Effects)
			}
		})
	})
	t.Run("gtk4", func(t *testing.T) {
		log := newFixtureLog(t)
		app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk4_dialogs.py"), "--title", "effects gtk4",
			"--effects", "--log", log.path)
		s := startMCP(t, d, "", "--allow-input")
		m := &matrixApp{d: d, app: app, s: s, sess: s.connect(t, map[string]any{"pid": app.Pid}),
			focused: fixtureFocus(log), removed: fixtureRemoved(log)}
		t.Run("dialog", func(t *testing.T) {
			id := m.opens(t, "invoke", "Open dialog", gtk4DialogTitle, "dialog", "Dialog option", false)
			log.await(t, "dialog-open", 1)
			a := m.act(t, "window_action", map[string]any{"action": "close", "window": id}, true)
			log.await(t, "dialog-closed", 1)
			m.closed(t, "window_action close", a, id, gtk4DialogTitle, false)

			// Again, closed by its own button, which goes with it.
			id = m.opens(t, "click", "Open dialog", gtk4DialogTitle, "dialog", "Dialog option", false)
			log.await(t, "dialog-open", 2)
			closeBtn := findOne(t, s, m.sess, map[string]any{"name": "Close dialog", "nameMatch": "exact", "role": "push button"})
			a = m.act(t, "click", map[string]any{"element": closeBtn.Ref}, true)
			log.await(t, "dialog-closed", 2)
			m.closed(t, "click Close dialog", a, id, gtk4DialogTitle, false)
			if !a.Effects.Gone {
				t.Errorf("click Close dialog: effects %+v; the button went with its dialog, want gone", *a.Effects)
			}
			// GTK 4 still answers for it: acting on it again is refused.
			s.fail(t, "click", map[string]any{"session": m.sess, "element": closeBtn.Ref}, "elementGone")
		})
		t.Run("focus", func(t *testing.T) { m.focusMoves(t, "text", "Effects next") })
		t.Run("gone", func(t *testing.T) { m.gone(t, "click") })
	})
	t.Run("qt5", func(t *testing.T) {
		log := newFixtureLog(t)
		app := d.Launch(t, testdesk.Python, testdesk.Fixture("qt5_dialogs.py"), "--title", "effects qt5",
			"--effects", "--log", log.path)
		s := startMCP(t, d, "", "--allow-input")
		m := &matrixApp{d: d, app: app, s: s, sess: s.connect(t, map[string]any{"pid": app.Pid}),
			focused: fixtureFocus(log), removed: fixtureRemoved(log)}
		t.Run("dialog", func(t *testing.T) {
			// The modal dialog runs through exec(); Escape rejects it.
			id := m.opens(t, "click", "Open Settings", "Settings", "dialog", "Option", false)
			oneDialog(t, d, app.Pid, log.path, "Settings", 1)
			a := m.act(t, "press_key", map[string]any{"keys": "Escape"}, true)
			log.await(t, "done Settings", 1)
			m.closed(t, "press_key Escape", a, id, "Settings", false)

			// Again, closed by its own button, which goes with it.
			id = m.opens(t, "invoke", "Open Settings", "Settings", "dialog", "Option", false)
			oneDialog(t, d, app.Pid, log.path, "Settings", 2)
			closeBtn := findOne(t, s, m.sess, map[string]any{"name": "Close", "nameMatch": "exact", "role": "push button"})
			a = m.act(t, "click", map[string]any{"element": closeBtn.Ref}, true)
			log.await(t, "done Settings", 2)
			m.closed(t, "click Close", a, id, "Settings", false)
			if !a.Effects.Gone {
				t.Errorf("click Close: effects %+v; the button went with its dialog, want gone", *a.Effects)
			}
		})
		t.Run("focus", func(t *testing.T) { m.focusMoves(t, "text", "Effects next") })
		t.Run("gone", func(t *testing.T) { m.gone(t, "invoke") })
	})
	// Chromium alone: Firefox ESR maps the popup 100-200 ms after the
	// click's answer, which came once its tree had been quiet for the
	// settle's 200 ms, so its windowsOpened is empty.
	t.Run("chromium", func(t *testing.T) { effectsBrowser(t, d, browsers[1]) })
}

// effectsBrowser is the matrix's browser column: the page's popup window,
// the focus moving between its fields, a button that removes itself.
func effectsBrowser(t *testing.T, d *testdesk.Desk, b browser) {
	app := openPage(t, d, b, "effects page", effectsPage)
	s := startMCP(t, d, "", "--allow-input")
	m := &matrixApp{d: d, app: app, s: s, sess: s.connect(t, map[string]any{"pid": app.Pid})}
	// The page says in its title which element has the focus and that
	// it removed the button: X has the title.
	page := func(t *testing.T, want string) {
		t.Helper()
		until(t, "the page's title "+want, func(ctx context.Context) (bool, string) {
			got := windowTitle(ctx, d, app.Pid)
			return strings.HasPrefix(got, want+" "), fmt.Sprintf("%q", got)
		})
	}
	m.focused = func(t *testing.T, name string) {
		t.Helper()
		page(t, "effects page focus="+strings.ReplaceAll(name, " ", "-"))
	}
	m.removed = func(t *testing.T) {
		t.Helper()
		page(t, "effects page removed")
	}
	t.Run("dialog", func(t *testing.T) {
		id := m.opens(t, "click", "Open dialog", "Effects dialog", "frame", "Effects dialog", true)
		// The popup's page, not the browser's own "Close" buttons (a
		// tab's).
		doc := appears(t, s, m.sess, "the popup's page", map[string]any{"name": "Effects dialog", "nameMatch": "exact", "role": "document web"})
		closeBtn := findKeyed(t, s, m.sess, map[string]any{"name": "Close", "nameMatch": "exact", "role": "push button", "within": doc.Ref})
		a := m.act(t, "click", map[string]any{"element": closeBtn.Ref}, true)
		m.closed(t, "click Close", a, id, "Effects dialog", true)
		if !a.Effects.Gone {
			t.Errorf("click Close: effects %+v; the button went with its window, want gone", *a.Effects)
		}
	})
	t.Run("focus", func(t *testing.T) { m.focusMoves(t, "entry", "Effects next") })
	t.Run("gone", func(t *testing.T) { m.gone(t, "click") })
}

// effectsPage is the browser's fixture: an entry and the button after it,
// a button that opens a popup window "Effects dialog" with a button that
// closes it, and a button that removes itself. The title says which
// element has the focus (its accessible name, dashes for spaces) and that
// the button was removed.
const effectsPage = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>effects page</title></head>
<body>
<p><label for="entry">Effects entry</label> <input id="entry" type="text"></p>
<p><button id="next" type="button">Effects next</button></p>
<p><button id="open" type="button">Open dialog</button></p>
<p><button id="remove" type="button">Remove me</button></p>
<script>
var names = {entry: "Effects-entry", next: "Effects-next", open: "Open-dialog", remove: "Remove-me"};
document.addEventListener("focusin", function (e) {
  document.title = "effects page focus=" + (names[e.target.id] || e.target.id);
});
document.getElementById("open").addEventListener("click", function () {
  var w = window.open("", "effects", "popup,width=360,height=240");
  w.document.write('<!DOCTYPE html><html><head><title>Effects dialog</title></head><body>' +
    '<p>A dialog an action opened.</p><button type="button" onclick="window.close()">Close</button></body></html>');
  w.document.close();
});
document.getElementById("remove").addEventListener("click", function () {
  this.remove();
  document.title = "effects page removed";
});
</script>
</body>
</html>
`
