//go:build linux

package x11

import (
	"errors"
	"image"
	"image/color"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/uiscope/uiscope/internal/platform"
)

// painter is an application of the test's own: a window with no
// background that paints its pattern whenever the server exposes part of
// it, as real applications do, unless frozen.
type painter struct {
	t      *testing.T
	xc     *xgb.Conn
	win    xproto.Window
	gcs    [3]xproto.Gcontext
	w, h   int
	frozen atomic.Bool
}

// The pattern: left half red, right half blue, a yellow band at x 100..109.
var (
	red    = color.RGBA{0xff, 0, 0, 0xff}
	blue   = color.RGBA{0, 0, 0xff, 0xff}
	yellow = color.RGBA{0xff, 0xff, 0, 0xff}
	green  = color.RGBA{0, 0xff, 0, 0xff}
)

func (p *painter) want(x, y int) color.RGBA {
	switch {
	case x >= 100 && x < 110:
		return yellow
	case x < p.w/2:
		return red
	}
	return blue
}

func newPainter(t *testing.T, display string, x, y, w, h int) *painter {
	t.Helper()
	xc, err := xgb.NewConnDisplay(display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(xc.Close)
	root := xproto.Setup(xc).DefaultScreen(xc).Root
	p := &painter{t: t, xc: xc, w: w, h: h}
	p.win, _ = xproto.NewWindowId(xc)
	// No background: an exposed part keeps whatever was there until the
	// application paints it, as with GTK.
	err = xproto.CreateWindowChecked(xc, 0, p.win, root, int16(x), int16(y), uint16(w), uint16(h), 0,
		xproto.WindowClassInputOutput, 0, xproto.CwBackPixmap|xproto.CwOverrideRedirect|xproto.CwEventMask,
		[]uint32{xproto.BackPixmapNone, 1, xproto.EventMaskExposure}).Check()
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []uint32{0xff0000, 0x0000ff, 0xffff00} {
		p.gcs[i], _ = xproto.NewGcontextId(xc)
		if err := xproto.CreateGCChecked(xc, p.gcs[i], xproto.Drawable(p.win), xproto.GcForeground, []uint32{c}).Check(); err != nil {
			t.Fatal(err)
		}
	}
	exposed := make(chan struct{}, 1)
	go func() {
		for {
			ev, err := xc.WaitForEvent()
			if ev == nil && err == nil {
				return
			}
			if _, ok := ev.(xproto.ExposeEvent); ok && !p.frozen.Load() {
				p.paint()
				select {
				case exposed <- struct{}{}:
				default:
				}
			}
		}
	}()
	if err := xproto.MapWindowChecked(xc, p.win).Check(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exposed:
	case <-time.After(30 * time.Second):
		t.Fatal("the painter's window was never exposed")
	}
	return p
}

func (p *painter) paint() {
	half := uint16(p.w / 2)
	xproto.PolyFillRectangle(p.xc, xproto.Drawable(p.win), p.gcs[0], []xproto.Rectangle{{X: 0, Y: 0, Width: half, Height: uint16(p.h)}})
	xproto.PolyFillRectangle(p.xc, xproto.Drawable(p.win), p.gcs[1], []xproto.Rectangle{{X: int16(half), Y: 0, Width: uint16(p.w) - half, Height: uint16(p.h)}})
	xproto.PolyFillRectangle(p.xc, xproto.Drawable(p.win), p.gcs[2], []xproto.Rectangle{{X: 100, Y: 0, Width: 10, Height: uint16(p.h)}})
	xproto.GetInputFocus(p.xc).Reply() // flushed and done
}

// cover maps a plain green window over a screen rectangle.
func cover(t *testing.T, c *client, x, y, w, h int) xproto.Window {
	t.Helper()
	win, _ := xproto.NewWindowId(c.xc)
	err := xproto.CreateWindowChecked(c.xc, 0, win, c.root, int16(x), int16(y), uint16(w), uint16(h), 0,
		xproto.WindowClassInputOutput, 0, xproto.CwBackPixel|xproto.CwOverrideRedirect, []uint32{0x00ff00, 1}).Check()
	if err != nil {
		t.Fatal(err)
	}
	if err := xproto.MapWindowChecked(c.xc, win).Check(); err != nil {
		t.Fatal(err)
	}
	return win
}

// checkPattern compares every pixel of a capture with the painter's
// pattern, reporting the first few that differ.
func checkPattern(t *testing.T, p *painter, img *image.RGBA) {
	t.Helper()
	if img.Rect.Dx() != p.w || img.Rect.Dy() != p.h {
		t.Fatalf("capture is %dx%d, the window %dx%d", img.Rect.Dx(), img.Rect.Dy(), p.w, p.h)
	}
	bad := 0
	for y := 0; y < p.h; y++ {
		for x := 0; x < p.w; x++ {
			if got, want := img.RGBAAt(x, y), p.want(x, y); got != want {
				if bad < 5 {
					t.Errorf("pixel %d,%d = %v, want %v", x, y, got, want)
				}
				bad++
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d pixels differ from the window's pattern", bad, p.w*p.h)
	}
}

func TestCaptureWindow(t *testing.T) {
	display, _ := startXvfb(t)
	ctx := ctxT(t)
	conn, err := Open(display)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	other := newClient(t, display)

	t.Run("visible", func(t *testing.T) {
		p := newPainter(t, display, 20, 30, 300, 200)
		img, at, err := conn.CaptureWindow(ctx, uint32(p.win))
		if err != nil {
			t.Fatal(err)
		}
		if want := (platform.Rect{X: 20, Y: 30, Width: 300, Height: 200}); at != want {
			t.Errorf("at = %+v, want %+v", at, want)
		}
		checkPattern(t, p, img)
	})

	t.Run("covered at the first capture", func(t *testing.T) {
		p := newPainter(t, display, 400, 30, 300, 200)
		cv := cover(t, other, 450, 60, 120, 100) // over red, the yellow band and blue
		defer xproto.DestroyWindow(other.xc, cv)
		// The screen shows green there: what a plain GetImage would read.
		img, _, err := conn.CaptureWindow(ctx, uint32(p.win))
		if err != nil {
			t.Fatal(err)
		}
		checkPattern(t, p, img)
		if got := img.RGBAAt(60, 40); got == green {
			t.Errorf("the covered pixel 60,40 is the cover's green")
		}
	})

	t.Run("covered after the first capture", func(t *testing.T) {
		p := newPainter(t, display, 20, 300, 300, 200)
		if _, _, err := conn.CaptureWindow(ctx, uint32(p.win)); err != nil {
			t.Fatal(err)
		}
		cv := cover(t, other, 0, 320, 200, 100)
		defer xproto.DestroyWindow(other.xc, cv)
		img, _, err := conn.CaptureWindow(ctx, uint32(p.win))
		if err != nil {
			t.Fatal(err)
		}
		checkPattern(t, p, img)
	})

	// Several captures of one window at once, its first among them: each
	// gets the window's pixels (one redirects it, the others wait for it).
	t.Run("first captures at once", func(t *testing.T) {
		for round := range 3 {
			p := newPainter(t, display, 40+round*10, 320, 300, 200)
			cv := cover(t, other, 60, 340, 120, 100)
			var wg sync.WaitGroup
			errs := make([]error, 4)
			imgs := make([]*image.RGBA, 4)
			for i := range errs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					imgs[i], _, errs[i] = conn.CaptureWindow(ctx, uint32(p.win))
				}()
			}
			wg.Wait()
			xproto.DestroyWindow(other.xc, cv)
			for i, err := range errs {
				if err != nil {
					t.Fatalf("round %d, capture %d of 4 at once: %v", round, i, err)
				}
				checkPattern(t, p, imgs[i])
			}
		}
	})

	t.Run("partly off screen", func(t *testing.T) {
		p := newPainter(t, display, 900, 600, 300, 200) // the screen is 1024x768
		img, _, err := conn.CaptureWindow(ctx, uint32(p.win))
		if err != nil {
			t.Fatal(err)
		}
		checkPattern(t, p, img)
	})

	t.Run("frozen and covered", func(t *testing.T) {
		p := newPainter(t, display, 400, 300, 300, 200)
		cv := cover(t, other, 420, 320, 100, 100)
		defer xproto.DestroyWindow(other.xc, cv)
		p.frozen.Store(true)
		start := time.Now()
		_, _, err := conn.CaptureWindow(ctx, uint32(p.win))
		if !errors.Is(err, platform.ErrTimeout) {
			t.Fatalf("capture of a covered window whose application does not repaint: %v, want ErrTimeout", err)
		}
		if d := time.Since(start); d > repaintTimeout+10*time.Second {
			t.Errorf("the capture took %v", d)
		}
		// Once it paints again, the next capture starts over and succeeds.
		p.frozen.Store(false)
		img, _, err := conn.CaptureWindow(ctx, uint32(p.win))
		if err != nil {
			t.Fatal(err)
		}
		checkPattern(t, p, img)
	})

	t.Run("unmapped, minimized, gone", func(t *testing.T) {
		p := newPainter(t, display, 20, 550, 100, 100)
		if _, _, err := conn.CaptureWindow(ctx, uint32(p.win)); err != nil {
			t.Fatal(err)
		}
		if err := xproto.UnmapWindowChecked(p.xc, p.win).Check(); err != nil {
			t.Fatal(err)
		}
		_, _, err := conn.CaptureWindow(ctx, uint32(p.win))
		if !errors.Is(err, platform.ErrWindowHidden) {
			t.Errorf("unmapped window: %v, want ErrWindowHidden", err)
		}
		// Minimized, as ICCCM says: unmapped with WM_STATE Iconic.
		st := make([]byte, 8)
		xgb.Put32(st, wmStateIconic)
		other.setProp(p.win, other.atom("WM_STATE"), other.atom("WM_STATE"), 32, st)
		_, _, err = conn.CaptureWindow(ctx, uint32(p.win))
		if !errors.Is(err, platform.ErrWindowHidden) || !strings.Contains(err.Error(), "minimized") {
			t.Errorf("minimized window: %v, want ErrWindowHidden saying minimized", err)
		}
		if err := xproto.DestroyWindowChecked(p.xc, p.win).Check(); err != nil {
			t.Fatal(err)
		}
		_, _, err = conn.CaptureWindow(ctx, uint32(p.win))
		if !errors.Is(err, platform.ErrElementGone) {
			t.Errorf("destroyed window: %v, want ErrElementGone", err)
		}
		conn.mu.Lock()
		_, kept := conn.shots.redirected[p.win]
		conn.mu.Unlock()
		if kept {
			t.Errorf("a destroyed window is still remembered as redirected")
		}
	})
}
