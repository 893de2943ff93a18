//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/uiscope/uiscope/internal/dbusx"
)

// callTimeout bounds a D-Bus call (and a connection handshake) made without
// a step deadline.
const callTimeout = 5 * time.Second

// busConn is a private connection to one explicit bus address. godbus's
// session helpers would launch a bus of their own when none is configured,
// so only dbus.Connect on an address known beforehand is used.
type busConn struct{ *dbusx.Conn }

func dialBus(ctx context.Context, addr string) (*busConn, error) {
	c, err := dbusx.Connect(ctx, addr)
	if err != nil {
		return nil, err
	}
	return &busConn{c}, nil
}

func (b *busConn) call(ctx context.Context, dest string, path dbus.ObjectPath, method string, args []any, out ...any) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, callTimeout)
		defer cancel()
	}
	c := b.Object(dest, path).CallWithContext(ctx, method, 0, args...)
	if c.Err != nil {
		return fmt.Errorf("%s on %s: %w", method, dest, c.Err)
	}
	if len(out) == 0 {
		return nil
	}
	return c.Store(out...)
}

func (b *busConn) busCall(ctx context.Context, method string, args []any, out ...any) error {
	return b.call(ctx, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus."+method, args, out...)
}

// startService activates name and returns the pid that owns it.
func (b *busConn) startService(ctx context.Context, name string) (int, error) {
	var r uint32
	if err := b.busCall(ctx, "StartServiceByName", []any{name, uint32(0)}, &r); err != nil {
		return 0, err
	}
	var pid uint32
	if err := b.busCall(ctx, "GetConnectionUnixProcessID", []any{name}, &pid); err != nil {
		return 0, err
	}
	return int(pid), nil
}
