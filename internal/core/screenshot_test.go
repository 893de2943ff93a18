package core

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
	"github.com/uiscope/uiscope/internal/security"
)

// The screenshot tests run the core against the fake desktop with a
// synthetic capture: the window's pixels are a pattern that no colour of
// the annotation or of the redaction bar can come from.

const shotPid = 777

var shotWin = platform.Rect{X: 100, Y: 50, Width: 400, Height: 300}

// shotWinID is the fake's id of the login window (the first window added).
var shotWinID platform.WindowID

// patternAt is the login window's pixel at image point x, y.
func patternAt(x, y int) color.RGBA { return fake.Pixel(shotWinID, x, y) }

// captures counts the fake's window captures.
func captures(d *fake.Desktop) int {
	n := 0
	for _, c := range d.Calls() {
		if c.Name == "CaptureWindow" {
			n++
		}
	}
	return n
}

func shotTree() *platform.Node {
	el := func(key, r, name string, b platform.Rect, actions []string, kids ...*platform.Node) *platform.Node {
		return &platform.Node{Key: key, Role: fake.Role(r), Name: name, States: fake.Shown, Bounds: &b,
			Interfaces: []string{"component"}, Actions: actions, ChildCount: len(kids), Children: kids}
	}
	pw := el("pw", "password text", "secret-name", platform.Rect{X: 140, Y: 150, Width: 200, Height: 30}, nil)
	pw.States |= fake.States("focusable", "editable")
	hidden := el("hid", "text", "", platform.Rect{X: 140, Y: 200, Width: 200, Height: 30}, nil)
	hidden.Redacted = true
	panel := el("panel", "panel", "", platform.Rect{X: 120, Y: 80, Width: 360, Height: 250}, nil,
		el("ok", "push button", "OK", platform.Rect{X: 140, Y: 90, Width: 80, Height: 30}, []string{"click"}),
		el("cancel", "push button", "Cancel", platform.Rect{X: 240, Y: 90, Width: 80, Height: 30}, []string{"click"}),
		pw, hidden,
		el("away", "push button", "Offscreen", platform.Rect{X: 900, Y: 900, Width: 80, Height: 30}, []string{"click"}))
	frame := el("frame", "frame", "Login", shotWin, nil, panel)
	return fake.Root("login", frame)
}

func newShotSessions(t *testing.T) (*Sessions, *Session, *fake.Desktop) {
	t.Helper()
	d := fake.New()
	d.AddApp(fake.App{Pid: shotPid, Name: "login", Toolkit: "GTK", ToolkitVersion: "3.24", Tree: shotTree()})
	shotWinID = d.AddWindow(shotPid, "Login", shotWin)
	m := NewSessions(d.Platform())
	s, err := m.Connect(context.Background(), AppSpec{Pid: shotPid}, ModeA11y)
	if err != nil {
		t.Fatal(err)
	}
	return m, s, d
}

func decodePNG(t *testing.T, b []byte) *image.RGBA {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the screenshot is no PNG: %v", err)
	}
	out := image.NewRGBA(img.Bounds())
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			out.Set(x, y, img.At(x, y))
		}
	}
	return out
}

// uniform reports whether r of img is all c, and the first pixel that is not.
func uniform(img *image.RGBA, r image.Rectangle, c color.RGBA) (bool, image.Point, color.RGBA) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if got := img.RGBAAt(x, y); got != c {
				return false, image.Pt(x, y), got
			}
		}
	}
	return true, image.Point{}, color.RGBA{}
}

