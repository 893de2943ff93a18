//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/linux"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// shotResult is a screenshot result as the tool returns it.
type shotResult struct {
	Window      string
	Bounds      struct{ X, Y, Width, Height int }
	Width       int
	Height      int
	Scale       float64
	IdsFrom     string
	Redacted    int
	Bytes       int
	Path        string
	Annotations []struct {
		Label           int
		Ref, Role, Name string
		Box             struct{ X, Y, Width, Height int }
	}
}

// screenshot calls the tool and checks its output contract: a text block
// equal to structuredContent, then one PNG image block (on success). It
// returns the decoded result and image (nil on failure).
func (s *mcpServer) screenshot(t testing.TB, args map[string]any) (map[string]any, *image.RGBA, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), mcpCallLimit)
	defer cancel()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: "screenshot", Arguments: args})
	if err != nil {
		t.Fatalf("screenshot %v: protocol error: %v\nserver stderr:\n%s", args, err, s.stderr.String())
	}
	if len(res.Content) == 0 {
		t.Fatalf("screenshot: no content")
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("screenshot: first block is %T, want text", res.Content[0])
	}
	var text, structured map[string]any
	if err := json.Unmarshal([]byte(tc.Text), &text); err != nil {
		t.Fatalf("screenshot: text block is not JSON: %v", err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &structured); err != nil || !reflect.DeepEqual(text, structured) {
		t.Fatalf("screenshot: structuredContent differs from the text block (%v)", err)
	}
	if bytes.Contains([]byte(tc.Text), []byte("iVBOR")) {
		t.Errorf("screenshot: the JSON carries base64 PNG data")
	}
	if text["ok"] != true {
		if len(res.Content) != 1 || !res.IsError {
			t.Errorf("screenshot failure: %d blocks, isError %v", len(res.Content), res.IsError)
		}
		return text, nil, nil
	}
	if len(res.Content) != 2 {
		t.Fatalf("screenshot: %d content blocks, want text and image", len(res.Content))
	}
	ic, ok := res.Content[1].(*mcp.ImageContent)
	if !ok || ic.MIMEType != "image/png" {
		t.Fatalf("screenshot: second block is %T, want an image/png image", res.Content[1])
	}
	img, err := png.Decode(bytes.NewReader(ic.Data))
	if err != nil {
		t.Fatalf("screenshot: the image is no PNG: %v", err)
	}
	if n, _ := text["bytes"].(float64); int(n) != len(ic.Data) {
		t.Errorf("screenshot: bytes %v, the image has %d", text["bytes"], len(ic.Data))
	}
	return text, toRGBA(img), ic.Data
}

func toRGBA(img image.Image) *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, img.Bounds().Dx(), img.Bounds().Dy()))
	for y := 0; y < out.Rect.Dy(); y++ {
		for x := 0; x < out.Rect.Dx(); x++ {
			out.Set(x, y, img.At(img.Bounds().Min.X+x, img.Bounds().Min.Y+y))
		}
	}
	return out
}

var (
	grey  = color.RGBA{0x80, 0x80, 0x80, 0xff}
	white = color.RGBA{0xff, 0xff, 0xff, 0xff}
	// The annotation palette (internal/core/annotate.go).
	boxColours = []color.RGBA{{0xd6, 0x1a, 0x46, 0xff}, {0x1f, 0x5f, 0xd1, 0xff}, {0x1e, 0x8c, 0x3a, 0xff}, {0x9b, 0x1f, 0xb5, 0xff},
		{0xc8, 0x5a, 0x00, 0xff}, {0x00, 0x7a, 0x7a, 0xff}, {0xc0, 0x1c, 0x9c, 0xff}, {0x6b, 0x45, 0x10, 0xff}}
)

func isBoxColour(c color.RGBA) bool {
	for _, b := range boxColours {
		if c == b {
			return true
		}
	}
	return false
}

// windowOf returns the bounds of the session's window as connect gave it.
func windowOf(t *testing.T, conn map[string]any) struct{ X, Y, Width, Height int } {
	t.Helper()
	wins := decode[[]struct {
		Bounds struct{ X, Y, Width, Height int }
		Mapped bool
	}](t, conn["windows"])
	for _, w := range wins {
		if w.Mapped {
			return w.Bounds
		}
	}
	t.Fatalf("connect lists no mapped window: %v", conn["windows"])
	return struct{ X, Y, Width, Height int }{}
}

