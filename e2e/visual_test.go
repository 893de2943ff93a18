//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// The visual-mode tests read windows through a real `uiscope mcp` and
// compare them with what the X server says, read from the test process.

// visualTree calls get_visual_tree and decodes its root.
func visualTree(t *testing.T, s *mcpServer, args map[string]any) (*elem, map[string]any) {
	t.Helper()
	if _, ok := args["format"]; !ok {
		args["format"] = "json"
	}
	out := s.ok(t, "get_visual_tree", args)
	root := decode[elem](t, out["root"])
	return &root, out
}

// clientOf finds the client window (the managed top-level) in a visual tree.
func clientOf(t *testing.T, root *elem) *elem {
	t.Helper()
	var found *elem
	root.walk(func(e, _ *elem) {
		if e.Client && e.MapState == "viewable" && found == nil {
			found = e
		}
	})
	if found == nil {
		t.Fatalf("no viewable client window in the visual tree: %+v", root)
	}
	return found
}

// xWindow is the top-level window with id as the X server lists it now;
// on sway, the view as swaymsg lists it.
func xWindow(t *testing.T, d *testdesk.Desk, id string) platform.Window {
	t.Helper()
	if d.Sway != nil {
		out, err := exec.Command("swaymsg", "-s", d.SwaySock, "-r", "-t", "get_tree").Output()
		if err != nil {
			t.Fatalf("swaymsg -t get_tree: %v", err)
		}
		var root map[string]any
		if err := json.Unmarshal(out, &root); err != nil {
			t.Fatal(err)
		}
		con := swayConOf(t, id)
		for _, n := range swayNodes(root) {
			if int64(n["id"].(float64)) == con {
				pid, _ := n["pid"].(float64)
				title, _ := n["name"].(string)
				appID, _ := n["app_id"].(string)
				r, wr := decode[platform.Rect](t, n["rect"]), decode[platform.Rect](t, n["window_rect"])
				return platform.Window{Pid: int(pid), Title: title, Class: appID, Mapped: true,
					Bounds: platform.Rect{X: r.X + wr.X, Y: r.Y + wr.Y, Width: wr.Width, Height: wr.Height}}
			}
		}
		t.Fatalf("window %s is not in sway's tree", id)
	}
	wins, err := d.X.TopLevels(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range wins {
		if w.ID.String() == id {
			return w
		}
	}
	t.Fatalf("window %s is not a top-level window of the X server", id)
	return platform.Window{}
}

// swayNodes lists every node of swaymsg's tree, floating ones too.
func swayNodes(n map[string]any) []map[string]any {
	out := []map[string]any{n}
	for _, f := range []string{"nodes", "floating_nodes"} {
		kids, _ := n[f].([]any)
		for _, k := range kids {
			if m, ok := k.(map[string]any); ok {
				out = append(out, swayNodes(m)...)
			}
		}
	}
	return out
}

// checkVisual checks what every visual tree must hold: refs and keys of
// the visual kind, the frame holding the client, children inside their
// parents' bounds when viewable.
func checkVisual(t *testing.T, root *elem, pid int) {
	t.Helper()
	seen := map[string]bool{}
	root.walk(func(e, parent *elem) {
		if !strings.HasPrefix(e.Ref, "visual:e") || e.Ref != "visual:"+e.ID {
			t.Errorf("window %s: ref %q, id %q; want visual:eN", e.Window, e.Ref, e.ID)
		}
		if seen[e.Ref] {
			t.Errorf("ref %s twice in one tree", e.Ref)
		}
		seen[e.Ref] = true
		if parent == nil {
			return
		}
		// x11:0x…@generation; sway:N@generation (the window is sway:N).
		if !strings.HasPrefix(e.Key, e.Window+"@") && !strings.HasPrefix(e.Key, "x11:"+e.Window+"@") {
			t.Errorf("window %s: key %q; want x11:<id>@<generation> or sway:<con>@<generation>", e.Window, e.Key)
		}
		if e.MapState == "" || e.Bounds == nil {
			t.Errorf("window %s: no map state or bounds: %+v", e.Window, e)
		}
		if parent.Client && e.Pid != pid {
			t.Errorf("window %s inside the app's client window has pid %d, want %d", e.Window, e.Pid, pid)
		}
	})
}

// TestVisualTree: the window hierarchy of a GTK 3 app and of a Tk app
// (which has no accessibility tree) in visual sessions, checked against
// the X server's own listing.
//
// On sway the tree is the app's views as sway lists them (swaymsg, the
// oracle): no frames (sway draws its decorations itself), no windows
// inside a view (a Wayland client's surfaces are its own); Tk has no
// Wayland backend, so its part is X11's alone.
func TestVisualTree(t *testing.T) { testdesk.ForEach(t, testVisualTree) }

func testVisualTree(t *testing.T, d *testdesk.Desk) {
	gtk := d.Launch(t, "gtk3-widget-factory")
	type visualCase struct {
		name  string
		pid   int
		class string
		title string
		inner int // at least this many windows inside the client
	}
	cases := []visualCase{{"gtk3", gtk.Pid, "Gtk3-widget-factory", "", 0}}
	var tk *testdesk.App
	if d.Sway != nil {
		cases[0].class = "gtk3-widget-factory"
	} else {
		tk = d.LaunchX(t, testdesk.Python, testdesk.Fixture("tk_fixture.py"), "--title", "visual tk")
		cases = append(cases, visualCase{"tk", tk.Pid, "Uiscope-tk-fixture", "visual tk", 3})
	}
	s := startMCP(t, d, "")

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sess := s.connect(t, map[string]any{"pid": c.pid, "mode": "visual"})
			root, out := visualTree(t, s, map[string]any{"session": sess})
			if out["truncated"] != false {
				t.Errorf("truncated read: %v", out)
			}
			checkVisual(t, root, c.pid)
			client := clientOf(t, root)
			x := xWindow(t, d, client.Window)
			if x.Pid != c.pid || client.Class != c.class || client.Name != x.Title || *client.Bounds != x.Bounds {
				t.Errorf("client window %+v; the X server says %+v (class want %s)", client, x, c.class)
			}
			if c.title != "" && client.Name != c.title {
				t.Errorf("client name %q, want %q", client.Name, c.title)
			}
			if d.Sway != nil {
				// sway's view is the top level itself, its content
				// all the app draws: nothing inside it.
				if len(root.Children) != 1 || root.Children[0] != client || client.ChildCount != 0 || client.Frame {
					t.Errorf("sway: the tree's top levels %+v, want the one view %s with no children", root.Children, client.Window)
				}
			}
			// openbox reparents the client into a frame, which the tree
			// starts from.
			var frame *elem
			for _, top := range root.Children {
				for _, ch := range top.Children {
					if ch == client {
						frame = top
					}
				}
			}
			if d.X != nil && (frame == nil || !frame.Frame || frame.Pid == c.pid) {
				t.Errorf("the client %s is not held by a window-manager frame at the top: %+v", client.Window, frame)
			}
			inner := 0
			client.walk(func(e, _ *elem) { inner++ })
			if inner-1 < c.inner {
				t.Errorf("%d windows inside the client, want at least %d", inner-1, c.inner)
			}
			// A second read keeps every window's ref.
			again, _ := visualTree(t, s, map[string]any{"session": sess})
			refs := map[string]string{}
			again.walk(func(e, _ *elem) { refs[e.Key] = e.Ref })
			root.walk(func(e, _ *elem) {
				if r, ok := refs[e.Key]; ok && r != e.Ref {
					t.Errorf("window %s: ref %s, then %s", e.Key, e.Ref, r)
				}
			})
			// The default outline: one window a line, the client's with
			// its name, ref, id, class, geometry and flag.
			ol := s.ok(t, "get_visual_tree", map[string]any{"session": sess})
			b := client.Bounds
			want := fmt.Sprintf("window %q [%s] %s %s %dx%d%+d%+d client", client.Name, client.Ref, client.Window, client.Class, b.Width, b.Height, b.X, b.Y)
			if text, _ := ol["outline"].(string); !strings.Contains(text, want+"\n") || ol["root"] != nil {
				t.Errorf("outline lacks the line %q:\n%s", want, text)
			}
			// Scoped to the client, one level.
			sub, _ := visualTree(t, s, map[string]any{"session": sess, "element": client.Ref, "depth": 0})
			if sub.Ref != client.Ref || len(sub.Children) != 0 {
				t.Errorf("scoped read: %+v", sub)
			}
		})
	}
	if t.Failed() && tk != nil {
		sess := s.connect(t, map[string]any{"pid": tk.Pid, "mode": "visual"})
		out := s.ok(t, "get_visual_tree", map[string]any{"session": sess})
		b, _ := json.MarshalIndent(out, "", " ")
		t.Logf("tk tree:\n%s", b)
	}
}

