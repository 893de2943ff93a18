//go:build linux

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// TestTaskSpeedCrunch: SpeedCrunch (Qt 5) evaluates an expression typed
// with a submitting Enter and clears its field. The typing is checked up to
// the Enter and answered ok (what the Enter did is no failure: an agent
// told "noEffect" retries and enters it twice); the history, read outside
// uiscope, holds the result once.
func TestTaskSpeedCrunch(t *testing.T) { testdesk.ForEach(t, testTaskSpeedCrunch) }

func testTaskSpeedCrunch(t *testing.T, d *testdesk.Desk) {
	app := d.Launch(t, append(freshHome(t), "speedcrunch")...)
	s := startMCP(t, d, "", "--allow-input")
	defer s.logCost(t, "speedcrunch")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	field := findKeyed(t, s, sess, map[string]any{"role": "text", "states": []string{"editable"}})
	history := findKeyed(t, s, sess, map[string]any{"role": "text", "states": []string{"!editable"}})
	out := s.ok(t, "type_text", map[string]any{"session": sess, "element": field.Ref, "text": "12*7\n"})
	if out["verified"] == true {
		t.Errorf("type_text with a submitting Enter says verified, though the field no longer holds the text: %v", out)
	}
	until(t, "the history shows 12*7 = 84 once", func(ctx context.Context) (bool, string) {
		got := liveText(ctx, d, history.Key)
		return strings.Count(got, "12*7") == 1 && strings.Contains(got, "84"), fmt.Sprintf("%q", got)
	})
	// pyatspi, in a process of its own, reads the same history (the first
	// text without a name: the history comes before the field).
	if got := pyProbe(t, d, app.Pid, "text", "", "text"); strings.Count(got, "12*7") != 1 || !strings.Contains(got, "84") {
		t.Errorf("pyatspi reads SpeedCrunch's history as %q; want 12*7 = 84 once", got)
	}
}
