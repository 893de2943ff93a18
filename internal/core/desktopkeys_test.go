package core

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
)

// keysPageTree: one window's worth of key targets: a text field with
// EditableText (type_text), a browser's input with Text only (set_value
// types), and an HTML select in Gecko (select chooses with Home and Down
// on its combo box); the option at index chosen is selected.
func keysPageTree(chosen int) *platform.Node {
	body := &platform.Node{Key: "body", Role: fake.Role("text"), Name: "Body", States: fake.Shown | fake.States("focusable", "editable"),
		Bounds: &platform.Rect{X: 20, Y: 200, Width: 600, Height: 100}, Interfaces: []string{"component", "text", "editabletext"}}
	input := &platform.Node{Key: "name", Role: fake.Role("entry"), Name: "Full name", Bounds: &platform.Rect{X: 20, Y: 320, Width: 100, Height: 20},
		States: fake.Shown | fake.States("focusable", "editable", "single-line"), Interfaces: []string{"component", "text"}}
	sel := selectPageTree(chosen, false).Children[0].Children[0]
	frame := &platform.Node{Key: "frame", Role: fake.Role("frame"), Name: "Page", States: fake.Shown, Bounds: &platform.Rect{Width: 800, Height: 600},
		Interfaces: []string{"component"}, ChildCount: 3, Children: []*platform.Node{sel, body, input}}
	return fake.Root("browser", frame)
}

// pageKeys takes Home and Down on the keys page's select as comboKeys
// does on its own page.
type pageKeys struct{ comboKeys }

// KeyDown and KeyUp are the fake's: a wrapper must not hide them.
func (k *pageKeys) KeyDown(ctx context.Context, key string) error { return k.d.KeyDown(ctx, key) }
func (k *pageKeys) KeyUp(ctx context.Context, key string) error   { return k.d.KeyUp(ctx, key) }

// keyCase is one call of the matrix: with held held (key_down, in order),
// path sends arg; it is refused before anything is sent, or goes through.
type keyCase struct {
	held    []string
	path    string
	arg     string
	refused bool
}

func (c keyCase) String() string {
	return fmt.Sprintf("held %v, %s %q", c.held, c.path, c.arg)
}

// keyPaths are every way the core sends keys. select's arg is the option
// to choose: Red is Home, Green Home then Down.
var keyPaths = []string{"press_key", "press_key element", "type_text", "set_value", "select", "key_down"}

func send(ctx context.Context, m *Sessions, s *Session, tr *Tree, t *testing.T, path, arg string) error {
	var err error
	switch path {
	case "press_key":
		_, err = m.PressKey(ctx, s.ID, "", arg)
	case "press_key element":
		_, err = m.PressKey(ctx, s.ID, refOf(t, tr, "Body"), arg)
	case "type_text":
		_, err = m.TypeText(ctx, s.ID, refOf(t, tr, "Body"), arg)
	case "set_value":
		_, err = m.SetValue(ctx, s.ID, refOf(t, tr, "Full name"), arg)
	case "select":
		_, err = m.Select(ctx, s.ID, refOf(t, tr, arg), "")
	case "key_down":
		_, err = m.KeyDown(ctx, s.ID, arg)
	default:
		t.Fatalf("no path %s", path)
	}
	return err
}

// Spellings. superNames are accepted and press Super_L or Super_R;
// superMods can be a chord's modifier too; notKeys are no key the platform
// knows, refused as such wherever they are given.
var (
	superNames = []string{"Super", "super", "SUPER", "Win", "win", "WIN", "Meta", "meta", "META", "Super_L", "Super_R", "super_l", "SUPER_R"}
	superMods  = []string{"Super", "super", "Win", "win", "Meta", "META"}
	notKeys    = []string{"Hyper", "hyper", "Hyper_L", "Hyper_R", "Meta_L", "meta_r", "Mod4", "mod4", "Cmd", "Command", "Super_L+d",
		"Ctrl+Hyper", "Hyper+d", "Mod4+d", "Cmd+d", "Command+Shift+d"}
	altNames  = []string{"Alt", "alt", "ALT", "Alt_L", "Alt_R"}
	ctrlNames = []string{"Ctrl", "control", "Control_L", "Control_R"}
)