// TestVisualRefusals: bad input, refs of the other tree and the other
// tree's tools are refused with data that says what to do.
func TestVisualRefusals(t *testing.T) { testdesk.ForEach(t, testVisualRefusals) }

func testVisualRefusals(t *testing.T, d *testdesk.Desk) {
	gtk := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "visual refusals")
	s := startMCP(t, d, "")
	vis := s.connect(t, map[string]any{"pid": gtk.Pid, "mode": "visual"})
	a11y := s.connect(t, map[string]any{"pid": gtk.Pid})
	// connect reads the tree (its events start there): a well-formed ref
	// that no window has is unknown.
	s.fail(t, "get_visual_tree", map[string]any{"session": vis, "element": "visual:e999999"}, "unknownRef")
	root, _ := visualTree(t, s, map[string]any{"session": vis})
	client := clientOf(t, root)
	tree := s.ok(t, "get_a11y_tree", map[string]any{"session": a11y, "format": "json", "depth": 1})
	a11yRoot, _ := tree["root"].(map[string]any)
	a11yRef, _ := a11yRoot["ref"].(string)

	s.fail(t, "get_visual_tree", map[string]any{"session": vis, "element": a11yRef}, "wrongTree")
	s.fail(t, "get_a11y_tree", map[string]any{"session": a11y, "element": client.Ref}, "wrongTree")
	s.fail(t, "get_element_properties", map[string]any{"session": a11y, "element": client.Ref}, "wrongTree")
	s.fail(t, "get_visual_tree", map[string]any{"session": a11y}, "wrongTree")
	s.fail(t, "get_a11y_tree", map[string]any{"session": vis}, "wrongTree")
	s.fail(t, "get_element_properties", map[string]any{"session": vis, "element": client.Ref}, "wrongTree")
	s.fail(t, "find_elements", map[string]any{"session": vis, "interface": "action"}, "notSupported")
	s.fail(t, "get_visual_tree", map[string]any{"session": vis, "depth": -1}, "invalidArgument")
	s.fail(t, "get_visual_tree", map[string]any{"session": vis, "format": "xml"}, "invalidArgument")
	s.fail(t, "get_visual_tree", map[string]any{"session": vis, "maxNodes": 0}, "invalidArgument")
	s.fail(t, "get_visual_tree", map[string]any{"session": vis, "element": "window 3"}, "malformedRef")
	s.fail(t, "get_visual_tree", map[string]any{"session": vis, "a11ySession": a11y}, "invalidArgument")
	s.fail(t, "get_visual_tree", map[string]any{"session": vis, "correlate": true, "a11ySession": vis}, "invalidArgument")
	s.fail(t, "get_visual_tree", map[string]any{"session": "s999"}, "unknownSession")
	s.fail(t, "connect", map[string]any{"pid": gtk.Pid, "mode": "pixels"}, "invalidArgument")
	// find_elements by name works on windows.
	found := s.ok(t, "find_elements", map[string]any{"session": vis, "name": "visual refusals", "nameMatch": "exact"})
	if fmt.Sprint(found["matched"]) != "1" {
		t.Errorf("find_elements by window name in a visual session: %v", found)
	}
	// The server still serves.
	visualTree(t, s, map[string]any{"session": vis})
}

