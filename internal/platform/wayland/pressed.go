//go:build linux

package wayland

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/uiscope/uiscope/internal/procinfo"
)

// Buttons a gone process left pressed. sway 1.7 (wlroots 0.15) keeps a
// button pressed for the seat when the virtual pointer that pressed it
// goes away with its connection (a uiscope killed mid-drag): the client
// under the pointer goes on dragging. The watchdog (watchdog.go) releases
// what a server held when the server dies; for a process that died with
// its watchdog, or one that has none (the command line's clicks), a
// connection to a compositor's socket records the buttons its pointer
// has down in a file beside that socket, and a new virtual pointer
// releases the buttons of the files whose process is gone.
//
// It releases nothing else: a release of a button that is up is not
// harmless. sway 1.7 passes it to the client under the pointer (measured:
// LibreOffice Writer got the three releases a new pointer used to send,
// each time a server started, took them for the pointer's activity and
// showed the tooltip of the toolbar button under it).

// pressedPrefix begins the name of every record of buttons down for the
// compositor at socket; the process's pid ends it.
func pressedPrefix(socket string) string {
	return filepath.Join(filepath.Dir(socket), ".uiscope-pressed-"+filepath.Base(socket)+"-")
}

// selfIdentity is this process's identity, read from /proc once rather
// than at every button a pointer presses or lets go.
var selfIdentity = sync.OnceValues(func() (procinfo.Identity, error) { return procinfo.Lookup(os.Getpid()) })

// pressedRecord is one process's record: its identity and the evdev codes
// of the buttons its pointer has down.
type pressedRecord struct {
	owner procinfo.Identity
	codes []uint32
}

// encode is the record's file: "start time" then one code a line.
func (r pressedRecord) encode() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "%d\n", r.owner.StartTime)
	for _, c := range r.codes {
		fmt.Fprintf(&b, "%d\n", c)
	}
	return []byte(b.String())
}

// readPressed reads the record at path (its pid from the name).
func readPressed(path, prefix string) (pressedRecord, error) {
	pid, err := strconv.Atoi(strings.TrimPrefix(path, prefix))
	if err != nil || pid <= 0 {
		return pressedRecord{}, fmt.Errorf("wayland: %s is not a record of buttons down", path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return pressedRecord{}, err
	}
	lines := strings.Fields(string(b))
	if len(lines) == 0 {
		return pressedRecord{}, fmt.Errorf("wayland: %s is empty", path)
	}
	st, err := strconv.ParseUint(lines[0], 10, 64)
	if err != nil {
		return pressedRecord{}, fmt.Errorf("wayland: %s: start time %q", path, lines[0])
	}
	r := pressedRecord{owner: procinfo.Identity{Pid: pid, StartTime: st}}
	for _, l := range lines[1:] {
		c, err := strconv.ParseUint(l, 10, 32)
		if err != nil || !isButtonCode(uint32(c)) {
			continue
		}
		r.codes = append(r.codes, uint32(c))
	}
	return r, nil
}

// isButtonCode reports whether code is one of the buttons a pointer here
// presses.
func isButtonCode(code uint32) bool {
	for _, c := range buttonCodes {
		if c == code {
			return true
		}
	}
	return false
}

// notePressed records that this connection's pointer has button code down
// or up. A connection without a socket path (tests over a socket pair) or
// a watchdog's records nothing; a record that cannot be written is given
// up (the watchdog still covers a server), never an input refused.
func (c *Conn) notePressed(code uint32, down bool) {
	if c.path == "" || c.watching {
		return
	}
	if down == slices.Contains(c.pressed, code) {
		return
	}
	if down {
		c.pressed = append(c.pressed, code)
	} else {
		c.pressed = slices.DeleteFunc(c.pressed, func(b uint32) bool { return b == code })
	}
	path := pressedPrefix(c.path) + strconv.Itoa(os.Getpid())
	if len(c.pressed) == 0 {
		_ = os.Remove(path)
		return
	}
	self, err := selfIdentity()
	if err != nil {
		return
	}
	tmp := path + ".new"
	if os.WriteFile(tmp, pressedRecord{owner: self, codes: c.pressed}.encode(), 0o600) == nil {
		_ = os.Rename(tmp, path)
	}
}

// releaseLeftPressed releases, from this connection's new pointer, the
// buttons that processes now gone recorded down for this compositor, and
// removes their records. A live owner's record stays (it may be pressing).
func (c *Conn) releaseLeftPressed() error {
	if c.path == "" || c.watching {
		return nil
	}
	prefix := pressedPrefix(c.path)
	paths, _ := filepath.Glob(prefix + "*")
	var codes []uint32
	for _, p := range paths {
		if strings.HasSuffix(p, ".new") {
			continue
		}
		r, err := readPressed(p, prefix)
		if err != nil || r.owner.Alive() {
			continue
		}
		for _, code := range r.codes {
			if !slices.Contains(codes, code) {
				codes = append(codes, code)
			}
		}
		_ = os.Remove(p)
	}
	for _, code := range codes {
		if err := c.send(newRequest(c.pointer, 2).Uint(c.now()).Uint(code).Uint(0)); err != nil {
			return err
		}
	}
	if len(codes) == 0 {
		return nil
	}
	return c.send(newRequest(c.pointer, 4)) // frame
}

// forgetPressed removes the record of owner's buttons once the watchdog
// has released released (evdev codes): a record naming another button (a
// click's, the owner killed between its press and release) stays, for the
// next pointer to release.
func forgetPressed(socket string, owner int, released []uint32) {
	prefix := pressedPrefix(socket)
	path := prefix + strconv.Itoa(owner)
	r, err := readPressed(path, prefix)
	if err != nil {
		return
	}
	for _, code := range r.codes {
		if !slices.Contains(released, code) {
			return
		}
	}
	_ = os.Remove(path)
}
