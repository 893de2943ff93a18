//go:build linux

package x11

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"math/bits"
	"time"

	"github.com/jezek/xgb/composite"
	"github.com/jezek/xgb/damage"
	"github.com/jezek/xgb/xfixes"
	"github.com/jezek/xgb/xproto"

	"github.com/uiscope/uiscope/internal/platform"
)

// Window capture.
//
// GetImage of a window returns what the screen shows there: where another
// window covers it, the other window's pixels. So windows are captured
// through the Composite extension: a window redirected (automatic mode, the
// screen looks the same) renders into a pixmap of its own, complete whatever
// lies in front of it, which NameWindowPixmap names and GetImage reads.
//
// A window stays redirected for the life of the connection once captured:
// redirection costs the server one pixmap, and undoing it would make the
// next capture wait for a repaint again. At the moment of redirection the
// server fills the new pixmap from what the screen showed, then exposes the
// parts that were covered or off screen, which the application repaints.
// Until it has, those parts hold the cover's pixels. So before redirecting
// a window that is not wholly on screen, a Damage object is put on it, and
// the capture waits until the application has drawn over every hidden part
// (polled with DamageSubtract into an XFixes region, which needs no
// events). An application that does not repaint in time (busy, frozen) gets
// an ErrTimeout rather than another window's pixels in its image.

// captureState is what the connection remembers about capturing.
type captureState struct {
	// Extensions: 0 not yet probed, 1 usable, -1 absent.
	compState, damageState, fixesState int
	// redirected holds the windows redirected on this connection, with
	// the size they had when their pixmap was last known to be complete.
	redirected map[xproto.Window]size
	// slot is held by the capture under way.
	slot chan struct{}
}

type size struct{ w, h int }

// How a first capture of a covered window waits for its repaint: at most
// repaintTimeout, and once the application has drawn something, until it
// is quiet for repaintQuiet (it may have been asked to paint less than
// looked hidden, e.g. under a shaped window).
const (
	repaintTimeout = 3 * time.Second
	repaintQuiet   = 300 * time.Millisecond
	repaintPoll    = 20 * time.Millisecond
)

// CaptureWindow returns the content of window id and where its top-left
// pixel lies on the screen. A window that is not viewable (minimized, or
// unmapped) fails with platform.ErrWindowHidden; one that no longer exists
// with platform.ErrElementGone.
func (c *Conn) CaptureWindow(ctx context.Context, id uint32) (*image.RGBA, platform.Rect, error) {
	type shot struct {
		img *image.RGBA
		at  platform.Rect
	}
	s, err := call(ctx, func(ctx context.Context) (shot, error) {
		// One capture at a time on a connection: two first captures of
		// one window would both redirect it and wait for its repaint, and
		// the extensions are set up by the first capture of all.
		slot := c.captureSlot()
		select {
		case slot <- struct{}{}:
		case <-ctx.Done():
			return shot{}, fmt.Errorf("x11: waiting for another capture: %w", ctx.Err())
		}
		defer func() { <-slot }()
		img, at, err := c.capture(ctx, xproto.Window(id))
		return shot{img, at}, err
	})
	return s.img, s.at, err
}

// captureSlot is the token a capture holds (CaptureWindow).
func (c *Conn) captureSlot() chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.shots.slot == nil {
		c.shots.slot = make(chan struct{}, 1)
	}
	return c.shots.slot
}

// winInfo is what a capture needs to know about the window.
type winInfo struct {
	at     platform.Rect // on screen
	border int
	format pixelFormat
}

func (c *Conn) capture(ctx context.Context, w xproto.Window) (*image.RGBA, platform.Rect, error) {
	ok, err := c.initCapture()
	if err != nil {
		return nil, platform.Rect{}, err
	}
	if !ok {
		return nil, platform.Rect{}, fmt.Errorf("%w: the X server lacks Composite 0.2, DAMAGE or XFIXES 2, without which a covered window cannot be captured", platform.ErrNotSupported)
	}
	for attempt := 0; ; attempt++ {
		img, at, err := c.captureOnce(ctx, w)
		// A window id recycled since an earlier capture names a window the
		// server never redirected for this connection: start over once.
		if errors.Is(err, errNotRedirected) && attempt == 0 {
			c.forget(w)
			continue
		}
		return img, at, err
	}
}