// TestVisualCorrelation: on gtk3-widget-factory the client window's own
// counterpart is the accessible frame, and a button, which GTK 3 draws
// into that window without a window of its own, is nobody's own
// counterpart: the window showing it reports the frame. The refs are the
// a11y session's and resolve there. Tk has no accessibility tree:
// correlationFailed.
//
// On sway the view's counterpart is the frame too (its content is the
// frame's extents); Tk, with no Wayland backend, is X11's alone.
func TestVisualCorrelation(t *testing.T) { testdesk.ForEach(t, testVisualCorrelation) }

func testVisualCorrelation(t *testing.T, d *testdesk.Desk) {
	gtk := d.Launch(t, "gtk3-widget-factory")
	s := startMCP(t, d, "")
	a11y := s.connect(t, map[string]any{"pid": gtk.Pid})
	vis := s.connect(t, map[string]any{"pid": gtk.Pid, "mode": "visual"})

	tree := s.ok(t, "get_a11y_tree", map[string]any{"session": a11y, "format": "json", "depth": 1})
	app := decode[elem](t, tree["root"])
	frameRef := ""
	for _, c := range app.Children {
		if c.Role == "frame" {
			frameRef = c.Ref
		}
	}
	if frameRef == "" {
		t.Fatalf("no frame among the app's top-level elements: %.2000v", tree["root"])
	}
	buttons := s.ok(t, "find_elements", map[string]any{"session": a11y, "role": "push button", "states": []string{"showing"}})
	btns := decode[[]elem](t, buttons["elements"])
	var button *elem
	for i := range btns {
		if b := btns[i].Bounds; b != nil && b.Width > 0 && b.Height > 0 && btns[i].Name != "" {
			button = &btns[i]
			break
		}
	}
	if button == nil {
		t.Fatalf("no showing push button with bounds: %.2000v", buttons["elements"])
	}

	root, out := visualTree(t, s, map[string]any{"session": vis, "correlate": true})
	if out["a11ySession"] != a11y || out["correlationFailed"] == true {
		t.Fatalf("correlation through session %v (want %s), failed %v: %v", out["a11ySession"], a11y, out["correlationFailed"], out["correlationError"])
	}
	client := clientOf(t, root)
	if client.A11yRef != frameRef {
		t.Errorf("the client window's own counterpart is %q, want the frame %s", client.A11yRef, frameRef)
	}
	props := s.ok(t, "get_element_properties", map[string]any{"session": a11y, "element": client.A11yRef})
	if p, _ := props["properties"].(map[string]any); p["role"] != "frame" {
		t.Errorf("a11yRef %s resolves in the a11y session to %v, want the frame", client.A11yRef, props)
	}
	// The window that shows the button: the deepest viewable one holding
	// its centre.
	cx, cy := button.Bounds.X+button.Bounds.Width/2, button.Bounds.Y+button.Bounds.Height/2
	var shows *elem
	root.walk(func(e, _ *elem) {
		if e.Pid == gtk.Pid && e.MapState == "viewable" && e.Bounds != nil && e.Bounds.Contains(cx, cy) && !e.Frame {
			shows = e
		}
		if e.A11yRef == button.Ref {
			t.Errorf("window %s claims the button %s as its own counterpart; GTK 3 buttons have no window", e.Window, button.Ref)
		}
	})
	if shows == nil {
		t.Fatalf("no window of the app shows the button %s at %d,%d", button.Ref, cx, cy)
	}
	if shows.A11yRef != frameRef && shows.A11yRef != "" {
		t.Errorf("the window showing the button (%s) has counterpart %s; want the frame %s or none", shows.Window, shows.A11yRef, frameRef)
	}
	if shows != client && shows.A11yAncestorRef == "" {
		t.Errorf("window %s inside the client has no a11yAncestorRef", shows.Window)
	}

	// Without a11ySession the latest a11y session on the app is used.
	_, out = visualTree(t, s, map[string]any{"session": vis, "correlate": true, "a11ySession": a11y})
	if out["a11ySession"] != a11y {
		t.Errorf("explicit a11ySession: result names %v", out["a11ySession"])
	}

	if d.Sway != nil {
		return
	}
	tk := d.LaunchX(t, testdesk.Python, testdesk.Fixture("tk_fixture.py"), "--title", "visual correlation tk")
	tkVis := s.connect(t, map[string]any{"pid": tk.Pid, "mode": "visual"})
	root, out = visualTree(t, s, map[string]any{"session": tkVis, "correlate": true})
	ce, _ := out["correlationError"].(map[string]any)
	if out["correlationFailed"] != true || ce["errorCode"] != "notAccessible" {
		t.Errorf("Tk correlation: failed %v, error %v; want correlationFailed with notAccessible", out["correlationFailed"], out["correlationError"])
	}
	root.walk(func(e, _ *elem) {
		if e.A11yRef != "" || e.A11yAncestorRef != "" {
			t.Errorf("Tk window %s has accessible counterparts %q/%q", e.Window, e.A11yRef, e.A11yAncestorRef)
		}
	})
}

