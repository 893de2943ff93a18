//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/platform/wayland"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// What the acting tests read outside uiscope, on either desktop: which
// window has the focus and which an app shows (X11: xprop and xdotool;
// sway: swaymsg's tree), where the desktop is (X11: openbox's showing-
// desktop mode and workspace; sway: its focused workspace), and what input
// is held (X11: the X server's own state; sway: no Wayland client can
// read the seat's, so the app's own account of the input it got, the GTK 3
// fixture's --input-log).

// swayNode is a node of swaymsg's tree, as the tests decode it themselves.
type swayNode struct {
	ID               int64      `json:"id"`
	Type             string     `json:"type"`
	Name             string     `json:"name"`
	Pid              int        `json:"pid"`
	Focused          bool       `json:"focused"`
	Visible          bool       `json:"visible"`
	FullscreenMode   int        `json:"fullscreen_mode"`
	Rect             swayRect   `json:"rect"`
	Nodes            []swayNode `json:"nodes"`
	FloatingNodes    []swayNode `json:"floating_nodes"`
	ScratchpadState  string     `json:"scratchpad_state"`
	CurrentWorkspace string     `json:"current_workspace"`
}

type swayRect struct{ X, Y, Width, Height int }

// swayTree runs swaymsg -t get_tree.
func swayTree(t testing.TB, d *testdesk.Desk) swayNode {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "swaymsg", "-s", d.SwaySock, "-r", "-t", "get_tree").Output()
	if err != nil {
		t.Fatalf("swaymsg -t get_tree: %v", err)
	}
	var root swayNode
	if err := json.Unmarshal(out, &root); err != nil {
		t.Fatalf("swaymsg's tree: %v", err)
	}
	return root
}

// swayWalk calls f on every node of the tree under n, with the workspace
// it is on ("" above the workspaces).
func swayWalk(n swayNode, ws string, f func(n swayNode, ws string)) {
	if n.Type == "workspace" {
		ws = n.Name
	}
	f(n, ws)
	for _, k := range append(n.Nodes, n.FloatingNodes...) {
		swayWalk(k, ws, f)
	}
}

// focusedID is the window that has the keyboard focus, as uiscope names
// windows: "0x…" on X11 (_NET_ACTIVE_WINDOW by xprop), "sway:N" on sway
// (the focused view in swaymsg's tree); "" for none.
func focusedID(t testing.TB, d *testdesk.Desk) string {
	t.Helper()
	if d.Sway == nil {
		tt, ok := t.(*testing.T)
		if !ok {
			t.Fatal("focusedID needs a *testing.T on X11")
		}
		return fmt.Sprintf("%#x", activeWindow(tt, d))
	}
	id := ""
	swayWalk(swayTree(t, d), "", func(n swayNode, _ string) {
		if n.Focused && n.Pid != 0 {
			id = "sway:" + strconv.FormatInt(n.ID, 10)
		}
	})
	return id
}

// shownWindows are pid's visible windows whose title matches pattern
// (anchored), as uiscope names windows: through xdotool on X11, in
// swaymsg's tree on sway.
func shownWindows(t *testing.T, d *testdesk.Desk, pid int, pattern string) []string {
	t.Helper()
	var out []string
	if d.Sway == nil {
		for _, w := range visibleWindows(t, d, pid, pattern) {
			out = append(out, fmt.Sprintf("%#x", parseWindow(w)))
		}
		return out
	}
	re := regexp.MustCompile("^(?:" + pattern + ")$")
	swayWalk(swayTree(t, d), "", func(n swayNode, _ string) {
		if n.Pid == pid && n.Visible && re.MatchString(n.Name) {
			out = append(out, "sway:"+strconv.FormatInt(n.ID, 10))
		}
	})
	return out
}

// deskState is where the desktop is, for seeing that a refused chord did
// not reach the window manager: openbox's show-desktop mode and current
// workspace on X11; sway's focused workspace.
func deskState(t *testing.T, d *testdesk.Desk) string {
	t.Helper()
	if d.Sway == nil {
		return "showing desktop " + rootProp(t, d, "_NET_SHOWING_DESKTOP") + ", workspace " + rootProp(t, d, "_NET_CURRENT_DESKTOP")
	}
	ws := ""
	swayWalk(swayTree(t, d), "", func(n swayNode, w string) {
		if n.Focused {
			ws = w
		}
	})
	return "workspace " + ws
}

// restoreDeskAfter puts the desktop back where it is now (deskState)
// when the test ends, if a test on code with a bug moved it, so that later
// tests find their windows: openbox leaves show-desktop mode (activating
// the window active now) and goes back to its workspace; sway goes back
// to its workspace.
func restoreDeskAfter(t *testing.T, d *testdesk.Desk) {
	t.Helper()
	state := deskState(t, d)
	var win uint32
	if d.Sway == nil {
		win = activeWindow(t, d)
	}
	t.Cleanup(func() { restoreDesk(t, d, state, win) })
}