// keyMatrix: every spelling of Super, Alt and Ctrl, in the chord or held,
// over every key path.
func keyMatrix() []keyCase {
	var cases []keyCase
	add := func(held []string, path, arg string, refused bool) {
		cases = append(cases, keyCase{held, path, arg, refused})
	}
	chordPaths := []string{"press_key", "press_key element"}
	// In the chord.
	for _, s := range superNames {
		for _, p := range chordPaths {
			for _, k := range []string{s, "Ctrl+" + s, "Shift+Alt+" + s} {
				add(nil, p, k, true)
			}
		}
		add(nil, "key_down", s, true)
	}
	for _, s := range superMods {
		for _, p := range chordPaths {
			for _, k := range []string{s + "+d", s + "+Shift+Tab", "Ctrl+" + s + "+Alt+Delete", s + "+l"} {
				add(nil, p, k, true)
			}
		}
	}
	for _, k := range notKeys {
		for _, p := range chordPaths {
			add(nil, p, k, true)
		}
		if !strings.Contains(k, "+") {
			add(nil, "key_down", k, true)
		}
	}
	for _, a := range altNames[:3] {
		for _, p := range chordPaths {
			for _, k := range []string{"Tab", "Shift+Tab", "Escape", "Esc", "F1", "F2"} {
				add(nil, p, a+"+"+k, true)
			}
			for _, k := range []string{"F4", "f", "F13", "Return"} {
				add(nil, p, a+"+"+k, false)
			}
		}
	}
	for _, p := range chordPaths {
		for _, k := range []string{"Ctrl+Alt+T", "control+alt+t", "Ctrl+Shift+Alt+F7", "Ctrl+Alt+Down", "Ctrl+Alt+BackSpace", "Ctrl+Alt+Del"} {
			add(nil, p, k, true)
		}
		add(nil, p, "Ctrl+Alt+a", false)
	}
	// Held: Super (held while desktop keys were allowed), then every path.
	for _, s := range superNames {
		held := []string{s}
		add(held, "press_key", "d", true)
		add(held, "press_key element", "Shift+d", true)
		add(held, "type_text", "d", true)
		add(held, "set_value", "d", true)
		add(held, "set_value", "", true)
		add(held, "select", "Red", true)
		add(held, "key_down", "d", true)
		add(held, "key_down", "Shift", true)
	}
	// Held Alt: Tab, Escape, F1, F2 make window switching and the
	// desktop's menus; the rest is the app's.
	for _, a := range altNames {
		held := []string{a}
		for _, x := range []string{"\t", "a\tb", "x\t"} {
			add(held, "type_text", x, true)
			add(held, "set_value", x, true)
		}
		for _, p := range chordPaths {
			for _, k := range []string{"Tab", "Shift+Tab", "Escape", "F1", "F2", "Ctrl+Tab"} {
				add(held, p, k, true)
			}
			add(held, p, "F4", false)
		}
		add(held, "key_down", "Tab", true)
		add(held, "key_down", "Escape", true)
		add(held, "key_down", "Super", true)
		add(held, "key_down", "Shift", false)
		add(held, "type_text", "x", false)
		add(held, "set_value", "abc", false)
		add(held, "select", "Green", false)
	}
	// Held Ctrl and Alt: T, L, BackSpace, Delete, Tab, the arrows and
	// F1..F12 are the desktop's; typed, "t", "T", "l", "\b" and "\t" are
	// those keys.
	for i, c := range ctrlNames {
		held := []string{c, altNames[i%len(altNames)]}
		if i%2 == 1 {
			held[0], held[1] = held[1], held[0]
		}
		for _, x := range []string{"t", "T", "l", "L", "\b", "\t", "at", "no tea"} {
			add(held, "type_text", x, true)
		}
		for _, x := range []string{"", "tea", "L"} {
			add(held, "set_value", x, true)
		}
		for _, p := range chordPaths {
			for _, k := range []string{"Down", "Left", "Right", "Up", "Delete", "BackSpace", "F1", "F12", "t", "l", "Tab", "Shift+t"} {
				add(held, p, k, true)
			}
			add(held, p, "a", false)
			add(held, p, "F13", false)
		}
		add(held, "select", "Green", true) // Home, then Down: Ctrl+Alt+Down
		add(held, "select", "Red", false)  // Home alone
		add(held, "key_down", "t", true)
		add(held, "key_down", "Delete", true)
		add(held, "key_down", "Shift", false)
		add(held, "type_text", "abc", false)
		add(held, "set_value", "abc", false)
	}
	// Held keys that are no modifier repeat while down: a modifier
	// pressed over them makes the chord too.
	add([]string{"Tab"}, "key_down", "Alt", true)
	add([]string{"Tab"}, "press_key", "Alt", true)
	add([]string{"Tab"}, "press_key", "Ctrl+Alt", true)
	add([]string{"Tab"}, "type_text", "abc", false)
	add([]string{"Delete", "Ctrl"}, "key_down", "Alt", true)
	add([]string{"Escape"}, "press_key element", "Alt+a", true)
	return cases
}