// tkTitle is the title of the Tk app's top-level window, read from the X
// server by the test process.
func tkTitle(ctx context.Context, d *testdesk.Desk, pid int) string {
	wins, err := d.X.TopLevels(ctx)
	if err != nil {
		return "(X: " + err.Error() + ")"
	}
	for _, w := range wins {
		if w.Pid == pid && w.Mapped {
			return w.Title
		}
	}
	return "(no window)"
}

// tkButton finds the Tk fixture's button in its visual tree: Tk gives
// every widget a window; inside the client the frame holds the label
// (above) and the button (below).
func tkButton(t *testing.T, root *elem) *elem {
	t.Helper()
	client := clientOf(t, root)
	var leaves []*elem
	client.walk(func(e, _ *elem) {
		if len(e.Children) == 0 && e != client && e.MapState == "viewable" {
			leaves = append(leaves, e)
		}
	})
	if len(leaves) != 2 {
		t.Fatalf("want the label's and the button's windows inside the Tk client, got %d: %+v", len(leaves), leaves)
	}
	if leaves[0].Bounds.Y > leaves[1].Bounds.Y {
		return leaves[0]
	}
	return leaves[1]
}

// TestVisualActTk: Tk has no accessibility tree; in a visual session its
// button is clicked by geometry and the effect read back through X (the
// fixture's title follows its label, and "p" presses the button). Keys
// reach it too; semantic actions and the other tree's refs are refused and
// press nothing.
func TestVisualActTk(t *testing.T) {
	d := testdesk.Shared(t) // X11 only: Tk has no Wayland backend
	tk := d.LaunchX(t, testdesk.Python, testdesk.Fixture("tk_fixture.py"), "--title", "visual act tk", "--title-follows")
	s := startMCP(t, d, "", "--allow-input")
	vis := s.connect(t, map[string]any{"pid": tk.Pid, "mode": "visual"})
	root, _ := visualTree(t, s, map[string]any{"session": vis})
	button := tkButton(t, root)
	hit := s.ok(t, "hit_test", map[string]any{"session": vis, "x": button.Bounds.X + 2, "y": button.Bounds.Y + 2})
	if e, _ := hit["element"].(map[string]any); e["ref"] != button.Ref {
		t.Errorf("hit_test on the button's window in a visual session: %v, want %s", hit["element"], button.Ref)
	}

	out := s.ok(t, "click", map[string]any{"session": vis, "element": button.Ref})
	if out["method"] != "pointer" || out["element"] != button.Ref {
		t.Errorf("click in a visual session: %v", out)
	}
	until(t, "Tk title after one click", func(ctx context.Context) (bool, string) {
		got := tkTitle(ctx, d, tk.Pid)
		return got == "Pressed 1", got
	})

	// Keys reach the Tk window ("p" presses the button in the fixture):
	// to the app as a whole, and typed into its top-level window's ref.
	s.ok(t, "press_key", map[string]any{"session": vis, "keys": "p"})
	until(t, "Tk title after press_key p", func(ctx context.Context) (bool, string) {
		got := tkTitle(ctx, d, tk.Pid)
		return got == "Pressed 2", got
	})
	client := clientOf(t, root)
	s.ok(t, "type_text", map[string]any{"session": vis, "element": client.Ref, "text": "pp"})
	until(t, "Tk title after type_text pp", func(ctx context.Context) (bool, string) {
		got := tkTitle(ctx, d, tk.Pid)
		return got == "Pressed 4", got
	})

	// focus activates the window holding the button.
	out = s.ok(t, "focus", map[string]any{"session": vis, "element": button.Ref})
	active, err := d.X.ActiveWindow(context.Background())
	if err != nil || fmt.Sprintf("0x%x", active) != client.Window {
		t.Errorf("after focus the active window is 0x%x (%v), want the Tk client %s: %v", active, err, client.Window, out)
	}

	for _, tool := range []string{"toggle", "invoke", "set_expanded", "select", "select_text"} {
		args := map[string]any{"session": vis, "element": button.Ref}
		switch tool {
		case "set_expanded":
			args["expanded"] = true
		}
		s.fail(t, tool, args, "notSupported")
	}
	s.fail(t, "set_value", map[string]any{"session": vis, "element": button.Ref, "value": "x"}, "notSupported")
	s.fail(t, "click", map[string]any{"session": vis, "element": "a11y:e3"}, "wrongTree")
	s.fail(t, "scroll", map[string]any{"session": vis, "element": button.Ref, "direction": "intoView"}, "invalidArgument")
	s.fail(t, "wait_for", map[string]any{"session": vis, "name": "x", "until": "property", "property": "text", "value": "y"}, "notSupported")
	// wait_for works on windows: the title of the client.
	s.ok(t, "wait_for", map[string]any{"session": vis, "name": "Pressed 4", "nameMatch": "exact", "until": "appears", "timeoutMs": 5000})
	if got := tkTitle(context.Background(), d, tk.Pid); got != "Pressed 4" {
		t.Errorf("after the refused calls the title is %q: something was pressed", got)
	}

	// window_action works on the Tk window; a minimized window is not
	// clicked.
	s.ok(t, "window_action", map[string]any{"session": vis, "action": "minimize"})
	until(t, "Tk window minimized", func(ctx context.Context) (bool, string) {
		x := xWindow(t, d, client.Window)
		return !x.Mapped, fmt.Sprintf("mapped %v", x.Mapped)
	})
	s.fail(t, "click", map[string]any{"session": vis, "element": button.Ref}, "offscreen")
	s.ok(t, "window_action", map[string]any{"session": vis, "action": "restore"})
	until(t, "Tk window restored", func(ctx context.Context) (bool, string) {
		x := xWindow(t, d, client.Window)
		return x.Mapped, fmt.Sprintf("mapped %v", x.Mapped)
	})
	if got := tkTitle(context.Background(), d, tk.Pid); got != "Pressed 4" {
		t.Errorf("after minimize, a refused click and restore the title is %q", got)
	}
}

