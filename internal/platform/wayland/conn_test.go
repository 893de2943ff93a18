//go:build linux

package wayland

import (
	"context"
	"errors"
	"image"
	"io"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
)

// fakeServer is the compositor's end of a socketpair, scripted by a test:
// it reads the client's requests (with their descriptors) and sends events.
type fakeServer struct {
	t    *testing.T
	sock *net.UnixConn
	in   []byte
	fds  []int
}

func socketpair(t *testing.T) (client, server *net.UnixConn) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	conn := func(fd int) *net.UnixConn {
		f := os.NewFile(uintptr(fd), "socketpair")
		defer f.Close()
		c, err := net.FileConn(f)
		if err != nil {
			t.Fatal(err)
		}
		return c.(*net.UnixConn)
	}
	return conn(fds[0]), conn(fds[1])
}

// read returns the next request, failing the test after 10 s.
func (s *fakeServer) read() message {
	for {
		m, n, err := splitMessage(s.in)
		if err != nil {
			s.t.Errorf("fake server: %v", err)
			return message{}
		}
		if n > 0 {
			s.in = s.in[n:]
			return m
		}
		buf := make([]byte, maxMessage)
		oob := make([]byte, syscall.CmsgSpace(28*4))
		s.sock.SetReadDeadline(time.Now().Add(10 * time.Second))
		nb, oobn, _, _, err := s.sock.ReadMsgUnix(buf, oob)
		if err != nil {
			s.t.Errorf("fake server: read: %v", err)
			return message{}
		}
		if oobn > 0 {
			msgs, _ := syscall.ParseSocketControlMessage(oob[:oobn])
			for _, cm := range msgs {
				fds, _ := syscall.ParseUnixRights(&cm)
				s.fds = append(s.fds, fds...)
			}
		}
		s.in = append(s.in, buf[:nb]...)
	}
}

// expect reads the next request and checks its object and opcode.
func (s *fakeServer) expect(obj ObjectID, opcode uint16) *args {
	s.t.Helper()
	m := s.read()
	if m.object != obj || m.opcode != opcode {
		s.t.Errorf("fake server: request %d.%d, want %d.%d", m.object, m.opcode, obj, opcode)
	}
	return &args{b: m.args}
}

// fd takes the next descriptor the client sent.
func (s *fakeServer) fd() int {
	s.t.Helper()
	if len(s.fds) == 0 {
		s.t.Error("fake server: no descriptor came with the request")
		return -1
	}
	fd := s.fds[0]
	s.fds = s.fds[1:]
	return fd
}

func (s *fakeServer) send(r *request) {
	b, err := r.m.encode()
	if err != nil {
		s.t.Error(err)
		return
	}
	if _, err := s.sock.Write(b); err != nil {
		s.t.Errorf("fake server: write: %v", err)
	}
}

// done answers a wl_display.sync: the callback's done, then its id freed.
func (s *fakeServer) done(cb ObjectID) {
	// One write: the client may close as soon as it has the first.
	b1, _ := newRequest(cb, 0).Uint(0).m.encode()
	b2, _ := newRequest(displayID, 1).Uint(uint32(cb)).m.encode()
	if _, err := s.sock.Write(append(b1, b2...)); err != nil {
		s.t.Errorf("fake server: write: %v", err)
	}
}

// sync reads a wl_display.sync and answers it.
func (s *fakeServer) sync() {
	a := s.expect(displayID, 0)
	s.done(a.Object())
}

// globals announced by the fake compositor, by name 1, 2, ...
var fakeGlobals = []Global{
	{1, "wl_shm", 1}, {2, "wl_seat", 7}, {3, "wl_output", 4},
	{4, "zwlr_screencopy_manager_v1", 3}, {5, "zwp_virtual_keyboard_manager_v1", 1},
	{6, "zwlr_virtual_pointer_manager_v1", 2},
}

// startFake connects a client to a fake compositor whose script runs in
// serve after the registry (get_registry, its globals and the first
// round trip), in the background.
func startFake(t *testing.T, serve func(s *fakeServer)) (*Conn, chan struct{}) {
	t.Helper()
	cs, ss := socketpair(t)
	s := &fakeServer{t: t, sock: ss}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer ss.Close()
		a := s.expect(displayID, 1)
		reg := a.Object()
		for _, g := range fakeGlobals {
			s.send(newRequest(reg, 0).Uint(g.Name).String(g.Interface).Uint(g.Version))
		}
		s.sync()
		if serve != nil {
			serve(s)
		}
		// Then hold the connection open until the client closes it.
		ss.SetReadDeadline(time.Time{})
		io.Copy(io.Discard, ss)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := newConn(ctx, cs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		<-done
	})
	return c, done
}

