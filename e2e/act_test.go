//go:build linux

package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/atspi"
	"github.com/uiscope/uiscope/internal/sandbox"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// The interaction tests act through a real `uiscope mcp --allow-input` and
// check every effect by reading the app back over AT-SPI from the test
// process, never from the tool's own answer.

// findOne finds exactly the first element matching args in the session,
// as an agent would (without its key).
func findOne(t testing.TB, s *mcpServer, session string, args map[string]any) elem {
	t.Helper()
	args["session"] = session
	out := s.ok(t, "find_elements", args)
	els := decode[[]elem](t, out["elements"])
	if len(els) == 0 {
		t.Fatalf("find_elements %v: no match", args)
	}
	return els[0]
}

// appears waits (wait_for until appears, for 30 s unless args give
// timeoutMs) for an element matching args in the session and returns the
// first match; what names it in a failure.
func appears(t testing.TB, s *mcpServer, session, what string, args map[string]any) elem {
	t.Helper()
	args["session"], args["until"] = session, "appears"
	if _, ok := args["timeoutMs"]; !ok {
		args["timeoutMs"] = 30000
	}
	got := s.ok(t, "wait_for", args)
	els := decode[[]elem](t, got["elements"])
	if len(els) == 0 {
		t.Fatalf("wait_for %s: %v", what, got)
	}
	return els[0]
}

// findKeyed is findOne with the element's durable key, by which a test
// reads the app back over AT-SPI.
func findKeyed(t testing.TB, s *mcpServer, session string, args map[string]any) elem {
	t.Helper()
	return findOne(t, s, session, withKeys(args))
}

// withKeys asks a read for the elements' durable keys, unless args name
// the fields already.
func withKeys(args map[string]any) map[string]any {
	if _, ok := args["fields"]; !ok {
		args["fields"] = []string{"key"}
	}
	return args
}