// errNotRedirected: NameWindowPixmap refused a window this connection had redirected.
var errNotRedirected = errors.New("the window is not redirected")

func (c *Conn) captureOnce(ctx context.Context, w xproto.Window) (*image.RGBA, platform.Rect, error) {
	info, err := c.windowInfo(ctx, w)
	if err != nil {
		if errors.Is(err, platform.ErrElementGone) {
			c.forget(w) // the server dropped its redirection with it
		}
		return nil, platform.Rect{}, err
	}
	sz := size{info.at.Width, info.at.Height}
	c.mu.Lock()
	known, redirected := c.shots.redirected[w]
	c.mu.Unlock()
	if !redirected {
		img, err := c.redirect(ctx, w, info)
		if err != nil {
			return nil, platform.Rect{}, err
		}
		c.setRedirected(w, sz)
		return img, info.at, nil
	}
	if known != sz {
		// Resized since its pixmap was last seen complete: the server made
		// a new pixmap from the screen, and the application repaints it
		// all on a resize; read until two reads agree.
		img, err := c.awaitStable(ctx, w, info)
		if err != nil {
			return nil, platform.Rect{}, err
		}
		c.setRedirected(w, sz)
		return img, info.at, nil
	}
	img, err := c.readPixmap(w, info)
	return img, info.at, err
}

// redirect redirects a window and reads it once every part the screen did
// not show has been repainted.
func (c *Conn) redirect(ctx context.Context, w xproto.Window, info winInfo) (*image.RGBA, error) {
	hidden, err := c.hiddenParts(ctx, w, info.at)
	if err != nil {
		return nil, err
	}
	var dmg damage.Damage
	var region xfixes.Region
	if len(hidden) > 0 {
		if dmg, err = damage.NewDamageId(c.xc); err == nil {
			region, err = xfixes.NewRegionId(c.xc)
		}
		if err != nil {
			return nil, fmt.Errorf("x11: allocating ids: %w", err)
		}
		if err := damage.CreateChecked(c.xc, dmg, xproto.Drawable(w), damage.ReportLevelNonEmpty).Check(); err != nil {
			if isXError(err) {
				return nil, gone(uint32(w))
			}
			return nil, fmt.Errorf("x11: watching window %#x for damage: %w", uint32(w), err)
		}
		defer damage.Destroy(c.xc, dmg)
		if err := xfixes.CreateRegionChecked(c.xc, region, nil).Check(); err != nil {
			return nil, fmt.Errorf("x11: creating a region: %w", err)
		}
		defer xfixes.DestroyRegion(c.xc, region)
	}
	if err := composite.RedirectWindowChecked(c.xc, w, composite.RedirectAutomatic).Check(); err != nil {
		if isXError(err) {
			return nil, fmt.Errorf("x11: window %#x cannot be redirected (%v): %w", uint32(w), err, platform.ErrNotSupported)
		}
		return nil, fmt.Errorf("x11: redirecting window %#x: %w", uint32(w), err)
	}
	if len(hidden) == 0 {
		return c.readPixmap(w, info)
	}
	img, err := c.awaitRepaint(ctx, w, info, dmg, region, hidden)
	if err != nil {
		// Start over next time, with a fresh expose.
		composite.UnredirectWindow(c.xc, w, composite.RedirectAutomatic)
		return nil, err
	}
	return img, nil
}

func (c *Conn) setRedirected(w xproto.Window, sz size) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.shots.redirected == nil {
		c.shots.redirected = map[xproto.Window]size{}
	}
	c.shots.redirected[w] = sz
}

