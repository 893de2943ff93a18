//go:build linux

package x11

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"github.com/uiscope/uiscope/internal/platform"
)

// Errors of the input layer.
var (
	// ErrOffscreen: the point lies outside the root window.
	ErrOffscreen = errors.New("point is outside the screen")
	// ErrNoXTest: the server lacks the XTEST extension, so no input can be
	// synthesized.
	ErrNoXTest = errors.New("the X server has no XTEST extension")
	// ErrNoSpareKeycode: a character the keyboard layout lacks needs a
	// keycode without keysyms to bind it to, and there is none.
	ErrNoSpareKeycode = errors.New("no spare keycode to bind a character the keyboard layout lacks")
)

// MaxTypeRunes is the most characters TypeText types in one call.
const MaxTypeRunes = 10000

// maxScrollSteps bounds each axis of Scroll, in wheel clicks.
const maxScrollSteps = 100

// inputMu serializes all synthetic input in the process, so sequences sent
// from several goroutines (or connections) never interleave. It is taken
// inside the function call runs aside, not by the caller: when the caller's
// context ends first, the abandoned sequence keeps the lock until it has
// released its keys and restored the keymap, and only then can the next
// sequence start.
var inputMu sync.Mutex

// bindSettle is how long a recycled keycode stays bound after its last use,
// in nanoseconds, when one call types more distinct missing characters than
// there are spare keycodes. Applications translate a keycode to a keysym
// when they process the key event, reading the keymap anew after the
// MappingNotify that precedes it; restoring the keymap before a slow
// application got there would make it see an empty key.
var bindSettle atomic.Int64

// bindLinger is how long the keycodes bound for missing characters stay
// bound after the key session that last used them, in nanoseconds, before
// they get their empty mapping back in the background. Restoring them at
// the end of every call made a loaded application (GTK at load average 20)
// translate the last characters after the restore, as empty keys; kept for
// a while, they are also reused by the next call that types the same
// characters, without a mapping change.
var bindLinger atomic.Int64

func init() {
	bindSettle.Store(int64(500 * time.Millisecond))
	bindLinger.Store(int64(5 * time.Second))
}

// bindings are the spare keycodes a connection bound to characters the
// layout lacks, kept between key sessions (see bindLinger). They are
// inputMu's.
type bindings struct {
	bound map[uint32]xproto.Keycode // keysym -> spare keycode bound to it
	gen   uint64                    // bumped by every key session
	timer *time.Timer               // the pending restore, if any
}

// XTEST FakeInput event types.
const (
	fakeKeyPress      = 2
	fakeKeyRelease    = 3
	fakeButtonPress   = 4
	fakeButtonRelease = 5
	fakeMotion        = 6
)

// initXTest enables XTEST once (see extension).
func (c *Conn) initXTest() error {
	ok, err := c.extension("XTEST", &c.xtestState)
	if err == nil && !ok {
		err = fmt.Errorf("x11: %w", ErrNoXTest)
	}
	return err
}

// roundTrip waits until the server has processed every request sent before.
func (c *Conn) roundTrip() error {
	r, err := xproto.GetInputFocus(c.xc).Reply()
	if err != nil {
		return fmt.Errorf("x11: round trip: %w", err)
	}
	if r == nil {
		return errors.New("x11: round trip: connection closed")
	}
	return nil
}

// beginInput is the common start of an input sequence, run with inputMu
// held: the caller may have given up while it waited for the lock.
func (c *Conn) beginInput(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("x11: %w", err)
	}
	return c.initXTest()
}

// input runs fn as one input sequence: on the connection's goroutine
// (call), behind inputMu, after beginInput.
func (c *Conn) input(ctx context.Context, fn func(ctx context.Context) error) error {
	_, err := call(ctx, func(ctx context.Context) (struct{}, error) {
		inputMu.Lock()
		defer inputMu.Unlock()
		if err := c.beginInput(ctx); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, fn(ctx)
	})
	return err
}

// --- keyboard ---

// keymap is the server's core keyboard mapping.
type keymap struct {
	min  xproto.Keycode
	max  xproto.Keycode
	per  int // keysyms per keycode
	syms []xproto.Keysym
	mods [8][]xproto.Keycode // keycodes of Shift, Lock, Control, Mod1..Mod5
}