func TestScreenshotAnnotatedAndRedacted(t *testing.T) {
	m, s, _ := newShotSessions(t)
	shot, err := m.Screenshot(context.Background(), s.ID, ScreenshotRequest{})
	if err != nil {
		t.Fatal(err)
	}
	img := decodePNG(t, shot.PNG)
	if shot.Width != 400 || shot.Height != 300 || img.Rect.Dx() != 400 || img.Rect.Dy() != 300 || shot.Scale != 1 {
		t.Fatalf("image %v, result %dx%d scale %v; want the window's 400x300 at scale 1", img.Rect, shot.Width, shot.Height, shot.Scale)
	}
	if shot.IdsFrom != "a11y" || shot.Bounds != shotWin || shot.Redacted != 2 || shot.Bytes != len(shot.PNG) {
		t.Errorf("result %+v", shot)
	}
	// Both hidden fields are one grey bar over their bounds (in image
	// coordinates: screen minus the window's origin), inside the box lines
	// (a label may lie on a bar: it is plain ground), and no pixel of the
	// window shows through.
	for _, b := range []image.Rectangle{image.Rect(40, 100, 240, 130), image.Rect(40, 150, 240, 180)} {
		grey := 0
		for y := b.Min.Y + 3; y < b.Max.Y-3; y++ {
			for x := b.Min.X + 3; x < b.Max.X-3; x++ {
				switch c := img.RGBAAt(x, y); c {
				case redactGrey:
					grey++
				case patternAt(x, y):
					t.Fatalf("redacted field %v: pixel %d,%d is the window's own", b, x, y)
				}
			}
		}
		if n := (b.Dx() - 6) * (b.Dy() - 6); grey < n*3/4 {
			t.Errorf("redacted field %v: only %d of %d pixels are the bar's grey", b, grey, n)
		}
	}
	// Boxes where the tree says: OK at 140,90 80x30 screen = 40,40 in the image.
	byName := map[string]Annotation{}
	for i, a := range shot.Annotations {
		byName[a.Name] = a
		if !strings.HasPrefix(a.Ref, "a11y:e") || a.Label != i+1 {
			t.Errorf("annotation %+v: not numbered %d, or not an a11y ref", a, i+1)
		}
		if _, _, _, err := s.Resolve(a.Ref); err != nil {
			t.Errorf("annotation ref %s does not resolve in the session: %v", a.Ref, err)
		}
	}
	ok, found := byName["OK"]
	if !found {
		t.Fatalf("OK is not annotated: %+v", shot.Annotations)
	}
	if want := (platform.Rect{X: 40, Y: 40, Width: 80, Height: 30}); ok.Box != want {
		t.Errorf("OK's box %+v, want %+v", ok.Box, want)
	}
	if _, found := byName["Offscreen"]; found {
		t.Errorf("an element outside the window is annotated")
	}
	for _, a := range shot.Annotations {
		if a.Role == "panel" || a.Role == "frame" {
			t.Errorf("container %+v is annotated", a)
		}
	}
	// The box's line: its left edge, halfway down, in a palette colour;
	// just outside it the white rim; inside the line the window's pixel.
	edge := img.RGBAAt(40, 55)
	inPalette := false
	for _, c := range palette {
		inPalette = inPalette || edge == c
	}
	if !inPalette {
		t.Errorf("pixel 40,55 on OK's left edge is %v, not a box colour", edge)
	}
	if got := img.RGBAAt(39, 55); got != white {
		t.Errorf("pixel 39,55 just outside OK's box is %v, want the white rim", got)
	}
	if got, want := img.RGBAAt(60, 60), patternAt(60, 60); got != want {
		t.Errorf("pixel 60,60 inside OK's box is %v, want the window's %v", got, want)
	}
	// The label: a tag of the box's colour with white text, above the box.
	tag := image.Rect(40, 20, 60, 38)
	colours := map[color.RGBA]int{}
	for y := tag.Min.Y; y < tag.Max.Y; y++ {
		for x := tag.Min.X; x < tag.Max.X; x++ {
			colours[img.RGBAAt(x, y)]++
		}
	}
	if colours[edge] == 0 || colours[white] == 0 {
		t.Errorf("no label tag above OK's box (colours there: %v)", colours)
	}
}

func TestScreenshotClean(t *testing.T) {
	m, s, _ := newShotSessions(t)
	off := false
	shot, err := m.Screenshot(context.Background(), s.ID, ScreenshotRequest{Annotate: &off})
	if err != nil {
		t.Fatal(err)
	}
	img := decodePNG(t, shot.PNG)
	if len(shot.Annotations) != 0 {
		t.Errorf("annotate false listed %d annotations", len(shot.Annotations))
	}
	bars := []image.Rectangle{image.Rect(40, 100, 240, 130), image.Rect(40, 150, 240, 180)}
	for y := 0; y < 300; y++ {
		for x := 0; x < 400; x++ {
			want := patternAt(x, y)
			for _, b := range bars {
				if image.Pt(x, y).In(b) {
					want = redactGrey
				}
			}
			if got := img.RGBAAt(x, y); got != want {
				t.Fatalf("pixel %d,%d = %v, want %v: a clean image is the window with only the bars", x, y, got, want)
			}
		}
	}
}

