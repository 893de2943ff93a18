package wayland

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The wire format: every message is a header of two 32-bit words in the
// host's byte order (little-endian on every platform uiscope runs on), the
// object the message is for or from, then its size in bytes (header
// included) in the upper 16 bits and its opcode in the lower 16, followed
// by the arguments, each a multiple of 4 bytes. File descriptors travel
// beside the bytes, as SCM_RIGHTS ancillary data, in argument order.

// ObjectID names an object on a connection. 0 is the null object; the
// client allocates ids from 2 up (1 is wl_display), the server from
// 0xff000000.
type ObjectID uint32

// displayID is wl_display, the one object every connection starts with.
const displayID ObjectID = 1

const (
	headerSize = 8
	// maxMessage is the largest message libwayland sends or accepts
	// (its connection buffer); a bigger one is refused on both sides.
	maxMessage = 4096
)

var byteOrder = binary.LittleEndian

// ErrMalformed: a message's bytes do not parse (a size that is not a
// multiple of 4 or runs past the data, a string without its NUL, arguments
// the message lacks).
var ErrMalformed = errors.New("malformed wayland message")

// Fixed is the wire's signed 24.8 fixed-point number.
type Fixed int32

// FixedFrom converts f, clamped to Fixed's range.
func FixedFrom(f float64) Fixed {
	v := math.Round(f * 256)
	switch {
	case v >= math.MaxInt32:
		return math.MaxInt32
	case v <= math.MinInt32:
		return math.MinInt32
	}
	return Fixed(v)
}

// Float is f as a float64.
func (f Fixed) Float() float64 { return float64(f) / 256 }

// message is one request or event as it travels: its arguments encoded,
// without the header, and the descriptors sent beside it.
type message struct {
	object ObjectID
	opcode uint16
	args   []byte
	fds    []int
}

// request builds a message's arguments in order.
type request struct {
	m   message
	err error
}

func newRequest(obj ObjectID, opcode uint16) *request {
	return &request{m: message{object: obj, opcode: opcode}}
}

func (r *request) Uint(v uint32) *request {
	r.m.args = byteOrder.AppendUint32(r.m.args, v)
	return r
}

func (r *request) Int(v int32) *request { return r.Uint(uint32(v)) }

func (r *request) Fixed(v Fixed) *request { return r.Uint(uint32(v)) }

func (r *request) Object(id ObjectID) *request { return r.Uint(uint32(id)) }

func (r *request) NewID(id ObjectID) *request { return r.Uint(uint32(id)) }

// String appends a string: its length with the terminating NUL, the bytes,
// the NUL, padding to 4. A string holding a NUL cannot be sent.
func (r *request) String(s string) *request {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			r.err = fmt.Errorf("wayland: string argument %q holds a NUL byte", s)
			return r
		}
	}
	r.m.args = byteOrder.AppendUint32(r.m.args, uint32(len(s)+1))
	r.m.args = append(r.m.args, s...)
	r.m.args = append(r.m.args, make([]byte, pad(len(s)+1)-len(s))...)
	return r
}

// Array appends an array: its length in bytes, the bytes, padding to 4.
func (r *request) Array(b []byte) *request {
	r.m.args = byteOrder.AppendUint32(r.m.args, uint32(len(b)))
	r.m.args = append(r.m.args, b...)
	r.m.args = append(r.m.args, make([]byte, pad(len(b))-len(b))...)
	return r
}

// FD sends fd beside the message; it takes no bytes in the message.
func (r *request) FD(fd int) *request {
	r.m.fds = append(r.m.fds, fd)
	return r
}

// pad rounds n up to a multiple of 4.
func pad(n int) int { return (n + 3) &^ 3 }

// encode writes the message whole, header first.
func (m message) encode() ([]byte, error) {
	size := headerSize + len(m.args)
	if size > maxMessage {
		return nil, fmt.Errorf("wayland: message of %d bytes to object %d; at most %d can be sent", size, m.object, maxMessage)
	}
	b := make([]byte, 0, size)
	b = byteOrder.AppendUint32(b, uint32(m.object))
	b = byteOrder.AppendUint32(b, uint32(size)<<16|uint32(m.opcode))
	return append(b, m.args...), nil
}

// splitMessage takes the first message off b. It returns n == 0 when b
// does not hold a whole message yet, and ErrMalformed when the header
// cannot be right (which leaves the stream unreadable from there on).
func splitMessage(b []byte) (m message, n int, err error) {
	if len(b) < headerSize {
		return message{}, 0, nil
	}
	obj := byteOrder.Uint32(b)
	word := byteOrder.Uint32(b[4:])
	size := int(word >> 16)
	if size < headerSize || size%4 != 0 {
		return message{}, 0, fmt.Errorf("%w: header of object %d says %d bytes", ErrMalformed, obj, size)
	}
	if len(b) < size {
		return message{}, 0, nil
	}
	return message{object: ObjectID(obj), opcode: uint16(word), args: b[headerSize:size:size]}, size, nil
}

// args reads a message's arguments in order. The first failure sticks:
// later reads return zero values and err says what went wrong.
type args struct {
	b   []byte
	err error
}

func (a *args) fail(what string) {
	if a.err == nil {
		a.err = fmt.Errorf("%w: %s", ErrMalformed, what)
	}
	a.b = nil
}

func (a *args) Uint() uint32 {
	if len(a.b) < 4 {
		a.fail("an argument is missing")
		return 0
	}
	v := byteOrder.Uint32(a.b)
	a.b = a.b[4:]
	return v
}

func (a *args) Int() int32 { return int32(a.Uint()) }

func (a *args) Fixed() Fixed { return Fixed(a.Uint()) }

func (a *args) Object() ObjectID { return ObjectID(a.Uint()) }

// String reads a string; the null string reads as "".
func (a *args) String() string {
	b := a.sized("string")
	if len(b) == 0 {
		return ""
	}
	if b[len(b)-1] != 0 {
		a.fail("a string lacks its terminating NUL")
		return ""
	}
	return string(b[:len(b)-1])
}

// Array reads an array's bytes (a copy).
func (a *args) Array() []byte {
	b := a.sized("array")
	if b == nil {
		return nil
	}
	return append([]byte(nil), b...)
}

// sized reads a length-prefixed argument and its padding.
func (a *args) sized(what string) []byte {
	n := a.Uint()
	if a.err != nil {
		return nil
	}
	if uint64(n) > uint64(len(a.b)) || pad(int(n)) > len(a.b) {
		a.fail(fmt.Sprintf("%s of %d bytes runs past the message", what, n))
		return nil
	}
	b := a.b[:n]
	a.b = a.b[pad(int(n)):]
	return b
}

// Done is the error of the reads so far; bytes left over after the last
// argument are not an error (a newer version may append arguments).
func (a *args) Done() error { return a.err }