func (c *Conn) readKeymap() (*keymap, error) {
	setup := xproto.Setup(c.xc)
	km := &keymap{min: setup.MinKeycode, max: setup.MaxKeycode}
	kck := xproto.GetKeyboardMapping(c.xc, km.min, byte(int(km.max)-int(km.min)+1))
	mck := xproto.GetModifierMapping(c.xc)
	kr, kerr := kck.Reply()
	mr, merr := mck.Reply()
	if err := errors.Join(kerr, merr); err != nil {
		return nil, fmt.Errorf("x11: reading the keyboard mapping: %w", err)
	}
	if kr == nil || mr == nil {
		return nil, errors.New("x11: reading the keyboard mapping: connection closed")
	}
	km.per = int(kr.KeysymsPerKeycode)
	km.syms = kr.Keysyms
	if km.per == 0 || len(km.syms) < km.per*(int(km.max)-int(km.min)+1) {
		return nil, fmt.Errorf("x11: keyboard mapping has %d keysyms, %d per keycode", len(km.syms), km.per)
	}
	if n := int(mr.KeycodesPerModifier); n > 0 && len(mr.Keycodes) >= 8*n {
		for i := range km.mods {
			for _, kc := range mr.Keycodes[i*n : (i+1)*n] {
				if kc != 0 {
					km.mods[i] = append(km.mods[i], kc)
				}
			}
		}
	}
	return km, nil
}

// levels returns the keysyms kc produces without and with Shift, applying
// the core protocol's rule for a lone keysym: an alphabetic one stands for
// its lower and upper case, any other for itself on both levels.
func (m *keymap) levels(kc xproto.Keycode) (l0, l1 uint32) {
	i := (int(kc) - int(m.min)) * m.per
	l0 = uint32(m.syms[i])
	if m.per > 1 {
		l1 = uint32(m.syms[i+1])
	}
	if l1 == 0 {
		if lo, up, ok := caseKeysyms(l0); ok {
			return lo, up
		}
		return l0, l0
	}
	return l0, l1
}

// caseKeysyms returns the lower- and upper-case forms of a character keysym
// that has both.
func caseKeysyms(ks uint32) (lo, up uint32, ok bool) {
	r, ok := keysymRune(ks)
	if !ok {
		return 0, 0, false
	}
	lo, up = platform.RuneKeysym(unicode.ToLower(r)), platform.RuneKeysym(unicode.ToUpper(r))
	return lo, up, lo != up && lo != 0 && up != 0
}

// lookup finds a keycode that types ks, preferring one without Shift.
func (m *keymap) lookup(ks uint32) (kc xproto.Keycode, shift, ok bool) {
	if ks == 0 {
		return 0, false, false
	}
	var shifted xproto.Keycode
	for k := int(m.min); k <= int(m.max); k++ {
		l0, l1 := m.levels(xproto.Keycode(k))
		if l0 == ks {
			return xproto.Keycode(k), false, true
		}
		if l1 == ks && shifted == 0 {
			shifted = xproto.Keycode(k)
		}
	}
	return shifted, true, shifted != 0
}

// spares lists the keycodes with no keysym at all that no modifier uses.
func (m *keymap) spares() []xproto.Keycode {
	var out []xproto.Keycode
	for k := int(m.min); k <= int(m.max); k++ {
		kc := xproto.Keycode(k)
		i := (k - int(m.min)) * m.per
		if slices.ContainsFunc(m.syms[i:i+m.per], func(s xproto.Keysym) bool { return s != 0 }) {
			continue
		}
		if slices.ContainsFunc(m.mods[:], func(kcs []xproto.Keycode) bool { return slices.Contains(kcs, kc) }) {
			continue
		}
		out = append(out, kc)
	}
	return out
}

// keySession is one keyboard sequence: it knows which keys it holds down and
// which spare keycodes are bound, so that finish can undo both.
type keySession struct {
	c     *Conn
	km    *keymap
	down  []xproto.Keycode
	bound map[uint32]xproto.Keycode // the connection's bindings (bindings.bound)
	free  []xproto.Keycode          // spare keycodes not bound
	used  bool                      // a bound keycode was pressed since the last unbind
}

