//go:build linux

package atspi

import (
	"context"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/procinfo"
)

// appInfoTimeout bounds the per-application calls of Apps.
const appInfoTimeout = 1500 * time.Millisecond

// AppInfo is an application as the registry lists it.
type AppInfo struct {
	Bus            string
	Pid            int
	Name           string // the root accessible's name (usually the program name)
	Toolkit        string
	ToolkitVersion string
	Root           *platform.Node // the application root (role, child count), nil if unread
	Err            string
}

// RootKey is the durable key of the application's root accessible.
func (a AppInfo) RootKey() string { return objRef{a.Bus, rootPath}.key() }

// Apps lists the applications registered on the bus, with their pids and
// toolkits, in a few pipelined round trips. An app that does not answer in
// time is listed with Err set rather than holding up the others.
func (c *Conn) Apps(ctx context.Context) ([]AppInfo, error) {
	var refs []objRef
	if err := c.call(ctx, registryName, rootPath, ifaceAccessible+".GetChildren", nil, &refs); err != nil {
		return nil, err
	}
	apps := make([]AppInfo, 0, len(refs))
	for _, r := range refs {
		if !r.null() {
			apps = append(apps, AppInfo{Bus: r.Bus})
		}
	}
	// A frozen app must not hold up the list: its details are given up
	// on after appInfoTimeout and it is listed with Err set.
	bctx, cancel := context.WithTimeout(ctx, appInfoTimeout)
	defer cancel()
	b := c.newBatch(bctx)
	defer b.close()
	for i := range apps {
		a := &apps[i]
		b.add("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.GetConnectionUnixProcessID", func(call *dbus.Call) {
			var pid uint32
			if call.Err == nil && call.Store(&pid) == nil {
				a.Pid = int(pid)
			}
		}, a.Bus)
		// atk-bridge answers Get but not GetAll on the Application interface.
		b.get(a.Bus, rootPath, ifaceApp, "ToolkitName", func(v any, err error) {
			if err != nil {
				a.Err = errText(err)
			}
			a.Toolkit, _ = v.(string)
		})
		b.get(a.Bus, rootPath, ifaceApp, "Version", func(v any, err error) {
			a.ToolkitVersion, _ = v.(string)
		})
		a.Root = &platform.Node{Key: a.RootKey(), Role: platform.RoleApplication}
		b.get(a.Bus, rootPath, ifaceAccessible, "Name", func(v any, err error) {
			a.Root.Name, _ = v.(string)
			a.Name = a.Root.Name
		})
		b.get(a.Bus, rootPath, ifaceAccessible, "ChildCount", func(v any, err error) {
			if cc, ok := v.(int32); ok {
				a.Root.ChildCount = int(cc)
			}
		})
	}
	b.wait()
	return apps, nil
}

// AppForPid returns the registered application of a process.
func (c *Conn) AppForPid(ctx context.Context, pid int) (AppInfo, error) {
	apps, err := c.Apps(ctx)
	if err != nil {
		return AppInfo{}, err
	}
	for _, a := range apps {
		if a.Pid == pid {
			return a, nil
		}
	}
	if !(procinfo.Identity{Pid: pid}).Alive() {
		return AppInfo{}, platform.ErrAppNotFound
	}
	return AppInfo{}, platform.ErrNotAccessible
}
