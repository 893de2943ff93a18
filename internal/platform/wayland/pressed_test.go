//go:build linux

package wayland

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/uiscope/uiscope/internal/procinfo"
)

// A new pointer releases the buttons a gone process recorded down (and
// removes its record), leaves a live process's record, and records its
// own held button while it is down.
func TestPressedOverFake(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "wayland-9")
	prefix := pressedPrefix(socket)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	goneRec := prefix + strconv.Itoa(gone.Process.Pid)
	// Button 1 and a code that is no button (never sent).
	if err := os.WriteFile(goneRec, []byte("1\n272\n999\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	live, err := procinfo.Lookup(os.Getppid())
	if err != nil {
		t.Fatal(err)
	}
	liveRec := prefix + strconv.Itoa(live.Pid)
	if err := os.WriteFile(liveRec, pressedRecord{owner: live, codes: []uint32{0x111}}.encode(), 0o600); err != nil {
		t.Fatal(err)
	}
	own := prefix + strconv.Itoa(os.Getpid())
	c, _ := startFake(t, func(s *fakeServer) {
		seat, _ := s.bindReq("wl_seat")
		mgr, _ := s.bindReq("zwlr_virtual_pointer_manager_v1")
		a := s.expect(mgr, 0)
		if got := a.Object(); got != seat {
			s.t.Errorf("virtual pointer on seat %d", got)
		}
		p := a.Object()
		button := func(code, state uint32) {
			s.t.Helper()
			a := s.expect(p, 2)
			a.Uint()
			if b, st := a.Uint(), a.Uint(); b != code || st != state {
				t.Errorf("button %#x state %d, want %#x %d", b, st, code, state)
			}
			s.expect(p, 4)
		}
		button(0x110, 0) // the gone process's button 1, released
		serveOutput(s)
		s.expect(p, 1) // motion_absolute
		s.expect(p, 4)
		button(0x112, 1)
		s.sync()
		button(0x112, 0)
		s.sync()
	})
	c.path = socket
	if err := c.ButtonDown(ctx10(t), 1, 1, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(goneRec); !os.IsNotExist(err) {
		t.Errorf("the gone process's record is still there: %v", err)
	}
	if r, err := readPressed(liveRec, prefix); err != nil || len(r.codes) != 1 || r.codes[0] != 0x111 {
		t.Errorf("the live process's record: %+v, %v", r, err)
	}
	if r, err := readPressed(own, prefix); err != nil || len(r.codes) != 1 || r.codes[0] != 0x112 || !r.owner.Alive() {
		t.Errorf("the held button's record: %+v, %v", r, err)
	}
	if err := c.ButtonUp(ctx10(t), 2); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(own); !os.IsNotExist(err) {
		t.Errorf("the record is there after the release: %v", err)
	}
}

// forgetPressed removes a record only when the watchdog released every
// button in it.
func TestForgetPressed(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "wayland-9")
	rec := pressedPrefix(socket) + "4242"
	if err := os.WriteFile(rec, []byte("1\n272\n273\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	forgetPressed(socket, 4242, []uint32{0x110})
	if _, err := os.Stat(rec); err != nil {
		t.Errorf("a record naming a button not released was removed: %v", err)
	}
	forgetPressed(socket, 4242, []uint32{0x111, 0x110})
	if _, err := os.Stat(rec); !os.IsNotExist(err) {
		t.Errorf("the record is there after every button in it was released: %v", err)
	}
}
