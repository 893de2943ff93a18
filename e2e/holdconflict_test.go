//go:build linux

package e2e

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/platform/x11"
	"github.com/uiscope/uiscope/internal/procinfo"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// Holds across sessions and processes: one session's held button or key
// never bends another's input (it is refused, holdConflict), whether the
// holder is a session of the same server or of another uiscope process
// (the X server's own state shows it); what a server holds is released
// when it dies however it dies; and a client that cannot be seen to leave
// loses its holds when it goes silent. Each effect is read
// outside uiscope: the apps' scroll bars and text through the test's own
// AT-SPI reader, the keys and buttons from the X server or, on sway, the
// app's own account (heldNow).

// verticalScrollBar finds the app's vertical scroll bar.
func verticalScrollBar(t *testing.T, s *mcpServer, sess string) elem {
	t.Helper()
	out := s.ok(t, "find_elements", withKeys(map[string]any{"session": sess, "role": "scroll bar"}))
	for _, el := range decode[[]elem](t, out["elements"]) {
		if slices.Contains(el.States, "vertical") {
			return el
		}
	}
	t.Fatalf("no vertical scroll bar among %v", out["elements"])
	return elem{}
}

// releaseAfter lets go, when the test ends, of whatever a failure left
// down on the shared desktop, so that it does not bend later tests. (On
// sway what a server held goes with its virtual devices, and the next
// virtual pointer lets go of the buttons.)
func releaseAfter(t *testing.T, d *testdesk.Desk) {
	if d.X == nil {
		return
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for _, k := range []string{"Shift", "Ctrl"} {
			if ch, err := x11.ParseChord(k); err == nil {
				_ = d.X.KeyUp(ctx, ch)
			}
		}
		_ = d.X.ButtonUp(ctx, 1)
	})
}

// TestHeldAcrossSessionsHTTP: two clients of one HTTP server, a 2025 one
// (MCP session) holding in app A and a 2026 one (client key) acting on app
// B. While A holds button 1, B's scroll is refused and neither list
// scrolls (it used to answer ok and scroll A's list: the pointer grab
// sends B's wheel to A); while A holds Shift, B's typing is refused and
// B's field stays empty (it used to get "ABC"); while A holds Ctrl, B's
// press_key is refused. Once A lets go, B's input goes through.
func TestHeldAcrossSessionsHTTP(t *testing.T) { testdesk.ForEach(t, testHeldAcrossSessionsHTTP) }

func testHeldAcrossSessionsHTTP(t *testing.T, d *testdesk.Desk) {
	releaseAfter(t, d)
	appA := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "holds A", "--rows", "60", "--x", "40")
	appB := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "holds B", "--rows", "60", "--x", "700")
	p := startHTTP(t, d, "--allow-input")
	ca, cb := p.client(t, "", "2025-11-25"), p.client(t, "client-b-0123456789abcdef", "")
	sa, sb := ca.connect(t, map[string]any{"pid": appA.Pid}), cb.connect(t, map[string]any{"pid": appB.Pid})
	rowsA := findKeyed(t, ca, sa, map[string]any{"name": "Row 2", "nameMatch": "exact", "role": "table cell"})
	rowsB := findKeyed(t, cb, sb, map[string]any{"name": "Row 2", "nameMatch": "exact", "role": "table cell"})
	barA, barB := verticalScrollBar(t, ca, sa), verticalScrollBar(t, cb, sb)
	nameB := findKeyed(t, cb, sb, map[string]any{"name": "Name", "role": "text"})
	ctx := context.Background()
	scrolled := func() string {
		_, a := liveValue(ctx, d, barA.Key)
		_, b := liveValue(ctx, d, barB.Key)
		return "A " + a + ", B " + b
	}
	if got := scrolled(); got != "A 0, B 0" {
		t.Fatalf("before: scroll bars at %s", got)
	}

	ca.ok(t, "press", map[string]any{"session": sa, "element": rowsA.Ref})
	out := cb.fail(t, "scroll", map[string]any{"session": sb, "element": rowsB.Ref, "direction": "down", "amount": 10}, "holdConflict")
	wantHolder(t, "scroll while A holds button 1", out, "another session")
	ca.ok(t, "release", map[string]any{"session": sa})
	if got := scrolled(); got != "A 0, B 0" {
		t.Errorf("after the refused scroll: scroll bars at %s, want both at 0", got)
	}

	ca.ok(t, "key_down", map[string]any{"session": sa, "key": "Shift"})
	out = cb.fail(t, "type_text", map[string]any{"session": sb, "element": nameB.Ref, "text": "abc"}, "holdConflict")
	wantHolder(t, "type_text while A holds Shift", out, "another session")
	if msg, _ := out["error"].(string); !strings.Contains(msg, "Shift") || !strings.Contains(msg, "try again once") {
		t.Errorf("the refusal does not say what is held and what to do: %q", msg)
	}
	ca.ok(t, "key_up", map[string]any{"session": sa, "key": "Shift"})
	ca.ok(t, "key_down", map[string]any{"session": sa, "key": "Ctrl"})
	cb.fail(t, "press_key", map[string]any{"session": sb, "element": nameB.Ref, "keys": "a"}, "holdConflict")
	ca.ok(t, "key_up", map[string]any{"session": sa, "key": "Ctrl"})
	if got := liveText(ctx, d, nameB.Key); got != "" {
		t.Errorf("B's field holds %q after the refused typing, want nothing", got)
	}

	// Nothing held: B's input goes where it is meant to, as it is meant.
	cb.ok(t, "type_text", map[string]any{"session": sb, "element": nameB.Ref, "text": "abc"})
	until(t, "B's field holds abc", func(ctx context.Context) (bool, string) {
		got := liveText(ctx, d, nameB.Key)
		return got == "abc", got
	})
	cb.ok(t, "scroll", map[string]any{"session": sb, "element": rowsB.Ref, "direction": "down", "amount": 10})
	until(t, "B's list scrolled, A's not", func(ctx context.Context) (bool, string) {
		a, _ := liveValue(ctx, d, barA.Key)
		b, _ := liveValue(ctx, d, barB.Key)
		return a == 0 && b > 0, scrolled()
	})
}