// TestVisualCLI: 'uiscope tree --visual' prints a Tk app's windows, as an
// outline and as JSON, and scopes to a ref of its own numbering.
//
// On sway, where Tk has no backend, the GTK 3 fixture's view: no frame.
func TestVisualCLI(t *testing.T) { testdesk.ForEach(t, testVisualCLI) }

func testVisualCLI(t *testing.T, d *testdesk.Desk) {
	var tk *testdesk.App
	if d.Sway != nil {
		tk = d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "visual cli tk")
	} else {
		tk = d.LaunchX(t, testdesk.Python, testdesk.Fixture("tk_fixture.py"), "--title", "visual cli tk")
	}
	pid := fmt.Sprint(tk.Pid)
	r := runCLI(t, d, 30*time.Second, "tree", "--visual", "--pid", pid)
	if r.code != 0 || !strings.Contains(r.stdout, `window "visual cli tk" [visual:e`) || !strings.Contains(r.stdout, " client") ||
		strings.Contains(r.stdout, " frame") == (d.Sway != nil) || !strings.HasPrefix(r.stdout, "application ") {
		t.Fatalf("tree --visual: exit %d\n%s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	j := runCLI(t, d, 30*time.Second, "tree", "--visual", "--pid", pid, "--format", "json")
	var out struct {
		Root *elem `json:"root"`
	}
	if err := json.Unmarshal([]byte(j.stdout), &out); err != nil || out.Root == nil {
		t.Fatalf("tree --visual --format json: %v\n%s", err, j.stdout)
	}
	checkVisual(t, out.Root, tk.Pid)
	client := clientOf(t, out.Root)
	x := xWindow(t, d, client.Window)
	if client.Name != "visual cli tk" || *client.Bounds != x.Bounds {
		t.Errorf("client %+v; the X server says %+v", client, x)
	}
	sub := runCLI(t, d, 30*time.Second, "tree", "--visual", "--pid", pid, "--element", client.Ref, "--depth", "0")
	if sub.code != 0 || strings.Count(strings.TrimSpace(sub.stdout), "\n") != 0 || !strings.Contains(sub.stdout, "["+client.Ref+"]") {
		t.Errorf("tree --visual --element %s --depth 0: exit %d\n%s%s", client.Ref, sub.code, sub.stdout, sub.stderr)
	}
	bad := runCLI(t, d, 30*time.Second, "tree", "--visual", "--pid", pid, "--view", "control")
	if bad.code != 1 || !strings.Contains(bad.stderr, "invalidArgument") {
		t.Errorf("tree --visual --view control: exit %d, stderr %q", bad.code, bad.stderr)
	}
}

// TestVisualPopup: a GTK 3 combo box's open menu is an override-redirect
// window of the app, in its visual tree at the top level; a click on it in
// a visual session (no activation: a window manager never manages a menu)
// chooses the item under the pointer, read back over AT-SPI.
//
// On sway the menu is an xdg_popup, which sway's tree does not list and no
// other client may read: the visual tree holds the app's one view and
// nothing else while the menu shows (grim sees it), as docs/api.md says.
func TestVisualPopup(t *testing.T) { testdesk.ForEach(t, testVisualPopup) }

func testVisualPopup(t *testing.T, d *testdesk.Desk) {
	if d.Sway != nil {
		visualPopupSway(t, d)
		return
	}
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "visual popup")
	s := startMCP(t, d, "", "--allow-input")
	a11y := s.connect(t, map[string]any{"pid": app.Pid})
	vis := s.connect(t, map[string]any{"pid": app.Pid, "mode": "visual"})
	combo := findKeyed(t, s, a11y, map[string]any{"name": "Color", "role": "combo box"})
	selected := func(ctx context.Context) string {
		sel, err := d.A11y.SelectedChildren(ctx, combo.Key)
		if err != nil {
			return ""
		}
		return fmt.Sprint(sel)
	}
	before := selected(context.Background())
	if before == "" || before == "[]" {
		t.Fatalf("the combo box reports no selected item before the test (%q)", before)
	}
	s.ok(t, "click", map[string]any{"session": a11y, "element": combo.Ref})

	var popup *elem
	until(t, "the combo's menu in the visual tree", func(ctx context.Context) (bool, string) {
		root, _ := visualTree(t, s, map[string]any{"session": vis})
		popup = nil
		for _, top := range root.Children {
			if top.OverrideRedirect && top.MapState == "viewable" && top.Pid == app.Pid && top.Bounds.Height > 20 {
				popup = top
			}
		}
		return popup != nil, fmt.Sprintf("%d top-level windows", len(root.Children))
	})
	if popup.Frame || popup.Client {
		t.Errorf("the popup is marked frame/client: %+v", popup)
	}
	s.fail(t, "focus", map[string]any{"session": vis, "element": popup.Ref}, "invalidArgument")
	out := s.ok(t, "click", map[string]any{"session": vis, "element": popup.Ref})
	if out["method"] != "pointer" {
		t.Errorf("click on the popup: %v", out)
	}
	until(t, "the combo's choice changed by the click on its menu", func(ctx context.Context) (bool, string) {
		now := selected(ctx)
		return now != before && now != "" && now != "[]", now
	})
}