// redactedFields returns the screen bounds of every redacted element.
func redactedFields(t *testing.T, s *mcpServer, sess string) []struct{ X, Y, Width, Height int } {
	t.Helper()
	tree := s.ok(t, "get_a11y_tree", map[string]any{"session": sess, "format": "json", "maxNodes": 100000, "maxBytes": 100000000})
	var out []struct{ X, Y, Width, Height int }
	decode[*elem](t, tree["root"]).walk(func(e, _ *elem) {
		if e.Redacted && e.Bounds != nil {
			out = append(out, struct{ X, Y, Width, Height int }(*e.Bounds))
		}
	})
	return out
}

// TestScreenshot: a real `uiscope mcp` captures the GTK 3 fixture: the
// window's size, boxes where the tree's bounds say, the password field
// one grey bar, path refused without --allow-input, a frozen app answered
// by the deadline, a minimized window refused.
func TestScreenshot(t *testing.T) { testdesk.ForEach(t, testScreenshot) }

func testScreenshot(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "screenshot fixture")
	s := startMCP(t, d, "")
	conn := s.ok(t, "connect", map[string]any{"pid": app.Pid})
	sess := conn["session"].(string)
	win := windowOf(t, conn)

	out, img, _ := s.screenshot(t, map[string]any{"session": sess})
	shot := decode[shotResult](t, out)
	if img.Rect.Dx() != win.Width || img.Rect.Dy() != win.Height || shot.Width != win.Width || shot.Height != win.Height {
		t.Fatalf("image %v (result %dx%d), the window is %dx%d", img.Rect, shot.Width, shot.Height, win.Width, win.Height)
	}
	if shot.Bounds.X != win.X || shot.Bounds.Y != win.Y || shot.Scale != 1 || shot.IdsFrom != "a11y" || shot.Redacted != 1 {
		t.Errorf("result: %+v (window %+v)", shot, win)
	}
	_, clean, _ := s.screenshot(t, map[string]any{"session": sess, "annotate": false})
	if clean.Rect != img.Rect {
		t.Fatalf("clean image %v, annotated %v", clean.Rect, img.Rect)
	}

	// Boxes where the tree says: each annotated element's bounds, read
	// live, minus the window's origin, is its box; its left edge is drawn
	// in a box colour with the white rim just outside.
	if len(shot.Annotations) < 3 {
		t.Fatalf("only %d annotations: %+v", len(shot.Annotations), shot.Annotations)
	}
	checked, rimmed := 0, 0
	for i, a := range shot.Annotations {
		props := s.ok(t, "get_element_properties", map[string]any{"session": sess, "element": a.Ref, "names": []string{"bounds"}})
		b := decode[struct{ X, Y, Width, Height int }](t, props["properties"].(map[string]any)["bounds"])
		want := struct{ X, Y, Width, Height int }{b.X - win.X, b.Y - win.Y, b.Width, b.Height}
		if a.Box != want || a.Label != i+1 {
			t.Errorf("%s (%s %q): box %+v label %d (the %dth); its bounds %+v say %+v", a.Ref, a.Role, a.Name, a.Box, a.Label, i+1, b, want)
			continue
		}
		if want.X < 1 || want.Y < 1 || want.X+want.Width >= img.Rect.Dx() || want.Height < 8 {
			continue
		}
		y := want.Y + want.Height/2
		edge := img.RGBAAt(want.X, y)
		if !isBoxColour(edge) {
			t.Errorf("%s: pixel %d,%d on its box's left edge is %v, no box colour", a.Ref, want.X, y, edge)
		}
		if got := img.RGBAAt(want.X+want.Width-1, y); !isBoxColour(got) {
			t.Errorf("%s: pixel %d,%d on its box's right edge is %v, no box colour", a.Ref, want.X+want.Width-1, y, got)
		}
		if img.RGBAAt(want.X-1, y) == white {
			rimmed++ // a neighbour's box or label may lie there
		}
		checked++
	}
	if checked < 3 || rimmed < checked/2 {
		t.Errorf("%d boxes checked, %d with the white rim outside their left edge", checked, rimmed)
	}

	// The password field: one grey bar over its bounds, in the clean image.
	fields := redactedFields(t, s, sess)
	if len(fields) != 1 {
		t.Fatalf("%d redacted fields, want the fixture's one password field", len(fields))
	}
	checkGrey(t, clean, fields[0], win)
	// The clean image is what the screen shows, read outside uiscope (an
	// X root capture, grim on sway), but for the bar: there the screen
	// shows the field's own pixels.
	screen := screenCapture(t, d, platform.Rect(win))
	f := fields[0]
	inBar := image.Rect(f.X-win.X, f.Y-win.Y, f.X-win.X+f.Width, f.Y-win.Y+f.Height)
	if allGrey(screen.SubImage(inBar).(*image.RGBA)) {
		t.Errorf("the screen shows the password field %+v grey too: the bar proves nothing", f)
	}
	draw.Draw(screen, inBar, image.NewUniform(grey), image.Point{}, draw.Src)
	if share := sameShare(clean, screen); share < 0.99 {
		t.Errorf("only %.1f%% of the clean image's pixels are what the screen shows at %+v, the bar aside (they differ in %v)", 100*share, win, differ(clean, screen))
	}

	// One element alone: the password field, all grey, the size of its
	// bounds.
	pw := s.ok(t, "find_elements", map[string]any{"session": sess, "role": "password text"})
	pwRef := decode[[]elem](t, pw["elements"])[0].Ref
	out, one, _ := s.screenshot(t, map[string]any{"session": sess, "element": pwRef})
	if out["ok"] != true || out["element"] != pwRef || one.Rect.Dx() != fields[0].Width || one.Rect.Dy() != fields[0].Height {
		t.Errorf("screenshot of %s: %v, image %v; its bounds %+v", pwRef, out["errorCode"], one, fields[0])
	} else {
		checkGrey(t, one, fields[0], fields[0])
	}

	// path: refused without --allow-input, nothing written.
	dir := t.TempDir()
	s.fail(t, "screenshot", map[string]any{"session": sess, "path": filepath.Join(dir, "shot.png")}, "inputNotAllowed")
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("refused, yet %s holds %v", dir, ents)
	}

	// A frozen app: its tree cannot be read, so no image, by the deadline.
	if err := syscall.Kill(app.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	frozen, _, _ := s.screenshot(t, map[string]any{"session": sess, "timeoutMs": 1500})
	took := time.Since(start)
	syscall.Kill(app.Pid, syscall.SIGCONT)
	if frozen["ok"] != false || frozen["errorCode"] != "timeout" || frozen["retryable"] != true {
		t.Errorf("a frozen app: %v, want a retryable timeout", frozen)
	}
	if took > 1500*time.Millisecond+10*time.Second {
		t.Errorf("screenshot with timeoutMs 1500 of a frozen app took %v", took)
	}
	s.screenshot(t, map[string]any{"session": sess}) // answers again

	// Minimized (on sway, which never iconifies, moved to the
	// scratchpad: shown nowhere): no pixels, said clearly.
	if d.Sway != nil {
		swayRun(t, d, fmt.Sprintf("[con_id=%d] move scratchpad", swayConOf(t, shot.Window)))
	} else {
		minimize(t, d, shotWindowID(t, shot))
	}
	until(t, "the window is minimized", func(ctx context.Context) (bool, string) {
		out, _, _ := s.screenshot(t, map[string]any{"session": sess})
		return out["errorCode"] == "windowHidden", "screenshot: " + out["errorCode"].(string)
	})
}