// forget drops a window whose redirection was undone.
func (c *Conn) forget(w xproto.Window) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.shots.redirected, w)
}

// initCapture registers the extensions capture needs, once, and
// negotiates their versions (the server refuses requests of a version a
// client did not ask for): Composite 0.2 for NameWindowPixmap, DAMAGE 1.1,
// XFIXES 2 for regions. The xgb Init functions are avoided as in extension.
func (c *Conn) initCapture() (bool, error) {
	c.mu.Lock()
	st := c.shots.compState
	c.mu.Unlock()
	if st != 0 {
		return st > 0, nil
	}
	result := -1
	defer func() {
		c.mu.Lock()
		c.shots.compState = result
		c.mu.Unlock()
	}()
	for _, e := range []struct {
		name  string
		state *int
	}{{"Composite", new(int)}, {"DAMAGE", &c.shots.damageState}, {"XFIXES", &c.shots.fixesState}} {
		ok, err := c.extension(e.name, e.state)
		if err != nil {
			result = 0
			return false, err
		}
		if !ok {
			return false, nil
		}
	}
	cv, err1 := composite.QueryVersion(c.xc, 0, 4).Reply()
	dv, err2 := damage.QueryVersion(c.xc, 1, 1).Reply()
	fv, err3 := xfixes.QueryVersion(c.xc, 5, 0).Reply()
	if err := errors.Join(err1, err2, err3); err != nil {
		result = 0
		return false, fmt.Errorf("x11: capture extension versions: %w", err)
	}
	if cv == nil || dv == nil || fv == nil {
		result = 0
		return false, errors.New("x11: capture extension versions: connection closed")
	}
	if (cv.MajorVersion == 0 && cv.MinorVersion < 2) || dv.MajorVersion < 1 || fv.MajorVersion < 2 {
		return false, nil
	}
	result = 1
	return true, nil
}

// windowInfo reads the window's state, place and pixel format.
func (c *Conn) windowInfo(ctx context.Context, w xproto.Window) (winInfo, error) {
	atoms, err := c.internAtoms(ctx, "WM_STATE")
	if err != nil {
		return winInfo{}, err
	}
	attrCk := xproto.GetWindowAttributes(c.xc, w)
	geomCk := xproto.GetGeometry(c.xc, xproto.Drawable(w))
	transCk := xproto.TranslateCoordinates(c.xc, w, c.root, 0, 0)
	stateCk := c.getProp(w, atoms[0])
	attrs, aerr := attrCk.Reply()
	geom, gerr := geomCk.Reply()
	trans, terr := transCk.Reply()
	state, serr := stateCk.Reply()
	for _, err := range []error{aerr, gerr, terr, serr} {
		if err != nil {
			if isXError(err) {
				return winInfo{}, gone(uint32(w))
			}
			return winInfo{}, fmt.Errorf("x11: window %#x: %w", uint32(w), err)
		}
	}
	if attrs == nil || geom == nil || trans == nil {
		return winInfo{}, fmt.Errorf("x11: window %#x: connection closed", uint32(w))
	}
	st, _ := propCard32(state)
	if attrs.MapState != xproto.MapStateViewable {
		if st == wmStateIconic {
			return winInfo{}, fmt.Errorf("x11: window %#x is minimized: %w", uint32(w), platform.ErrWindowHidden)
		}
		return winInfo{}, fmt.Errorf("x11: window %#x is not mapped: %w", uint32(w), platform.ErrWindowHidden)
	}
	if attrs.Class != xproto.WindowClassInputOutput {
		return winInfo{}, fmt.Errorf("x11: window %#x is input-only and has no pixels: %w", uint32(w), platform.ErrNotSupported)
	}
	f, err := c.pixelFormat(geom.Depth, attrs.Visual)
	if err != nil {
		return winInfo{}, fmt.Errorf("x11: window %#x: %w", uint32(w), err)
	}
	return winInfo{
		at:     platform.Rect{X: int(trans.DstX), Y: int(trans.DstY), Width: int(geom.Width), Height: int(geom.Height)},
		border: int(geom.BorderWidth),
		format: f,
	}, nil
}

