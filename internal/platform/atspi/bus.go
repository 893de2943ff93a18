//go:build linux

// Package atspi is the AT-SPI2 backend: accessibility over D-Bus (godbus,
// no cgo). It knows nothing of MCP, sessions or refs; those live in
// internal/core.
//
// What it holds:
//   - the connection (bus.go): finding the accessibility bus, one lock per
//     application, every call bounded by a deadline so that a frozen or
//     dying application never hangs the caller;
//   - the applications registered on the bus (apps.go);
//   - tree reads (tree.go, batch.go): one bulk Cache.GetItems per
//     application, whose deadline each application's answers set
//     (bulk.go), and pipelined calls for whatever the cache misses; the
//     visible part of virtual containers (virtual.go); a browser's elements
//     through Collection over a direct connection to it (collection.go);
//   - the mirror (mirror.go): repeated reads of GTK 3 applications and
//     browsers served from a copy kept current by events;
//   - element reads (props.go): one element live, with its parent,
//     attributes, text and value;
//   - values (values.go, embedded.go): what a control holds, text with
//     embedded objects replaced by their names;
//   - redaction (hidden.go): fields that hide their text, told by what
//     they show;
//   - tables (table.go): cells by row and column, on screen or not;
//   - actions (actions.go) through Action, EditableText (the text set is
//     read back), Value, Component, Selection and Text;
//   - what an action caused (effects.go): top levels, the focus, an action
//     started without waiting for its reply;
//   - events (events.go): a coalesced change signal per application.
//
// Speed comes from round trips saved, not goroutines: each application
// answers on one main loop.
package atspi

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/uiscope/uiscope/internal/dbusx"

	"github.com/uiscope/uiscope/internal/platform"
)

// D-Bus names of the AT-SPI protocol.
const (
	registryName    = "org.a11y.atspi.Registry"
	rootPath        = dbus.ObjectPath("/org/a11y/atspi/accessible/root")
	nullPath        = dbus.ObjectPath("/org/a11y/atspi/null")
	cachePath       = dbus.ObjectPath("/org/a11y/atspi/cache")
	registryPath    = dbus.ObjectPath("/org/a11y/atspi/registry")
	ifaceAccessible = "org.a11y.atspi.Accessible"
	ifaceComponent  = "org.a11y.atspi.Component"
	ifaceAction     = "org.a11y.atspi.Action"
	ifaceText       = "org.a11y.atspi.Text"
	ifaceValue      = "org.a11y.atspi.Value"
	ifaceApp        = "org.a11y.atspi.Application"
	ifaceCache      = "org.a11y.atspi.Cache"
	ifaceProps      = "org.freedesktop.DBus.Properties"
)

// DefaultCallTimeout bounds a single D-Bus call when the caller's context has
// no earlier deadline.
const DefaultCallTimeout = 3 * time.Second

// BusSource says where the accessibility bus address came from.
type BusSource string

// Where an address can come from, in the order they are tried.
const (
	SourceUiscopeEnv BusSource = "UISCOPE_A11Y_BUS"
	SourceEnv        BusSource = "AT_SPI_BUS_ADDRESS"
	SourceX11        BusSource = "X11 root property AT_SPI_BUS"
	SourceSession    BusSource = "session bus org.a11y.Bus"
)

// Locate finds the address of the accessibility bus without ever starting a
// new session bus (godbus's ConnectSessionBus would run dbus-launch when none
// is configured and hand back an empty, useless bus). rootProperty reads a
// string property of the X root window; it may be nil when there is no X.
func Locate(ctx context.Context, rootProperty func(ctx context.Context, name string) (string, error)) (string, BusSource, error) {
	if a := os.Getenv("UISCOPE_A11Y_BUS"); a != "" {
		return a, SourceUiscopeEnv, nil
	}
	if a := os.Getenv("AT_SPI_BUS_ADDRESS"); a != "" {
		return a, SourceEnv, nil
	}
	if rootProperty != nil {
		if a, err := rootProperty(ctx, "AT_SPI_BUS"); err == nil && a != "" {
			return a, SourceX11, nil
		}
	}
	session := os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	if session == "" {
		p := fmt.Sprintf("/run/user/%d/bus", os.Getuid())
		if _, err := os.Stat(p); err == nil {
			session = "unix:path=" + p
		}
	}
	if session == "" {
		return "", "", fmt.Errorf("%w: no AT_SPI_BUS on the X root window and no session bus (DBUS_SESSION_BUS_ADDRESS unset)", platform.ErrNoBus)
	}
	conn, err := dbusx.Connect(ctx, session)
	if err != nil {
		return "", "", fmt.Errorf("%w: session bus %s: %v", platform.ErrNoBus, session, err)
	}
	defer conn.Close()
	cctx, cancel := withCallTimeout(ctx)
	defer cancel()
	var addr string
	// NoAutoStart: asking for the address must not launch a bus that no
	// application is connected to.
	err = conn.Object("org.a11y.Bus", "/org/a11y/bus").CallWithContext(cctx, "org.a11y.Bus.GetAddress", dbus.FlagNoAutoStart).Store(&addr)
	if err != nil || addr == "" {
		return "", "", fmt.Errorf("%w: session bus has no org.a11y.Bus (is at-spi2-core running?): %v", platform.ErrNoBus, err)
	}
	return addr, SourceSession, nil
}

