package core

import (
	"context"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
)

// TestFocusAskedAgain: an element that already says it is focused is
// asked for the focus again before keys go to it (a browser keeps a page
// element's focused state while its address bar has the keys).
func TestFocusAskedAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d, _ := webDesk()
		m, s, tr := formSession(t, d.Platform())
		ctx := context.Background()
		ref := refOf(t, tr, "Full name")
		if _, err := m.Focus(ctx, s.ID, ref); err != nil {
			t.Fatal(err)
		}
		grabs := func() int {
			n := 0
			for _, c := range d.Calls() {
				if c.Name == "GrabFocus" {
					n++
				}
			}
			return n
		}
		before := grabs()
		if _, err := m.TypeText(ctx, s.ID, ref, "x"); err != nil {
			t.Fatal(err)
		}
		if grabs() == before {
			t.Errorf("type_text into an element that said it was focused did not ask for the focus again")
		}
	})
}

// selectPageTree: a web page's HTML select as both browsers give it, a
// combo box holding a menu of options, each with the action "select";
// the option at index chosen is selected, the combo box focused or not.
func selectPageTree(chosen int, focusedCombo bool) *platform.Node {
	var opts []*platform.Node
	for i, name := range []string{"Red", "Green", "Blue"} {
		o := &platform.Node{Key: "opt" + name, Role: fake.Role("menu item"), Name: name, States: fake.Shown | fake.States("selectable"),
			Bounds: &platform.Rect{X: 20, Y: 60 + 20*i, Width: 80, Height: 20}, Interfaces: []string{"component", "action"}, Actions: []string{"select"}}
		if i == chosen {
			o.States |= fake.States("selected")
		}
		opts = append(opts, o)
	}
	menu := &platform.Node{Key: "menu", Role: fake.Role("menu"), States: fake.Shown, Bounds: &platform.Rect{X: 20, Y: 60, Width: 80, Height: 60},
		Interfaces: []string{"component"}, ChildCount: len(opts), Children: opts}
	combo := &platform.Node{Key: "combo", Role: fake.Role("combo box"), Name: "Colour", States: fake.Shown | fake.States("focusable"),
		Bounds: &platform.Rect{X: 20, Y: 20, Width: 80, Height: 30}, Interfaces: []string{"component", "action"}, Actions: []string{"press"},
		ChildCount: 1, Children: []*platform.Node{menu}}
	if focusedCombo {
		combo.States |= fake.States("focused")
	}
	frame := &platform.Node{Key: "frame", Role: fake.Role("frame"), Name: "Page", States: fake.Shown, Bounds: &platform.Rect{Width: 800, Height: 600},
		Interfaces: []string{"component"}, ChildCount: 1, Children: []*platform.Node{combo}}
	return fake.Root("browser", frame)
}

// comboKeys is a closed combo box taking keys as a browser's does: Home
// chooses the first option, Down the next, and the app's tree becomes
// tree(chosen).
type comboKeys struct {
	platform.Input
	d      *fake.Desktop
	tree   func(chosen int) *platform.Node
	chosen int
}

func (k *comboKeys) KeyChord(ctx context.Context, chord string) error {
	if err := k.Input.KeyChord(ctx, chord); err != nil {
		return err
	}
	switch chord {
	case "Home":
		k.chosen = 0
	case "Down":
		k.chosen = min(k.chosen+1, 2)
	default:
		return nil
	}
	k.d.SetTree(editorPid, k.tree(k.chosen))
	return nil
}

// TestSelectOptionGecko: an option of a web page's select is chosen with
// the keyboard on its combo box at once in Gecko (Firefox), whose options
// answer their "select" action and change nothing; elsewhere (Chromium)
// the option's action comes first. Both are read back: the option is
// selected.
func TestSelectOptionGecko(t *testing.T) {
	// The action's wasted wait is the settle cap: short here, the test
	// counts calls, not time.
	oldCap := settleCap
	settleCap = 300 * time.Millisecond
	t.Cleanup(func() { settleCap = oldCap })
	for _, tc := range []struct {
		toolkit    string
		wantAction bool
	}{
		{"Gecko", false},
		{"Chromium", true},
	} {
		t.Run(tc.toolkit, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				d := fake.New()
				d.AddApp(fake.App{Pid: editorPid, Name: "browser", Toolkit: tc.toolkit, Tree: selectPageTree(0, false)})
				d.SetActive(d.AddWindow(editorPid, "Page", platform.Rect{Width: 800, Height: 600}))
				p := d.Platform()
				p.Input = &comboKeys{Input: p.Input, d: d, tree: func(chosen int) *platform.Node { return selectPageTree(chosen, true) }}
				m, s, tr := formSession(t, p)
				r, err := m.Select(context.Background(), s.ID, refOf(t, tr, "Green"), "")
				if err != nil {
					t.Fatalf("select: %v", err)
				}
				if r.Method != MethodKeyboard || r.After == nil || !slices.Contains(r.After.States, "selected") {
					t.Errorf("select: %+v, after %+v; want the keyboard, the option selected", r, r.After)
				}
				acted := slices.ContainsFunc(d.Calls(), func(c fake.Call) bool { return c.Name == "DoAction" })
				if acted != tc.wantAction {
					t.Errorf("the option's action was tried: %v, want %v (calls %v)", acted, tc.wantAction, d.Calls())
				}
			})
		})
	}
}

// TestSelectTextAnswersTheSelection: select_text answers the range and the
// text in it, not the element's states and whole text before and after.
func TestSelectTextAnswersTheSelection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, s, tr := formSession(t, formDesk().Platform())
		name := refOf(t, tr, "Name")
		ctx := context.Background()
		for _, c := range []struct {
			start, end int
			want       string
		}{{1, 3, "am"}, {0, -1, "Name"}, {4, 4, ""}} {
			r, err := m.SelectText(ctx, s.ID, name, c.start, c.end)
			if err != nil {
				t.Fatalf("%d..%d: %v", c.start, c.end, err)
			}
			sel := r.Selection
			if r.Before != nil || r.After != nil || sel == nil || sel.Start != c.start || sel.End == nil || sel.Text == nil || *sel.Text != c.want {
				t.Errorf("%d..%d: %+v, selection %+v", c.start, c.end, r, sel)
			}
		}
	})
	long := strings.Repeat("é", 300)
	det := &platform.Details{Text: &platform.TextContent{Text: long, Length: 300}}
	if sel := selection(det, 10, 300); sel.Text == nil || *sel.Text != long[:2*selectionRunes] || !sel.TextTruncated {
		t.Errorf("a long selection: %+v", sel)
	}
	if sel := selection(&platform.Details{Node: platform.Node{Redacted: true}}, 0, -1); sel.End != nil || sel.Text != nil {
		t.Errorf("a hidden field's selection tells its length or text: %+v", sel)
	}
	if sel := selection(&platform.Details{Text: &platform.TextContent{Text: "cut", Length: 900, Truncated: true}}, 0, 800); sel.Text != nil {
		t.Errorf("a selection past the text read: %+v", sel)
	}
}