// TestDesktopKeysMatrix: every spelling of Super, Alt and Ctrl, in the
// chord or held with key_down, over every path that sends keys (press_key
// with and without an element, type_text, set_value's typing, select's
// keys, key_down): a desktop chord is refused with invalidArgument saying
// how to allow it, and nothing at all is sent; the app's chords go
// through. Super is held with desktop keys allowed, then the rule is
// turned on: the one way Super can be down when a call comes.
func TestDesktopKeysMatrix(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The cases that go through wait for the app to settle: the fake's
		// quiet time short, the matrix counts keys, not time.
		oldQuiet := quietTime
		quietTime = 5 * time.Millisecond
		t.Cleanup(func() { quietTime = oldQuiet })
		ctx := context.Background()
		cases := keyMatrix()
		covered := map[string]bool{}
		for _, c := range cases {
			covered[c.path] = true
		}
		for _, p := range keyPaths {
			if !covered[p] {
				t.Errorf("the matrix has no case for %s", p)
			}
		}
		for _, c := range cases {
			d := fake.New()
			d.AddApp(fake.App{Pid: editorPid, Name: "browser", Toolkit: "Gecko", Tree: keysPageTree(0)})
			win := d.AddWindow(editorPid, "Page", platform.Rect{Width: 800, Height: 600})
			d.SetActive(win)
			p := d.Platform()
			p.Input = &pageKeys{comboKeys{Input: p.Input, d: d, tree: keysPageTree}}
			m, s, tr := formSession(t, p)
			m.AllowDesktopKeys = true
			for _, h := range c.held {
				if _, err := m.KeyDown(ctx, s.ID, h); err != nil {
					t.Fatalf("%s: key_down %s: %v", c, h, err)
				}
			}
			m.AllowDesktopKeys = false
			keys, typed, down := d.Keys(win), d.Typed(win), d.KeysDown()
			err := send(ctx, m, s, tr, t, c.path, c.arg)
			switch {
			case c.refused && err == nil:
				t.Errorf("%s: went through, want refused", c)
			case c.refused:
				if e := AsError(err); e.Code != CodeInvalidArgument {
					t.Errorf("%s: %v, want invalidArgument", c, err)
				} else if _, perr := platform.ParseChord(c.arg); (perr == nil || c.path == "type_text" || c.path == "set_value" || c.path == "select") &&
					!strings.Contains(e.Msg, "--allow-desktop-keys") {
					t.Errorf("%s: the refusal does not say how to allow it: %s", c, e.Msg)
				}
				if got := d.Keys(win); !slices.Equal(got, keys) {
					t.Errorf("%s: refused, but chords were sent: %q after %q", c, got, keys)
				}
				if got := d.Typed(win); got != typed {
					t.Errorf("%s: refused, but %q was typed", c, strings.TrimPrefix(got, typed))
				}
				if got := d.KeysDown(); !slices.Equal(got, down) {
					t.Errorf("%s: refused, but keys %v are down (were %v)", c, got, down)
				}
			case err != nil:
				t.Errorf("%s: %v, want it to go through", c, err)
			}
			if err := m.Disconnect(ctx, s.ID); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("%d cases", len(cases))
	})
}

