//go:build linux

// Package dbusx connects to an explicit D-Bus address with a deadline on
// the handshake only. godbus closes a connection when the context given to
// dbus.WithContext ends, so that context must outlive the call; and its
// session helpers would launch a bus of their own when none is configured,
// so nothing here ever looks one up.
package dbusx

import (
	"context"
	"time"

	"github.com/godbus/dbus/v5"
)

// DefaultHandshake bounds the handshake when ctx has no deadline.
const DefaultHandshake = 5 * time.Second

// Conn is a connection whose lifetime is its own.
type Conn struct {
	*dbus.Conn
	cancel context.CancelFunc
}

// Connect dials addr, authenticates and says Hello, giving up when ctx ends.
func Connect(ctx context.Context, addr string) (*Conn, error) {
	return handshake(ctx, func(life context.Context) (*dbus.Conn, error) {
		return dbus.Connect(addr, dbus.WithContext(life))
	})
}

// Peer dials a peer-to-peer address (a server of one application, not a
// bus) and authenticates, without Hello: there is no bus to greet.
func Peer(ctx context.Context, addr string) (*Conn, error) {
	return handshake(ctx, func(life context.Context) (*dbus.Conn, error) {
		c, err := dbus.Dial(addr, dbus.WithContext(life))
		if err != nil {
			return nil, err
		}
		if err := c.Auth(nil); err != nil {
			_ = c.Close()
			return nil, err
		}
		return c, nil
	})
}

func handshake(ctx context.Context, open func(life context.Context) (*dbus.Conn, error)) (*Conn, error) {
	life, cancel := context.WithCancel(context.Background())
	limit := DefaultHandshake
	if dl, ok := ctx.Deadline(); ok {
		limit = time.Until(dl)
	}
	t := time.AfterFunc(limit, cancel)
	stop := context.AfterFunc(ctx, cancel)
	c, err := open(life)
	t.Stop()
	stop()
	if err != nil {
		cancel()
		return nil, err
	}
	if life.Err() != nil {
		cancel()
		_ = c.Close()
		return nil, life.Err()
	}
	return &Conn{Conn: c, cancel: cancel}, nil
}

// Close closes the connection.
func (c *Conn) Close() error {
	err := c.Conn.Close()
	c.cancel()
	return err
}
