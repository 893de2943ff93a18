//go:build linux

package wayland

import (
	"context"
	"errors"
	"fmt"
	"image"
)

// Pixel formats (wl_shm.format: 0 and 1 are ARGB8888 and XRGB8888, the
// rest DRM fourcc codes), the ones a capture converts.
const (
	formatARGB8888 = 0
	formatXRGB8888 = 1
	formatABGR8888 = 0x34324241 // 'AB24'
	formatXBGR8888 = 0x34324258 // 'XB24'
)

// ErrCaptureFailed: the compositor could not copy the frame (the output
// went away, or it refused the buffer).
var ErrCaptureFailed = errors.New("the compositor failed to copy the frame")

// shmBuffer is a buffer format a frame offers in shared memory.
type shmBuffer struct {
	format        uint32
	width, height int
	stride        int
}

// frameState collects a screencopy frame's events.
type frameState struct {
	buffers    []shmBuffer
	bufferDone bool // version 3: every buffer was offered
	flags      uint32
	ready      bool
	failed     bool
}

func (f *frameState) handle(opcode uint16, a *args) error {
	switch opcode {
	case 0: // buffer(format, width, height, stride)
		b := shmBuffer{format: a.Uint(), width: int(a.Uint()), height: int(a.Uint()), stride: int(a.Uint())}
		if a.Done() == nil {
			f.buffers = append(f.buffers, b)
		}
	case 1: // flags(flags)
		f.flags = a.Uint()
	case 2: // ready(tv_sec_hi, tv_sec_lo, tv_nsec)
		f.ready = true
	case 3: // failed
		f.failed = true
	case 6: // buffer_done
		f.bufferDone = true
	}
	return a.Done()
}

// bindCapture binds wl_shm and zwlr_screencopy_manager_v1 once.
func (c *Conn) bindCapture() error {
	if c.screencopy != 0 {
		return nil
	}
	ids, _, err := c.bind("wl_shm", 1, 1, false)
	if err != nil {
		return err
	}
	c.shm = ids[0]
	ids, vs, err := c.bind("zwlr_screencopy_manager_v1", 1, 3, false)
	if err != nil {
		return err
	}
	c.screencopy, c.screencopyVersion = ids[0], vs[0]
	return nil
}

// Capture copies what an output shows into an image: the whole output
// when region is empty, else the part of it region covers (in the
// output's logical coordinates, from its top-left corner), clipped to the
// output here (wlroots 0.15 copies a region past the output's edge as it
// was asked). The image's bounds start at (0, 0). The pointer is left out.
func (c *Conn) Capture(ctx context.Context, out Output, region image.Rectangle) (*image.RGBA, error) {
	if !region.Empty() {
		r := out.Rect()
		clipped := region.Intersect(image.Rect(0, 0, r.Dx(), r.Dy()))
		if clipped.Empty() {
			return nil, fmt.Errorf("wayland: region %v lies off output %q (%dx%d)", region, out.Name, r.Dx(), r.Dy())
		}
		region = clipped
	}
	var img *image.RGBA
	err := c.do(ctx, "capturing the output", func() error {
		if out.id == 0 || !c.hasOutput(out.id) {
			return fmt.Errorf("output %q is not known on this connection: %w", out.Name, ErrNoGlobal)
		}
		if err := c.bindCapture(); err != nil {
			return err
		}
		var err error
		img, err = c.capture(out.id, region)
		return err
	})
	return img, err
}

func (c *Conn) hasOutput(id ObjectID) bool {
	for _, o := range c.liveOutputs() {
		if o.id == id {
			return true
		}
	}
	return false
}