func checkGrey(t *testing.T, img *image.RGBA, field, win struct{ X, Y, Width, Height int }) {
	t.Helper()
	r := image.Rect(field.X-win.X, field.Y-win.Y, field.X-win.X+field.Width, field.Y-win.Y+field.Height)
	if r.Dx() < 10 || r.Dy() < 10 || !r.In(img.Rect) {
		t.Fatalf("redacted field at %v in an image %v", r, img.Rect)
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if got := img.RGBAAt(x, y); got != grey {
				t.Fatalf("redacted field %v: pixel %d,%d is %v, not the bar's grey", r, x, y, got)
			}
		}
	}
	// Just outside, the app's own pixels: the bar is the field's size.
	if img.RGBAAt(r.Min.X, r.Min.Y-3) == grey && img.RGBAAt(r.Min.X, r.Max.Y+2) == grey {
		t.Errorf("the grey reaches past the field %v", r)
	}
}

// differ is the rectangle of the pixels in which two images differ.
func differ(a, b *image.RGBA) image.Rectangle {
	var r image.Rectangle
	for y := a.Rect.Min.Y; y < a.Rect.Max.Y; y++ {
		for x := a.Rect.Min.X; x < a.Rect.Max.X; x++ {
			if a.RGBAAt(x, y) != b.RGBAAt(x, y) {
				r = r.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return r
}

// allGrey reports whether every pixel of img is the bar's grey.
func allGrey(img *image.RGBA) bool {
	for y := img.Rect.Min.Y; y < img.Rect.Max.Y; y++ {
		for x := img.Rect.Min.X; x < img.Rect.Max.X; x++ {
			if img.RGBAAt(x, y) != grey {
				return false
			}
		}
	}
	return true
}

func shotWindowID(t *testing.T, shot shotResult) xproto.Window {
	t.Helper()
	id, err := strconv.ParseUint(shot.Window, 0, 32)
	if err != nil || id == 0 {
		t.Fatalf("window %q: %v", shot.Window, err)
	}
	return xproto.Window(id)
}

// xclient is the test's own X connection to the sandbox display.
func xclient(t testing.TB, d *testdesk.Desk) *xgb.Conn {
	t.Helper()
	xc, err := xgb.NewConnDisplay(d.Display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(xc.Close)
	go func() {
		for {
			if ev, err := xc.WaitForEvent(); ev == nil && err == nil {
				return
			}
		}
	}()
	return xc
}

// minimize asks the window manager to iconify a window (ICCCM
// WM_CHANGE_STATE), as a user would.
func minimize(t *testing.T, d *testdesk.Desk, w xproto.Window) {
	t.Helper()
	xc := xclient(t, d)
	a, err := xproto.InternAtom(xc, false, uint16(len("WM_CHANGE_STATE")), "WM_CHANGE_STATE").Reply()
	if err != nil {
		t.Fatal(err)
	}
	root := xproto.Setup(xc).DefaultScreen(xc).Root
	ev := xproto.ClientMessageEvent{Format: 32, Window: w, Type: a.Atom, Data: xproto.ClientMessageDataUnionData32New([]uint32{3, 0, 0, 0, 0})}
	if err := xproto.SendEventChecked(xc, false, root, xproto.EventMaskSubstructureRedirect|xproto.EventMaskSubstructureNotify, string(ev.Bytes())).Check(); err != nil {
		t.Fatal(err)
	}
}

// coverWindow maps a plain green window over a screen rectangle, on top
// of everything (override-redirect), and returns a function removing it.
func coverWindow(t *testing.T, d *testdesk.Desk, x, y, w, h int) func() {
	t.Helper()
	xc := xclient(t, d)
	scr := xproto.Setup(xc).DefaultScreen(xc)
	win, _ := xproto.NewWindowId(xc)
	err := xproto.CreateWindowChecked(xc, 0, win, scr.Root, int16(x), int16(y), uint16(w), uint16(h), 0,
		xproto.WindowClassInputOutput, 0, xproto.CwBackPixel|xproto.CwOverrideRedirect, []uint32{0x00ff00, 1}).Check()
	if err != nil {
		t.Fatal(err)
	}
	if err := xproto.MapWindowChecked(xc, win).Check(); err != nil {
		t.Fatal(err)
	}
	xproto.GetInputFocus(xc).Reply()
	return func() { xproto.DestroyWindow(xc, win); xproto.GetInputFocus(xc).Reply() }
}

// TestScreenshotCovered: a window half covered by another is captured with
// its own pixels, by a server that never captured it before (so the first
// capture waits for the app's repaint of what was covered).
//
// On sway a capture copies what the output shows, so a covered window is
// refused (covered), naming the cover, rather than captured with the
// cover's pixels.
func TestScreenshotCovered(t *testing.T) { testdesk.ForEach(t, testScreenshotCovered) }

func testScreenshotCovered(t *testing.T, d *testdesk.Desk) {
	// GTK 3 draws a 24-bit window, GTK 4 a 32-bit one.
	for _, fixture := range []string{"gtk3_fixture.py", "gtk4_fixture.py"} {
		t.Run(fixture, func(t *testing.T) {
			if d.Sway != nil {
				screenshotCoveredSway(t, d, fixture)
				return
			}
			screenshotCovered(t, d, fixture)
		})
	}
}

// screenshotCoveredSway: the window under another floating over its left
// half is refused with covered, naming the cover, and captured again once
// the cover is gone.
func screenshotCoveredSway(t *testing.T, d *testdesk.Desk, fixture string) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture(fixture), "--title", "covered "+fixture)
	s := startMCP(t, d, "")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	out, before, _ := s.screenshot(t, map[string]any{"session": sess, "annotate": false})
	if out["ok"] != true {
		t.Fatalf("screenshot of the uncovered window: %v", out)
	}
	win := decode[shotResult](t, out).Bounds
	cover := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "the cover")
	swayFloat(t, d, cover.Pid, win.X, win.Y)
	coverView := oneView(t, d, cover.Pid)
	// grim shows the cover there: what a capture of the screen copies.
	if share := sameShare(screenCapture(t, d, coverView.content), before.SubImage(image.Rect(0, 0, coverView.content.Width, coverView.content.Height)).(*image.RGBA)); share > 0.9 {
		t.Fatalf("the screen under the cover still shows the window (%.0f%% alike)", 100*share)
	}
	fresh := startMCP(t, d, "")
	sess2 := fresh.connect(t, map[string]any{"pid": app.Pid})
	out, img, _ := fresh.screenshot(t, map[string]any{"session": sess2, "annotate": false})
	msg, _ := out["error"].(string)
	if out["ok"] != false || out["errorCode"] != "covered" || img != nil || !strings.Contains(msg, fmt.Sprintf("sway:%d", coverView.con)) {
		t.Fatalf("screenshot of a covered window: %v, want covered naming the cover sway:%d", out, coverView.con)
	}
	cover.Proc.Stop()
	until(t, "the window captured again once the cover is gone", func(context.Context) (bool, string) {
		out, _, _ := fresh.screenshot(t, map[string]any{"session": sess2, "annotate": false})
		return out["ok"] == true, fmt.Sprint(out["errorCode"])
	})
}

func screenshotCovered(t *testing.T, d *testdesk.Desk, fixture string) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture(fixture), "--title", "covered "+fixture)
	s := startMCP(t, d, "")
	conn := s.ok(t, "connect", map[string]any{"pid": app.Pid})
	sess := conn["session"].(string)
	win := windowOf(t, conn)
	_, before, _ := s.screenshot(t, map[string]any{"session": sess, "annotate": false})
	fields := redactedFields(t, s, sess)

	// The left half of the window, under a green window.
	cw, ch := win.Width/2, win.Height
	remove := coverWindow(t, d, win.X, win.Y, cw, ch)
	defer remove()
	// The screen shows the cover there: what a plain GetImage would read.
	xc := xclient(t, d)
	root := xproto.Setup(xc).DefaultScreen(xc).Root
	px, err := xproto.GetImage(xc, xproto.ImageFormatZPixmap, xproto.Drawable(root), int16(win.X+cw/2), int16(win.Y+ch/2), 1, 1, ^uint32(0)).Reply()
	if err != nil || len(px.Data) < 3 || px.Data[0] != 0 || px.Data[1] != 0xff || px.Data[2] != 0 {
		t.Fatalf("the screen at the cover's middle: %v %v, want its green", px, err)
	}
	fresh := startMCP(t, d, "")
	sess2 := fresh.connect(t, map[string]any{"pid": app.Pid})
	out, after, _ := fresh.screenshot(t, map[string]any{"session": sess2, "annotate": false})
	if out["ok"] != true {
		t.Fatalf("screenshot of a covered window: %v", out)
	}
	if after.Rect != before.Rect {
		t.Fatalf("covered capture %v, uncovered %v", after.Rect, before.Rect)
	}
	green, same, n := 0, 0, 0
	for y := 0; y < ch; y++ {
		for x := 0; x < cw; x++ {
			n++
			c := after.RGBAAt(x, y)
			if c == (color.RGBA{0, 0xff, 0, 0xff}) {
				green++
			}
			if c == before.RGBAAt(x, y) {
				same++
			}
		}
	}
	if green > 0 {
		t.Errorf("%d of %d covered pixels are the cover's green", green, n)
	}
	// The fixture's timer label changes; everything else is as before.
	if same < n*95/100 {
		t.Errorf("only %d of %d covered pixels match the uncovered capture", same, n)
	}
	for _, f := range fields {
		checkGrey(t, after, f, win)
	}
}