// The keymap is read afresh for every sequence rather than cached and
// refreshed on MappingNotify: it costs one round trip, needs no event
// plumbing, and a layout switched a moment ago is always honoured. The
// bindings kept from earlier sessions are checked against it: one another
// client remapped since is forgotten, neither used nor restored.
func (c *Conn) newKeySession() (*keySession, error) {
	km, err := c.readKeymap()
	if err != nil {
		return nil, err
	}
	b := &c.keys
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	b.gen++
	if b.bound == nil {
		b.bound = map[uint32]xproto.Keycode{}
	}
	for ks, kc := range b.bound {
		if l0, _ := km.levels(kc); l0 != ks {
			delete(b.bound, ks)
		}
	}
	return &keySession{c: c, km: km, bound: b.bound, free: km.spares()}, nil
}

// run runs fn, then always releases what fn left down and schedules the
// restore of the keycodes bound, even if fn failed or panicked.
func (s *keySession) run(fn func() error) (err error) {
	defer func() {
		if ferr := s.finish(); err == nil {
			err = ferr
		}
	}()
	return fn()
}

func (s *keySession) fake(typ byte, kc xproto.Keycode) {
	xtest.FakeInput(s.c.xc, typ, byte(kc), 0, s.c.root, 0, 0, 0)
}

func (s *keySession) press(kc xproto.Keycode) {
	if slices.Contains(s.down, kc) {
		return
	}
	s.fake(fakeKeyPress, kc)
	s.down = append(s.down, kc)
	for _, b := range s.bound {
		if b == kc {
			s.used = true
		}
	}
}

func (s *keySession) release(kc xproto.Keycode) {
	i := slices.Index(s.down, kc)
	if i < 0 {
		return
	}
	s.fake(fakeKeyRelease, kc)
	s.down = slices.Delete(s.down, i, i+1)
}

// finish releases every key still down, in reverse order, and waits for
// the server to have processed it; the bound keycodes get their empty
// mapping back once no session used them for bindLinger. It does not look
// at the context: a key must never be left down.
func (s *keySession) finish() error {
	for i := len(s.down) - 1; i >= 0; i-- {
		s.fake(fakeKeyRelease, s.down[i])
	}
	s.down = nil
	if len(s.bound) > 0 {
		s.c.lingerBindings()
	}
	return s.c.roundTrip()
}

// lingerBindings schedules the restore of the connection's bound keycodes,
// bindLinger from now unless a key session starts before. Run with inputMu
// held.
func (c *Conn) lingerBindings() {
	gen := c.keys.gen
	c.keys.timer = time.AfterFunc(time.Duration(bindLinger.Load()), func() {
		inputMu.Lock()
		defer inputMu.Unlock()
		if c.keys.gen == gen {
			c.unbind()
		}
	})
}

// unbind gives every bound keycode its empty mapping back, without waiting
// for the server: the requests go out in order before any later input. Run
// with inputMu held.
func (c *Conn) unbind() {
	b := &c.keys
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	if len(b.bound) == 0 {
		return
	}
	km, err := c.readKeymap()
	if err != nil {
		return
	}
	empty := make([]xproto.Keysym, km.per)
	for ks, kc := range b.bound {
		// A keycode another client remapped since is not ours to clear.
		if l0, _ := km.levels(kc); l0 == ks {
			xproto.ChangeKeyboardMapping(c.xc, 1, kc, byte(km.per), empty)
		}
		delete(b.bound, ks)
	}
}

// restoreBindings is Close's restore: at once, unless an input sequence
// holds the lock (then the bindings stay; they name characters no physical
// key types). It waits up to DefaultTimeout for the server to have taken
// the requests, which closing the connection would otherwise drop.
func (c *Conn) restoreBindings() {
	if !inputMu.TryLock() {
		return
	}
	had := len(c.keys.bound) > 0
	c.unbind()
	inputMu.Unlock()
	if had {
		ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
		defer cancel()
		call(ctx, func(context.Context) (struct{}, error) { return struct{}{}, c.roundTrip() })
	}
}

// keycode returns a keycode typing ks and whether it needs Shift, binding a
// spare keycode when the layout has none.
func (s *keySession) keycode(ctx context.Context, ks uint32) (xproto.Keycode, bool, error) {
	if kc, ok := s.bound[ks]; ok {
		return kc, false, nil
	}
	if kc, shift, ok := s.km.lookup(ks); ok {
		return kc, shift, nil
	}
	kc, err := s.bind(ctx, ks)
	return kc, false, err
}