func (c *Conn) capture(output ObjectID, region image.Rectangle) (*image.RGBA, error) {
	frame := c.newID()
	st := &frameState{}
	c.handlers[frame] = st.handle
	var req *request
	if region.Empty() {
		req = newRequest(c.screencopy, 0).NewID(frame).Int(0).Object(output)
	} else {
		if c.screencopyVersion < 2 {
			delete(c.handlers, frame)
			return nil, fmt.Errorf("%w: zwlr_screencopy_manager_v1 version 2 (regions)", ErrNoGlobal)
		}
		req = newRequest(c.screencopy, 1).NewID(frame).Int(0).Object(output).
			Int(int32(region.Min.X)).Int(int32(region.Min.Y)).Int(int32(region.Dx())).Int(int32(region.Dy()))
	}
	if err := c.send(req); err != nil {
		delete(c.handlers, frame)
		return nil, err
	}
	defer c.sendLater(newRequest(frame, 1)) // destroy
	// Version 3 lists every buffer type, then buffer_done; before it the
	// one shm buffer event is the whole offer.
	if err := c.wait(func() bool {
		return st.failed || (c.screencopyVersion >= 3 && st.bufferDone) || (c.screencopyVersion < 3 && len(st.buffers) > 0)
	}); err != nil {
		return nil, err
	}
	if st.failed {
		return nil, ErrCaptureFailed
	}
	var buf shmBuffer
	found := false
	for _, b := range st.buffers {
		if convertible(b.format) {
			buf, found = b, true
			break
		}
	}
	if !found {
		return nil, fmt.Errorf("the compositor offers no shm buffer format this client converts (offered %v)", st.buffers)
	}
	if buf.width <= 0 || buf.height <= 0 || buf.stride < 4*buf.width || buf.height > 1<<15 || buf.stride > 1<<17 {
		return nil, fmt.Errorf("the compositor offers a %dx%d buffer with stride %d", buf.width, buf.height, buf.stride)
	}
	size := buf.stride * buf.height
	f, err := newShmFile("uiscope-capture", size)
	if err != nil {
		return nil, err
	}
	defer f.close()
	pool, wlbuf := c.newID(), c.newID()
	if err := c.send(newRequest(c.shm, 0).NewID(pool).FD(f.fd).Int(int32(size))); err != nil {
		return nil, err
	}
	err = c.send(newRequest(pool, 0).NewID(wlbuf).Int(0).Int(int32(buf.width)).Int(int32(buf.height)).Int(int32(buf.stride)).Uint(buf.format))
	c.sendLater(newRequest(pool, 1)) // destroy: the buffer keeps the memory
	if err != nil {
		return nil, err
	}
	defer c.sendLater(newRequest(wlbuf, 0))                            // destroy
	if err := c.send(newRequest(frame, 0).Object(wlbuf)); err != nil { // copy
		return nil, err
	}
	if err := c.wait(func() bool { return st.ready || st.failed }); err != nil {
		return nil, err
	}
	if st.failed {
		return nil, ErrCaptureFailed
	}
	return toRGBA(f.data, buf, st.flags&1 != 0), nil
}

func convertible(format uint32) bool {
	switch format {
	case formatARGB8888, formatXRGB8888, formatABGR8888, formatXBGR8888:
		return true
	}
	return false
}

// toRGBA converts a frame's pixels (32 bits each, little-endian words:
// ARGB8888 is B, G, R, A in memory) into an opaque RGBA image, flipping it
// when the compositor says the rows are bottom to top (y_invert).
func toRGBA(data []byte, b shmBuffer, yInvert bool) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, b.width, b.height))
	swap := b.format == formatARGB8888 || b.format == formatXRGB8888
	for y := range b.height {
		sy := y
		if yInvert {
			sy = b.height - 1 - y
		}
		src := data[sy*b.stride : sy*b.stride+4*b.width]
		dst := img.Pix[y*img.Stride : y*img.Stride+4*b.width]
		for x := 0; x < len(src); x += 4 {
			if swap {
				dst[x], dst[x+1], dst[x+2] = src[x+2], src[x+1], src[x]
			} else {
				dst[x], dst[x+1], dst[x+2] = src[x], src[x+1], src[x+2]
			}
			dst[x+3] = 0xff
		}
	}
	return img
}