// until polls cond against the live app for up to 20 s.
func until(t testing.TB, what string, cond func(ctx context.Context) (bool, string)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	last := ""
	for {
		ok, got := cond(ctx)
		if ok {
			return
		}
		last = got
		select {
		case <-ctx.Done():
			t.Fatalf("%s: never held; last seen %s", what, last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func liveText(ctx context.Context, d *testdesk.Desk, key string) string {
	det, err := d.A11y.Element(ctx, key, atspi.ElementOptions{})
	if err != nil || det.Text == nil {
		return fmt.Sprintf("<%v>", err)
	}
	return det.Text.Text
}

func liveStates(ctx context.Context, d *testdesk.Desk, key string) platform.StateSet {
	st, _ := d.A11y.States(ctx, key)
	return st
}

// liveNamed reports whether the app now has an element with this name.
func liveNamed(ctx context.Context, d *testdesk.Desk, bus, name string) bool {
	root, _, err := d.A11y.Tree(ctx, bus, atspi.TreeOptions{NoDetails: true})
	return err == nil && hasName(root, name)
}

// hasName reports whether n or a node below it has this name.
func hasName(n *platform.Node, name string) bool {
	if n.Name == name {
		return true
	}
	for _, k := range n.Children {
		if hasName(k, name) {
			return true
		}
	}
	return false
}

func TestActGTK3(t *testing.T) { testdesk.ForEach(t, testActGTK3) }

func testActGTK3(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "act gtk3")
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})

	t.Run("toggle", func(t *testing.T) {
		cb := findKeyed(t, s, sess, map[string]any{"name": "Remember me", "role": "check box"})
		was := liveStates(context.Background(), d, cb.Key).Has(platform.StateChecked)
		s.ok(t, "toggle", map[string]any{"session": sess, "element": cb.Ref})
		until(t, "check box flipped", func(ctx context.Context) (bool, string) {
			now := liveStates(ctx, d, cb.Key).Has(platform.StateChecked)
			return now != was, strconv.FormatBool(now)
		})
	})
	t.Run("set_value text and click", func(t *testing.T) {
		entry := findKeyed(t, s, sess, map[string]any{"name": "Name", "nameMatch": "exact", "role": "text"})
		s.ok(t, "set_value", map[string]any{"session": sess, "element": entry.Ref, "value": "Ada Lovelace"})
		until(t, "entry text", func(ctx context.Context) (bool, string) {
			got := liveText(ctx, d, entry.Key)
			return got == "Ada Lovelace", got
		})
		submit := findKeyed(t, s, sess, map[string]any{"name": "Submit", "role": "push button"})
		out := s.ok(t, "click", map[string]any{"session": sess, "element": submit.Ref})
		if out["method"] != "action" {
			t.Errorf("click on a GTK 3 button: method %v, want action", out["method"])
		}
		until(t, "status label", func(ctx context.Context) (bool, string) {
			return liveNamed(ctx, d, app.Bus, "Submitted: Ada Lovelace"), "no such label"
		})
	})
	t.Run("type_text unicode and press_key", func(t *testing.T) {
		entry := findKeyed(t, s, sess, map[string]any{"name": "Name", "nameMatch": "exact", "role": "text"})
		s.ok(t, "set_value", map[string]any{"session": sess, "element": entry.Ref, "value": ""})
		until(t, "entry cleared", func(ctx context.Context) (bool, string) {
			got := liveText(ctx, d, entry.Key)
			return got == "", got
		})
		const sentence = "Hello, wörld! (1+1=2) café — ✓ 中文?"
		s.ok(t, "type_text", map[string]any{"session": sess, "element": entry.Ref, "text": sentence})
		until(t, "typed sentence", func(ctx context.Context) (bool, string) {
			got := liveText(ctx, d, entry.Key)
			return got == sentence, got
		})
		s.ok(t, "press_key", map[string]any{"session": sess, "element": entry.Ref, "keys": "Ctrl+a"})
		s.ok(t, "press_key", map[string]any{"session": sess, "keys": "BackSpace"})
		until(t, "entry emptied by keys", func(ctx context.Context) (bool, string) {
			got := liveText(ctx, d, entry.Key)
			return got == "", got
		})
	})
	t.Run("set_value numbers", func(t *testing.T) {
		for _, c := range []struct {
			name, role string
			v          float64
		}{{"Count", "spin button", 42}, {"Volume", "slider", 75}} {
			el := findKeyed(t, s, sess, map[string]any{"name": c.name, "role": c.role})
			s.ok(t, "set_value", map[string]any{"session": sess, "element": el.Ref, "value": strconv.FormatFloat(c.v, 'f', -1, 64)})
			until(t, c.name+" value", func(ctx context.Context) (bool, string) {
				det, err := d.A11y.Element(ctx, el.Key, atspi.ElementOptions{})
				if err != nil || det.Value == nil {
					return false, fmt.Sprint(err)
				}
				return det.Value.Current == c.v, fmt.Sprint(det.Value.Current)
			})
		}
		spin := findKeyed(t, s, sess, map[string]any{"name": "Count", "role": "spin button"})
		s.fail(t, "set_value", map[string]any{"session": sess, "element": spin.Ref, "value": "lots"}, "invalidArgument")
	})
	t.Run("select combo item", func(t *testing.T) {
		combo := findKeyed(t, s, sess, map[string]any{"name": "Color", "role": "combo box"})
		green := findKeyed(t, s, sess, map[string]any{"name": "Green", "role": "menu item"})
		s.ok(t, "select", map[string]any{"session": sess, "element": green.Ref})
		until(t, "Green selected", func(ctx context.Context) (bool, string) {
			sel, err := d.A11y.SelectedChildren(ctx, combo.Key)
			return err == nil && len(sel) == 1 && sel[0] == green.Key, fmt.Sprint(sel, err)
		})
	})
	t.Run("expand tree row", func(t *testing.T) {
		row := findKeyed(t, s, sess, map[string]any{"name": "Fruits", "nameMatch": "exact", "role": "table cell"})
		s.ok(t, "set_expanded", map[string]any{"session": sess, "element": row.Ref, "expanded": true})
		until(t, "row expanded", func(ctx context.Context) (bool, string) {
			st := liveStates(ctx, d, row.Key)
			return st.Has(platform.StateExpanded), fmt.Sprint(st.Names())
		})
		out := s.ok(t, "set_expanded", map[string]any{"session": sess, "element": row.Ref, "expanded": true})
		if out["method"] != "none" {
			t.Errorf("expanding an expanded row: method %v, want none", out["method"])
		}
	})
	t.Run("refusals", func(t *testing.T) {
		dis := findKeyed(t, s, sess, map[string]any{"name": "Disabled action"})
		s.fail(t, "click", map[string]any{"session": sess, "element": dis.Ref}, "elementDisabled")
		entry := findKeyed(t, s, sess, map[string]any{"name": "Name", "nameMatch": "exact", "role": "text"})
		before := liveText(context.Background(), d, entry.Key)
		s.fail(t, "press_key", map[string]any{"session": sess, "keys": "Ctrl+Bogus"}, "invalidArgument")
		s.fail(t, "press_key", map[string]any{"session": sess, "keys": "Ctrl+"}, "invalidArgument")
		s.fail(t, "scroll", map[string]any{"session": sess, "element": entry.Ref, "direction": "sideways"}, "invalidArgument")
		s.fail(t, "window_action", map[string]any{"session": sess, "action": "explode"}, "invalidArgument")
		if after := liveText(context.Background(), d, entry.Key); after != before {
			t.Errorf("a refused call changed the entry: %q -> %q", before, after)
		}
	})
}

// TestActStaleAndRestarted: an element that went away, and an app that was
// restarted, are refused — never acted on in their place.
func TestActStaleAndRestarted(t *testing.T) { testdesk.ForEach(t, testActStaleAndRestarted) }

func testActStaleAndRestarted(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "act stale", "--delayed-dialog", "300")
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	submitBefore := findKeyed(t, s, sess, map[string]any{"name": "Submit", "role": "push button"})
	s.ok(t, "wait_for", map[string]any{"session": sess, "name": "Delayed dialog", "until": "appears", "timeoutMs": 30000})
	ok := findKeyed(t, s, sess, map[string]any{"name": "OK", "role": "push button"})
	s.ok(t, "click", map[string]any{"session": sess, "element": ok.Ref})
	until(t, "dialog closed", func(ctx context.Context) (bool, string) {
		return !liveNamed(ctx, d, app.Bus, "Delayed dialog"), "still open"
	})
	// The ref still names the destroyed button: refused, nothing else clicked.
	s.fail(t, "click", map[string]any{"session": sess, "element": ok.Ref}, "elementGone")
	// Once the tree is read again, the old position is no longer handed out.
	s.ok(t, "get_a11y_tree", map[string]any{"session": sess})
	out := s.call(t, "click", map[string]any{"session": sess, "element": ok.Ref})
	if out["ok"] != false || (out["errorCode"] != "unknownRef" && out["errorCode"] != "elementGone") {
		t.Errorf("a stale ref after a re-read: %v", out)
	}

	// The UI changed twice (a dialog came and went): an element that stayed
	// keeps its ref.
	submit := findKeyed(t, s, sess, map[string]any{"name": "Submit", "role": "push button"})
	if submit.Ref != submitBefore.Ref {
		t.Errorf("Submit's ref changed across reads: %s -> %s", submitBefore.Ref, submit.Ref)
	}
	app.Proc.Stop()
	<-app.Proc.Done()
	again := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "act stale")
	_ = again
	s.fail(t, "click", map[string]any{"session": sess, "element": submit.Ref}, "ownershipLost")
}

