//go:build linux

package e2e

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// On sway, input and pixels go through uiscope's own Wayland client
// (virtual keyboard and pointer, screencopy). The oracles are outside
// uiscope: pyatspi in another process reads what the app holds, the
// fixture's log says what happened to it, grim captures the screen.

// pyProbe runs testdata/probe.py on an element of pid (the first with
// that role and name) and returns what it prints: "text" its text,
// "value" its current value, "screen" its desktop extents and focus.
func pyProbe(t testing.TB, d *testdesk.Desk, pid int, role, name, what string) string {
	t.Helper()
	cmd := exec.Command(testdesk.Python, testdesk.Probe(), strconv.Itoa(pid), role, name, what)
	cmd.Env = append(d.Env(), "AT_SPI_BUS_ADDRESS="+d.A11yBus)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pyatspi: no %s %q in pid %d: %v %s", role, name, pid, err, stderr.String())
	}
	return string(out)
}

// asRGBA is img as an RGBA image (grim's PNGs decode as one).
func asRGBA(img image.Image) *image.RGBA {
	if r, ok := img.(*image.RGBA); ok {
		return r
	}
	return toRGBA(img)
}

// grimRegion captures a part of the screen with grim.
func grimRegion(t testing.TB, d *testdesk.Desk, r platform.Rect) image.Image {
	t.Helper()
	return testdesk.Grim(t, d.Env(), image.Rect(r.X, r.Y, r.X+r.Width, r.Y+r.Height))
}

// grimDiff compares a window's screenshot, which shoot takes, with grim's
// captures of the window's content just before and after it: the pixels
// that differ outside hide (a part the screenshot covers), those that
// changed between grim's two captures, and those inside hide that differ
// from grim's. A screenshot of another size fails the test.
func grimDiff(t testing.TB, d *testdesk.Desk, content platform.Rect, hide image.Rectangle, shoot func() *image.RGBA) (diff, moving, covered int) {
	t.Helper()
	before := asRGBA(grimRegion(t, d, content))
	img := shoot()
	after := asRGBA(grimRegion(t, d, content))
	if img.Bounds().Dx() != content.Width || img.Bounds().Dy() != content.Height {
		t.Fatalf("screenshot is %v, the window %+v", img.Bounds(), content)
	}
	rgb := func(c color.RGBA) [3]uint8 { return [3]uint8{c.R, c.G, c.B} }
	for y := 0; y < img.Bounds().Dy(); y++ {
		for x := 0; x < img.Bounds().Dx(); x++ {
			g1 := rgb(before.RGBAAt(before.Rect.Min.X+x, before.Rect.Min.Y+y))
			if g1 != rgb(after.RGBAAt(after.Rect.Min.X+x, after.Rect.Min.Y+y)) {
				moving++
			}
			same := rgb(img.RGBAAt(img.Rect.Min.X+x, img.Rect.Min.Y+y)) == g1
			switch {
			case image.Pt(x, y).In(hide):
				if !same {
					covered++
				}
			case !same:
				diff++
			}
		}
	}
	return diff, moving, covered
}

// unfocusEntry gives the fixture's Volume slider the keyboard focus, so
// that no text caret blinks in the window (the seat keeps a keyboard, so
// a focused entry's caret is drawn).
func unfocusEntry(t testing.TB, s *mcpServer, sess string) {
	t.Helper()
	vol := findOne(t, s, sess, map[string]any{"name": "Volume", "role": "slider"})
	s.ok(t, "focus", map[string]any{"session": sess, "element": vol.Ref})
}