// wantHolder checks a holdConflict failure lists holds of holder.
func wantHolder(t *testing.T, what string, out map[string]any, holder string) {
	t.Helper()
	holds := decode[[]map[string]any](t, out["holds"])
	if len(holds) == 0 {
		t.Errorf("%s: the refusal lists no holds: %v", what, out)
	}
	for _, h := range holds {
		if h["holder"] != holder {
			t.Errorf("%s: hold %v, want holder %q", what, h, holder)
		}
	}
}

// TestHeldAcrossProcesses: two stdio servers, one client each. Server B
// has no record of server A's Shift, but the X server's state has it:
// B's typing is refused (it used to type "ABC"), and goes through as
// "abc" once A lets go. X11 only: a Wayland client cannot read the seat's
// state, so holds another program made are not known there.
func TestHeldAcrossProcesses(t *testing.T) {
	d := testdesk.Shared(t)
	releaseAfter(t, d)
	appA := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "procs A", "--x", "40")
	appB := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "procs B", "--x", "700")
	a, b := startMCP(t, d, "", "--allow-input"), startMCP(t, d, "", "--allow-input")
	sa, sb := a.connect(t, map[string]any{"pid": appA.Pid}), b.connect(t, map[string]any{"pid": appB.Pid})
	nameB := findKeyed(t, b, sb, map[string]any{"name": "Name", "role": "text"})
	a.ok(t, "key_down", map[string]any{"session": sa, "key": "Shift"})
	out := b.fail(t, "type_text", map[string]any{"session": sb, "element": nameB.Ref, "text": "abc"}, "holdConflict")
	wantHolder(t, "type_text while another process holds Shift", out, "unknown")
	if msg, _ := out["error"].(string); !strings.Contains(msg, "Shift") {
		t.Errorf("the refusal does not name the key: %q", msg)
	}
	if got := liveText(context.Background(), d, nameB.Key); got != "" {
		t.Errorf("B's field holds %q after the refused typing", got)
	}
	a.ok(t, "key_up", map[string]any{"session": sa, "key": "Shift"})
	b.ok(t, "type_text", map[string]any{"session": sb, "element": nameB.Ref, "text": "abc"})
	until(t, "B's field holds abc", func(ctx context.Context) (bool, string) {
		got := liveText(ctx, d, nameB.Key)
		return got == "abc", got
	})
}

// TestHeldServerDies: a server holding button 1 and Shift that gets
// SIGHUP (its terminal closed) or SIGKILL leaves nothing down: the X
// server itself does not release what an XTEST client held when its
// connection closes, so SIGHUP is handled as SIGTERM is, and a watchdog
// child releases what a killed server held.
func TestHeldServerDies(t *testing.T) { testdesk.ForEach(t, testHeldServerDies) }

func testHeldServerDies(t *testing.T, d *testdesk.Desk) {
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			releaseAfter(t, d)
			cmd, log := holdVolumeAndShift(t, d, "held "+sig.String())
			if err := syscall.Kill(cmd.Process.Pid, sig); err != nil {
				t.Fatal(err)
			}
			untilNothingHeld(t, d, log, fmt.Sprintf("once the server got %v", sig))
		})
	}
}