// bind maps a spare keycode to ks on both levels and waits until the server
// reports the new mapping.
func (s *keySession) bind(ctx context.Context, ks uint32) (xproto.Keycode, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("x11: %w", err)
	}
	if len(s.free) == 0 {
		if len(s.bound) == 0 {
			return 0, fmt.Errorf("x11: typing %s: %w", keysymDesc(ks), ErrNoSpareKeycode)
		}
		// More distinct missing characters than spare keycodes: recycle.
		if err := s.unbindAll(); err != nil {
			return 0, err
		}
	}
	kc := s.free[0]
	s.free = s.free[1:]
	s.bound[ks] = kc // before the request: a half-applied change is restored too
	syms := make([]xproto.Keysym, s.km.per)
	syms[0] = xproto.Keysym(ks)
	if len(syms) > 1 {
		syms[1] = xproto.Keysym(ks)
	}
	if err := xproto.ChangeKeyboardMappingChecked(s.c.xc, 1, kc, byte(s.km.per), syms).Check(); err != nil {
		return 0, fmt.Errorf("x11: binding keycode %d to %s: %w", kc, keysymDesc(ks), err)
	}
	r, err := xproto.GetKeyboardMapping(s.c.xc, kc, 1).Reply()
	if err != nil {
		return 0, fmt.Errorf("x11: binding keycode %d to %s: %w", kc, keysymDesc(ks), err)
	}
	if r == nil || len(r.Keysyms) == 0 || uint32(r.Keysyms[0]) != ks {
		return 0, fmt.Errorf("x11: binding keycode %d to %s: the server did not take the mapping", kc, keysymDesc(ks))
	}
	return kc, nil
}

// unbindAll gives every bound keycode its empty mapping back at once, to
// recycle them, after letting applications read the mapping they were
// typed with.
func (s *keySession) unbindAll() error {
	if s.used {
		time.Sleep(time.Duration(bindSettle.Load()))
	}
	empty := make([]xproto.Keysym, s.km.per)
	for ks, kc := range s.bound {
		xproto.ChangeKeyboardMapping(s.c.xc, 1, kc, byte(s.km.per), empty)
		s.free = append(s.free, kc)
		delete(s.bound, ks)
	}
	s.used = false
	return s.c.roundTrip()
}

// modKeycode returns the keycode pressed for a modifier: its left or right
// key by keysym, else the first keycode the server's modifier map has for it.
func (s *keySession) modKeycode(m Modifiers) (xproto.Keycode, error) {
	var syms []uint32
	var index int
	switch m {
	case ModShift:
		syms, index = []uint32{ksShiftL, ksShiftR}, 0
	case ModCtrl:
		syms, index = []uint32{ksControlL, ksControlR}, 2
	case ModAlt:
		syms, index = []uint32{ksAltL, ksAltR, ksMetaL}, 3 // Mod1
	case ModSuper:
		syms, index = []uint32{ksSuperL, ksSuperR}, 6 // Mod4
	}
	for _, ks := range syms {
		if kc, _, ok := s.km.lookup(ks); ok {
			return kc, nil
		}
	}
	if len(s.km.mods[index]) > 0 {
		return s.km.mods[index][0], nil
	}
	return 0, fmt.Errorf("x11: the keyboard mapping has no key for %s", Chord{Mods: m}.String())
}

func keysymDesc(ks uint32) string {
	if r, ok := keysymRune(ks); ok {
		return fmt.Sprintf("%q (U+%04X)", r, r)
	}
	return fmt.Sprintf("keysym %#x", ks)
}