// TestSwayInput types, presses keys, clicks and captures through `uiscope
// mcp` on headless sway, a GTK 3 app as a Wayland client: type_text (any
// Unicode, the virtual keyboard bringing its own keymap), press_key
// chords, a pointer click (an element without an action), a screenshot
// equal to grim's with the password covered.
func TestSwayInput(t *testing.T) {
	d := testdesk.On(t, "sway")
	log := filepath.Join(t.TempDir(), "events.log")
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--effects", "--log", log)
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	text := func() string { return pyProbe(t, d, app.Pid, "text", "Name", "text") }

	t.Run("doctor", func(t *testing.T) {
		r := runCLI(t, d, 60*time.Second, "doctor")
		for _, want := range []string{"zwp_virtual_keyboard_manager_v1", "zwlr_virtual_pointer_manager_v1", "zwlr_screencopy_manager_v1"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("doctor on sway does not name %s:\n%s", want, r.stdout)
			}
		}
		if strings.Contains(r.stdout, "lacks") {
			t.Errorf("doctor on sway finds a protocol missing:\n%s", r.stdout)
		}
	})

	t.Run("type_text and press_key", func(t *testing.T) {
		entry := findOne(t, s, sess, map[string]any{"name": "Name", "nameMatch": "exact", "role": "text"})
		const sentence = "Hello, wörld! (1+1=2) café — ✓ 中文? 😀"
		out := s.ok(t, "type_text", map[string]any{"session": sess, "element": entry.Ref, "text": sentence})
		if out["verified"] != true {
			t.Errorf("type_text: %v", out)
		}
		until(t, "the sentence in the entry, read by pyatspi", func(context.Context) (bool, string) {
			got := text()
			return got == sentence, got
		})
		s.ok(t, "press_key", map[string]any{"session": sess, "element": entry.Ref, "keys": "Ctrl+a"})
		s.ok(t, "press_key", map[string]any{"session": sess, "keys": "BackSpace"})
		until(t, "the entry emptied by keys", func(context.Context) (bool, string) {
			got := text()
			return got == "", got
		})
		hundred := strings.Repeat("abcdefghi ", 10)
		start := time.Now()
		s.ok(t, "type_text", map[string]any{"session": sess, "element": entry.Ref, "text": hundred})
		took := time.Since(start)
		until(t, "100 characters in the entry", func(context.Context) (bool, string) {
			got := text()
			return got == hundred, got
		})
		t.Logf("type_text of 100 characters on sway: %v (the call, verified)", took.Round(time.Millisecond))
	})

	t.Run("click by pointer", func(t *testing.T) {
		// A GTK 3 slider has no action, so click is a real left click at
		// its centre, which moves its value there.
		vol := findOne(t, s, sess, map[string]any{"name": "Volume", "role": "slider"})
		before := pyProbe(t, d, app.Pid, "slider", "Volume", "value")
		out := s.ok(t, "click", map[string]any{"session": sess, "element": vol.Ref})
		if out["method"] != "pointer" {
			t.Fatalf("click on the slider: %v", out)
		}
		until(t, "the slider's value moved, read by pyatspi", func(context.Context) (bool, string) {
			v := pyProbe(t, d, app.Pid, "slider", "Volume", "value")
			return v != before, before + " -> " + v
		})
		// And a click on the check box by its action leaves its mark in the
		// fixture's log, as on X11.
		box := findOne(t, s, sess, map[string]any{"name": "Remember me", "role": "check box"})
		s.ok(t, "click", map[string]any{"session": sess, "element": box.Ref})
		until(t, "the check box toggled, in the fixture's log", func(context.Context) (bool, string) {
			b, _ := os.ReadFile(log)
			return slices.Contains(strings.Split(string(b), "\n"), "toggled Remember me True"), string(b)
		})
	})

	t.Run("held input", func(t *testing.T) {
		// A drag: the slider's knob pressed, moved to the slider's right
		// end, released.
		vol := findOne(t, s, sess, map[string]any{"name": "Volume", "role": "slider"})
		b := *vol.Bounds
		at, _ := strconv.ParseFloat(strings.TrimSpace(pyProbe(t, d, app.Pid, "slider", "Volume", "value")), 64)
		knob := b.X + int(float64(b.Width)*at/100)
		s.ok(t, "press", map[string]any{"session": sess, "x": knob, "y": b.Y + b.Height/2})
		s.ok(t, "move", map[string]any{"session": sess, "x": b.X + b.Width - 1, "y": b.Y + b.Height/2})
		s.ok(t, "release", map[string]any{"session": sess})
		until(t, "the slider dragged to its end, read by pyatspi", func(context.Context) (bool, string) {
			v := strings.TrimSpace(pyProbe(t, d, app.Pid, "slider", "Volume", "value"))
			return v == "100.0", v
		})
		// Shift held through two Left presses selects two characters,
		// which BackSpace deletes.
		entry := findOne(t, s, sess, map[string]any{"name": "Name", "nameMatch": "exact", "role": "text"})
		s.ok(t, "set_value", map[string]any{"session": sess, "element": entry.Ref, "value": ""})
		s.ok(t, "type_text", map[string]any{"session": sess, "element": entry.Ref, "text": "hello"})
		s.ok(t, "key_down", map[string]any{"session": sess, "key": "Shift"})
		s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Left"})
		s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Left"})
		s.ok(t, "key_up", map[string]any{"session": sess, "key": "Shift"})
		s.ok(t, "press_key", map[string]any{"session": sess, "keys": "BackSpace"})
		until(t, "the selection deleted, read by pyatspi", func(context.Context) (bool, string) {
			got := text()
			return got == "hel", got
		})
	})

	t.Run("screenshot", func(t *testing.T) {
		view := oneView(t, d, app.Pid)
		// The focus leaves the entry, whose blinking caret would tell
		// any two captures apart.
		unfocusEntry(t, s, sess)
		pw := findOne(t, s, sess, map[string]any{"role": "password text"})
		if pw.Bounds == nil {
			t.Fatal("the password field has no bounds")
		}
		var took time.Duration
		until(t, "a screenshot equal to grim's outside the covered password", func(context.Context) (bool, string) {
			hide := image.Rect(pw.Bounds.X-view.content.X, pw.Bounds.Y-view.content.Y,
				pw.Bounds.X-view.content.X+pw.Bounds.Width, pw.Bounds.Y-view.content.Y+pw.Bounds.Height)
			diff, moving, covered := grimDiff(t, d, view.content, hide, func() *image.RGBA {
				start := time.Now()
				shot, img, _ := s.screenshot(t, map[string]any{"session": sess, "annotate": false})
				took = time.Since(start)
				if shot["ok"] != true || img == nil {
					t.Fatalf("screenshot: %v", shot)
				}
				if n, _ := shot["redacted"].(float64); n < 1 {
					t.Fatalf("screenshot covered nothing: %v", shot)
				}
				return img
			})
			if covered == 0 {
				t.Fatalf("the password field's pixels are grim's: not covered")
			}
			return moving == 0 && diff == 0, fmt.Sprintf("%d pixels differ from grim's outside the password, %d changed between grim's captures", diff, moving)
		})
		t.Logf("screenshot of the %dx%d window on sway: %v (the call and the PNG's decoding here)", view.content.Width, view.content.Height, took.Round(time.Millisecond))

	})
}