// pixelFormat is how a drawable's pixels are laid out in a ZPixmap image.
type pixelFormat struct {
	msbFirst               bool
	rShift, gShift, bShift int
	rBits, gBits, bBits    int
	rMask, gMask, bMask    uint32
	standard32LSB          bool // B,G,R,x bytes: the common case, converted fast
}

func (c *Conn) pixelFormat(depth byte, visual xproto.Visualid) (pixelFormat, error) {
	setup := xproto.Setup(c.xc)
	bpp := byte(0)
	for _, f := range setup.PixmapFormats {
		if f.Depth == depth {
			bpp = f.BitsPerPixel
		}
	}
	var vi *xproto.VisualInfo
	for _, scr := range setup.Roots {
		for _, d := range scr.AllowedDepths {
			for i := range d.Visuals {
				if d.Visuals[i].VisualId == visual {
					vi = &d.Visuals[i]
				}
			}
		}
	}
	if vi == nil || (vi.Class != xproto.VisualClassTrueColor && vi.Class != xproto.VisualClassDirectColor) {
		return pixelFormat{}, fmt.Errorf("%w: visual %#x is not TrueColor", platform.ErrNotSupported, uint32(visual))
	}
	if bpp != 32 {
		return pixelFormat{}, fmt.Errorf("%w: depth %d at %d bits per pixel (only 32-bit pixels are read)", platform.ErrNotSupported, depth, bpp)
	}
	f := pixelFormat{msbFirst: setup.ImageByteOrder == xproto.ImageOrderMSBFirst,
		rMask: vi.RedMask, gMask: vi.GreenMask, bMask: vi.BlueMask}
	f.rShift, f.rBits = maskShift(vi.RedMask)
	f.gShift, f.gBits = maskShift(vi.GreenMask)
	f.bShift, f.bBits = maskShift(vi.BlueMask)
	f.standard32LSB = !f.msbFirst && vi.RedMask == 0xff0000 && vi.GreenMask == 0xff00 && vi.BlueMask == 0xff
	return f, nil
}

func maskShift(m uint32) (shift, width int) {
	if m == 0 {
		return 0, 0
	}
	return bits.TrailingZeros32(m), bits.OnesCount32(m)
}