// KeyChord presses the chord's modifiers (Ctrl, Alt, Shift, Super, plus
// Shift when the key is on the shifted level), presses and releases the key,
// and releases the modifiers in reverse order. The releases happen on every
// path, errors and cancellation included, before any other input can start;
// the call returns once the server has processed the whole sequence.
func (c *Conn) KeyChord(ctx context.Context, ch Chord) error {
	if ch.Key == 0 || ch.Mods&^(ModCtrl|ModAlt|ModShift|ModSuper) != 0 {
		return fmt.Errorf("x11: invalid key chord %+v", ch)
	}
	return c.withKeys(ctx, func(ctx context.Context, s *keySession) error {
		kc, shift, err := s.keycode(ctx, ch.Key)
		if err != nil {
			return err
		}
		down := ch.Mods
		if shift {
			down |= ModShift
		}
		var mods []xproto.Keycode
		for _, m := range down.List() {
			mk, err := s.modKeycode(m)
			if err != nil {
				return err
			}
			mods = append(mods, mk)
		}
		for _, mk := range mods {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("x11: key chord %s: %w", ch, err)
			}
			s.press(mk)
		}
		s.press(kc)
		s.release(kc)
		return nil // finish releases the modifiers and round-trips
	})
}

// withKeys runs fn as one key session: behind the input lock, bounded by
// ctx, with every key it pressed released and every keycode it bound
// restored at the end, whatever happens.
func (c *Conn) withKeys(ctx context.Context, fn func(ctx context.Context, s *keySession) error) error {
	return c.input(ctx, func(ctx context.Context) error {
		s, err := c.newKeySession()
		if err != nil {
			return err
		}
		return s.run(func() error { return fn(ctx, s) })
	})
}

// TypeText types text character by character, as the current keyboard
// layout would (Shift held for shifted characters); a character the layout
// lacks is typed by binding a spare keycode to it for the duration of the
// call and a while after (bindLinger). "\r\n" and lone '\n' or '\r' type
// Return, '\t' Tab. The text is
// checked whole before anything is typed: at most MaxTypeRunes characters,
// valid UTF-8, no control characters but those. It returns the number of
// characters typed, also when it stops early.
func (c *Conn) TypeText(ctx context.Context, text string) (int, error) {
	return c.TypeTextChecked(ctx, text, 0, nil)
}

// TypeTextChecked is TypeText that calls check before the first character
// and then before every every characters, and stops (returning check's
// error and the count typed) when it fails: the caller's "is the target
// still in front" between batches. The whole text is one key session, so
// a character the layout lacks keeps the keycode bound to it for the whole
// call: binding a spare keycode anew for every batch, and restoring it in
// between, lost characters an application had not yet translated (GTK
// reads the keymap when it handles the key, possibly after the next
// batch's mapping change).
func (c *Conn) TypeTextChecked(ctx context.Context, text string, every int, check func(ctx context.Context) error) (int, error) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if !utf8.ValidString(text) {
		return 0, errors.New("x11: text to type is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(text); n > MaxTypeRunes {
		return 0, fmt.Errorf("x11: text to type has %d characters; at most %d can be typed in one call", n, MaxTypeRunes)
	}
	syms := make([]uint32, 0, len(text))
	for i, r := range []rune(text) {
		ks := platform.RuneKeysym(r)
		if ks == 0 {
			return 0, fmt.Errorf("x11: cannot type control character U+%04X (character %d of the text)", r, i+1)
		}
		syms = append(syms, ks)
	}
	if len(syms) == 0 {
		return 0, nil
	}
	var typed atomic.Int64
	err := c.withKeys(ctx, func(ctx context.Context, s *keySession) error {
		for i, ks := range syms {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("x11: typing stopped after %d of %d characters: %w", typed.Load(), len(syms), err)
			}
			if check != nil && (i == 0 || every > 0 && i%every == 0) {
				if err := check(ctx); err != nil {
					return err
				}
			}
			kc, shift, err := s.keycode(ctx, ks)
			if err != nil {
				return err
			}
			var sk xproto.Keycode
			if shift {
				if sk, err = s.modKeycode(ModShift); err != nil {
					return err
				}
				s.press(sk)
			}
			s.press(kc)
			s.release(kc)
			if shift {
				s.release(sk)
			}
			// One round trip per character paces the typing and lets a
			// cancellation stop it promptly.
			if err := s.c.roundTrip(); err != nil {
				return err
			}
			typed.Add(1)
		}
		return nil
	})
	return int(typed.Load()), err
}

// --- pointer ---