func TestConnRegistry(t *testing.T) {
	c, _ := startFake(t, func(s *fakeServer) {
		s.sync()
	})
	gs := c.Globals()
	if len(gs) != len(fakeGlobals) {
		t.Fatalf("globals %v", gs)
	}
	for i := range gs {
		if gs[i] != fakeGlobals[i] {
			t.Errorf("global %d is %+v, want %+v", i, gs[i], fakeGlobals[i])
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Roundtrip(ctx); err != nil {
		t.Fatal(err)
	}
	// The first callback's id (3) was freed by delete_id and is reused.
	c.mu.Lock()
	defer c.mu.Unlock()
	if id := c.newID(); id != 4 && id != 3 {
		t.Errorf("next id %d, want a freed one", id)
	}
}

func TestConnDeadline(t *testing.T) {
	release := make(chan struct{})
	c, _ := startFake(t, func(s *fakeServer) {
		a := s.expect(displayID, 0) // a sync left unanswered
		<-release
		s.done(a.Object()) // late: the client dispatches it later, harmlessly
		s.sync()
	})
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := c.Roundtrip(ctx)
	if !errors.Is(err, platform.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a round trip the compositor never answered: %v", err)
	}
	release <- struct{}{}
	// The connection is still usable after a mere timeout.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel2()
	if err := c.Roundtrip(ctx2); err != nil {
		t.Fatalf("round trip after a timeout: %v", err)
	}
}

func TestConnCancel(t *testing.T) {
	c, _ := startFake(t, func(s *fakeServer) {
		s.expect(displayID, 0)
	})
	ctx, cancel := context.WithCancel(context.Background()) // no deadline
	go func() {
		time.Sleep(20 * time.Millisecond) // cancel while the call blocks
		cancel()
	}()
	err := c.Roundtrip(ctx)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, platform.ErrTimeout) {
		t.Fatalf("a cancelled round trip: %v", err)
	}
}

func TestConnCompositorGone(t *testing.T) {
	c, done := startFake(t, func(s *fakeServer) {
		s.expect(displayID, 0)
		s.sock.Close()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := c.Roundtrip(ctx)
	<-done
	if !errors.Is(err, ErrClosed) {
		t.Fatalf("round trip to a compositor that went away: %v", err)
	}
	// Broken for good, at once.
	if err := c.Roundtrip(ctx); !errors.Is(err, ErrClosed) {
		t.Fatalf("second call: %v", err)
	}
	if _, err := c.TypeText(ctx, "x"); !errors.Is(err, ErrClosed) {
		t.Fatalf("typing: %v", err)
	}
}

func TestConnProtocolError(t *testing.T) {
	c, _ := startFake(t, func(s *fakeServer) {
		s.expect(displayID, 0)
		s.send(newRequest(displayID, 0).Object(7).Uint(3).String("invalid arguments"))
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := c.Roundtrip(ctx)
	var pe *ProtocolError
	if !errors.As(err, &pe) || pe.Object != 7 || pe.Code != 3 || pe.Message != "invalid arguments" {
		t.Fatalf("protocol error: %v", err)
	}
	if err := c.Roundtrip(ctx); !errors.As(err, &pe) {
		t.Fatalf("after a protocol error: %v", err)
	}
}

func TestConnMalformedEvent(t *testing.T) {
	c, _ := startFake(t, func(s *fakeServer) {
		s.expect(displayID, 0)
		s.sock.Write([]byte{5, 0, 0, 0, 0, 0, 4, 0}) // size 4: less than a header
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Roundtrip(ctx); !errors.Is(err, ErrMalformed) {
		t.Fatalf("a malformed event: %v", err)
	}
}

func TestConnNoGlobal(t *testing.T) {
	c, _ := startFake(t, nil)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, _, err := c.bind("wl_compositor", 1, 4, false); !errors.Is(err, ErrNoGlobal) {
		t.Errorf("an interface not offered: %v", err)
	}
	if _, _, err := c.bind("wl_shm", 2, 2, false); !errors.Is(err, ErrNoGlobal) || !strings.Contains(err.Error(), "version 2") {
		t.Errorf("a version too old: %v", err)
	}
}

// bindReq reads a wl_registry.bind of iface and returns the new object.
func (s *fakeServer) bindReq(iface string) (ObjectID, uint32) {
	s.t.Helper()
	a := s.expect(2, 0)
	a.Uint()
	got, v, id := a.String(), a.Uint(), a.Object()
	if got != iface {
		s.t.Errorf("fake server: bound %q, want %q", got, iface)
	}
	return id, v
}

// serveOutput answers the client's binding of the output (global 3, a 4x3
// mode at 0,0) and the round trip after it.
func serveOutput(s *fakeServer) ObjectID {
	out, v := s.bindReq("wl_output")
	if v != 4 {
		s.t.Errorf("wl_output bound in version %d", v)
	}
	s.send(newRequest(out, 0).Int(0).Int(0).Int(300).Int(200).Int(0).String("make").String("model").Int(0))
	s.send(newRequest(out, 1).Uint(1).Int(4).Int(3).Int(60000))
	s.send(newRequest(out, 4).String("FAKE-1"))
	s.send(newRequest(out, 2))
	s.sync()
	return out
}

func ctx10(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// pixel is the colour the fake compositor paints at (x, y).
func pixel(x, y int) (r, g, b byte) { return byte(10 + x), byte(100 + y), byte(200 + x + y) }

func TestCaptureOverFake(t *testing.T) {
	for _, tc := range []struct {
		name    string
		format  uint32
		yInvert bool
	}{
		{"xrgb8888", formatXRGB8888, false},
		{"argb8888 y-inverted", formatARGB8888, true},
		{"xbgr8888", formatXBGR8888, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const w, h, stride = 4, 3, 20 // a stride with padding
			c, _ := startFake(t, func(s *fakeServer) {
				out := serveOutput(s)
				shm, _ := s.bindReq("wl_shm")
				mgr, v := s.bindReq("zwlr_screencopy_manager_v1")
				if v != 3 {
					t.Errorf("screencopy bound in version %d", v)
				}
				a := s.expect(mgr, 0) // capture_output(frame, overlay_cursor, output)
				frame, cursor, o := a.Object(), a.Int(), a.Object()
				if cursor != 0 || o != out {
					t.Errorf("capture_output cursor %d output %d", cursor, o)
				}
				s.send(newRequest(frame, 0).Uint(0x3231564e).Uint(w).Uint(h).Uint(stride)) // NV12: not convertible
				s.send(newRequest(frame, 0).Uint(tc.format).Uint(w).Uint(h).Uint(stride))
				s.send(newRequest(frame, 5).Uint(0x34325258).Uint(w).Uint(h)) // linux_dmabuf: ignored
				s.send(newRequest(frame, 6))                                  // buffer_done
				a = s.expect(shm, 0)                                          // create_pool(id, fd, size)
				pool, fd, size := a.Object(), s.fd(), a.Int()
				if size != stride*h {
					t.Errorf("pool of %d bytes", size)
				}
				a = s.expect(pool, 0) // create_buffer(id, offset, width, height, stride, format)
				buf, off, bw, bh, bs, bf := a.Object(), a.Int(), a.Int(), a.Int(), a.Int(), a.Uint()
				if off != 0 || bw != w || bh != h || bs != stride || bf != tc.format {
					t.Errorf("create_buffer %d %d %d %d %#x", off, bw, bh, bs, bf)
				}
				s.expect(pool, 1) // destroy
				if a = s.expect(frame, 0); a.Object() != buf {
					t.Error("copy into another buffer")
				}
				data, err := syscall.Mmap(fd, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
				if err != nil {
					t.Error(err)
					return
				}
				for y := range h {
					sy := y
					if tc.yInvert {
						sy = h - 1 - y
					}
					for x := range w {
						r, g, b := pixel(x, y)
						p := data[sy*stride+4*x:]
						if tc.format == formatXBGR8888 {
							p[0], p[1], p[2], p[3] = r, g, b, 0
						} else {
							p[0], p[1], p[2], p[3] = b, g, r, 0x80
						}
					}
				}
				syscall.Munmap(data)
				syscall.Close(fd)
				flags := uint32(0)
				if tc.yInvert {
					flags = 1
				}
				s.send(newRequest(frame, 1).Uint(flags))
				s.send(newRequest(frame, 2).Uint(0).Uint(1).Uint(0)) // ready
				s.read()                                             // the buffer's and the frame's destroy
				s.read()
				s.sync()
			})
			outs, err := c.Outputs(ctx10(t))
			if err != nil || len(outs) != 1 || outs[0].Name != "FAKE-1" || outs[0].Rect() != image.Rect(0, 0, w, h) {
				t.Fatalf("outputs %+v, %v", outs, err)
			}
			img, err := c.Capture(ctx10(t), outs[0], image.Rectangle{})
			if err != nil {
				t.Fatal(err)
			}
			if img.Bounds() != image.Rect(0, 0, w, h) {
				t.Fatalf("image %v", img.Bounds())
			}
			for y := range h {
				for x := range w {
					r, g, b := pixel(x, y)
					if got := img.RGBAAt(x, y); got.R != r || got.G != g || got.B != b || got.A != 0xff {
						t.Fatalf("pixel (%d,%d) is %v, want %d,%d,%d", x, y, got, r, g, b)
					}
				}
			}
			if err := c.Roundtrip(ctx10(t)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestCaptureFailed(t *testing.T) {
	c, _ := startFake(t, func(s *fakeServer) {
		serveOutput(s)
		s.bindReq("wl_shm")
		mgr, _ := s.bindReq("zwlr_screencopy_manager_v1")
		a := s.expect(mgr, 0)
		s.send(newRequest(a.Object(), 3)) // failed
		s.read()                          // destroy
		s.sync()
	})
	outs, err := c.Outputs(ctx10(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Capture(ctx10(t), outs[0], image.Rectangle{}); !errors.Is(err, ErrCaptureFailed) {
		t.Fatalf("a failed frame: %v", err)
	}
	if err := c.Roundtrip(ctx10(t)); err != nil {
		t.Fatal(err)
	}
}

// keymapCodes reads an uploaded keymap: the evdev code of each keysym.
func keymapCodes(t *testing.T, fd, size int) map[uint32]place {
	t.Helper()
	data, err := syscall.Mmap(fd, 0, size, syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(data)
	if data[size-1] != 0 {
		t.Error("the keymap is not NUL-terminated")
	}
	codes := map[uint32]place{}
	key := regexp.MustCompile(`^key <K(\d+)> \{ type = "\w+", \[ (.*) \] \};$`)
	for _, line := range strings.Split(string(data[:size-1]), "\n") {
		m := key.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		kc, _ := strconv.Atoi(m[1])
		for level, sym := range strings.Split(m[2], ", ") {
			if v, err := strconv.ParseUint(sym, 0, 32); err == nil {
				codes[uint32(v)] = place{uint32(kc - 8), level}
			}
		}
	}
	return codes
}

// serveKeyboard answers the creation of the virtual keyboard and its first
// keymap, returning the keyboard and the keymap's codes.
func serveKeyboard(s *fakeServer) (ObjectID, map[uint32]place) {
	seat, _ := s.bindReq("wl_seat")
	mgr, _ := s.bindReq("zwp_virtual_keyboard_manager_v1")
	a := s.expect(mgr, 0) // create_virtual_keyboard(seat, id)
	if got := a.Object(); got != seat {
		s.t.Errorf("virtual keyboard on seat %d", got)
	}
	kb := a.Object()
	return kb, serveKeymap(s, kb)
}

func serveKeymap(s *fakeServer, kb ObjectID) map[uint32]place {
	a := s.expect(kb, 0) // keymap(format, fd, size)
	format, fd, size := a.Uint(), s.fd(), a.Uint()
	if format != 1 {
		s.t.Errorf("keymap format %d", format)
	}
	defer syscall.Close(fd)
	return keymapCodes(s.t, fd, int(size))
}

// expectKey reads a key request.
func (s *fakeServer) expectKey(kb ObjectID, code uint32, down bool) {
	s.t.Helper()
	a := s.expect(kb, 1)
	a.Uint()
	gotCode, state := a.Uint(), a.Uint()
	if gotCode != code || (state == 1) != down {
		s.t.Errorf("key %d state %d, want %d %v", gotCode, state, code, down)
	}
}

// expectTyped reads the requests that type the keysym at p: its level's
// modifier keys pressed (Shift, then AltGr) with the modifiers they set,
// its key pressed and released, the modifier keys released in reverse.
func (s *fakeServer) expectTyped(kb ObjectID, p place) {
	s.t.Helper()
	var levels []uint32
	if p.level&1 != 0 {
		levels = append(levels, codeShiftL)
	}
	if p.level&2 != 0 {
		levels = append(levels, codeLevel3)
	}
	bits := map[uint32]uint32{codeShiftL: 1, codeLevel3: 0x80}
	mods := uint32(0)
	for _, l := range levels {
		s.expectKey(kb, l, true)
		mods |= bits[l]
		s.expectMods(kb, mods)
	}
	s.expectKey(kb, p.code, true)
	s.expectKey(kb, p.code, false)
	for i := len(levels) - 1; i >= 0; i-- {
		s.expectKey(kb, levels[i], false)
		mods &^= bits[levels[i]]
		s.expectMods(kb, mods)
	}
}

func (s *fakeServer) expectMods(kb ObjectID, mods uint32) {
	s.t.Helper()
	a := s.expect(kb, 2)
	if got := a.Uint(); got != mods {
		s.t.Errorf("modifiers %#x, want %#x", got, mods)
	}
}

func TestTypeTextOverFake(t *testing.T) {
	c, _ := startFake(t, func(s *fakeServer) {
		kb, codes := serveKeyboard(s)
		// ASCII is in the first keymap: a capital on its letter's key
		// with Shift.
		for _, r := range "a B" {
			p, ok := codes[uint32(r)]
			if !ok {
				t.Errorf("keymap lacks %q", r)
			}
			s.expectTyped(kb, p)
		}
		if codes['B'] != (place{48, 1}) {
			t.Errorf("B on %+v, want the B key's second level", codes['B'])
		}
		s.sync()
		// é and 中 need a new keymap, which keeps the old keycodes: they
		// go on the third and fourth levels (AltGr) of a character key.
		next := serveKeymap(s, kb)
		if next['a'] != codes['a'] {
			t.Errorf("a moved from %+v to %+v", codes['a'], next['a'])
		}
		if next[0xe9].level != 2 || next[0x01004e2d].level != 3 {
			t.Errorf("é on %+v, 中 on %+v", next[0xe9], next[0x01004e2d])
		}
		for _, sym := range []uint32{0xe9, 0x01004e2d, platform.KeysymReturn} {
			p, ok := next[sym]
			if !ok {
				t.Errorf("keymap lacks %#x", sym)
			}
			s.expectTyped(kb, p)
		}
		s.sync()
	})
	if n, err := c.TypeText(ctx10(t), "a B"); err != nil || n != 3 {
		t.Fatalf("typed %d: %v", n, err)
	}
	if n, err := c.TypeText(ctx10(t), "é中\r\n"); err != nil || n != 3 {
		t.Fatalf("typed %d: %v", n, err)
	}
}

func TestTypeTextRefuses(t *testing.T) {
	c, _ := startFake(t, nil)
	for _, text := range []string{"a\x01b", "\xff", strings.Repeat("x", MaxTypeRunes+1)} {
		if n, err := c.TypeText(ctx10(t), text); err == nil || n != 0 {
			t.Errorf("%.20q: typed %d, %v", text, n, err)
		}
	}
}

func TestTypeTextManyDistinct(t *testing.T) {
	// More distinct characters than one keymap holds: the text is typed in
	// runs, each with a keymap that has all of its characters.
	var text []rune
	for r := rune(0x4e00); r < 0x4e00+300; r++ {
		text = append(text, r)
	}
	c, _ := startFake(t, func(s *fakeServer) {
		kb, codes := serveKeyboard(s)
		for _, r := range text {
			p, ok := codes[platform.RuneKeysym(r)]
			if !ok {
				a := codes['a']
				codes = serveKeymap(s, kb)
				if codes['a'] != a {
					t.Errorf("a moved from %+v to %+v in a new keymap", a, codes['a'])
				}
				if p, ok = codes[platform.RuneKeysym(r)]; !ok {
					t.Errorf("the new keymap lacks %q", r)
					return
				}
			}
			s.expectTyped(kb, p)
		}
		s.sync()
	})
	n, err := c.TypeText(ctx10(t), string(text))
	if err != nil || n != len(text) {
		t.Fatalf("typed %d of %d: %v", n, len(text), err)
	}
}

func TestKeyChordOverFake(t *testing.T) {
	ch, err := platform.ParseChord("Ctrl+Shift+t")
	if err != nil {
		t.Fatal(err)
	}
	c, _ := startFake(t, func(s *fakeServer) {
		kb, codes := serveKeyboard(s)
		ctrl, shift, key := codes[platform.KeysymControlL].code, codes[platform.KeysymShiftL].code, codes['t'].code
		s.expectKey(kb, ctrl, true)
		s.expectMods(kb, 4)
		s.expectKey(kb, shift, true)
		s.expectMods(kb, 5)
		s.expectKey(kb, key, true)
		s.expectKey(kb, key, false)
		// Released in reverse order.
		s.expectKey(kb, shift, false)
		s.expectMods(kb, 4)
		s.expectKey(kb, ctrl, false)
		s.expectMods(kb, 0)
		s.sync()
	})
	if err := c.KeyChord(ctx10(t), ch); err != nil {
		t.Fatal(err)
	}
}

func TestKeyChordTimeoutReleases(t *testing.T) {
	ch, _ := platform.ParseChord("Ctrl+s")
	released := make(chan bool, 1)
	c, _ := startFake(t, func(s *fakeServer) {
		kb, codes := serveKeyboard(s)
		ctrl := codes[platform.KeysymControlL].code
		s.expectKey(kb, ctrl, true)
		s.expectMods(kb, 4)
		s.expectKey(kb, codes['s'].code, true)
		s.expectKey(kb, codes['s'].code, false)
		s.expectKey(kb, ctrl, false)
		s.expectMods(kb, 0)
		released <- true
		s.expect(displayID, 0) // the sync, never answered
	})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := c.KeyChord(ctx, ch); !errors.Is(err, platform.ErrTimeout) {
		t.Fatalf("a chord the compositor never confirmed: %v", err)
	}
	select {
	case <-released:
	case <-time.After(10 * time.Second):
		t.Fatal("the chord's keys were not released")
	}
}

// servePointer answers the creation of the virtual pointer and the output
// read that absolute motion needs.
func servePointer(s *fakeServer) ObjectID {
	seat, _ := s.bindReq("wl_seat")
	mgr, _ := s.bindReq("zwlr_virtual_pointer_manager_v1")
	a := s.expect(mgr, 0) // create_virtual_pointer(seat, id)
	if got := a.Object(); got != seat {
		s.t.Errorf("virtual pointer on seat %d", got)
	}
	p := a.Object()
	// No button released first: nothing recorded one down (pressed.go).
	serveOutput(s)
	return p
}

func TestClickOverFake(t *testing.T) {
	c, _ := startFake(t, func(s *fakeServer) {
		p := servePointer(s)
		a := s.expect(p, 1) // motion_absolute(time, x, y, x_extent, y_extent)
		a.Uint()
		if x, y, w, h := a.Uint(), a.Uint(), a.Uint(), a.Uint(); x != 2 || y != 1 || w != 4 || h != 3 {
			t.Errorf("motion to %d,%d of %dx%d", x, y, w, h)
		}
		s.expect(p, 4) // frame
		for range 2 {  // a double click
			for _, state := range []uint32{1, 0} {
				a = s.expect(p, 2) // button(time, button, state)
				a.Uint()
				if b, st := a.Uint(), a.Uint(); b != 0x111 || st != state {
					t.Errorf("button %#x state %d", b, st)
				}
				s.expect(p, 4)
			}
		}
		s.sync()
		// The wheel: two clicks down.
		s.expect(p, 1) // motion_absolute
		s.expect(p, 4)
		for range 2 {
			if a = s.expect(p, 5); a.Uint() != 0 { // axis_source(wheel)
				t.Error("axis source is not the wheel")
			}
			a = s.expect(p, 7) // axis_discrete(time, axis, value, discrete)
			a.Uint()
			if axis, v, d := a.Uint(), a.Fixed(), a.Int(); axis != 0 || v.Float() != 15 || d != 1 {
				t.Errorf("axis %d value %v discrete %d", axis, v.Float(), d)
			}
			s.expect(p, 4)
		}
		s.sync()
	})
	if err := c.Click(ctx10(t), 2, 1, 3, 2); err != nil {
		t.Fatal(err)
	}
	if err := c.Scroll(ctx10(t), 0, 0, 0, 2); err != nil {
		t.Fatal(err)
	}
	if err := c.Click(ctx10(t), 4, 0, 1, 1); !errors.Is(err, platform.ErrOffscreen) {
		t.Fatalf("a click off the output: %v", err)
	}
	for _, bad := range [][2]int{{4, 1}, {0, 1}, {1, 0}, {1, 4}} {
		if err := c.Click(ctx10(t), 0, 0, bad[0], bad[1]); err == nil {
			t.Errorf("button %d count %d accepted", bad[0], bad[1])
		}
	}
}

func TestHeldKeysOverFake(t *testing.T) {
	shift, _ := platform.ParseChord("Shift")
	ctrlA, _ := platform.ParseChord("Ctrl+a")
	c, _ := startFake(t, func(s *fakeServer) {
		kb, codes := serveKeyboard(s)
		sh, ctrl := codes[platform.KeysymShiftL].code, codes[platform.KeysymControlL].code
		s.expectKey(kb, sh, true)
		s.expectMods(kb, 1)
		s.sync()
		// A chord while Shift is held leaves Shift down.
		s.expectKey(kb, ctrl, true)
		s.expectMods(kb, 5)
		s.expectKey(kb, codes['a'].code, true)
		s.expectKey(kb, codes['a'].code, false)
		s.expectKey(kb, ctrl, false)
		s.expectMods(kb, 1)
		s.sync()
		s.expectKey(kb, sh, false)
		s.expectMods(kb, 0)
		s.sync()
	})
	if err := c.KeyDown(ctx10(t), shift); err != nil {
		t.Fatal(err)
	}
	if err := c.KeyChord(ctx10(t), ctrlA); err != nil {
		t.Fatal(err)
	}
	if err := c.KeyUp(ctx10(t), shift); err != nil {
		t.Fatal(err)
	}
	if err := c.KeyDown(ctx10(t), ctrlA); err == nil {
		t.Error("a chord was held as one key")
	}
}

func TestHeldButtonOverFake(t *testing.T) {
	c, _ := startFake(t, func(s *fakeServer) {
		p := servePointer(s)
		motion := func(x, y uint32) {
			s.t.Helper()
			a := s.expect(p, 1)
			a.Uint()
			if gx, gy := a.Uint(), a.Uint(); gx != x || gy != y {
				t.Errorf("motion to %d,%d, want %d,%d", gx, gy, x, y)
			}
			s.expect(p, 4)
		}
		button := func(state uint32) {
			s.t.Helper()
			a := s.expect(p, 2)
			a.Uint()
			if b, st := a.Uint(), a.Uint(); b != 0x110 || st != state {
				t.Errorf("button %#x state %d", b, st)
			}
			s.expect(p, 4)
		}
		motion(3, 2)
		button(1)
		s.sync()
		for i := 1; i <= 8; i++ { // from 3,2 to 0,0 in eight steps
			motion(uint32(3-3*i/8), uint32(2-2*i/8))
			s.sync()
		}
		button(0)
		s.sync()
	})
	if err := c.ButtonDown(ctx10(t), 3, 2, 1); err != nil {
		t.Fatal(err)
	}
	if err := c.DragTo(ctx10(t), 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := c.ButtonUp(ctx10(t), 1); err != nil {
		t.Fatal(err)
	}
	if err := c.ButtonDown(ctx10(t), 0, 0, 4); err == nil {
		t.Error("the wheel's button was held")
	}
}

func TestConnDefaultTimeout(t *testing.T) {
	c, _ := startFake(t, func(s *fakeServer) {
		s.expect(displayID, 0) // never answered
	})
	old := DefaultTimeout
	DefaultTimeout = 50 * time.Millisecond
	defer func() { DefaultTimeout = old }()
	if err := c.Roundtrip(context.Background()); !errors.Is(err, platform.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a call without a deadline to a compositor that never answers: %v", err)
	}
}