// TestScreenshotRedactsEveryToolkit: the hidden fields of GTK 3, GTK 4 (a
// password entry and an entry with visibility off) and Qt 5 are each one
// grey bar.
func TestScreenshotRedactsEveryToolkit(t *testing.T) {
	testdesk.ForEach(t, testScreenshotRedactsEveryToolkit)
}

func testScreenshotRedactsEveryToolkit(t *testing.T, d *testdesk.Desk) {
	for _, tc := range redactCases {
		t.Run(tc.fixture, func(t *testing.T) {
			app := d.Launch(t, testdesk.Python, testdesk.Fixture(tc.fixture), "--title", "shot "+tc.fixture)
			s := startMCP(t, d, "")
			conn := s.ok(t, "connect", map[string]any{"pid": app.Pid})
			sess := conn["session"].(string)
			out, img, _ := s.screenshot(t, map[string]any{"session": sess, "annotate": false})
			if out["ok"] != true {
				t.Fatalf("screenshot: %v", out)
			}
			shot := decode[shotResult](t, out)
			fields := redactedFields(t, s, sess)
			if len(fields) != len(tc.hidden) || shot.Redacted != len(tc.hidden) {
				t.Fatalf("%d redacted fields in the tree, %d covered; want %d", len(fields), shot.Redacted, len(tc.hidden))
			}
			win := struct{ X, Y, Width, Height int }{shot.Bounds.X, shot.Bounds.Y, shot.Bounds.Width, shot.Bounds.Height}
			for _, f := range fields {
				checkGrey(t, img, f, win)
			}
		})
	}
}

