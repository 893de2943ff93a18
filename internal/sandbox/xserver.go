//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/uiscope/uiscope/internal/procinfo"
)

const cookieName = "MIT-MAGIC-COOKIE-1"

func newCookie() ([]byte, error) {
	c := make([]byte, 16)
	if _, err := rand.Read(c); err != nil {
		return nil, err
	}
	return c, nil
}

// writeXauthority writes a one-entry Xauthority file. The entry is
// FamilyWild with no display number, so it matches whatever display Xvfb
// picks: the number is only known after the server started.
func writeXauthority(path string, cookie []byte) error {
	var b bytes.Buffer
	field := func(v []byte) {
		_ = binary.Write(&b, binary.BigEndian, uint16(len(v)))
		b.Write(v)
	}
	_ = binary.Write(&b, binary.BigEndian, uint16(0xffff))
	field(nil)
	field(nil)
	field([]byte(cookieName))
	field(cookie)
	return os.WriteFile(path, b.Bytes(), 0o600)
}

// removeStaleXLocks deletes /tmp/.XN-lock files whose owner is dead (or a
// zombie, which the X server's own kill(pid, 0) check takes for alive).
// Sockets are left alone: a -displayfd server may hold the display without
// a lock file.
func removeStaleXLocks(logf func(string, ...any)) {
	locks, _ := filepath.Glob("/tmp/.X*-lock")
	for _, l := range locks {
		b, err := os.ReadFile(l)
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 {
			continue
		}
		id, err := procinfo.Lookup(pid)
		if err == nil && id.Alive() {
			continue
		}
		if os.Remove(l) == nil {
			logf("removed stale X lock %s (pid %d is gone)", l, pid)
		}
	}
}

// readLine reads one line from a pipe a child writes to, giving up at the
// deadline or when ctx ends.
func readLine(ctx context.Context, r *os.File, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	deadline, _ := ctx.Deadline()
	_ = r.SetReadDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { _ = r.SetReadDeadline(time.Now()) })
	defer stop()
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", err
	}
	return strings.TrimSpace(line), nil
}

// cookieConn hands xgb the desktop's cookie. xgb reads credentials only from the
// process-wide $XAUTHORITY, which must not be changed for one desktop while
// others run, so the connection setup request it sends is replaced by one
// carrying this desktop's cookie.
type cookieConn struct {
	net.Conn
	cookie []byte
	once   sync.Once
}

func (c *cookieConn) Write(p []byte) (int, error) {
	first := false
	c.once.Do(func() { first = true })
	if !first {
		return c.Conn.Write(p)
	}
	// xgb writes the whole setup request at once; see the X protocol's
	// "Connection Setup": byte order, pad, major, minor, name and data
	// lengths, pad, then name and data each padded to 4 bytes.
	name := []byte(cookieName)
	if c.cookie == nil {
		// A server without authorization (sway's Xwayland) is sent none.
		name = nil
	}
	req := make([]byte, 12+pad4(len(name))+pad4(len(c.cookie)))
	req[0] = 'l'
	binary.LittleEndian.PutUint16(req[2:], 11)
	binary.LittleEndian.PutUint16(req[6:], uint16(len(name)))
	binary.LittleEndian.PutUint16(req[8:], uint16(len(c.cookie)))
	copy(req[12:], name)
	copy(req[12+pad4(len(name)):], c.cookie)
	if _, err := c.Conn.Write(req); err != nil {
		return 0, err
	}
	return len(p), nil
}

func pad4(n int) int { return (n + 3) &^ 3 }

// xconn is a short-lived X connection used while starting the desktop.
type xconn struct {
	c    *xgb.Conn
	root xproto.Window
}

func dialX(display int, cookie []byte) (*xconn, error) {
	sock := fmt.Sprintf("/tmp/.X11-unix/X%d", display)
	nc, err := net.DialTimeout("unix", sock, 5*time.Second)
	if err != nil {
		return nil, err
	}
	// A server that accepts but never answers must not hang the setup.
	_ = nc.SetDeadline(time.Now().Add(5 * time.Second))
	c, err := xgb.NewConnNet(&cookieConn{Conn: nc, cookie: cookie})
	if err != nil {
		nc.Close()
		return nil, err
	}
	_ = nc.SetDeadline(time.Time{})
	// xgb stalls if nobody drains its event queue.
	go func() {
		for {
			ev, xerr := c.WaitForEvent()
			if ev == nil && xerr == nil {
				return
			}
		}
	}()
	setup := xproto.Setup(c)
	if setup == nil || len(setup.Roots) == 0 {
		c.Close()
		return nil, errors.New("no screens from the X server")
	}
	return &xconn{c: c, root: setup.DefaultScreen(c).Root}, nil
}

func (x *xconn) Close() { x.c.Close() }

// within runs an X round trip with a deadline: xgb replies take no context.
// The result travels only through the channel, so a reply that comes after
// the deadline writes nothing the caller reads.
func within[T any](ctx context.Context, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

func (x *xconn) atom(ctx context.Context, name string) (xproto.Atom, error) {
	return within(ctx, func() (xproto.Atom, error) {
		r, err := xproto.InternAtom(x.c, false, uint16(len(name)), name).Reply()
		if err != nil {
			return 0, err
		}
		return r.Atom, nil
	})
}

func (x *xconn) setRootString(ctx context.Context, name, value string) error {
	a, err := x.atom(ctx, name)
	if err != nil {
		return err
	}
	_, err = within(ctx, func() (struct{}, error) {
		return struct{}{}, xproto.ChangePropertyChecked(x.c, xproto.PropModeReplace, x.root, a,
			xproto.AtomString, 8, uint32(len(value)), []byte(value)).Check()
	})
	return err
}

// rootProperty returns the raw value of a root window property (nil when
// it is not set) and its type.
func (x *xconn) rootProperty(ctx context.Context, name string) ([]byte, xproto.Atom, error) {
	a, err := x.atom(ctx, name)
	if err != nil {
		return nil, 0, err
	}
	r, err := within(ctx, func() (*xproto.GetPropertyReply, error) {
		return xproto.GetProperty(x.c, false, x.root, a, xproto.GetPropertyTypeAny, 0, 1<<16).Reply()
	})
	if err != nil {
		return nil, 0, err
	}
	return r.Value, r.Type, nil
}
