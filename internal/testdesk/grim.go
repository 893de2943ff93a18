//go:build linux

package testdesk

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Grim captures a Wayland desktop's screen with grim, a reference outside
// uiscope: the region r, or the whole output when r is empty. env is the
// desktop's environment (its WAYLAND_DISPLAY).
func Grim(t testing.TB, env []string, r image.Rectangle) image.Image {
	t.Helper()
	path := filepath.Join(t.TempDir(), "grim.png")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	argv := []string{path}
	if !r.Empty() {
		argv = []string{"-g", fmt.Sprintf("%d,%d %dx%d", r.Min.X, r.Min.Y, r.Dx(), r.Dy()), path}
	}
	cmd := exec.CommandContext(ctx, "grim", argv...)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("grim: %v: %s", err, out)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}
