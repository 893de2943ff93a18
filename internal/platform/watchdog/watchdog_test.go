//go:build linux

package watchdog

import (
	"slices"
	"strings"
	"testing"
)

// TestHeld: the child keeps what went down and did not come up, in the
// order it went down, and ignores lines it cannot read.
func TestHeld(t *testing.T) {
	in := "+k 50\n+b 1\n\n+k 37\n-k 50\n+b 1\nx\n-b 3\n+b 272\n"
	if got, want := Held(strings.NewReader(in)), []string{"b 1", "k 37", "b 272"}; !slices.Equal(got, want) {
		t.Errorf("Held: %q, want %q", got, want)
	}
	if got := Held(strings.NewReader("+k 1\n-k 1\n")); len(got) != 0 {
		t.Errorf("Held after a release: %q", got)
	}
}

// TestNoteWithoutCommand: with no command (the command line tools) Note
// keeps track and starts nothing.
func TestNoteWithoutCommand(t *testing.T) {
	var wd Watch
	wd.Note("k 50", true, nil, nil)
	if wd.Running() {
		t.Error("a child runs with no command")
	}
	wd.Note("k 50", false, nil, nil)
	if len(wd.held) != 0 {
		t.Errorf("held %v after the release", wd.held)
	}
	wd.Close()
}