// TestDesktopKeysPointer: with Alt or Super held (any spelling), pointer
// input is refused before anything is sent — the window manager binds
// the wheel and the buttons with them — on every pointer path: a click
// without an action, the wheel, a held button. Shift and Ctrl held are the
// app's, and an action sends no pointer input.
func TestDesktopKeysPointer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		oldQuiet := quietTime
		quietTime = 5 * time.Millisecond
		t.Cleanup(func() { quietTime = oldQuiet })
		ctx := context.Background()
		pointer := map[string]func(m *Sessions, s *Session, tr *Tree) error{
			"click": func(m *Sessions, s *Session, tr *Tree) error {
				_, err := m.Click(ctx, s.ID, refOf(t, tr, "Pointer only"))
				return err
			},
			"scroll": func(m *Sessions, s *Session, tr *Tree) error {
				_, err := m.Scroll(ctx, s.ID, refOf(t, tr, "Body"), "down", 1)
				return err
			},
			"press": func(m *Sessions, s *Session, tr *Tree) error {
				_, err := m.Press(ctx, s.ID, refOf(t, tr, "Pointer only"), nil, 1)
				return err
			},
		}
		for _, tc := range []struct {
			held    []string
			refused bool
		}{
			{[]string{"Alt"}, true}, {[]string{"alt_r"}, true}, {[]string{"Ctrl", "Alt"}, true}, {[]string{"Shift", "ALT"}, true},
			{[]string{"Super"}, true}, {[]string{"Meta"}, true}, {[]string{"win"}, true}, {[]string{"Super_R"}, true},
			{[]string{"Shift"}, false}, {[]string{"Ctrl"}, false}, {[]string{"Control_R", "Shift_L"}, false}, {[]string{"a"}, false}, {nil, false},
		} {
			for name, send := range pointer {
				d := newSafetyDesk()
				m, s, tr := connectEditor(t, d)
				m.AllowDesktopKeys = true
				for _, h := range tc.held {
					if _, err := m.KeyDown(ctx, s.ID, h); err != nil {
						t.Fatalf("key_down %s: %v", h, err)
					}
				}
				m.AllowDesktopKeys = false
				clicks := len(d.Clicks())
				err := send(m, s, tr)
				switch {
				case tc.refused && err == nil:
					t.Errorf("held %v, %s: went through, want refused", tc.held, name)
				case tc.refused:
					if e := AsError(err); e.Code != CodeInvalidArgument || !strings.Contains(e.Msg, "--allow-desktop-keys") {
						t.Errorf("held %v, %s: %v, want invalidArgument saying how to allow it", tc.held, name, err)
					}
					if got := d.Clicks(); len(got) != clicks || len(d.ButtonsDown()) != 0 {
						t.Errorf("held %v, %s: refused, but the pointer was used: clicks %v, buttons %v down", tc.held, name, got, d.ButtonsDown())
					}
				case err != nil:
					t.Errorf("held %v, %s: %v, want it to go through", tc.held, name, err)
				}
			}
		}
		// An action sends no pointer input: it goes through with Alt held.
		d := newSafetyDesk()
		m, s, tr := connectEditor(t, d)
		if _, err := m.KeyDown(ctx, s.ID, "Alt"); err != nil {
			t.Fatal(err)
		}
		if r, err := m.Click(ctx, s.ID, refOf(t, tr, "Save")); err != nil || r.Method != MethodAction {
			t.Errorf("click by action with Alt held: %+v, %v", r, err)
		}
	})
}