// TestActGTK4: a button by action, text (SetTextContents or the typing
// fallback) and a check box, which GTK 4.8 gives no actions, by pointer.
func TestActGTK4(t *testing.T) { testdesk.ForEach(t, testActGTK4) }

func testActGTK4(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk4_fixture.py"), "--title", "act gtk4")
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})

	entry := findKeyed(t, s, sess, map[string]any{"name": "Name", "nameMatch": "exact", "interface": "editable"})
	s.ok(t, "set_value", map[string]any{"session": sess, "element": entry.Ref, "value": "Grace Hopper"})
	until(t, "GTK 4 entry text", func(ctx context.Context) (bool, string) {
		got := liveText(ctx, d, entry.Key)
		return got == "Grace Hopper", got
	})
	// Real key presses into a GTK 4 entry: the path set_value falls back
	// to when a toolkit accepts the text call and changes nothing.
	s.ok(t, "set_value", map[string]any{"session": sess, "element": entry.Ref, "value": ""})
	s.ok(t, "type_text", map[string]any{"session": sess, "element": entry.Ref, "text": "Grace Brewster Hopper, née Murray"})
	until(t, "GTK 4 entry typed", func(ctx context.Context) (bool, string) {
		got := liveText(ctx, d, entry.Key)
		return got == "Grace Brewster Hopper, née Murray", got
	})
	submit := findKeyed(t, s, sess, map[string]any{"name": "Submit", "role": "push button"})
	s.ok(t, "click", map[string]any{"session": sess, "element": submit.Ref})
	until(t, "GTK 4 label changed", func(ctx context.Context) (bool, string) {
		return !liveNamed(ctx, d, app.Bus, "Ready"), "label still Ready"
	})
	cb := findKeyed(t, s, sess, map[string]any{"name": "Remember me", "role": "check box"})
	was := liveStates(context.Background(), d, cb.Key).Has(platform.StateChecked)
	out := s.ok(t, "toggle", map[string]any{"session": sess, "element": cb.Ref})
	if out["method"] != "pointer" {
		t.Errorf("GTK 4.8 check boxes have no actions: want a pointer click, got method %v", out["method"])
	}
	until(t, "GTK 4 check box flipped", func(ctx context.Context) (bool, string) {
		now := liveStates(ctx, d, cb.Key).Has(platform.StateChecked)
		return now != was, fmt.Sprintf("%v (method %v)", now, out["method"])
	})
}