// onscreen checks that the point lies on the root window, reading its size
// now (RandR may have resized it since Open).
func (c *Conn) onscreen(x, y int) error {
	g, err := xproto.GetGeometry(c.xc, xproto.Drawable(c.root)).Reply()
	if err != nil {
		return fmt.Errorf("x11: reading the screen size: %w", err)
	}
	if g == nil {
		return errors.New("x11: reading the screen size: connection closed")
	}
	if x < 0 || y < 0 || x >= int(g.Width) || y >= int(g.Height) {
		return fmt.Errorf("x11: point (%d,%d) on a %dx%d screen: %w", x, y, g.Width, g.Height, ErrOffscreen)
	}
	return nil
}

func (c *Conn) fakeMotion(x, y int) {
	xtest.FakeInput(c.xc, fakeMotion, 0, 0, c.root, int16(x), int16(y), 0)
}

// pointerInput runs a pointer sequence at (x, y): checks, the move there,
// then fn; buttons fn presses are released on every path.
func (c *Conn) pointerInput(ctx context.Context, x, y int, fn func(press func(button byte))) error {
	return c.input(ctx, func(ctx context.Context) error {
		if err := c.onscreen(x, y); err != nil {
			return err
		}
		var down byte
		defer func() {
			if down != 0 {
				xtest.FakeInput(c.xc, fakeButtonRelease, down, 0, c.root, 0, 0, 0)
			}
		}()
		c.fakeMotion(x, y)
		if fn != nil {
			fn(func(b byte) {
				xtest.FakeInput(c.xc, fakeButtonPress, b, 0, c.root, 0, 0, 0)
				down = b
				xtest.FakeInput(c.xc, fakeButtonRelease, b, 0, c.root, 0, 0, 0)
				down = 0
			})
		}
		return c.roundTrip()
	})
}

// MovePointer moves the pointer to the absolute screen point (x, y).
func (c *Conn) MovePointer(ctx context.Context, x, y int) error {
	return c.pointerInput(ctx, x, y, nil)
}

// Click moves the pointer to the absolute screen point (x, y) and clicks
// button (1 left, 2 middle, 3 right, 8 back, 9 forward) count times (1, 2
// for a double click, 3 for a triple click).
func (c *Conn) Click(ctx context.Context, x, y int, button int, count int) error {
	if button < 1 || button > 9 || (button >= 4 && button <= 7) {
		return fmt.Errorf("x11: button %d: buttons are 1 (left), 2 (middle), 3 (right), 8, 9; use Scroll for the wheel", button)
	}
	if count < 1 || count > 3 {
		return fmt.Errorf("x11: click count %d: must be 1, 2 or 3", count)
	}
	return c.pointerInput(ctx, x, y, func(click func(byte)) {
		for range count {
			click(byte(button))
		}
	})
}

// Scroll moves the pointer to (x, y) and turns the wheel: dy > 0 scrolls
// down (button 5), dy < 0 up (4), dx > 0 right (7), dx < 0 left (6); each
// unit is one wheel click, at most 100 per axis.
func (c *Conn) Scroll(ctx context.Context, x, y int, dx, dy int) error {
	if dx == 0 && dy == 0 {
		return errors.New("x11: scroll by 0,0: nothing to scroll")
	}
	if dx < -maxScrollSteps || dx > maxScrollSteps || dy < -maxScrollSteps || dy > maxScrollSteps {
		return fmt.Errorf("x11: scroll by %d,%d: at most %d clicks per axis", dx, dy, maxScrollSteps)
	}
	return c.pointerInput(ctx, x, y, func(click func(byte)) {
		steps := func(n int, neg, pos byte) {
			b := pos
			if n < 0 {
				b, n = neg, -n
			}
			for range n {
				click(b)
			}
		}
		steps(dy, 4, 5)
		steps(dx, 6, 7)
	})
}

// PointerPosition returns the pointer's absolute screen position.
func (c *Conn) PointerPosition(ctx context.Context) (x, y int, err error) {
	type pt struct{ x, y int }
	p, err := call(ctx, func(ctx context.Context) (pt, error) {
		r, err := xproto.QueryPointer(c.xc, c.root).Reply()
		if err != nil {
			return pt{}, fmt.Errorf("x11: querying the pointer: %w", err)
		}
		if r == nil {
			return pt{}, errors.New("x11: querying the pointer: connection closed")
		}
		return pt{int(r.RootX), int(r.RootY)}, nil
	})
	return p.x, p.y, err
}
