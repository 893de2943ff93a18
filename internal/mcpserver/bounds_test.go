//go:build linux

package mcpserver

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/uiscope/uiscope/internal/core"
	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
)

// An app that nests 1,000 deep is shown MaxDepth levels deep whatever
// depth is asked, with a note saying so, in both formats; the answer
// decodes.
func TestTreeDepthCappedByServer(t *testing.T) {
	t.Parallel() // CPU-bound on a large tree: the three large-tree tests run side by side
	synctest.Test(t, func(t *testing.T) {
		var root *platform.Node
		for i := 999; i >= 0; i-- {
			n := &platform.Node{Key: fmt.Sprint("d/", i), Role: fake.Role("panel"), Name: fmt.Sprint("level ", i)}
			if root != nil {
				n.Children, n.ChildCount = []*platform.Node{root}, 1
			}
			root = n
		}
		d := fake.New()
		d.AddApp(fake.App{Pid: 6161, Name: "deep", Tree: root})
		cs := serve(t, New(Config{}, core.NewSessions(d.Platform())), "")
		id := mustOK(t, cs, "connect", map[string]any{"pid": 6161})["session"].(string)
		for _, args := range []map[string]any{
			{"session": id, "maxNodes": 100000, "maxBytes": core.MaxMaxBytes},
			{"session": id, "maxNodes": 100000, "maxBytes": core.MaxMaxBytes, "depth": 100000, "format": "json"},
		} {
			out := mustOK(t, cs, "get_a11y_tree", args)
			if out["shown"] != float64(core.MaxDepth+1) || !strings.Contains(fmt.Sprint(out["note"]), "depth cap") {
				t.Errorf("%v: shown %v, note %q; want %d shown and the cap named", args, out["shown"], out["note"], core.MaxDepth+1)
			}
		}
	})
}