// TestScreenshotVisual: a visual session's screenshot is labelled with
// window ids (a Tk app's widgets are windows) and, for an app with an
// accessibility tree, still covers its password field.
//
// On sway a view has no windows inside: the GTK 3 fixture's capture in a
// visual session marks none but still covers the password field; Tk, with
// no Wayland backend, is X11's alone.
func TestScreenshotVisual(t *testing.T) { testdesk.ForEach(t, testScreenshotVisual) }

func testScreenshotVisual(t *testing.T, d *testdesk.Desk) {
	gtk := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "shot visual gtk")
	s := startMCP(t, d, "")
	if d.X != nil {
		screenshotVisualTk(t, d, s)
	}

	vis := s.ok(t, "connect", map[string]any{"pid": gtk.Pid, "mode": "visual"})
	out, img, _ := s.screenshot(t, map[string]any{"session": vis["session"], "annotate": false})
	if shot := decode[shotResult](t, out); shot.Redacted != 1 || shot.IdsFrom != "visual" {
		t.Fatalf("GTK 3 fixture in a visual session: %d fields covered (want its password field), ids from %q", shot.Redacted, shot.IdsFrom)
	}
	a11y := s.connect(t, map[string]any{"pid": gtk.Pid})
	fields := redactedFields(t, s, a11y)
	if len(fields) != 1 {
		t.Fatalf("%d redacted fields", len(fields))
	}
	checkGrey(t, img, fields[0], windowOf(t, vis))
}