// Conn is a connection to the accessibility bus.
type Conn struct {
	bus     *dbusx.Conn
	Address string
	Source  BusSource

	mu       sync.Mutex
	appLocks map[string]appLock
	watch    watchers
	// boundsEvents: bounds and selection changes were asked for (by the
	// first mirror). Guarded by watch.mu.
	boundsEvents bool

	// layoutText: by bus name, whether the app's single-line fields are
	// read as shown (hidden.go). Guarded by mu.
	layoutText map[string]bool

	// peers: by bus name, direct connections to applications
	// (collection.go); nil for one that offers none. Guarded by mu.
	peers map[string]*dbusx.Conn

	// bulks: by bus name, the applications' bulk calls (bulk.go), timed
	// under bulkRule (zero: defaultBulkRule). Guarded by mu.
	bulks    map[string]*bulkHistory
	bulkRule bulkRule

	// embeds: the applications with a toolkit embedded in another's
	// (embed.go).
	embeds embeds
}

// Dial connects to the accessibility bus at addr and registers for events, so
// that atk-bridge applications (GTK 3, LibreOffice, Java) export their cache:
// they export none until some client registered a listener.
func Dial(ctx context.Context, addr string, source BusSource) (*Conn, error) {
	bus, err := dbusx.Connect(ctx, addr)
	if err != nil {
		return nil, fmt.Errorf("%w: connect %s: %v", platform.ErrNoBus, addr, err)
	}
	c := &Conn{bus: bus, Address: addr, Source: source, appLocks: map[string]appLock{}}
	for _, ev := range []string{"object:children-changed", "object:state-changed", "object:property-change", "object:text-changed", "window:"} {
		if err := c.registerEvent(ctx, ev); err != nil {
			bus.Close()
			return nil, err
		}
	}
	return c, nil
}

// registerEvent tells the registry, and through it every application, that
// this connection listens to events of the given kind.
func (c *Conn) registerEvent(ctx context.Context, ev string) error {
	cctx, cancel := withCallTimeout(ctx)
	defer cancel()
	reg := c.bus.Object(registryName, registryPath)
	call := reg.CallWithContext(cctx, "org.a11y.atspi.Registry.RegisterEvent", 0, ev, []string{}, "")
	if call.Err != nil {
		// at-spi2-core before 2.46 has the two-argument form.
		call = reg.CallWithContext(cctx, "org.a11y.atspi.Registry.RegisterEvent", 0, ev)
	}
	if call.Err != nil {
		return fmt.Errorf("%w: registry at %s does not answer: %v", platform.ErrNoBus, c.Address, call.Err)
	}
	return nil
}

// Open locates the bus and dials it.
func Open(ctx context.Context, rootProperty func(ctx context.Context, name string) (string, error)) (*Conn, error) {
	addr, src, err := Locate(ctx, rootProperty)
	if err != nil {
		return nil, err
	}
	return Dial(ctx, addr, src)
}

// Close closes the bus connection and the direct ones.
func (c *Conn) Close() error {
	c.mu.Lock()
	for _, p := range c.peers {
		if p != nil {
			_ = p.Close()
		}
	}
	c.peers = nil
	c.mu.Unlock()
	return c.bus.Close()
}

