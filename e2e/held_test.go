//go:build linux

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/atspi"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// Held input through a real `uiscope mcp --allow-input`: a drag of a GTK 3
// slider seen through the test's own AT-SPI reader, and what is held read
// outside uiscope (heldNow: the X server's own state on X11, the app's
// account of its input on sway) showing no button left down when the
// client dies mid-hold.

// liveValue reads a Value element's current number from the app.
func liveValue(ctx context.Context, d *testdesk.Desk, key string) (float64, string) {
	det, err := d.A11y.Element(ctx, key, atspi.ElementOptions{})
	if err != nil || det.Value == nil {
		return 0, fmt.Sprintf("<%v>", err)
	}
	return det.Value.Current, strconv.FormatFloat(det.Value.Current, 'g', -1, 64)
}

// buttonsDown is what the X server reports held, read by the test itself.
func buttonsDown(t *testing.T, d *testdesk.Desk) []int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := d.X.ButtonsDown(ctx)
	if err != nil {
		t.Fatalf("querying the pointer: %v", err)
	}
	return b
}

// keysDown are the keycodes the X server reports down (QueryKeymap).
func keysDown(t *testing.T, d *testdesk.Desk) []int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	k, err := d.X.KeysDown(ctx)
	if err != nil {
		t.Fatalf("querying the keymap: %v", err)
	}
	return k
}

// TestHeldShiftRangeSelection: Shift held with key_down through a real
// click selects the range of a multiple-selection list.
func TestHeldShiftRangeSelection(t *testing.T) { testdesk.ForEach(t, testHeldShiftRangeSelection) }

func testHeldShiftRangeSelection(t *testing.T, d *testdesk.Desk) {
	log := newFixtureLog(t)
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "held range", "--rows", "6", "--multi", "--input-log", log.path)
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	rows := map[int]elem{}
	for _, i := range []int{2, 3, 4} {
		rows[i] = findKeyed(t, s, sess, map[string]any{"name": fmt.Sprintf("Row %d", i), "nameMatch": "exact", "role": "table cell"})
	}
	click := func(el elem) {
		s.ok(t, "press", map[string]any{"session": sess, "element": el.Ref})
		s.ok(t, "release", map[string]any{"session": sess})
	}
	selected := func(ctx context.Context, el elem) bool {
		return liveStates(ctx, d, el.Key).Has(platform.StateSelected)
	}
	click(rows[2])
	until(t, "Row 2 selected", func(ctx context.Context) (bool, string) { return selected(ctx, rows[2]), "not selected" })
	out := s.ok(t, "key_down", map[string]any{"session": sess, "key": "Shift"})
	if held := decode[[]map[string]any](t, out["held"]); len(held) != 1 || held[0]["key"] != "Shift" {
		t.Errorf("key_down: held %v, want Shift", out["held"])
	}
	s.fail(t, "key_down", map[string]any{"session": sess, "key": "Shift"}, "holdConflict")
	click(rows[4])
	out = s.ok(t, "key_up", map[string]any{"session": sess, "key": "Shift"})
	if held := decode[[]map[string]any](t, out["held"]); len(held) != 0 {
		t.Errorf("key_up: still held %v", held)
	}
	s.fail(t, "key_up", map[string]any{"session": sess, "key": "Shift"}, "holdConflict")
	until(t, "rows 2 to 4 selected as a range", func(ctx context.Context) (bool, string) {
		got := fmt.Sprint(selected(ctx, rows[2]), selected(ctx, rows[3]), selected(ctx, rows[4]))
		return got == "true true true", got
	})
	untilNothingHeld(t, d, log, "after key_up")
}

// TestHeldShiftTyping: text typed while the session holds Shift arrives
// shifted ("ab1" as "AB!", read back over AT-SPI): type_text answers it
// delivered, unverified, saying Shift was held and what the field holds,
// never noEffect (which an agent may answer by typing it again). Once
// Shift is let go, text goes in as given.
func TestHeldShiftTyping(t *testing.T) { testdesk.ForEach(t, testHeldShiftTyping) }

func testHeldShiftTyping(t *testing.T, d *testdesk.Desk) {
	log := newFixtureLog(t)
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "held typing", "--input-log", log.path)
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	name := findKeyed(t, s, sess, map[string]any{"name": "Name", "nameMatch": "exact", "role": "text"})
	text := func(want string) {
		t.Helper()
		until(t, "the entry holds "+want, func(ctx context.Context) (bool, string) {
			got := liveText(ctx, d, name.Key)
			return got == want, got
		})
	}
	s.ok(t, "key_down", map[string]any{"session": sess, "key": "Shift"})
	out := s.ok(t, "type_text", map[string]any{"session": sess, "element": name.Ref, "text": "ab1"})
	note, _ := out["note"].(string)
	if out["verified"] != false || !strings.Contains(note, "Shift held") || !strings.Contains(note, `"AB!"`) {
		t.Errorf("type_text with Shift held: verified %v, note %q; want unverified, naming Shift and what the entry holds", out["verified"], note)
	}
	text("AB!")
	s.ok(t, "key_up", map[string]any{"session": sess, "key": "Shift"})
	untilNothingHeld(t, d, log, "after key_up")
	if out := s.ok(t, "type_text", map[string]any{"session": sess, "element": name.Ref, "text": "c"}); out["verified"] != true {
		t.Errorf("type_text with nothing held: %v, want verified", out)
	}
	text("AB!c")
}

