//go:build linux

package e2e

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/uiscope/uiscope/internal/platform"
)

// independentWalk reads a tree the plainest way there is, one blocking call
// at a time, with nothing shared with the code under test but the rules:
// ChildCount + GetChildAtIndex (what libatspi clients walk), password names
// redacted, and the children of virtual containers — elements that manage
// their descendants with more than 200 children, or any with more than
// 2000 (none in the apps compared, whose cache would list them) — left
// out: uiscope reads those as what is on screen, which other tests check
// (office_test.go, virtual_test.go). It returns "role name" pairs, sorted.
func independentWalk(t *testing.T, addr, bus string) []string {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatalf("independent walk: connect: %v", err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	type ref struct {
		Bus  string
		Path dbus.ObjectPath
	}
	call := func(r ref, method string, out any, args ...any) {
		t.Helper()
		if err := conn.Object(r.Bus, r.Path).CallWithContext(ctx, method, 0, args...).Store(out); err != nil {
			t.Fatalf("independent walk: %s on %v: %v", method, r, err)
		}
	}
	var pairs []string
	var walk func(r ref)
	walk = func(r ref) {
		var role uint32
		var name, cc dbus.Variant
		var states []uint32
		call(r, "org.a11y.atspi.Accessible.GetRole", &role)
		call(r, "org.freedesktop.DBus.Properties.Get", &name, "org.a11y.atspi.Accessible", "Name")
		call(r, "org.freedesktop.DBus.Properties.Get", &cc, "org.a11y.atspi.Accessible", "ChildCount")
		call(r, "org.a11y.atspi.Accessible.GetState", &states)
		n := name.Value().(string)
		if platform.Role(role) == platform.RolePasswordText {
			n = ""
		}
		pairs = append(pairs, fmt.Sprintf("%s %q", platform.Role(role), n))
		count := int(cc.Value().(int32))
		if platform.StateSetFromWords(states).Has(platform.StateManagesDescendants) && count > 200 || count > 2000 {
			count = 0
		}
		for i := 0; i < count; i++ {
			var k ref
			call(r, "org.a11y.atspi.Accessible.GetChildAtIndex", &k, int32(i))
			if k.Bus != "" && k.Path != "/org/a11y/atspi/null" {
				walk(k)
			}
		}
	}
	walk(ref{bus, "/org/a11y/atspi/accessible/root"})
	sort.Strings(pairs)
	return pairs
}