// visualPopupSway is TestVisualPopup on sway.
func visualPopupSway(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "visual popup")
	s := startMCP(t, d, "", "--allow-input")
	a11y := s.connect(t, map[string]any{"pid": app.Pid})
	vis := s.connect(t, map[string]any{"pid": app.Pid, "mode": "visual"})
	view := oneView(t, d, app.Pid)
	before := asRGBA(grimRegion(t, d, view.content))
	combo := findKeyed(t, s, a11y, map[string]any{"name": "Color", "role": "combo box"})
	s.ok(t, "click", map[string]any{"session": a11y, "element": combo.Ref})
	until(t, "the combo's menu on the screen", func(context.Context) (bool, string) {
		r := differ(before, asRGBA(grimRegion(t, d, view.content)))
		return r.Dy() > 2*combo.Bounds.Height, fmt.Sprint(r)
	})
	root, _ := visualTree(t, s, map[string]any{"session": vis})
	want := fmt.Sprintf("sway:%d", view.con)
	if len(root.Children) != 1 || root.Children[0].Window != want || root.Children[0].ChildCount != 0 || root.Children[0].OverrideRedirect {
		t.Errorf("with the menu open the visual tree's top levels are %+v; want the one view %s (sway lists no popup)", root.Children, want)
	}
	s.ok(t, "press_key", map[string]any{"session": a11y, "keys": "Escape"})
}