func TestScreenshotMaxWidth(t *testing.T) {
	m, s, _ := newShotSessions(t)
	w := 200
	shot, err := m.Screenshot(context.Background(), s.ID, ScreenshotRequest{MaxWidth: &w})
	if err != nil {
		t.Fatal(err)
	}
	img := decodePNG(t, shot.PNG)
	if img.Rect.Dx() != 200 || img.Rect.Dy() != 150 || shot.Scale != 0.5 {
		t.Fatalf("scaled image %v scale %v, want 200x150 at 0.5", img.Rect, shot.Scale)
	}
	// The password field at 40,100 240x30 in the window is 20,50 100x15
	// scaled: a grey bar to its edges (labels may lie on it when annotated).
	off := false
	clean, err := m.Screenshot(context.Background(), s.ID, ScreenshotRequest{MaxWidth: &w, Annotate: &off})
	if err != nil {
		t.Fatal(err)
	}
	if ok, at, got := uniform(decodePNG(t, clean.PNG), image.Rect(20, 50, 120, 65), redactGrey); !ok {
		t.Errorf("scaled bar: pixel %v is %v", at, got)
	}
	for _, a := range shot.Annotations {
		if a.Name == "OK" && a.Box != (platform.Rect{X: 20, Y: 20, Width: 40, Height: 15}) {
			t.Errorf("OK's box at scale 0.5: %+v", a.Box)
		}
	}
	bad := 10
	if err := (&ScreenshotRequest{MaxWidth: &bad}).Validate(); AsError(err).Code != CodeInvalidArgument {
		t.Errorf("maxWidth 10: %v, want invalidArgument", err)
	}
}