// hiddenParts lists the parts of the window (screen rectangle at) that the
// screen does not show now: covered by a mapped window stacked above its
// top-level ancestor, or off the screen.
func (c *Conn) hiddenParts(ctx context.Context, w xproto.Window, at platform.Rect) ([]platform.Rect, error) {
	var out []platform.Rect
	scr := c.screen
	out = append(out, outside(at, scr)...)
	// The window's ancestor among the root's children: its frame.
	top := w
	for {
		r, err := xproto.QueryTree(c.xc, top).Reply()
		if err != nil {
			if isXError(err) {
				return nil, gone(uint32(w))
			}
			return nil, fmt.Errorf("x11: window %#x: %w", uint32(w), err)
		}
		if r == nil {
			return nil, errors.New("x11: QueryTree: connection closed")
		}
		if r.Parent == c.root || r.Parent == 0 {
			break
		}
		top = r.Parent
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tree, err := xproto.QueryTree(c.xc, c.root).Reply()
	if err != nil || tree == nil {
		return nil, fmt.Errorf("x11: listing root children: %v", err)
	}
	above := false
	var cks []xproto.GetWindowAttributesCookie
	var gks []xproto.GetGeometryCookie
	for _, ch := range tree.Children { // bottom to top
		if ch == top {
			above = true
			continue
		}
		if above {
			cks = append(cks, xproto.GetWindowAttributes(c.xc, ch))
			gks = append(gks, xproto.GetGeometry(c.xc, xproto.Drawable(ch)))
		}
	}
	for i := range cks {
		a, aerr := cks[i].Reply()
		g, gerr := gks[i].Reply()
		if aerr != nil || gerr != nil || a == nil || g == nil {
			continue // gone meanwhile: covers nothing
		}
		if a.MapState != xproto.MapStateViewable || a.Class != xproto.WindowClassInputOutput {
			continue
		}
		bw := 2 * int(g.BorderWidth)
		r := at.Intersect(platform.Rect{X: int(g.X), Y: int(g.Y), Width: int(g.Width) + bw, Height: int(g.Height) + bw})
		if !r.Empty() {
			out = append(out, r)
		}
	}
	return out, nil
}

// outside lists the parts of r outside the screen rectangle scr.
func outside(r, scr platform.Rect) []platform.Rect {
	in := r.Intersect(scr)
	if in == r {
		return nil
	}
	if in.Empty() {
		return []platform.Rect{r}
	}
	var out []platform.Rect
	add := func(x0, y0, x1, y1 int) {
		if x1 > x0 && y1 > y0 {
			out = append(out, platform.Rect{X: x0, Y: y0, Width: x1 - x0, Height: y1 - y0})
		}
	}
	add(r.X, r.Y, r.X+r.Width, in.Y)                      // above
	add(r.X, in.Y+in.Height, r.X+r.Width, r.Y+r.Height)   // below
	add(r.X, in.Y, in.X, in.Y+in.Height)                  // left
	add(in.X+in.Width, in.Y, r.X+r.Width, in.Y+in.Height) // right
	return out
}

// awaitRepaint waits until the application has drawn over every hidden
// part of a newly redirected window (the damage dmg collects, drained into
// region), then reads it.
func (c *Conn) awaitRepaint(ctx context.Context, w xproto.Window, info winInfo, dmg damage.Damage, region xfixes.Region, hidden []platform.Rect) (*image.RGBA, error) {
	wd, ht := info.at.Width, info.at.Height
	mask := make([]bool, wd*ht)
	left := 0
	mark := func(r image.Rectangle, v bool) {
		r = r.Intersect(image.Rect(0, 0, wd, ht))
		for y := r.Min.Y; y < r.Max.Y; y++ {
			row := mask[y*wd : (y+1)*wd]
			for x := r.Min.X; x < r.Max.X; x++ {
				if row[x] != v {
					row[x] = v
					if v {
						left++
					} else {
						left--
					}
				}
			}
		}
	}
	for _, r := range hidden {
		mark(image.Rect(r.X-info.at.X, r.Y-info.at.Y, r.X-info.at.X+r.Width, r.Y-info.at.Y+r.Height), true)
	}
	deadline := time.Now().Add(repaintTimeout)
	var lastDamage time.Time
	for {
		damage.Subtract(c.xc, dmg, xfixes.RegionNone, region)
		got, err := xfixes.FetchRegion(c.xc, region).Reply()
		if err != nil || got == nil {
			return nil, fmt.Errorf("x11: reading the damage of window %#x: %v", uint32(w), err)
		}
		// The server's own copy of what the screen showed counts as
		// damage too, so only drawing over hidden parts is the repaint.
		before := left
		for _, r := range got.Rectangles {
			mark(image.Rect(int(r.X), int(r.Y), int(r.X)+int(r.Width), int(r.Y)+int(r.Height)), false)
		}
		if left < before {
			lastDamage = time.Now()
		}
		if left == 0 || (!lastDamage.IsZero() && time.Since(lastDamage) >= repaintQuiet) {
			return c.readPixmap(w, info)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("x11: window %#x is partly covered or off screen, and its application did not repaint that part in time (busy or frozen?): %w", uint32(w), platform.ErrTimeout)
		}
		if err := sleepCtx(ctx, repaintPoll); err != nil {
			return nil, fmt.Errorf("x11: %w", err)
		}
	}
}

// awaitStable reads until two reads agree, within repaintTimeout; past it
// the last read is returned (the application keeps drawing: it is its
// content).
func (c *Conn) awaitStable(ctx context.Context, w xproto.Window, info winInfo) (*image.RGBA, error) {
	prev, err := c.readPixmap(w, info)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(repaintTimeout)
	for {
		if err := sleepCtx(ctx, repaintPoll); err != nil {
			return nil, fmt.Errorf("x11: %w", err)
		}
		img, err := c.readPixmap(w, info)
		if err != nil {
			return nil, err
		}
		if bytes.Equal(prev.Pix, img.Pix) || time.Now().After(deadline) {
			return img, nil
		}
		prev = img
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// readPixmap names the window's pixmap and reads it.
func (c *Conn) readPixmap(w xproto.Window, info winInfo) (*image.RGBA, error) {
	pix, err := xproto.NewPixmapId(c.xc)
	if err != nil {
		return nil, fmt.Errorf("x11: allocating a pixmap id: %w", err)
	}
	if err := composite.NameWindowPixmapChecked(c.xc, w, pix).Check(); err != nil {
		if isXError(err) {
			// Unmapped or destroyed since windowInfo, or an id recycled
			// since it was redirected.
			if werr := c.windowExists(uint32(w)); werr != nil {
				return nil, werr
			}
			return nil, fmt.Errorf("x11: window %#x: %w", uint32(w), errNotRedirected)
		}
		return nil, fmt.Errorf("x11: naming the pixmap of window %#x: %w", uint32(w), err)
	}
	defer xproto.FreePixmap(c.xc, pix)
	// The pixmap holds the border too; the content starts inside it.
	r, err := xproto.GetImage(c.xc, xproto.ImageFormatZPixmap, xproto.Drawable(pix), int16(info.border), int16(info.border),
		uint16(info.at.Width), uint16(info.at.Height), ^uint32(0)).Reply()
	if err != nil {
		if isXError(err) {
			return nil, fmt.Errorf("x11: reading window %#x: %w", uint32(w), platform.ErrElementGone)
		}
		return nil, fmt.Errorf("x11: reading window %#x: %w", uint32(w), err)
	}
	if r == nil {
		return nil, fmt.Errorf("x11: reading window %#x: connection closed", uint32(w))
	}
	return info.format.decode(r.Data, info.at.Width, info.at.Height)
}

// decode turns ZPixmap data (32 bits per pixel, rows padded to 32 bits, so
// unpadded) into an opaque RGBA image. Alpha in a 32-bit window is ignored,
// as the screen ignores it without a compositing manager.
func (f pixelFormat) decode(data []byte, w, h int) (*image.RGBA, error) {
	if len(data) < w*h*4 {
		return nil, fmt.Errorf("x11: image of %d bytes for %dx%d pixels", len(data), w, h)
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	p := img.Pix
	if f.standard32LSB {
		for i := 0; i+3 < w*h*4; i += 4 {
			p[i], p[i+1], p[i+2], p[i+3] = data[i+2], data[i+1], data[i], 0xff
		}
		return img, nil
	}
	ch := func(v, mask uint32, shift, width int) byte {
		x := (v & mask) >> shift
		switch {
		case width == 8:
			return byte(x)
		case width > 8:
			return byte(x >> (width - 8))
		case width == 0:
			return 0
		}
		return byte(x * 255 / (1<<width - 1))
	}
	for i := 0; i+3 < w*h*4; i += 4 {
		var v uint32
		if f.msbFirst {
			v = uint32(data[i])<<24 | uint32(data[i+1])<<16 | uint32(data[i+2])<<8 | uint32(data[i+3])
		} else {
			v = uint32(data[i+3])<<24 | uint32(data[i+2])<<16 | uint32(data[i+1])<<8 | uint32(data[i])
		}
		p[i] = ch(v, f.rMask, f.rShift, f.rBits)
		p[i+1] = ch(v, f.gMask, f.gShift, f.gBits)
		p[i+2] = ch(v, f.bMask, f.bShift, f.bBits)
		p[i+3] = 0xff
	}
	return img, nil
}