func restoreDesk(t *testing.T, d *testdesk.Desk, state string, win uint32) {
	if deskState(t, d) == state {
		return
	}
	var cmd *exec.Cmd
	if d.Sway == nil {
		desktopNotShown(t, d, win)
		_, ws, _ := strings.Cut(state, "workspace ")
		cmd = exec.Command("xdotool", "set_desktop", ws)
		cmd.Env = d.Env()
	} else {
		cmd = exec.Command("swaymsg", "-s", d.SwaySock, "workspace", strings.TrimPrefix(state, "workspace "))
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%v: %v: %s", cmd.Args, err, out)
	}
}

// heldInput is what is held as the test reads it outside uiscope: on
// X11 the X server's buttons and keycodes down; on sway the app's own
// account in its --input-log (log, required there): its buttons and
// non-modifier keys pressed and not released, and the modifier mask the
// keyboard last gave it.
type heldInput struct {
	buttons []int
	keys    []string
	mods    int
}

func (h heldInput) none() bool { return len(h.buttons) == 0 && len(h.keys) == 0 && h.mods == 0 }

func (h heldInput) String() string {
	return fmt.Sprintf("buttons %v, keys %v, modifiers %#x", h.buttons, h.keys, h.mods)
}

// heldNow reads what is held (heldInput).
func heldNow(t *testing.T, d *testdesk.Desk, log fixtureLog) heldInput {
	t.Helper()
	if d.Sway == nil {
		var h heldInput
		h.buttons = buttonsDown(t, d)
		for _, k := range keysDown(t, d) {
			h.keys = append(h.keys, strconv.Itoa(k))
		}
		return h
	}
	if log.path == "" {
		t.Fatal("on sway what is held is the app's account: start the GTK 3 fixture with --input-log")
	}
	var h heldInput
	for _, l := range log.lines() {
		kind, arg, _ := strings.Cut(l, " ")
		switch kind {
		case "press":
			n, _ := strconv.Atoi(arg)
			if !slices.Contains(h.buttons, n) {
				h.buttons = append(h.buttons, n)
			}
		case "release":
			n, _ := strconv.Atoi(arg)
			h.buttons = slices.DeleteFunc(h.buttons, func(b int) bool { return b == n })
		case "key-press":
			if !modifierKey(arg) && !slices.Contains(h.keys, arg) {
				h.keys = append(h.keys, arg)
			}
		case "key-release":
			h.keys = slices.DeleteFunc(h.keys, func(k string) bool { return k == arg })
		case "mods":
			m, _ := strconv.Atoi(arg)
			// Shift, Lock aside, Control, Mod1 (Alt) .. Mod5, Super, Hyper,
			// Meta: what a held key adds (Caps Lock's latch is not held).
			h.mods = m & (1 | 4 | 8 | 16 | 32 | 64 | 128 | 1<<26 | 1<<27 | 1<<28)
		}
	}
	return h
}

// modifierKey reports whether a keyval name is a modifier's key, whose
// state the log's "mods" lines carry.
func modifierKey(name string) bool {
	for _, p := range []string{"Shift_", "Control_", "Alt_", "Meta_", "Super_", "Hyper_", "ISO_Level3_", "ISO_Level5_"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// untilHeld waits until what is held (heldNow) satisfies ok: the app's
// account on sway comes a moment after the compositor handled the input.
func untilHeld(t *testing.T, d *testdesk.Desk, log fixtureLog, what string, ok func(h heldInput) bool) {
	t.Helper()
	until(t, what, func(context.Context) (bool, string) {
		h := heldNow(t, d, log)
		return ok(h), h.String()
	})
}

// untilNothingHeld waits until nothing is held (heldNow); when names the
// moment in a failure.
func untilNothingHeld(t *testing.T, d *testdesk.Desk, log fixtureLog, when string) {
	t.Helper()
	until(t, "no button or key down "+when, func(context.Context) (bool, string) {
		h := heldNow(t, d, log)
		if d.Sway != nil {
			return h.none(), fmt.Sprintf("%s (the app's input log: %q)", h, log.lines())
		}
		return h.none(), h.String()
	})
}

// handClick clicks button 1 at a screen point with the test's own input,
// as a user's hand: XTest on X11, a virtual pointer of the test's own on
// sway.
func handClick(t *testing.T, d *testdesk.Desk, x, y int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if d.Sway != nil {
		hand := wayland.NewBackend(filepath.Join(d.RuntimeDir, d.WaylandDisplay), d.Sway)
		defer hand.Close()
		if err := hand.Click(ctx, x, y, 1, 1); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err := d.X.Click(ctx, x, y, 1, 1); err != nil {
		t.Fatal(err)
	}
}

// swayTitle is the title of pid's visible view in swaymsg's tree (the
// shown one of a browser's windows), windowTitle on sway.
func swayTitle(ctx context.Context, d *testdesk.Desk, pid int) string {
	out, err := exec.CommandContext(ctx, "swaymsg", "-s", d.SwaySock, "-r", "-t", "get_tree").Output()
	if err != nil {
		return "<swaymsg: " + err.Error() + ">"
	}
	var root swayNode
	if err := json.Unmarshal(out, &root); err != nil {
		return "<swaymsg's tree: " + err.Error() + ">"
	}
	title := "<no window>"
	swayWalk(root, "", func(n swayNode, _ string) {
		if n.Pid == pid && n.Visible {
			title = n.Name
		}
	})
	return title
}
