//go:build linux

package linux

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// TestActingChecksTheElementsApp: a key of one application's element is
// refused when an action names another application, as reads refuse it,
// and the element is left as it was: an action on a session's app never
// reaches another app's element, whatever key it is given.
func TestActingChecksTheElementsApp(t *testing.T) {
	d := testdesk.Shared(t)
	mine := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "acting mine")
	other := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "acting other")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	t.Setenv("UISCOPE_A11Y_BUS", d.A11yBus)
	desk, err := Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer desk.Close()
	apps, err := desk.Apps(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var a, b platform.App
	for _, app := range apps {
		switch app.Pid {
		case mine.Pid:
			a = app
		case other.Pid:
			b = app
		}
	}
	if !a.Accessible || !b.Accessible {
		t.Fatalf("the fixtures are not both listed as accessible: %+v, %+v", a, b)
	}
	root, _, err := desk.Tree(ctx, b, platform.TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	find := func(role, name string) string {
		var key string
		var walk func(n *platform.Node)
		walk = func(n *platform.Node) {
			if n.Role.String() == role && n.Name == name && key == "" {
				key = n.Key
			}
			for _, c := range n.Children {
				walk(c)
			}
		}
		walk(root)
		if key == "" {
			t.Fatalf("no %s %q in the other app", role, name)
		}
		return key
	}
	entry, submit, status := find("text", "Name"), find("push button", "Submit"), find("label", "Ready")

	refused := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, platform.ErrElementGone) {
			t.Errorf("%s on the other app's element, as the first app: %v; want ErrElementGone", what, err)
		}
	}
	_, _, err = desk.SetText(ctx, a, entry, "written across apps")
	refused("SetText", err)
	_, err = desk.DoAction(ctx, a, submit, "click")
	refused("DoAction", err)
	refused("GrabFocus", desk.GrabFocus(ctx, a, entry))
	refused("SelectText", desk.SelectText(ctx, a, entry, 0, 1))
	refused("Select", desk.Select(ctx, a, root.Key, 0, true, false))
	_, err = desk.SetValue(ctx, a, entry, 1)
	refused("SetValue", err)
	_, err = desk.Window(ctx, a, entry)
	refused("Window", err)

	det, err := desk.Element(ctx, b, entry)
	if err != nil {
		t.Fatal(err)
	}
	if det.Text != nil && det.Text.Text != "" {
		t.Errorf("the other app's entry holds %q after refused writes", det.Text.Text)
	}
	if st, err := desk.Element(ctx, b, status); err != nil || st.Node.Name != "Ready" {
		t.Errorf("the other app's status label: %+v, %v; want Ready (Submit not pressed)", st, err)
	}
	// The same calls on the app's own element still act.
	if _, _, err := desk.SetText(ctx, b, entry, "mine"); err != nil {
		t.Errorf("SetText on the app's own element: %v", err)
	}
}
