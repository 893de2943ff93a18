//go:build linux

package e2e

import (
	"context"
	"fmt"
	"testing"

	"github.com/uiscope/uiscope/internal/dbusx"
	"github.com/uiscope/uiscope/internal/platform/atspi"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// TestSelectTextAnswersSelection: select_text on a GTK 3 entry answers
// the range and the text in it, without the entry's states and whole text
// before and after; the entry's own selection, read over AT-SPI, is it.
func TestSelectTextAnswersSelection(t *testing.T) {
	testdesk.ForEach(t, testSelectTextAnswersSelection)
}

func testSelectTextAnswersSelection(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "select text")
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	entry := findKeyed(t, s, sess, map[string]any{"name": "Name", "nameMatch": "exact", "role": "text"})
	s.ok(t, "set_value", map[string]any{"session": sess, "element": entry.Ref, "value": "Grace Hopper"})
	conn, err := dbusx.Connect(context.Background(), d.A11yBus)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	bus, path, err := atspi.ParseKey(entry.Key)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args       map[string]any
		start, end int
		text       string
	}{
		{map[string]any{"start": 6, "end": 12}, 6, 12, "Hopper"},
		{map[string]any{}, 0, 12, "Grace Hopper"},
	} {
		args := map[string]any{"session": sess, "element": entry.Ref}
		for k, v := range c.args {
			args[k] = v
		}
		out := s.ok(t, "select_text", args)
		sel, _ := out["selection"].(map[string]any)
		if sel["start"] != float64(c.start) || sel["end"] != float64(c.end) || sel["text"] != c.text {
			t.Errorf("select_text %v: selection %v, want %d..%d %q", c.args, out["selection"], c.start, c.end, c.text)
		}
		if _, ok := out["before"]; ok {
			t.Errorf("select_text %v: answers before: %v", c.args, out["before"])
		}
		if _, ok := out["after"]; ok {
			t.Errorf("select_text %v: answers after: %v", c.args, out["after"])
		}
		until(t, fmt.Sprintf("the entry's selection %d..%d", c.start, c.end), func(ctx context.Context) (bool, string) {
			call := conn.Object(bus, path).CallWithContext(ctx, "org.a11y.atspi.Text.GetSelection", 0, int32(0))
			if call.Err != nil || len(call.Body) < 2 {
				return false, fmt.Sprint(call.Err)
			}
			return call.Body[0] == int32(c.start) && call.Body[1] == int32(c.end), fmt.Sprint(call.Body)
		})
	}
}