// screenshotVisualTk: a Tk app's visual screenshot is labelled with the
// windows its widgets are.
func screenshotVisualTk(t *testing.T, d *testdesk.Desk, s *mcpServer) {
	tk := d.LaunchX(t, testdesk.Python, testdesk.Fixture("tk_fixture.py"), "--title", "shot visual tk")
	conn := s.ok(t, "connect", map[string]any{"pid": tk.Pid, "mode": "visual"})
	out, img, _ := s.screenshot(t, map[string]any{"session": conn["session"]})
	shot := decode[shotResult](t, out)
	if win := windowOf(t, conn); img.Rect.Dx() != win.Width || img.Rect.Dy() != win.Height {
		t.Errorf("Tk image %v, window %+v", img.Rect, win)
	}
	if shot.IdsFrom != "visual" || len(shot.Annotations) == 0 || out["note"] == nil {
		t.Errorf("Tk visual screenshot: idsFrom %q, %d annotations, note %v", shot.IdsFrom, len(shot.Annotations), out["note"])
	}
	for _, a := range shot.Annotations {
		if a.Ref[:len("visual:")] != "visual:" {
			t.Errorf("annotation %+v is no visual ref", a)
		}
		// The label is a ref the session resolves.
		s.ok(t, "get_visual_tree", map[string]any{"session": conn["session"], "element": a.Ref, "depth": 0})
	}
}

