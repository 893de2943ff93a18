package wayland

import (
	"bytes"
	"errors"
	"testing"
)

func TestWireRoundTrip(t *testing.T) {
	r := newRequest(7, 3).Uint(0xdeadbeef).Int(-5).Fixed(FixedFrom(-1.5)).String("wl_seat").
		String("").Object(9).NewID(10).Array([]byte{1, 2, 3, 4, 5})
	if r.err != nil {
		t.Fatal(r.err)
	}
	b, err := r.m.encode()
	if err != nil {
		t.Fatal(err)
	}
	// The header: object 7, then size<<16 | opcode.
	if got := byteOrder.Uint32(b); got != 7 {
		t.Fatalf("object %d", got)
	}
	if got := byteOrder.Uint32(b[4:]); got != uint32(len(b))<<16|3 {
		t.Fatalf("size/opcode word %#x for %d bytes", got, len(b))
	}
	if len(b)%4 != 0 {
		t.Fatalf("message of %d bytes is not padded", len(b))
	}
	m, n, err := splitMessage(append(b, 0xff, 0xff)) // a partial next message after it
	if err != nil || n != len(b) || m.object != 7 || m.opcode != 3 {
		t.Fatalf("split: %+v, %d, %v", m, n, err)
	}
	a := &args{b: m.args}
	if v := a.Uint(); v != 0xdeadbeef {
		t.Errorf("uint %#x", v)
	}
	if v := a.Int(); v != -5 {
		t.Errorf("int %d", v)
	}
	if v := a.Fixed().Float(); v != -1.5 {
		t.Errorf("fixed %v", v)
	}
	if v := a.String(); v != "wl_seat" {
		t.Errorf("string %q", v)
	}
	if v := a.String(); v != "" {
		t.Errorf("empty string %q", v)
	}
	if v := a.Object(); v != 9 {
		t.Errorf("object %d", v)
	}
	if v := a.Uint(); v != 10 {
		t.Errorf("new_id %d", v)
	}
	if v := a.Array(); !bytes.Equal(v, []byte{1, 2, 3, 4, 5}) {
		t.Errorf("array %v", v)
	}
	if err := a.Done(); err != nil {
		t.Fatal(err)
	}
	if a.Uint(); !errors.Is(a.Done(), ErrMalformed) {
		t.Errorf("reading past the end: %v", a.Done())
	}
}

func TestWireRefuses(t *testing.T) {
	if r := newRequest(2, 0).String("a\x00b"); r.err == nil {
		t.Error("a string with a NUL was accepted")
	}
	if _, err := newRequest(2, 0).Array(make([]byte, maxMessage)).m.encode(); err == nil {
		t.Error("a message over 4096 bytes was accepted")
	}
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"size below the header", []byte{1, 0, 0, 0, 0, 0, 4, 0}},
		{"size not a multiple of 4", []byte{1, 0, 0, 0, 0, 0, 9, 0}},
	} {
		if _, _, err := splitMessage(tc.b); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	if _, n, err := splitMessage([]byte{1, 0, 0, 0, 0, 0, 12, 0, 0}); n != 0 || err != nil {
		t.Errorf("a partial message: %d, %v", n, err)
	}
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"string without NUL", []byte{4, 0, 0, 0, 'a', 'b', 'c', 'd'}},
		{"string past the end", []byte{9, 0, 0, 0, 'a', 'b', 0, 0}},
		{"huge length", []byte{0xff, 0xff, 0xff, 0xff}},
		{"no length", []byte{1, 0}},
	} {
		a := &args{b: tc.b}
		_ = a.String()
		if !errors.Is(a.Done(), ErrMalformed) {
			t.Errorf("%s: %v", tc.name, a.Done())
		}
	}
}

func TestFixed(t *testing.T) {
	for _, f := range []float64{0, 1, -1, 15, 0.5, -1280.25} {
		if got := FixedFrom(f).Float(); got != f {
			t.Errorf("%v -> %v", f, got)
		}
	}
	if FixedFrom(1e12) <= 0 || FixedFrom(-1e12) >= 0 {
		t.Error("out-of-range values are not clamped")
	}
}

// FuzzDecode feeds arbitrary bytes to the message splitter and decodes each
// message's arguments by a signature taken from the input: nothing may
// panic, and what decodes re-encodes to arguments that decode the same.
func FuzzDecode(f *testing.F) {
	for _, r := range []*request{
		newRequest(1, 0).Object(3).Uint(1).String("invalid object"),
		newRequest(2, 0).Uint(5).String("zwlr_screencopy_manager_v1").Uint(3),
		newRequest(4, 0).Uint(1).Uint(1280).Uint(800).Uint(5120),
		newRequest(5, 4).Array([]byte("abc")).Fixed(FixedFrom(2.5)),
	} {
		b, _ := r.m.encode()
		f.Add(b, "usu")
		f.Add(b, "ousa")
	}
	f.Add([]byte{1, 0, 0, 0, 0, 0, 8, 0, 2, 0, 0, 0, 1, 0, 16, 0}, "u")
	f.Add([]byte{}, "")
	f.Fuzz(func(t *testing.T, data []byte, sig string) {
		if len(sig) > 16 {
			sig = sig[:16]
		}
		rest := data
		for {
			m, n, err := splitMessage(rest)
			if err != nil || n == 0 {
				return
			}
			if n < headerSize || n > len(rest) || n%4 != 0 {
				t.Fatalf("split took %d of %d bytes", n, len(rest))
			}
			rest = rest[n:]
			vals, err := decodeSig(m.args, sig)
			if err != nil {
				continue
			}
			r := newRequest(m.object, m.opcode)
			for i, c := range []byte(sig) {
				switch c {
				case 's':
					r.String(vals[i].(string))
				case 'a':
					r.Array(vals[i].([]byte))
				default:
					r.Uint(vals[i].(uint32))
				}
			}
			if r.err != nil {
				continue // a string holding a NUL decodes but cannot be sent
			}
			again, err := decodeSig(r.m.args, sig)
			if err != nil {
				t.Fatalf("re-encoded arguments do not decode: %v", err)
			}
			for i := range vals {
				if a, ok := vals[i].([]byte); ok {
					if !bytes.Equal(a, again[i].([]byte)) {
						t.Fatalf("argument %d: %v then %v", i, vals[i], again[i])
					}
				} else if vals[i] != again[i] {
					t.Fatalf("argument %d: %v then %v", i, vals[i], again[i])
				}
			}
		}
	})
}

// decodeSig decodes arguments by a signature: s string, a array, anything
// else a 32-bit word.
func decodeSig(b []byte, sig string) ([]any, error) {
	a := &args{b: b}
	var vals []any
	for _, c := range []byte(sig) {
		switch c {
		case 's':
			vals = append(vals, a.String())
		case 'a':
			vals = append(vals, a.Array())
		default:
			vals = append(vals, a.Uint())
		}
	}
	for i, v := range vals {
		if b, ok := v.([]byte); ok && b == nil {
			vals[i] = []byte{}
		}
	}
	return vals, a.Done()
}