// appLock serializes reads of one application: each app answers on a
// single main loop, so two concurrent walks only slow each other down, and
// an app's mirror is read and refreshed by one reader at a time. It is a
// one-slot semaphore rather than a mutex so that the wait for it keeps the
// waiter's deadline: behind a long read of a frozen app, a short read must
// fail by its own deadline, not by the long one's.
type appLock chan struct{}

// lockApp takes the application's lock, waiting no longer than ctx allows
// (platform.ErrTimeout); the caller releases it with unlock.
func (c *Conn) lockApp(ctx context.Context, bus string) (unlock func(), err error) {
	c.mu.Lock()
	l, ok := c.appLocks[bus]
	if !ok {
		l = make(appLock, 1)
		c.appLocks[bus] = l
	}
	c.mu.Unlock()
	unlock = func() { <-l }
	// Free: taken whatever the context, as a mutex would (the read then
	// meets the deadline itself and says what it got).
	select {
	case l <- struct{}{}:
		return unlock, nil
	default:
	}
	select {
	case l <- struct{}{}:
		return unlock, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: another read of this application was still running when the deadline passed (the application may be busy or frozen): %v", platform.ErrTimeout, ctx.Err())
	}
}

func withCallTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < DefaultCallTimeout {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, DefaultCallTimeout)
}

// call makes one D-Bus call with a deadline and stores the reply.
func (c *Conn) call(ctx context.Context, dest string, path dbus.ObjectPath, method string, args []any, out ...any) error {
	cctx, cancel := withCallTimeout(ctx)
	defer cancel()
	call := c.bus.Object(dest, path).CallWithContext(cctx, method, dbus.FlagNoAutoStart, args...)
	if call.Err != nil {
		return mapErr(call.Err)
	}
	if len(out) == 0 {
		return nil
	}
	return call.Store(out...)
}

// mapErr turns D-Bus failures into the platform's sentinels.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return fmt.Errorf("%w: %v", platform.ErrTimeout, err)
	}
	var de dbus.Error
	if errors.As(err, &de) {
		switch de.Name {
		case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.UnknownObject",
			"org.freedesktop.DBus.Error.NameHasNoOwner", "org.freedesktop.DBus.Error.NoReply":
			return fmt.Errorf("%w: %s", platform.ErrElementGone, de.Name)
		case "org.freedesktop.DBus.Error.UnknownMethod", "org.freedesktop.DBus.Error.UnknownInterface", "org.freedesktop.DBus.Error.NotSupported":
			return fmt.Errorf("%w: %s", platform.ErrNotSupported, de.Name)
		}
	}
	return err
}

// RegistryPid returns the pid of the AT-SPI registry daemon.
func (c *Conn) RegistryPid(ctx context.Context) (int, error) {
	var pid uint32
	err := c.call(ctx, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.GetConnectionUnixProcessID", []any{registryName}, &pid)
	return int(pid), err
}

// Status reads org.a11y.Status from the session bus: whether assistive
// technology is switched on. Qt reads it once at start and stays silent
// when it is false. The session bus is never launched for this.
func Status(ctx context.Context) (enabled, screenReader bool, err error) {
	addr := os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	if addr == "" {
		return false, false, errors.New("DBUS_SESSION_BUS_ADDRESS is not set")
	}
	conn, err := dbusx.Connect(ctx, addr)
	if err != nil {
		return false, false, err
	}
	defer conn.Close()
	cctx, cancel := withCallTimeout(ctx)
	defer cancel()
	obj := conn.Object("org.a11y.Bus", "/org/a11y/bus")
	var v dbus.Variant
	if err := obj.CallWithContext(cctx, ifaceProps+".Get", dbus.FlagNoAutoStart, "org.a11y.Status", "IsEnabled").Store(&v); err != nil {
		return false, false, err
	}
	enabled, _ = v.Value().(bool)
	if err := obj.CallWithContext(cctx, ifaceProps+".Get", dbus.FlagNoAutoStart, "org.a11y.Status", "ScreenReaderEnabled").Store(&v); err == nil {
		screenReader, _ = v.Value().(bool)
	}
	return enabled, screenReader, nil
}

// BusOwner returns the pid behind a unique bus name; ErrElementGone when
// the name has left the bus.
func (c *Conn) BusOwner(ctx context.Context, bus string) (int, error) {
	var pid uint32
	err := c.call(ctx, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.GetConnectionUnixProcessID", []any{bus}, &pid)
	return int(pid), err // NameHasNoOwner maps to ErrElementGone
}