// TestVisualCorrelationOwnWindow: a button that has an X window of its
// own (the fixture makes Submit's input window native) correlates to its
// accessible element, the frame being what it sits in; a click on that
// window in a visual session presses the button, read back over AT-SPI.
func TestVisualCorrelationOwnWindow(t *testing.T) {
	// X11 only: a widget's own window is an X child window; a Wayland
	// client's widgets have none the compositor lists (sway's visual tree
	// is the app's views: TestVisualTree, TestVisualPopup).
	d := testdesk.Shared(t)
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "visual own window", "--native-submit")
	s := startMCP(t, d, "", "--allow-input")
	a11y := s.connect(t, map[string]any{"pid": app.Pid})
	vis := s.connect(t, map[string]any{"pid": app.Pid, "mode": "visual"})
	submit := findKeyed(t, s, a11y, map[string]any{"name": "Submit", "role": "push button"})
	frame := findKeyed(t, s, a11y, map[string]any{"role": "frame"})

	root, out := visualTree(t, s, map[string]any{"session": vis, "correlate": true})
	if out["a11ySession"] != a11y {
		t.Fatalf("correlated through %v, want %s: %v", out["a11ySession"], a11y, out["correlationError"])
	}
	var own *elem
	root.walk(func(e, _ *elem) {
		if e.A11yRef == submit.Ref {
			if own != nil {
				t.Errorf("two windows claim %s: %s and %s", submit.Ref, own.Window, e.Window)
			}
			own = e
		}
	})
	if own == nil || *own.Bounds != *submit.Bounds || own.A11yAncestorRef != frame.Ref {
		t.Fatalf("Submit (%s at %+v) has no window of its own with the frame %s as ancestor: %+v", submit.Ref, submit.Bounds, frame.Ref, own)
	}
	if client := clientOf(t, root); client.A11yRef != frame.Ref {
		t.Errorf("client window's counterpart %q, want the frame %s", client.A11yRef, frame.Ref)
	}
	s.ok(t, "click", map[string]any{"session": vis, "element": own.Ref})
	until(t, "the status label after a click on Submit's window", func(ctx context.Context) (bool, string) {
		return liveNamed(ctx, d, app.Bus, "Submitted: "), "no label \"Submitted: \""
	})
}
