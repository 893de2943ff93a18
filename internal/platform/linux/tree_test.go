//go:build linux

package linux

import (
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/procinfo"
)

// TestWindowKeyGeneration: the same window id created by another process,
// or by a later process under the same pid, is another key; an unknown
// creator is marked, never taken for a known one.
func TestWindowKeyGeneration(t *testing.T) {
	const id = platform.WindowID(0x600010)
	a := WindowKey(id, procinfo.Identity{Pid: 100, StartTime: 5})
	keys := map[string]string{
		"first":       a,
		"another pid": WindowKey(id, procinfo.Identity{Pid: 101, StartTime: 5}),
		"pid reused":  WindowKey(id, procinfo.Identity{Pid: 100, StartTime: 6}),
		"unknown":     WindowKey(id, procinfo.Identity{}),
		"another id":  WindowKey(id+1, procinfo.Identity{Pid: 100, StartTime: 5}),
	}
	seen := map[string]string{}
	for what, k := range keys {
		if other, dup := seen[k]; dup {
			t.Errorf("%s and %s share the key %s", what, other, k)
		}
		seen[k] = what
	}
	if a != "x11:0x600010@100.5" || keys["unknown"] != "x11:0x600010@?" {
		t.Errorf("keys %q, %q", a, keys["unknown"])
	}
	if WindowKey(id, procinfo.Identity{Pid: 100, StartTime: 5}) != a {
		t.Error("the same window's key changed")
	}
}
