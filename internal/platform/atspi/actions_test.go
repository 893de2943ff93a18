//go:build linux

package atspi_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/dbusx"
	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/atspi"
	"github.com/uiscope/uiscope/internal/testdesk"
)

func TestMain(m *testing.M) { testdesk.Main(m) }

// fixture is a launched fixture app and its tree.
type fixture struct {
	t    *testing.T
	d    *testdesk.Desk
	app  *testdesk.App
	root *platform.Node
}

func launchFixture(t *testing.T, name string, args ...string) *fixture {
	t.Helper()
	d := testdesk.Shared(t)
	app := d.Launch(t, append([]string{testdesk.Python, testdesk.Fixture(name)}, args...)...)
	f := &fixture{t: t, d: d, app: app}
	f.reload()
	return f
}

// reload rereads the tree (after a change that creates elements).
func (f *fixture) reload() {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	root, st, err := f.d.A11y.Tree(ctx, f.app.Bus, atspi.TreeOptions{Actions: true})
	if err != nil || st.Truncated {
		f.t.Fatalf("tree: %v (truncated %v %s)", err, st.Truncated, st.Reason)
	}
	f.root = root
}

// find returns the first element (depth first) of the role with the name
// ("" matches any name).
func (f *fixture) find(role, name string) *platform.Node {
	f.t.Helper()
	r, ok := platform.RoleByName(role)
	if !ok {
		f.t.Fatalf("no role %q", role)
	}
	var hit *platform.Node
	var walk func(n *platform.Node)
	walk = func(n *platform.Node) {
		if hit != nil {
			return
		}
		if n.Role == r && (name == "" || n.Name == name) {
			hit = n
			return
		}
		for _, k := range n.Children {
			walk(k)
		}
	}
	walk(f.root)
	if hit == nil {
		f.t.Fatalf("no %s %q in the tree", role, name)
	}
	return hit
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// waitFor polls cond until it holds or the deadline passes: the effects of
// actions arrive from the application's main loop after the call returns,
// later still on a loaded machine.
func waitFor(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	last := ""
	for {
		ok, why := cond()
		if ok {
			return
		}
		last = why
		if time.Now().After(deadline) {
			t.Fatalf("%s: gave up waiting: %s", what, last)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func waitState(t *testing.T, c *atspi.Conn, key string, st platform.State, want bool) {
	t.Helper()
	waitFor(t, fmt.Sprintf("state %s=%v", st, want), func() (bool, string) {
		s, err := c.States(context.Background(), key)
		if err != nil {
			return false, err.Error()
		}
		return s.Has(st) == want, fmt.Sprintf("states %v", s.Names())
	})
}

func waitName(t *testing.T, c *atspi.Conn, key, want string) {
	t.Helper()
	waitFor(t, fmt.Sprintf("name %q", want), func() (bool, string) {
		d, err := c.Element(context.Background(), key, atspi.ElementOptions{})
		if err != nil {
			return false, err.Error()
		}
		return d.Node.Name == want, fmt.Sprintf("name %q", d.Node.Name)
	})
}

// elementText reads an element's text through Element (not through the
// action's own answer).
func elementText(t *testing.T, c *atspi.Conn, key string) string {
	t.Helper()
	d, err := c.Element(ctxT(t), key, atspi.ElementOptions{})
	if err != nil {
		t.Fatalf("element %s: %v", key, err)
	}
	if d.Text == nil {
		t.Fatalf("element %s has no text", key)
	}
	return d.Text.Text
}

func elementValue(t *testing.T, c *atspi.Conn, key string) float64 {
	t.Helper()
	d, err := c.Element(ctxT(t), key, atspi.ElementOptions{})
	if err != nil {
		t.Fatalf("element %s: %v", key, err)
	}
	if d.Value == nil {
		t.Fatalf("element %s has no value", key)
	}
	return d.Value.Current
}

var (
	rawOnce sync.Once
	rawConn *dbusx.Conn
	rawErr  error
)

// raw makes a D-Bus call on its own connection, for what the atspi package
// offers no reader of (text selections).
func raw(t *testing.T, d *testdesk.Desk, key, method string, args ...any) []any {
	t.Helper()
	rawOnce.Do(func() { rawConn, rawErr = dbusx.Connect(context.Background(), d.A11yBus) })
	if rawErr != nil {
		t.Fatalf("connect: %v", rawErr)
	}
	bus, path, err := atspi.ParseKey(key)
	if err != nil {
		t.Fatal(err)
	}
	call := rawConn.Object(bus, path).CallWithContext(ctxT(t), method, 0, args...)
	if call.Err != nil {
		t.Fatalf("%s: %v", method, call.Err)
	}
	return call.Body
}

func TestActionsGTK3(t *testing.T) {
	f := launchFixture(t, "gtk3_fixture.py")
	c := f.d.A11y

	t.Run("CheckBoxToggles", func(t *testing.T) {
		ctx := ctxT(t)
		check := f.find("check box", "Remember me").Key
		acts, err := c.Actions(ctx, check)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("GTK3 check box actions: %q", acts)
		before, err := c.States(ctx, check)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			used, err := c.DoAction(ctx, check, "toggle", "click")
			if err != nil {
				t.Fatal(err)
			}
			if used != "click" {
				t.Errorf("used %q, want click", used)
			}
			want := before.Has(platform.StateChecked) == (i%2 == 1)
			waitState(t, c, check, platform.StateChecked, want)
		}
	})

	t.Run("SetTextAndSubmit", func(t *testing.T) {
		ctx := ctxT(t)
		entry := f.find("text", "Name").Key
		label := f.find("label", "Ready").Key
		res, err := c.SetText(ctx, entry, "Ada Lovelace")
		if err != nil {
			t.Fatal(err)
		}
		if res.Method != atspi.MethodSetTextContents || res.Text != "Ada Lovelace" || res.Redacted {
			t.Errorf("SetText = %+v", res)
		}
		if got := elementText(t, c, entry); got != "Ada Lovelace" {
			t.Errorf("entry holds %q", got)
		}
		// Replacing a longer text with a shorter one, and clearing.
		for _, s := range []string{"Bo", ""} {
			if res, err := c.SetText(ctx, entry, s); err != nil || res.Text != s {
				t.Errorf("SetText(%q) = %+v, %v", s, res, err)
			}
			if got := elementText(t, c, entry); got != s {
				t.Errorf("entry holds %q, want %q", got, s)
			}
		}
		if _, err := c.SetText(ctx, entry, "Ada Lovelace"); err != nil {
			t.Fatal(err)
		}
		used, err := c.DoAction(ctx, f.find("push button", "Submit").Key, "click", "press")
		if err != nil || used != "click" {
			t.Fatalf("DoAction = %q, %v", used, err)
		}
		waitName(t, c, label, "Submitted: Ada Lovelace")
	})

	t.Run("SelectText", func(t *testing.T) {
		ctx := ctxT(t)
		entry := f.find("text", "Name").Key
		if _, err := c.SetText(ctx, entry, "Ada Lovelace"); err != nil {
			t.Fatal(err)
		}
		if err := c.SelectText(ctx, entry, 4, 12); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "selection 4..12", func() (bool, string) {
			body := raw(t, f.d, entry, "org.a11y.atspi.Text.GetSelection", int32(0))
			return body[0] == int32(4) && body[1] == int32(12), fmt.Sprint(body)
		})
		if err := c.SelectText(ctx, entry, 0, 3); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "selection 0..3", func() (bool, string) {
			body := raw(t, f.d, entry, "org.a11y.atspi.Text.GetSelection", int32(0))
			return body[0] == int32(0) && body[1] == int32(3), fmt.Sprint(body)
		})
		if err := c.SelectText(ctx, entry, 0, 99); !errors.Is(err, atspi.ErrOutOfRange) {
			t.Errorf("SelectText past the end: %v, want ErrOutOfRange", err)
		}
	})

	t.Run("Password", func(t *testing.T) {
		ctx := ctxT(t)
		pw := f.find("password text", "").Key
		res, err := c.SetText(ctx, pw, "correct horse")
		if err != nil {
			t.Fatal(err)
		}
		if !res.Redacted || res.Text != "" || res.Method == "" {
			t.Errorf("SetText(password) = %+v, want redacted with a method", res)
		}
		t.Logf("GTK3 password: %+v", res)
	})

	t.Run("SetValue", func(t *testing.T) {
		ctx := ctxT(t)
		for _, tc := range []struct {
			role, name string
			v          float64
		}{{"spin button", "Count", 42}, {"slider", "Volume", 75}} {
			key := f.find(tc.role, tc.name).Key
			got, err := c.SetValue(ctx, key, tc.v)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if got != tc.v {
				t.Errorf("%s: SetValue answered %v", tc.name, got)
			}
			if now := elementValue(t, c, key); now != tc.v {
				t.Errorf("%s holds %v, want %v", tc.name, now, tc.v)
			}
			_, err = c.SetValue(ctx, key, 150)
			if !errors.Is(err, atspi.ErrOutOfRange) || !strings.Contains(err.Error(), "0..100") {
				t.Errorf("%s: SetValue(150) = %v, want ErrOutOfRange naming 0..100", tc.name, err)
			}
			if now := elementValue(t, c, key); now != tc.v {
				t.Errorf("%s changed to %v by a refused value", tc.name, now)
			}
		}
	})

	t.Run("Combo", func(t *testing.T) {
		ctx := ctxT(t)
		combo := f.find("combo box", "Color").Key
		green := f.find("menu item", "Green").Key
		blue := f.find("menu item", "Blue").Key
		// The items carry no SELECTED state: the combo's Selection tells
		// which one is active.
		waitSelected := func(want string) {
			t.Helper()
			waitFor(t, "combo selection", func() (bool, string) {
				keys, err := c.SelectedChildren(ctx, combo)
				if err != nil {
					return false, err.Error()
				}
				return len(keys) == 1 && keys[0] == want, fmt.Sprintf("selected %q, want %q", keys, want)
			})
		}
		// The combo's own Selection: child i is item i of its menu.
		if err := c.SelectChild(ctx, combo, 1); err != nil {
			t.Fatal(err)
		}
		waitSelected(green)
		// The menu item's click action, menu closed.
		used, err := c.DoAction(ctx, blue, "click")
		if err != nil || used != "click" {
			t.Fatalf("DoAction(Blue) = %q, %v", used, err)
		}
		waitSelected(blue)
	})

	t.Run("ExpandTreeRow", func(t *testing.T) {
		ctx := ctxT(t)
		fruits := f.find("table cell", "Fruits").Key
		acts, err := c.Actions(ctx, fruits)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("GTK3 tree cell actions: %q", acts)
		used, err := c.DoAction(ctx, fruits, "expand or contract")
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("ran %q", used)
		waitState(t, c, fruits, platform.StateExpanded, true)
	})

	t.Run("TreeSelection", func(t *testing.T) {
		ctx := ctxT(t)
		tree := f.find("tree table", "Tree").Key
		selected := func(want int) {
			t.Helper()
			waitFor(t, "tree selection", func() (bool, string) {
				keys, err := c.SelectedChildren(ctx, tree)
				return err == nil && len(keys) == want, fmt.Sprintf("selected %q, %v", keys, err)
			})
		}
		if err := c.ClearSelection(ctx, tree); err != nil {
			t.Fatal(err)
		}
		selected(0)
		// Child 0 is the column header, 1 the "Fruits" cell.
		if err := c.SelectChild(ctx, tree, 1); err != nil {
			t.Fatal(err)
		}
		selected(1)
		if sel, err := c.IsChildSelected(ctx, tree, 1); err != nil || !sel {
			t.Errorf("IsChildSelected(1) = %v, %v", sel, err)
		}
		// GTK 3's tree view refuses to deselect one row (DeselectChild and
		// DeselectSelectedChild answer false); clearing works.
		if err := c.DeselectChild(ctx, tree, 1); err != nil && !errors.Is(err, atspi.ErrNoEffect) {
			t.Fatal(err)
		}
		if err := c.ClearSelection(ctx, tree); err != nil {
			t.Fatal(err)
		}
		selected(0)
	})

	t.Run("FocusAndScroll", func(t *testing.T) {
		ctx := ctxT(t)
		submit := f.find("push button", "Submit").Key
		if err := c.GrabFocus(ctx, submit); err != nil {
			t.Fatal(err)
		}
		waitState(t, c, submit, platform.StateFocused, true)
		// GTK 3 widgets do not implement scroll_to: atk answers false.
		if err := c.ScrollTo(ctx, submit); err != nil && !errors.Is(err, atspi.ErrNoEffect) {
			t.Errorf("ScrollTo: %v", err)
		}
	})

	t.Run("NotSupported", func(t *testing.T) {
		ctx := ctxT(t)
		slider := f.find("slider", "Volume").Key
		if _, err := c.DoAction(ctx, slider, "click"); !errors.Is(err, platform.ErrNotSupported) {
			t.Errorf("DoAction on a slider: %v", err)
		}
		submit := f.find("push button", "Submit").Key
		_, err := c.DoAction(ctx, submit, "frobnicate")
		if !errors.Is(err, platform.ErrNotSupported) || !strings.Contains(err.Error(), `"click"`) {
			t.Errorf("DoAction(frobnicate): %v, want ErrNotSupported listing click", err)
		}
		if _, err := c.SetText(ctx, submit, "x"); !errors.Is(err, platform.ErrNotSupported) {
			t.Errorf("SetText on a button: %v", err)
		}
		if _, err := c.SetValue(ctx, submit, 1); !errors.Is(err, platform.ErrNotSupported) {
			t.Errorf("SetValue on a button: %v", err)
		}
		if err := c.SelectChild(ctx, submit, 0); !errors.Is(err, platform.ErrNotSupported) {
			t.Errorf("SelectChild on a button: %v", err)
		}
	})

	t.Run("Disabled", func(t *testing.T) {
		ctx := ctxT(t)
		dis := f.find("push button", "Disabled action").Key
		// GTK 3 answers true and does nothing: callers check SENSITIVE
		// before acting.
		if used, err := c.DoAction(ctx, dis, "click"); err != nil || used != "click" {
			t.Errorf("DoAction on an insensitive button: %q, %v", used, err)
		}
	})
}

func TestActionsGTK4(t *testing.T) {
	f := launchFixture(t, "gtk4_fixture.py")
	c := f.d.A11y
	ctx := ctxT(t)

	entry := f.find("text", "Name").Key
	label := f.find("label", "Ready").Key
	res, err := c.SetText(ctx, entry, "Grace Hopper")
	// GTK 4.8's SetTextContents works; it is its GetText(0, -1) that
	// answers "" whatever the text.
	if err != nil || res.Text != "Grace Hopper" || res.Method != atspi.MethodSetTextContents {
		t.Fatalf("SetText = %+v, %v", res, err)
	}
	if got := elementText(t, c, entry); got != "Grace Hopper" {
		t.Errorf("entry holds %q", got)
	}
	for _, s := range []string{"Grace", ""} {
		if res, err := c.SetText(ctx, entry, s); err != nil || res.Text != s {
			t.Errorf("SetText(%q) = %+v, %v", s, res, err)
		}
	}
	if _, err := c.SetText(ctx, entry, "Grace Hopper"); err != nil {
		t.Fatal(err)
	}
	if err := c.SelectText(ctx, entry, 0, 5); err != nil {
		t.Errorf("SelectText: %v", err)
	}

	pres, err := c.SetText(ctx, f.find("password text", "").Key, "correct horse")
	if err != nil || pres.Text != "" || !pres.Redacted || pres.Method == "" {
		t.Errorf("SetText(password) = %+v, %v", pres, err)
	}

	used, err := c.DoAction(ctx, f.find("push button", "Submit").Key, "click")
	if err != nil {
		t.Fatalf("DoAction(Submit) = %q, %v", used, err)
	}
	waitName(t, c, label, "Submitted: Grace Hopper")

	// GTK 4.8 check buttons have the Action interface and no action.
	check := f.find("check box", "Remember me").Key
	if acts, err := c.Actions(ctx, check); err != nil || len(acts) != 0 {
		t.Logf("GTK4 check box actions: %q, %v (4.8 had none)", acts, err)
	}
	if _, err := c.DoAction(ctx, check, "toggle", "click", "activate"); err != nil && !errors.Is(err, platform.ErrNotSupported) {
		t.Errorf("DoAction on the check box: %v", err)
	}

	// GTK 4.8 answers Component.GrabFocus with DBus.Error.NotSupported.
	if err := c.GrabFocus(ctx, check); err == nil {
		waitState(t, c, check, platform.StateFocused, true)
	} else if !errors.Is(err, platform.ErrNotSupported) {
		t.Errorf("GrabFocus: %v", err)
	}
}

func TestActionsQt5(t *testing.T) {
	f := launchFixture(t, "qt5_fixture.py")
	c := f.d.A11y
	ctx := ctxT(t)

	entry := f.find("text", "Name").Key
	label := f.find("label", "Ready").Key
	res, err := c.SetText(ctx, entry, "Alan Turing")
	if err != nil {
		t.Fatalf("Qt SetText: %+v, %v", res, err)
	}
	t.Logf("Qt SetText: %+v", res)
	if got := elementText(t, c, entry); got != "Alan Turing" {
		t.Errorf("line edit holds %q", got)
	}

	pres, err := c.SetText(ctx, f.find("password text", "").Key, "correct horse")
	t.Logf("Qt password SetText: %+v, %v", pres, err)
	if err != nil || pres.Text != "" || !pres.Redacted {
		t.Errorf("password: %+v, %v", pres, err)
	}

	used, err := c.DoAction(ctx, f.find("push button", "Submit").Key, "click", "press")
	if err != nil || used != "Press" {
		t.Fatalf("DoAction(Submit) = %q, %v", used, err)
	}
	waitName(t, c, label, "Submitted: Alan Turing")

	check := f.find("check box", "Remember me").Key
	for _, want := range []bool{true, false} {
		used, err = c.DoAction(ctx, check, "toggle", "click")
		if err != nil || used != "Toggle" {
			t.Fatalf("DoAction(check box) = %q, %v", used, err)
		}
		waitState(t, c, check, platform.StateChecked, want)
	}

	// Qt's combo box has no Selection interface; its popup list's items
	// have "Toggle", which selects the item in the (closed) list view but
	// does not change the combo's current item.
	combo := f.find("combo box", "").Key
	if err := c.SelectChild(ctx, combo, 1); !errors.Is(err, platform.ErrNotSupported) {
		t.Errorf("SelectChild on the Qt combo: %v", err)
	}
	green := f.find("list item", "Green").Key
	if used, err := c.DoAction(ctx, green, "toggle", "click", "press"); err != nil || used != "Toggle" {
		t.Fatalf("DoAction(Green) = %q, %v", used, err)
	}
	waitState(t, c, green, platform.StateSelected, true)
	if d, err := c.Element(ctx, combo, atspi.ElementOptions{}); err == nil {
		t.Logf("Qt combo after the item's Toggle: %q", d.Node.Name)
	}

	submit := f.find("push button", "Submit").Key
	if err := c.GrabFocus(ctx, submit); err != nil {
		t.Fatalf("GrabFocus: %v", err)
	}
	waitState(t, c, submit, platform.StateFocused, true)
	// Qt does not implement Component.ScrollTo (it answers UnknownObject).
	if err := c.ScrollTo(ctx, submit); !errors.Is(err, platform.ErrNotSupported) {
		t.Errorf("ScrollTo: %v, want ErrNotSupported", err)
	}

	dis := f.find("push button", "Disabled action").Key
	used, err = c.DoAction(ctx, dis, "press", "click")
	// Qt lists no actions for a disabled button.
	if !errors.Is(err, platform.ErrNotSupported) || used != "" {
		t.Errorf("disabled button: %v", err)
	}
}

func TestActionsGone(t *testing.T) {
	f := launchFixture(t, "gtk3_fixture.py")
	c := f.d.A11y
	submit := f.find("push button", "Submit").Key

	// A path the live app never exported.
	bus, _, _ := atspi.ParseKey(submit)
	bogus := "atspi:" + bus + "/org/a11y/atspi/accessible/999999"
	if _, err := c.DoAction(ctxT(t), bogus, "click"); !errors.Is(err, platform.ErrElementGone) {
		t.Errorf("DoAction on a path never exported: %v", err)
	}

	if err := f.app.Proc.Stop(); err != nil {
		t.Fatal(err)
	}
	for name, call := range map[string]func(ctx context.Context) error{
		"DoAction":  func(ctx context.Context) error { _, err := c.DoAction(ctx, submit, "click"); return err },
		"SetText":   func(ctx context.Context) error { _, err := c.SetText(ctx, submit, "x"); return err },
		"States":    func(ctx context.Context) error { _, err := c.States(ctx, submit); return err },
		"GrabFocus": func(ctx context.Context) error { return c.GrabFocus(ctx, submit) },
	} {
		start := time.Now()
		err := call(ctxT(t))
		if !errors.Is(err, platform.ErrElementGone) {
			t.Errorf("%s on a stopped app: %v, want ErrElementGone", name, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s took %v", name, d)
		}
	}
}

// TestElementRemoved: a button that removed itself reads as gone, though
// GTK 4 answers UnknownMethod and Qt UnknownInterface for it (not
// UnknownObject, as GTK 3 does), as a path the app never exported does.
func TestElementRemoved(t *testing.T) {
	for _, app := range []string{"gtk4_dialogs.py", "qt5_dialogs.py"} {
		t.Run(app, func(t *testing.T) {
			f := launchFixture(t, app, "--effects")
			c := f.d.A11y
			btn := f.find("push button", "Remove me").Key
			if _, err := c.Element(ctxT(t), btn, atspi.ElementOptions{}); err != nil {
				t.Fatalf("Element before the removal: %v", err)
			}
			bus, _, _ := atspi.ParseKey(btn)
			bogus := "atspi:" + bus + "/org/a11y/atspi/accessible/999999"
			if _, err := c.Element(ctxT(t), bogus, atspi.ElementOptions{}); !errors.Is(err, platform.ErrElementGone) {
				t.Errorf("Element on a path never exported: %v, want ErrElementGone", err)
			}
			if _, err := c.DoAction(ctxT(t), btn, "click", "press"); err != nil {
				t.Fatal(err)
			}
			ctx := ctxT(t)
			for {
				_, err := c.Element(ctx, btn, atspi.ElementOptions{})
				if errors.Is(err, platform.ErrElementGone) {
					break
				}
				if err != nil {
					t.Fatalf("Element after the removal: %v, want ErrElementGone", err)
				}
				select {
				case <-ctx.Done():
					t.Fatal("the removed button still reads as there")
				case <-time.After(50 * time.Millisecond):
				}
			}
		})
	}
}

// TestAttachedClosedDialog: GTK 4 keeps answering for the widgets of a
// dialog it destroyed while the app holds it (their Parent links still
// climb to the root): Attached tells them from the main window's, which
// stay in the tree.
func TestAttachedClosedDialog(t *testing.T) {
	f := launchFixture(t, "gtk4_dialogs.py", "--effects")
	c := f.d.A11y
	ctx := ctxT(t)
	main := f.find("push button", "Open dialog").Key
	if _, err := c.DoAction(ctx, main, "click"); err != nil {
		t.Fatal(err)
	}
	var closeBtn string
	waitFor(t, "the dialog's button in the tree", func() (bool, string) {
		root, _, err := c.Tree(ctx, f.app.Bus, atspi.TreeOptions{NoDetails: true})
		if err != nil {
			return false, err.Error()
		}
		f.root = root
		closeBtn = findNode(root, "Close dialog")
		return closeBtn != "", "not yet"
	})
	for _, key := range []string{main, closeBtn} {
		if in, err := c.Attached(ctx, key); !in || err != nil {
			t.Errorf("Attached(%s) with the dialog open = %v, %v; want true", key, in, err)
		}
	}
	if _, err := c.DoAction(ctx, closeBtn, "click"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the dialog's button detached", func() (bool, string) {
		in, err := c.Attached(ctx, closeBtn)
		return !in && err == nil, fmt.Sprint(in, err)
	})
	if _, err := c.Element(ctx, closeBtn, atspi.ElementOptions{}); err != nil {
		t.Logf("the closed dialog's button no longer answers (%v): GTK let it go", err)
	}
	if in, err := c.Attached(ctx, main); !in || err != nil {
		t.Errorf("Attached(Open dialog) with the dialog closed = %v, %v; want true", in, err)
	}
}

// findNode is the key of the first element named name, "" when none is.
func findNode(n *platform.Node, name string) string {
	if n.Name == name {
		return n.Key
	}
	for _, k := range n.Children {
		if key := findNode(k, name); key != "" {
			return key
		}
	}
	return ""
}
