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
	life, cancel := context.WithCancel(context.Background())
	limit := DefaultHandshake
	if dl, ok := ctx.Deadline(); ok {
		limit = time.Until(dl)
	}
	t := time.AfterFunc(limit, cancel)
	stop := context.AfterFunc(ctx, cancel)
	c, err := dbus.Connect(addr, dbus.WithContext(life))
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
