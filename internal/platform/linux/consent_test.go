//go:build linux

package linux

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/security"
)

// interpreter writes a shell script that stands in for python: it is run
// as "python -c <consent.py>" and does what body says with the prompt on
// its stdin.
func interpreter(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "python")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestConsentPrompter: the prompter hands the script the prompt as JSON on
// stdin, reports the dialog's pid as it starts and "shown" when the script
// says so, and answers the last other line's key.
func TestConsentPrompter(t *testing.T) {
	dir := t.TempDir()
	got := filepath.Join(dir, "stdin")
	py := interpreter(t, `[ "$1" = -c ] && [ -n "$2" ] || exit 9
cat > `+got+`
echo shown
echo allow-read`)
	p := security.Prompt{Title: "Allow?", Lines: []string{"a client asks"}, Buttons: [][2]string{{"deny", "Deny"}, {"allow-read", "Allow reading"}}}
	pid, shown := 0, 0
	key, err := ConsentPrompter(py)(context.Background(), p, func(p int) { pid = p }, func() { shown++ })
	if err != nil || key != "allow-read" {
		t.Fatalf("answer %q, %v; want allow-read", key, err)
	}
	if pid <= 0 || shown != 1 {
		t.Errorf("started with pid %d, shown %d times; want a pid and one shown", pid, shown)
	}
	b, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	var sent security.Prompt
	if err := json.Unmarshal(b, &sent); err != nil || sent.Title != p.Title || len(sent.Buttons) != 2 {
		t.Errorf("the script read %s (%v); want the prompt", b, err)
	}
}

// TestConsentPrompterFails: a dialog that fails is an error carrying what
// it wrote on stderr; one whose context ends is killed and answers the
// context's error.
func TestConsentPrompterFails(t *testing.T) {
	_, err := ConsentPrompter(interpreter(t, "echo 'no display' >&2; exit 3"))(context.Background(), security.Prompt{}, func(int) {}, func() {})
	if err == nil || !strings.Contains(err.Error(), "no display") {
		t.Errorf("a failing dialog answered %v; want its stderr in the error", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The script waits for ever once shown; shown ends the context.
	py := interpreter(t, "echo shown; exec sleep 3600")
	_, err = ConsentPrompter(py)(ctx, security.Prompt{}, func(int) {}, cancel)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("a dialog whose context ended answered %v; want context.Canceled", err)
	}
}