func TestScreenshotElement(t *testing.T) {
	m, s, _ := newShotSessions(t)
	tr, _, err := m.Fetch(context.Background(), s, time.Second, platform.TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	panel, _ := tr.ByKey("panel")
	ref := tr.RefString(panel)
	shot, err := m.Screenshot(context.Background(), s.ID, ScreenshotRequest{Element: ref})
	if err != nil {
		t.Fatal(err)
	}
	img := decodePNG(t, shot.PNG)
	// The panel is 120,80 360x250 on screen, inside the window at 100,50.
	if img.Rect.Dx() != 360 || img.Rect.Dy() != 250 || shot.Bounds != (platform.Rect{X: 120, Y: 80, Width: 360, Height: 250}) || shot.Element != ref {
		t.Fatalf("element capture %v bounds %+v element %s", img.Rect, shot.Bounds, shot.Element)
	}
	if got, want := img.RGBAAt(200, 240), patternAt(220, 270); got != want {
		t.Errorf("cropped pixel 200,240 = %v, want the window's 220,270 %v", got, want)
	}
	off := false
	clean, err := m.Screenshot(context.Background(), s.ID, ScreenshotRequest{Element: ref, Annotate: &off})
	if err != nil {
		t.Fatal(err)
	}
	if ok, at, got := uniform(decodePNG(t, clean.PNG), image.Rect(20, 70, 220, 100), redactGrey); !ok {
		t.Errorf("bar in the element capture: pixel %v is %v", at, got)
	}
}

func TestScreenshotPathNeedsInput(t *testing.T) {
	m, s, d := newShotSessions(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "shot.png")
	_, err := m.Screenshot(context.Background(), s.ID, ScreenshotRequest{Path: path})
	if AsError(err).Code != CodeInputNotAllowed {
		t.Fatalf("path without input rights: %v, want inputNotAllowed", err)
	}
	if n := captures(d); n != 0 {
		t.Errorf("refused, yet the window was captured %d times", n)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("refused, yet the directory holds %v", ents)
	}
	m.Caps, m.ScreenshotDir = security.Input, dir
	shot, err := m.Screenshot(context.Background(), s.ID, ScreenshotRequest{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(b, shot.PNG) || shot.Path != path {
		t.Fatalf("file %s: %v (%d bytes, want %d)", path, err, len(b), len(shot.PNG))
	}
	// An existing file is never replaced, and no temporary file is left.
	_, err = m.Screenshot(context.Background(), s.ID, ScreenshotRequest{Path: path})
	if AsError(err).Code != CodeInvalidArgument || !strings.Contains(err.Error(), "exists") {
		t.Errorf("second write to %s: %v, want invalidArgument saying it exists", path, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("the directory holds %v, want only shot.png", ents)
	}
	for _, p := range []string{"rel.png", filepath.Join(dir, "x.txt")} {
		if err := (&ScreenshotRequest{Path: p}).Validate(); AsError(err).Code != CodeInvalidArgument {
			t.Errorf("path %q: %v, want invalidArgument", p, err)
		}
	}
	_, err = m.Screenshot(context.Background(), s.ID, ScreenshotRequest{Path: filepath.Join(dir, "no", "such", "dir.png")})
	if AsError(err).Code != CodeInvalidArgument {
		t.Errorf("a missing directory: %v, want invalidArgument", err)
	}
}

// TestScreenshotPathBounded: a path is written only in the server's
// screenshot directory or below it: not beside it, not through a symbolic
// link that leads out of it, and never without one; a name with a control
// character (a newline) is refused whatever its directory.
func TestScreenshotPathBounded(t *testing.T) {
	m, s, d := newShotSessions(t)
	m.Caps = security.Input
	base := t.TempDir()
	shots, outside := filepath.Join(base, "shots"), filepath.Join(base, "elsewhere")
	for _, dir := range []string{shots, filepath.Join(shots, "sub"), outside} {
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(shots, "link")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	code := func(err error) string {
		if e := AsError(err); e != nil {
			return e.Code
		}
		return "none (it succeeded)"
	}
	if _, err := m.Screenshot(ctx, s.ID, ScreenshotRequest{Path: filepath.Join(shots, "none.png")}); code(err) != CodeInputNotAllowed {
		t.Errorf("a path with no screenshot directory named: %v, want inputNotAllowed", err)
	}
	m.ScreenshotDir = shots
	for _, p := range []string{
		filepath.Join(outside, "out.png"),
		filepath.Join(shots, "..", "elsewhere", "dots.png"),
		filepath.Join(shots, "link", "linked.png"),
		filepath.Join(base, "beside.png"),
	} {
		if _, err := m.Screenshot(ctx, s.ID, ScreenshotRequest{Path: p}); code(err) != CodeInvalidArgument || !strings.Contains(code(err)+" "+errText(err), "screenshot directory") {
			t.Errorf("path %s outside %s: %v, want invalidArgument naming the directory", p, shots, err)
		}
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("%s holds %v after refusals", outside, ents)
	}
	if n := captures(d); n != 0 {
		t.Errorf("refused, yet the window was captured %d times", n)
	}
	for _, p := range []string{filepath.Join(shots, "a\nb.png"), filepath.Join(shots, "tab\t.png"), filepath.Join(shots, "esc\x1b[31m.png")} {
		if err := (&ScreenshotRequest{Path: p}).Validate(); code(err) != CodeInvalidArgument {
			t.Errorf("path %q: %v, want invalidArgument", p, err)
		}
	}
	for _, p := range []string{filepath.Join(shots, "in.png"), filepath.Join(shots, "sub", "below.png")} {
		if _, err := m.Screenshot(ctx, s.ID, ScreenshotRequest{Path: p}); err != nil {
			t.Errorf("path %s in the directory: %v", p, err)
		}
	}
}

func TestScreenshotFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, s, d := newShotSessions(t)
		m.Caps = security.Input
		if _, err := m.WindowAction(context.Background(), s.ID, "minimize"); err != nil {
			t.Fatal(err)
		}
		_, err := m.Screenshot(context.Background(), s.ID, ScreenshotRequest{})
		if e := AsError(err); e.Code != CodeWindowHidden || !strings.Contains(e.Msg, "minimized") {
			t.Errorf("minimized window: %v, want windowHidden saying minimized", err)
		}
		if _, err := m.WindowAction(context.Background(), s.ID, "restore"); err != nil {
			t.Fatal(err)
		}
		// A frozen app: its tree cannot be read, so no image (its hidden
		// fields could not be found), by the deadline.
		d.Freeze(shotPid, true)
		ms := 300
		start := time.Now()
		_, err = m.Screenshot(context.Background(), s.ID, ScreenshotRequest{TimeoutMs: &ms})
		if e := AsError(err); e.Code != CodeTimeout || !e.Retryable || !strings.Contains(e.Msg, "no image") {
			t.Errorf("frozen app: %v, want a retryable timeout saying no image is returned", err)
		}
		if el := time.Since(start); el > 5*time.Second {
			t.Errorf("frozen app: answered after %v", el)
		}
		d.Freeze(shotPid, false)
		// A redacted field that is showing without bounds cannot be covered.
		tr := NewTree(&platform.Node{Key: "r", Children: []*platform.Node{{Key: "p", Role: platform.RolePasswordText, States: fake.States("showing")}}}, KindA11y)
		if _, err := redactedBars(tr, shotWin); err == nil {
			t.Errorf("a showing password field without bounds was accepted")
		}
		// GTK 4 sets no showing state; a password field whose window could
		// not be told may be on screen all the same.
		tr = NewTree(&platform.Node{Key: "r", Children: []*platform.Node{{Key: "p", Role: platform.RolePasswordText, BoundsUnknown: true}}}, KindA11y)
		if _, err := redactedBars(tr, shotWin); err == nil {
			t.Errorf("a password field with unknown bounds was accepted")
		}
		desk := m.Desktop()
		desk.Pixels = nil
		bare := NewSessions(desk)
		bs, err := bare.Connect(context.Background(), AppSpec{Pid: shotPid}, ModeA11y)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := bare.Screenshot(context.Background(), bs.ID, ScreenshotRequest{}); !errors.Is(err, err) || AsError(err).Code != CodeNotSupported {
			t.Errorf("no Pixels part: %v, want notSupported", err)
		}
	})
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