func TestHeldDragGTK3Slider(t *testing.T) { testdesk.ForEach(t, testHeldDragGTK3Slider) }

func testHeldDragGTK3Slider(t *testing.T, d *testdesk.Desk) {
	log := newFixtureLog(t)
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "held drag", "--input-log", log.path)
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	vol := findKeyed(t, s, sess, map[string]any{"name": "Volume", "role": "slider"})
	b := vol.Bounds
	if b == nil || b.Width < 50 {
		t.Fatalf("the slider's bounds %+v are too small to drag along", b)
	}
	ctx := context.Background()
	start, _ := liveValue(ctx, d, vol.Key)

	// The trough runs along the slider's lower part (the value is drawn
	// above it); the drag starts at the value's place on it.
	y := b.Y + b.Height*3/4
	x0 := b.X + int(float64(b.Width)*start/100)
	out := s.ok(t, "press", map[string]any{"session": sess, "x": x0, "y": y})
	if held := decode[[]map[string]any](t, out["held"]); len(held) != 1 || held[0]["button"] != float64(1) {
		t.Errorf("press: held %v, want button 1", out["held"])
	}
	untilHeld(t, d, log, "button 1 down after press", func(h heldInput) bool { return slices.Contains(h.buttons, 1) })
	s.fail(t, "press", map[string]any{"session": sess, "x": x0, "y": y}, "holdConflict")
	s.ok(t, "move", map[string]any{"session": sess, "x": b.X + b.Width*9/10, "y": y})
	until(t, "slider follows the drag", func(ctx context.Context) (bool, string) {
		v, got := liveValue(ctx, d, vol.Key)
		return v >= start+30, got
	})
	out = s.ok(t, "release", map[string]any{"session": sess})
	if held := decode[[]map[string]any](t, out["held"]); len(held) != 0 {
		t.Errorf("release: still held %v", held)
	}
	untilHeld(t, d, log, "no button down after release", func(h heldInput) bool { return len(h.buttons) == 0 })
	s.fail(t, "release", map[string]any{"session": sess}, "holdConflict")
	s.fail(t, "move", map[string]any{"session": sess, "x": x0, "y": y}, "holdConflict")
}

// The client of TestHeldClientKilled runs as this test binary again:
// init sees these variables and plays the client instead of the tests.
const (
	envHoldClient = "UISCOPE_E2E_HOLD_CLIENT" // the uiscope binary
	envHoldPid    = "UISCOPE_E2E_HOLD_PID"    // the app to hold a button in
)

func init() {
	if bin := os.Getenv(envHoldClient); bin != "" {
		os.Exit(holdClient(bin, os.Getenv(envHoldPid)))
	}
}

// holdClient connects to a `uiscope mcp` of its own, presses button 1 on
// the app's slider, says so on stdout with the server's pid, and waits to
// be killed.
func holdClient(bin, pid string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(bin, "mcp", "--allow-input")
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e-hold", Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "connect:", err)
		return 1
	}
	call := func(name string, args map[string]any) map[string]any {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			fmt.Fprintf(os.Stderr, "%s: %v %+v\n", name, err, res)
			os.Exit(1)
		}
		var out map[string]any
		raw, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(raw, &out)
		return out
	}
	n, _ := strconv.Atoi(pid)
	sess, _ := call("connect", map[string]any{"pid": n})["session"].(string)
	els, _ := call("find_elements", map[string]any{"session": sess, "name": "Volume", "role": "slider"})["elements"].([]any)
	if len(els) == 0 {
		fmt.Fprintln(os.Stderr, "no slider")
		return 1
	}
	ref, _ := els[0].(map[string]any)["ref"].(string)
	call("press", map[string]any{"session": sess, "element": ref})
	call("key_down", map[string]any{"session": sess, "key": "Shift"})
	fmt.Printf("held %d\n", cmd.Process.Pid)
	select {}
}

func TestHeldClientKilled(t *testing.T) { testdesk.ForEach(t, testHeldClientKilled) }