// TestActQt5: line edit, check box, and the combo box, which Qt lets no one
// change through AT-SPI: focus it and press Down.
func TestActQt5(t *testing.T) { testdesk.ForEach(t, testActQt5) }

func testActQt5(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("qt5_fixture.py"), "--title", "act qt5")
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})

	entry := findKeyed(t, s, sess, map[string]any{"name": "Name", "nameMatch": "exact", "role": "text"})
	s.ok(t, "set_value", map[string]any{"session": sess, "element": entry.Ref, "value": "Alan Turing"})
	until(t, "Qt line edit", func(ctx context.Context) (bool, string) {
		got := liveText(ctx, d, entry.Key)
		return got == "Alan Turing", got
	})
	cb := findKeyed(t, s, sess, map[string]any{"name": "Remember me", "role": "check box"})
	s.ok(t, "toggle", map[string]any{"session": sess, "element": cb.Ref})
	until(t, "Qt check box", func(ctx context.Context) (bool, string) {
		return liveStates(ctx, d, cb.Key).Has(platform.StateChecked), "unchecked"
	})
	// As a person would: open it, move down, confirm.
	combo := findKeyed(t, s, sess, map[string]any{"role": "combo box"})
	s.ok(t, "click", map[string]any{"session": sess, "element": combo.Ref})
	s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Down"})
	s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Return"})
	until(t, "Qt combo moved to Green", func(ctx context.Context) (bool, string) {
		det, err := d.A11y.Element(ctx, combo.Key, atspi.ElementOptions{})
		if err != nil {
			return false, err.Error()
		}
		return det.Node.Name == "Green", det.Node.Name
	})
	dis := findKeyed(t, s, sess, map[string]any{"name": "Disabled action"})
	s.fail(t, "click", map[string]any{"session": sess, "element": dis.Ref}, "elementDisabled")
}

