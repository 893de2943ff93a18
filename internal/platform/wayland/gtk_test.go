//go:build linux

package wayland

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/sway"
	"github.com/uiscope/uiscope/internal/sandbox"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// The tests here drive a GTK 3 app on headless sway with this package and
// check each effect outside it: grim's capture, the app's text over AT-SPI
// (the repo's testdata/probe.py, pyatspi), the fixture's event log.

// gtkDesk is the sandbox's headless sway with a GTK 3 fixture on it.
type gtkDesk struct {
	box  *sandbox.Desktop
	conn *Conn
	pid  int
	log  string
}

// testdata is a path in the repo's testdata folder.
func testdata(elem ...string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(append([]string{filepath.Dir(file), "..", "..", "..", "testdata"}, elem...)...)
}

func fixture(name string) string { return testdata("apps", name) }

func startGTK(t *testing.T) *gtkDesk {
	t.Helper()
	need(t, "sway", "grim", "swaymsg", "/usr/bin/python3")
	box := startSway(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	g := &gtkDesk{box: box, conn: dial(t, box), log: filepath.Join(t.TempDir(), "events.log")}
	// The seat announces a keyboard and a pointer from here on; the app
	// binds its own when it starts.
	if err := g.conn.EnsureDevices(ctx); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/usr/bin/python3", fixture("gtk3_fixture.py"), "--effects", "--log", g.log)
	cmd.Env = g.env()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	g.pid = cmd.Process.Pid
	g.until(t, "the fixture's window and tree", func() (bool, string) {
		select {
		case <-exited:
			t.Fatalf("the fixture exited: %s", stderr.String())
		default:
		}
		if _, err := g.window(ctx); err != nil {
			return false, err.Error()
		}
		out, err := g.probe(ctx, "Remember me", "extents")
		return err == nil, out
	})
	return g
}

// env is the desktop's environment (sway's display, no X display, the
// buses), for the app, the probe and grim.
func (g *gtkDesk) env() []string {
	return append(g.box.Env(), "AT_SPI_BUS_ADDRESS="+g.box.A11yBus)
}

// probe runs the repo's testdata/probe.py on the fixture's element with
// that name (any role).
func (g *gtkDesk) probe(ctx context.Context, name, what string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/usr/bin/python3", testdata("probe.py"), strconv.Itoa(g.pid), "", name, what)
	cmd.Env = g.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("probe %s %s: %v: %s", name, what, err, out)
	}
	return strings.TrimRight(string(out), "\n"), nil
}

// window is the screen rectangle of the fixture's surface, from sway's
// tree (swaymsg): the container's rect plus the surface's place in it.
func (g *gtkDesk) window(ctx context.Context) (image.Rectangle, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "swaymsg", "-s", g.box.SwaySock, "-r", "-t", "get_tree").Output()
	if err != nil {
		return image.Rectangle{}, fmt.Errorf("swaymsg: %w", err)
	}
	type rect struct{ X, Y, Width, Height int }
	type node struct {
		Pid        int
		Rect       rect
		WindowRect rect `json:"window_rect"`
		Nodes      []node
		Floating   []node `json:"floating_nodes"`
	}
	var root node
	if err := json.Unmarshal(out, &root); err != nil {
		return image.Rectangle{}, err
	}
	var find func(n node) (image.Rectangle, bool)
	find = func(n node) (image.Rectangle, bool) {
		if n.Pid == g.pid && n.WindowRect.Width > 0 {
			x, y := n.Rect.X+n.WindowRect.X, n.Rect.Y+n.WindowRect.Y
			return image.Rect(x, y, x+n.WindowRect.Width, y+n.WindowRect.Height), true
		}
		for _, c := range append(n.Nodes, n.Floating...) {
			if r, ok := find(c); ok {
				return r, true
			}
		}
		return image.Rectangle{}, false
	}
	if r, ok := find(root); ok {
		return r, nil
	}
	return image.Rectangle{}, fmt.Errorf("no window of pid %d in sway's tree", g.pid)
}