func testHeldClientKilled(t *testing.T, d *testdesk.Desk) {
	log := newFixtureLog(t)
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "held kill", "--input-log", log.path)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	client := exec.Command(self)
	client.Env = append(d.Env(), envHoldClient+"="+uiscopeBin, envHoldPid+"="+strconv.Itoa(app.Pid))
	client.Stderr = os.Stderr
	stdout, err := client.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := client.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Process.Kill(); _ = client.Wait() })
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- l
	}()
	var got string
	select {
	case got = <-line:
	case <-time.After(90 * time.Second):
		t.Fatal("the client never reported its hold")
	}
	serverPid, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(got, "held ")))
	if err != nil {
		t.Fatalf("the client reported %q, not its hold", got)
	}
	t.Cleanup(func() { _ = syscall.Kill(serverPid, syscall.SIGKILL) })
	untilHeld(t, d, log, "button 1 and Shift down while the client holds them", buttonAndShift)
	if err := client.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	untilNothingHeld(t, d, log, "once the client is gone")
	until(t, "the orphaned server exits", func(context.Context) (bool, string) {
		return syscall.Kill(serverPid, 0) != nil, "still running"
	})
}

// buttonAndShift reports whether button 1 and Shift are down.
func buttonAndShift(h heldInput) bool {
	return slices.Contains(h.buttons, 1) && (len(h.keys) > 0 || h.mods != 0)
}

// TestHeldServerTerminated: SIGTERM to the server mid-hold releases the
// button and the key before it exits.
func TestHeldServerTerminated(t *testing.T) { testdesk.ForEach(t, testHeldServerTerminated) }

func testHeldServerTerminated(t *testing.T, d *testdesk.Desk) {
	cmd, log := holdVolumeAndShift(t, d, "held term")
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	untilNothingHeld(t, d, log, "once the server is terminated")
}

// holdVolumeAndShift starts `uiscope mcp --allow-input` on a GTK 3 fixture
// titled title, presses the fixture's Volume slider (button 1 down) and
// holds Shift through it, and checks that both are down (heldNow). It
// returns the server's command, for the test to end the server, and the
// app's input log.
func holdVolumeAndShift(t *testing.T, d *testdesk.Desk, title string) (*exec.Cmd, fixtureLog) {
	t.Helper()
	cmd, log, _ := holdVolume(t, d, title, true)
	return cmd, log
}

// holdVolume is holdVolumeAndShift, Shift held only when shift is set; it
// returns the fixture too.
func holdVolume(t *testing.T, d *testdesk.Desk, title string, shift bool) (*exec.Cmd, fixtureLog, *testdesk.App) {
	t.Helper()
	log := newFixtureLog(t)
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", title, "--input-log", log.path)
	cmd := exec.Command(uiscopeBin, "mcp", "--allow-input")
	cmd.Env = d.Env()
	s := startMCPCmd(t, cmd)
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	vol := findKeyed(t, s, sess, map[string]any{"name": "Volume", "role": "slider"})
	s.ok(t, "press", map[string]any{"session": sess, "element": vol.Ref})
	if !shift {
		untilHeld(t, d, log, "button 1 down while held", buttonDown)
		return cmd, log, app
	}
	s.ok(t, "key_down", map[string]any{"session": sess, "key": "Shift"})
	untilHeld(t, d, log, "button 1 and Shift down while held", buttonAndShift)
	return cmd, log, app
}

// buttonDown reports whether button 1 is down.
func buttonDown(h heldInput) bool { return slices.Contains(h.buttons, 1) }

// TestSwayServerStartSendsNoInput: a server that starts and connects to
// the app under the pointer gives it no input: the first events the app
// logs are those of the key the test then presses. A new virtual pointer
// used to release buttons 1 to 3 at once (for a button a killed uiscope
// might have left down), and sway 1.7 passed each release to the client
// under the pointer: LibreOffice Writer took them for the pointer's
// activity and showed the tooltip of the toolbar button under it.
func TestSwayServerStartSendsNoInput(t *testing.T) {
	d := testdesk.On(t, "sway")
	log := newFixtureLog(t)
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "start sends nothing", "--input-log", log.path)
	v := oneView(t, d, app.Pid)
	swayCursorAt(t, d, v.content.X+v.content.Width/2, v.content.Y+v.content.Height/2)
	s := startMCP(t, d, "", "--allow-input")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	findOne(t, s, sess, map[string]any{"name": "Name", "nameMatch": "exact", "role": "text"})
	s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Shift"})
	until(t, "the Shift key in the app's input log", func(context.Context) (bool, string) {
		return slices.Contains(log.lines(), "key-release Shift_L"), fmt.Sprintf("%q", log.lines())
	})
	for _, l := range log.lines() {
		if l == "key-press Shift_L" {
			break
		}
		if !strings.HasPrefix(l, "mods ") {
			t.Errorf("before the key pressed, the app got %q (its log: %q)", l, log.lines())
		}
	}
}