// TestSwayHeldServerAndWatchdogKilled: a server holding button 1 that is
// killed with its watchdog (SIGKILL to both) leaves the button pressed
// for sway's seat; the next server's pointer releases it, from the record
// the dead server left beside the compositor's socket.
func TestSwayHeldServerAndWatchdogKilled(t *testing.T) {
	d := testdesk.On(t, "sway")
	cmd, log, app := holdVolume(t, d, "held both killed", false)
	kids := procinfo.Children(cmd.Process.Pid)
	if len(kids) == 0 {
		t.Fatal("the server has no watchdog child")
	}
	for _, pid := range append(kids, cmd.Process.Pid) {
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
	}
	until(t, "the server and its watchdog gone", func(context.Context) (bool, string) {
		for _, pid := range append(kids, cmd.Process.Pid) {
			if st, err := procinfo.State(pid); err == nil && st != "Z" {
				return false, fmt.Sprintf("pid %d is %s", pid, st)
			}
		}
		return true, ""
	})
	// Nobody released it.
	if h := heldNow(t, d, log); !buttonDown(h) {
		t.Fatalf("button 1 released with nobody left to release it: %s (the app's log %q)", h, log.lines())
	}
	next := startMCP(t, d, "", "--allow-input")
	next.connect(t, map[string]any{"pid": app.Pid})
	until(t, "button 1 released by the next server's pointer", func(context.Context) (bool, string) {
		h := heldNow(t, d, log)
		return !buttonDown(h), fmt.Sprintf("%s (the app's log %q)", h, log.lines())
	})
}

// TestServerUnderNohup: a server started with SIGHUP ignored (nohup)
// keeps it ignored: the hang-up that ends a server started from a
// terminal leaves this one serving.
func TestServerUnderNohup(t *testing.T) { testdesk.ForEach(t, testServerUnderNohup) }

func testServerUnderNohup(t *testing.T, d *testdesk.Desk) {
	cmd := exec.Command("sh", "-c", `trap "" HUP; exec "$0" mcp`, uiscopeBin)
	cmd.Env = d.Env()
	s := startMCPCmd(t, cmd)
	s.ok(t, "list_apps", map[string]any{})
	if err := syscall.Kill(cmd.Process.Pid, syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	// Were SIGHUP handled, the server would end and this call fail (EOF:
	// it did so with the ignore not kept).
	s.ok(t, "list_apps", map[string]any{})
	if err := syscall.Kill(cmd.Process.Pid, 0); err != nil {
		t.Errorf("the server under nohup exited on SIGHUP: %v", err)
	}
}

// TestHeldSessionlessExpires: a 2026 client (no MCP session) that holds
// Shift and then sends nothing loses the hold within seconds of its last
// request (20 s), not at the next focus change or the hour's sweep; its
// next key_up says why.
func TestHeldSessionlessExpires(t *testing.T) { testdesk.ForEach(t, testHeldSessionlessExpires) }

func testHeldSessionlessExpires(t *testing.T, d *testdesk.Desk) {
	releaseAfter(t, d)
	log := newFixtureLog(t)
	app := d.Launch(t, testdesk.Python, testdesk.Fixture("gtk3_fixture.py"), "--title", "held silent", "--input-log", log.path)
	p := startHTTP(t, d, "--allow-input")
	c := p.client(t, "client-silent-0123456789abcdef", "")
	sess := c.connect(t, map[string]any{"pid": app.Pid})
	c.ok(t, "key_down", map[string]any{"session": sess, "key": "Shift"})
	untilHeld(t, d, log, "Shift down while held", func(h heldInput) bool { return len(h.keys) > 0 || h.mods != 0 })
	deadline := time.Now().Add(60 * time.Second)
	for h := heldNow(t, d, log); !h.none(); h = heldNow(t, d, log) {
		if time.Now().After(deadline) {
			t.Fatalf("a silent client's Shift still down after 60 s: %s", h)
		}
		time.Sleep(100 * time.Millisecond)
	}
	out := c.fail(t, "key_up", map[string]any{"session": sess, "key": "Shift"}, "holdConflict")
	if msg, _ := out["error"].(string); !strings.Contains(msg, "sent no request") {
		t.Errorf("key_up does not say the hold expired: %q", msg)
	}
	// Its terminal closing ends the server as SIGTERM does: the
	// discovery file goes with it.
	p.stop(t, syscall.SIGHUP)
	if _, err := os.Stat(p.path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after SIGHUP the discovery file %s is still there (%v)", p.path, err)
	}
}