// centre is the screen point at the middle of a named element.
func (g *gtkDesk) centre(t *testing.T, name string) (int, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	win, err := g.window(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out, err := g.probe(ctx, name, "extents")
	if err != nil {
		t.Fatal(err)
	}
	var x, y, w, h int
	if _, err := fmt.Sscan(out, &x, &y, &w, &h); err != nil {
		t.Fatalf("extents %q: %v", out, err)
	}
	return win.Min.X + x + w/2, win.Min.Y + y + h/2
}

// until polls cond (a probe of another process's state) until it holds,
// failing the test after a minute with cond's last word.
func (g *gtkDesk) until(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	limit := time.Now().Add(60 * time.Second)
	for {
		ok, why := cond()
		if ok {
			return
		}
		if time.Now().After(limit) {
			t.Fatalf("%s: never happened: %s", what, why)
		}
		time.Sleep(50 * time.Millisecond) // poll interval, not a wait for an effect
	}
}

func (g *gtkDesk) logHas(line string) (bool, string) {
	b, _ := os.ReadFile(g.log)
	return slices.Contains(strings.Split(string(b), "\n"), line), fmt.Sprintf("log %q", b)
}

func TestSwayGTK(t *testing.T) {
	g := startGTK(t)

	t.Run("click", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		x, y := g.centre(t, "Remember me")
		if err := g.conn.Click(ctx, x, y, 1, 1); err != nil {
			t.Fatal(err)
		}
		g.until(t, "the check box toggled", func() (bool, string) { return g.logHas("toggled Remember me True") })
	})

	t.Run("type", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		x, y := g.centre(t, "Name")
		if err := g.conn.Click(ctx, x, y, 1, 1); err != nil {
			t.Fatal(err)
		}
		g.until(t, "the entry focused", func() (bool, string) { return g.logHas("focus Name") })
		for _, text := range []string{"Hello, World! 0123 ~`@#$%^&*()_+-=[]{};':\",./<>?|\\", " 中文 é Ωß€ 😀"} {
			n, err := g.conn.TypeText(ctx, text)
			if err != nil {
				t.Fatal(err)
			}
			if n != len([]rune(text)) {
				t.Fatalf("typed %d of %d characters", n, len([]rune(text)))
			}
		}
		want := "Hello, World! 0123 ~`@#$%^&*()_+-=[]{};':\",./<>?|\\ 中文 é Ωß€ 😀"
		g.until(t, "the text in the entry", func() (bool, string) {
			got, err := g.probe(ctx, "Name", "text")
			return err == nil && got == want, fmt.Sprintf("text %q, want %q (%v)", got, want, err)
		})
		// Select all and delete: a chord with a modifier.
		if err := g.conn.KeyChord(ctx, chord(t, "Ctrl+a")); err != nil {
			t.Fatal(err)
		}
		if err := g.conn.KeyChord(ctx, chord(t, "BackSpace")); err != nil {
			t.Fatal(err)
		}
		g.until(t, "the entry emptied", func() (bool, string) {
			got, err := g.probe(ctx, "Name", "text")
			return err == nil && got == "", fmt.Sprintf("text %q (%v)", got, err)
		})
		// A chord right after text that needed a new keymap: GTK matches
		// bindings against keycodes it learns from a keymap a while after
		// it arrives, so a chord's key keeps its keycode in every keymap.
		for i, extra := range []string{"中", "é€", "Ω"} {
			if _, err := g.conn.TypeText(ctx, "hi"+extra); err != nil {
				t.Fatal(err)
			}
			if err := g.conn.KeyChord(ctx, chord(t, "Ctrl+a")); err != nil {
				t.Fatal(err)
			}
			if err := g.conn.KeyChord(ctx, chord(t, "BackSpace")); err != nil {
				t.Fatal(err)
			}
			g.until(t, fmt.Sprintf("the entry emptied by Ctrl+a after a new keymap (%d)", i), func() (bool, string) {
				got, err := g.probe(ctx, "Name", "text")
				return err == nil && got == "", fmt.Sprintf("text %q (%v)", got, err)
			})
		}
		// A hundred characters, timed for the record.
		text := strings.Repeat("abcdefghij", 10)
		start := time.Now()
		if _, err := g.conn.TypeText(ctx, text); err != nil {
			t.Fatal(err)
		}
		sent := time.Since(start)
		g.until(t, "100 characters in the entry", func() (bool, string) {
			got, err := g.probe(ctx, "Name", "text")
			return err == nil && got == text, fmt.Sprintf("text %q (%v)", got, err)
		})
		t.Logf("TypeText of 100 characters: %v until the compositor had them all", sent.Round(time.Microsecond))
	})

	t.Run("capture", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		outs, err := g.conn.Outputs(ctx)
		if err != nil || len(outs) != 1 {
			t.Fatalf("outputs %v, %v", outs, err)
		}
		// grim before and after: when its two captures agree the screen
		// held still, and this package's must be the same to the pixel.
		// A text cursor blinking changes the screen: try again then.
		x, y := g.centre(t, "Remember me")
		if err := g.conn.Click(ctx, x, y, 1, 1); err != nil { // the focus off the entry
			t.Fatal(err)
		}
		var img *image.RGBA
		var took time.Duration
		g.until(t, "a capture equal to grim's", func() (bool, string) {
			before := g.grim(t)
			start := time.Now()
			var err error
			img, err = g.conn.Capture(ctx, outs[0], image.Rectangle{})
			took = time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			after := g.grim(t)
			if img.Bounds() != before.Bounds() {
				t.Fatalf("capture is %v, grim's %v", img.Bounds(), before.Bounds())
			}
			diff, moving := 0, 0
			b := img.Bounds()
			for y := b.Min.Y; y < b.Max.Y; y++ {
				for x := b.Min.X; x < b.Max.X; x++ {
					r1, g1, b1, _ := before.At(x, y).RGBA()
					r2, g2, b2, _ := after.At(x, y).RGBA()
					if r1 != r2 || g1 != g2 || b1 != b2 {
						moving++
					}
					c := img.RGBAAt(x, y)
					if uint32(c.R)*0x101 != r1 || uint32(c.G)*0x101 != g1 || uint32(c.B)*0x101 != b1 {
						diff++
					}
				}
			}
			return moving == 0 && diff == 0, fmt.Sprintf("%d pixels differ from grim's, %d changed between grim's two captures", diff, moving)
		})
		// A region around the check box is the same part of the output.
		r := image.Rect(x-40, y-10, x+40, y+10)
		part, err := g.conn.Capture(ctx, outs[0], r)
		if err != nil {
			t.Fatal(err)
		}
		if part.Bounds().Dx() != 80 || part.Bounds().Dy() != 20 {
			t.Fatalf("region capture is %v", part.Bounds())
		}
		for py := range 20 {
			for px := range 80 {
				if part.RGBAAt(px, py) != img.RGBAAt(r.Min.X+px, r.Min.Y+py) {
					t.Fatalf("region pixel (%d,%d) is %v, the output's %v", px, py, part.RGBAAt(px, py), img.RGBAAt(r.Min.X+px, r.Min.Y+py))
				}
			}
		}
		t.Logf("capture of the 1280x800 output: %v", took.Round(time.Microsecond))
	})

	t.Run("window", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		b := NewBackend(filepath.Join(g.box.RuntimeDir, g.box.WaylandDisplay), sway.New(g.box.SwaySock))
		defer b.Close()
		win := g.swayWindow(t)
		want, err := g.window(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var img *image.RGBA
		var at platform.Rect
		var took time.Duration
		g.until(t, "a window capture equal to grim's", func() (bool, string) {
			before := g.grimRegion(t, want)
			var err error
			start := time.Now()
			img, at, err = b.CaptureWindow(ctx, win)
			took = time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			after := g.grimRegion(t, want)
			if at != (platform.Rect{X: want.Min.X, Y: want.Min.Y, Width: want.Dx(), Height: want.Dy()}) {
				t.Fatalf("captured at %v, sway says the window is %v", at, want)
			}
			moving, diff := compare(before, after), compare(before, img)
			return moving == 0 && diff == 0, fmt.Sprintf("%d pixels differ from grim's, %d changed between grim's two captures", diff, moving)
		})
		t.Logf("capture of the %dx%d window: %v", at.Width, at.Height, took.Round(time.Microsecond))

		// A dialog that floats over the window: its capture would show the
		// dialog's pixels, so it is refused.
		x, y := g.centre(t, "Open dialog")
		if err := g.conn.Click(ctx, x, y, 1, 1); err != nil {
			t.Fatal(err)
		}
		g.until(t, "the dialog open", func() (bool, string) { return g.logHas("dialog-open") })
		g.until(t, "the capture refused", func() (bool, string) {
			_, _, err := b.CaptureWindow(ctx, win)
			return errors.Is(err, ErrCovered), fmt.Sprint(err)
		})
		if _, _, err := b.CaptureWindow(ctx, platform.Window{ID: platform.SwayWindowID(999999)}); !errors.Is(err, platform.ErrElementGone) {
			t.Errorf("a window that does not exist: %v", err)
		}
	})
}