// TestActWithoutWindowManager: with no window manager the target window
// cannot be brought to the front: typing is refused and nothing is typed.
// X11 only: on Wayland the compositor is the window manager, and there
// is no desktop without one.
func TestActWithoutWindowManager(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	desk, err := sandbox.Start(ctx, sandbox.Options{WindowManager: "none"})
	if err != nil {
		t.Fatalf("a desktop without a window manager did not start: %v", err)
	}
	defer desk.Close()
	p, err := desk.Launch([]string{testdesk.Python, testdesk.Fixture("gtk3_fixture.py")})
	if err != nil {
		t.Fatal(err)
	}
	a11y, err := atspi.Dial(ctx, desk.A11yBus, atspi.SourceUiscopeEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer a11y.Close()
	var bus string
	until(t, "fixture on the bus", func(ctx context.Context) (bool, string) {
		info, err := a11y.AppForPid(ctx, p.Pid())
		bus = info.Bus
		return err == nil, fmt.Sprint(err)
	})
	until(t, "fixture tree", func(ctx context.Context) (bool, string) {
		root, _, err := a11y.Tree(ctx, bus, atspi.TreeOptions{NoDetails: true})
		return err == nil && len(root.Children) > 0, fmt.Sprint(err)
	})
	cmd := exec.Command(uiscopeBin, "mcp", "--allow-input")
	cmd.Env = desk.Env()
	s := startMCPCmd(t, cmd)
	sess := s.connect(t, map[string]any{"pid": p.Pid()})
	entry := findKeyed(t, s, sess, map[string]any{"name": "Name", "nameMatch": "exact", "role": "text"})
	before := ""
	if det, err := a11y.Element(ctx, entry.Key, atspi.ElementOptions{}); err == nil && det.Text != nil {
		before = det.Text.Text
	}
	out := s.call(t, "type_text", map[string]any{"session": sess, "element": entry.Ref, "text": "should never appear"})
	if out["ok"] != false || (out["errorCode"] != "noWindowManager" && out["errorCode"] != "windowNotActivated") {
		t.Errorf("type_text without a window manager: %v; want a refusal", out)
	}
	s.fail(t, "window_action", map[string]any{"session": sess, "action": "minimize"}, "noWindowManager")
	det, err := a11y.Element(ctx, entry.Key, atspi.ElementOptions{})
	if err != nil || det.Text == nil || det.Text.Text != before {
		t.Errorf("the entry changed after a refusal: %v %+v", err, det)
	}
}

// TestActWindowActions: minimize, restore, maximize and close through the
// window manager, checked on the X server; on sway, which has no
// minimize, minimize is refused (notSupported, saying why) and maximize
// (fullscreen there), restore and close are checked in swaymsg's tree.
func TestActWindowActions(t *testing.T) { testdesk.ForEach(t, testActWindowActions) }

func testActWindowActions(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "act window")
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	if d.Sway != nil {
		swayWindowActions(t, d, s, sess, app)
		return
	}
	window := func(ctx context.Context) (platform.Window, bool) {
		wins, err := d.X.TopLevels(ctx)
		if err != nil {
			return platform.Window{}, false
		}
		for _, w := range wins {
			if w.Pid == app.Pid {
				return w, true
			}
		}
		return platform.Window{}, false
	}
	start, _ := window(context.Background())

	s.ok(t, "window_action", map[string]any{"session": sess, "action": "minimize"})
	until(t, "window unmapped (iconic)", func(ctx context.Context) (bool, string) {
		w, ok := window(ctx)
		return ok && !w.Mapped, fmt.Sprintf("%+v", w)
	})
	s.ok(t, "window_action", map[string]any{"session": sess, "action": "restore"})
	until(t, "window mapped again", func(ctx context.Context) (bool, string) {
		w, ok := window(ctx)
		return ok && w.Mapped, fmt.Sprintf("%+v", w)
	})
	s.ok(t, "window_action", map[string]any{"session": sess, "action": "maximize"})
	until(t, "window maximized", func(ctx context.Context) (bool, string) {
		w, ok := window(ctx)
		return ok && w.Bounds.Width > start.Bounds.Width && w.Bounds.Height > start.Bounds.Height, fmt.Sprintf("%+v", w)
	})
	closeWindow(t, s, sess, app)
}