// TestScreenshotPathAndSessions: with --allow-input, path writes the PNG
// (the same bytes as the image block) in --screenshot-dir and nowhere
// else, never replaces a file, and refuses a name with a newline; two
// sessions capture at once; the CLI writes its file.
func TestScreenshotPathAndSessions(t *testing.T) { testdesk.ForEach(t, testScreenshotPathAndSessions) }

func testScreenshotPathAndSessions(t *testing.T, d *testdesk.Desk) {
	a := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "shot one")
	b := d.Launch(t, testdesk.Python, testdesk.Fixture("qt5_fixture.py"), "--title", "shot two")
	if d.Sway != nil {
		// sway's tabs show one window at a time: the two float side by
		// side, each shown whole, as a user may place them.
		swayFloat(t, d, a.Pid, 0, 0)
		swayFloat(t, d, b.Pid, 960, 0)
	}
	dir, other := t.TempDir(), t.TempDir()
	s := startMCP(t, d, "", "--allow-input", "--screenshot-dir", dir)
	ca := s.ok(t, "connect", map[string]any{"pid": a.Pid})
	cb := s.ok(t, "connect", map[string]any{"pid": b.Pid})

	for _, p := range []string{filepath.Join(other, "out.png"), filepath.Join(dir, "..", filepath.Base(other), "dots.png"), filepath.Join(dir, "new\nline.png")} {
		s.fail(t, "screenshot", map[string]any{"session": ca["session"], "path": p}, "invalidArgument")
	}
	if ents, _ := os.ReadDir(other); len(ents) != 0 {
		t.Errorf("a directory outside --screenshot-dir holds %v", ents)
	}
	path := filepath.Join(dir, "one.png")
	out, _, data := s.screenshot(t, map[string]any{"session": ca["session"], "path": path, "maxWidth": 300})
	if out["ok"] != true || out["path"] != path {
		t.Fatalf("screenshot with path: %v", out)
	}
	file, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(file, data) {
		t.Fatalf("%s: %v; %d bytes, the image block %d", path, err, len(file), len(data))
	}
	if img, err := png.Decode(bytes.NewReader(file)); err != nil || img.Bounds().Dx() != 300 {
		t.Errorf("the file: %v, width %v; want maxWidth 300", err, img)
	}
	s.fail(t, "screenshot", map[string]any{"session": ca["session"], "path": path}, "invalidArgument")
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%s holds %v, want only one.png", dir, ents)
	}

	var wg sync.WaitGroup
	for _, c := range []map[string]any{ca, cb, ca, cb} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, img, _ := s.screenshot(t, map[string]any{"session": c["session"]})
			win := windowOf(t, c)
			if out["ok"] != true || img.Rect.Dx() != win.Width || img.Rect.Dy() != win.Height {
				t.Errorf("concurrent screenshot of %v: %v %v, image %v, window %+v", c["session"], out["errorCode"], out["message"], img, win)
			}
		}()
	}
	wg.Wait()

	file2 := filepath.Join(dir, "cli.png")
	r := runCLI(t, d, 60*time.Second, "screenshot", "--pid", strconv.Itoa(a.Pid), "-o", file2)
	if r.code != 0 {
		t.Fatalf("uiscope screenshot: exit %d\n%s", r.code, r.stderr)
	}
	img, err := png.Decode(bytes.NewReader(must(os.ReadFile(file2))))
	if win := windowOf(t, ca); err != nil || img.Bounds().Dx() != win.Width || img.Bounds().Dy() != win.Height {
		t.Errorf("the CLI's PNG: %v %v, window %+v", err, img.Bounds(), win)
	}
}

// swayRun runs a sway command (swaymsg) and fails the test unless sway
// ran it.
func swayRun(t testing.TB, d *testdesk.Desk, cmd string) {
	t.Helper()
	out, err := exec.Command("swaymsg", "-s", d.SwaySock, cmd).CombinedOutput()
	if err != nil {
		t.Fatalf("swaymsg %q: %v: %s", cmd, err, out)
	}
}

// swayConOf is the con id of a sway window id ("sway:N").
func swayConOf(t testing.TB, id string) int64 {
	t.Helper()
	con, err := strconv.ParseInt(strings.TrimPrefix(id, "sway:"), 10, 64)
	if err != nil || !strings.HasPrefix(id, "sway:") {
		t.Fatalf("window %q is no sway window", id)
	}
	return con
}