// swayWindow is the fixture's main window as the platform names it.
func (g *gtkDesk) swayWindow(t *testing.T) platform.Window {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	wins, err := sway.New(g.box.SwaySock).Windows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range wins {
		if w.Pid == g.pid {
			return platform.Window{ID: w.ID(), Pid: w.Pid, Title: w.Title}
		}
	}
	t.Fatalf("no sway window of pid %d in %+v", g.pid, wins)
	return platform.Window{}
}

// compare counts the pixels that differ between two images of one size.
func compare(a, b image.Image) int {
	if a.Bounds().Size() != b.Bounds().Size() {
		return a.Bounds().Dx() * a.Bounds().Dy()
	}
	n := 0
	ao, bo := a.Bounds().Min, b.Bounds().Min
	for y := 0; y < a.Bounds().Dy(); y++ {
		for x := 0; x < a.Bounds().Dx(); x++ {
			r1, g1, b1, _ := a.At(ao.X+x, ao.Y+y).RGBA()
			r2, g2, b2, _ := b.At(bo.X+x, bo.Y+y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 {
				n++
			}
		}
	}
	return n
}

// grim captures the output with grim, as a reference outside this package.
func (g *gtkDesk) grim(t *testing.T) image.Image {
	t.Helper()
	return g.grimRegion(t, image.Rectangle{})
}

// grimRegion captures a part of the screen with grim (the whole output
// when r is empty).
func (g *gtkDesk) grimRegion(t *testing.T, r image.Rectangle) image.Image {
	t.Helper()
	return testdesk.Grim(t, g.env(), r)
}

func chord(t *testing.T, s string) platform.Chord {
	c, err := platform.ParseChord(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