// swayWindowActions is TestActWindowActions on sway, each state read in
// swaymsg's tree: the app's one view, its fullscreen mode and the output
// it fills.
func swayWindowActions(t *testing.T, d *testdesk.Desk, s *mcpServer, sess string, app *testdesk.App) {
	view := func() (swayNode, string) {
		var vs []swayNode
		swayWalk(swayTree(t, d), "", func(n swayNode, _ string) {
			if n.Pid == app.Pid {
				vs = append(vs, n)
			}
		})
		if len(vs) != 1 {
			return swayNode{}, fmt.Sprintf("%d views of pid %d", len(vs), app.Pid)
		}
		return vs[0], fmt.Sprintf("view %d: fullscreen mode %d, rect %+v", vs[0].ID, vs[0].FullscreenMode, vs[0].Rect)
	}
	start, _ := view()
	out := s.fail(t, "window_action", map[string]any{"session": sess, "action": "minimize"}, "notSupported")
	if msg, _ := out["error"].(string); !strings.Contains(msg, "sway has no minimize") {
		t.Errorf("minimize on sway: the refusal does not say why: %q", msg)
	}
	if v, got := view(); v.ID != start.ID || v.FullscreenMode != start.FullscreenMode || v.ScratchpadState != start.ScratchpadState {
		t.Errorf("a refused minimize changed the window: %s", got)
	}
	s.ok(t, "window_action", map[string]any{"session": sess, "action": "maximize"})
	until(t, "the view fullscreen in sway's tree", func(context.Context) (bool, string) {
		v, got := view()
		return v.FullscreenMode == 1, got
	})
	s.ok(t, "window_action", map[string]any{"session": sess, "action": "restore"})
	until(t, "the view out of fullscreen in sway's tree", func(context.Context) (bool, string) {
		v, got := view()
		return v.ID == start.ID && v.FullscreenMode == 0, got
	})
	closeWindow(t, s, sess, app)
	until(t, "the view gone from sway's tree", func(context.Context) (bool, string) {
		v, got := view()
		return v.ID == 0, got
	})
}

// closeWindow closes the session's window: the app exits, and the session
// has lost it.
func closeWindow(t *testing.T, s *mcpServer, sess string, app *testdesk.App) {
	t.Helper()
	s.ok(t, "window_action", map[string]any{"session": sess, "action": "close"})
	select {
	case <-app.Proc.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the app did not exit after its window was closed")
	}
	s.fail(t, "window_action", map[string]any{"session": sess, "action": "restore"}, "ownershipLost")
}

// TestActOffscreen: a pointer action on an element that is not on the
// screen (a list row scrolled out of view) is refused.
func TestActOffscreen(t *testing.T) { testdesk.ForEach(t, testActOffscreen) }

func testActOffscreen(t *testing.T, d *testdesk.Desk) {
	// 150 rows: a list walked whole, off-screen rows included (a longer
	// one holds only the rows on screen, docs/api.md).
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "act offscreen", "--rows", "150")
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	row := findKeyed(t, s, sess, map[string]any{"name": "Row 140", "nameMatch": "exact"})
	s.fail(t, "scroll", map[string]any{"session": sess, "element": row.Ref, "direction": "down"}, "offscreen")
	// Semantic actions need no pointer, so they still work there.
	out := s.ok(t, "click", map[string]any{"session": sess, "element": row.Ref})
	if out["method"] != "action" {
		t.Errorf("click on a row with an action: method %v", out["method"])
	}
}