// swayFloat floats pid's one window with its top-left corner at x, y on
// sway and waits until sway shows it there, holding still.
func swayFloat(t testing.TB, d *testdesk.Desk, pid, x, y int) {
	t.Helper()
	v := oneView(t, d, pid)
	swayRun(t, d, fmt.Sprintf("[con_id=%d] floating enable, move position %d %d", v.con, x, y))
	var last platform.Rect
	until(t, fmt.Sprintf("pid %d's window floats at %d,%d", pid, x, y), func(context.Context) (bool, string) {
		now := oneView(t, d, pid)
		held := now.content == last
		last = now.content
		return held && now.visible && now.content.X >= x && now.content.Y >= y && now.content.X < x+20 && now.content.Y < y+40,
			fmt.Sprintf("at %+v, visible %v", now.content, now.visible)
	})
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// BenchmarkScreenshot measures a screenshot of gtk3-widget-factory (a
// 1366x741 window) in this process, through the core over the sandbox's
// Linux desktop: the tree read alone (which every screenshot makes, to
// find the redacted fields and label the elements), the capture alone,
// and the whole screenshot (tree, capture, redaction, annotation, PNG
// encoding) annotated, clean and scaled to 683 pixels wide; then the
// whole tool call through a real `uiscope mcp`. It reports wall time,
// this process's CPU time per operation (the machine may be shared) and
// the PNG's size; it never asserts.
//
//	go test -run '^$' -bench Screenshot -benchtime 20x ./e2e/
func BenchmarkScreenshot(b *testing.B) {
	d := testdesk.Shared(b)
	app := d.Launch(b, "gtk3-widget-factory")
	ctx := context.Background()
	desk, err := linux.Open(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer desk.Close()
	m := core.NewSessions(desk.Platform())
	s, err := m.Connect(ctx, core.AppSpec{Pid: app.Pid}, core.ModeA11y)
	if err != nil {
		b.Fatal(err)
	}
	first, err := m.Screenshot(ctx, s.ID, core.ScreenshotRequest{}) // redirects the window once
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("window %s: %dx%d", first.Window, first.Width, first.Height)
	win := platform.Window{ID: must(platform.ParseWindowID(first.Window)), Bounds: first.Bounds}
	cpu := func(b *testing.B, f func()) {
		var r0, r1 syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
		b.ResetTimer()
		for range b.N {
			f()
		}
		b.StopTimer()
		syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
		used := r1.Utime.Nano() + r1.Stime.Nano() - r0.Utime.Nano() - r0.Stime.Nano()
		b.ReportMetric(float64(used)/1e6/float64(b.N), "cpu-ms/op")
	}
	b.Run("tree", func(b *testing.B) {
		cpu(b, func() {
			if _, _, err := m.Fetch(ctx, s, 30*time.Second, platform.TreeOptions{MaxNodes: core.MaxMaxNodes, Actions: true}); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("capture", func(b *testing.B) {
		cpu(b, func() {
			if _, _, err := desk.CaptureWindow(ctx, win); err != nil {
				b.Fatal(err)
			}
		})
	})
	off, half := false, 683
	for _, c := range []struct {
		name string
		req  core.ScreenshotRequest
	}{{"annotated", core.ScreenshotRequest{}}, {"clean", core.ScreenshotRequest{Annotate: &off}}, {"maxWidth683", core.ScreenshotRequest{MaxWidth: &half}}} {
		b.Run(c.name, func(b *testing.B) {
			var size int
			cpu(b, func() {
				shot, err := m.Screenshot(ctx, s.ID, c.req)
				if err != nil {
					b.Fatal(err)
				}
				size = shot.Bytes
			})
			b.ReportMetric(float64(size), "png-bytes")
		})
	}
	b.Run("mcp", func(b *testing.B) {
		srv := startMCP(b, d, "")
		sess := srv.connect(b, map[string]any{"pid": app.Pid})
		b.ResetTimer()
		for range b.N {
			res, err := srv.cs.CallTool(ctx, &mcp.CallToolParams{Name: "screenshot", Arguments: map[string]any{"session": sess}})
			if err != nil || res.IsError {
				b.Fatalf("screenshot: %v %+v", err, res)
			}
		}
	})
}
