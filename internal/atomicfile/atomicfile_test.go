package atomicfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// names lists dir, so that a test sees a temporary file left behind.
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func TestWriteNew(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "shot.png")
	if err := Write(path, []byte("pixels"), 0o640, false); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "pixels" {
		t.Errorf("read back %q, %v; want pixels", b, err)
	}
	if runtime.GOOS != "windows" {
		// The mode is set on the file, not filtered by the umask.
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o640 {
			t.Errorf("mode %v, %v; want 0640", fi.Mode().Perm(), err)
		}
	}
	if n := names(t, dir); len(n) != 1 {
		t.Errorf("the directory holds %v; want the file alone", n)
	}
}

func TestWriteRefusesExisting(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "shot.png")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := Write(path, []byte("new"), 0o600, false)
	var ae *Error
	if !errors.Is(err, os.ErrExist) || !errors.As(err, &ae) || ae.Op != OpPlace || ae.Path != path {
		t.Fatalf("Write over an existing file without replace: %v; want an Error at %s wrapping os.ErrExist", err, OpPlace)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("the existing file holds %q now; want it untouched", b)
	}
	if n := names(t, dir); len(n) != 1 {
		t.Errorf("the directory holds %v after the refusal; want the old file alone", n)
	}
}

// TestWriteRefusesLink: a symbolic link at path is not followed: what it
// points to is neither written nor replaced.
func TestWriteRefusesLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("theirs"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "shot.png")
	if err := os.Symlink(target, path); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if err := Write(path, []byte("ours"), 0o600, false); !errors.Is(err, os.ErrExist) {
		t.Fatalf("Write to a symbolic link without replace: %v; want os.ErrExist", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "theirs" {
		t.Errorf("the link's target holds %q now; want it untouched", b)
	}
}

func TestWriteReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "123.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("new"), 0o600, true); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "new" {
		t.Errorf("read back %q, %v; want new", b, err)
	}
	if runtime.GOOS != "windows" {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("mode %v, %v; want the new file's 0600", fi.Mode().Perm(), err)
		}
	}
	if n := names(t, dir); len(n) != 1 {
		t.Errorf("the directory holds %v; want the file alone", n)
	}
}

func TestWriteNoDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "shot.png")
	err := Write(path, []byte("x"), 0o600, false)
	var ae *Error
	if !errors.As(err, &ae) || ae.Op != OpCreate || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Write into a missing directory: %v; want an Error at %s wrapping os.ErrNotExist", err, OpCreate)
	}
}

// TestWriteFailureLeavesNothing: a write that fails after its temporary
// file was written (here: the rename into place) leaves only what was
// there.
func TestWriteFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub")
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	// Renaming a file over a directory fails on every system, after the
	// temporary file was written.
	err := Write(path, []byte("x"), 0o600, true)
	var ae *Error
	if !errors.As(err, &ae) || ae.Op != OpPlace {
		t.Fatalf("Write over a directory: %v; want an Error at %s", err, OpPlace)
	}
	if n := names(t, dir); len(n) != 1 || n[0] != "sub" {
		t.Errorf("the directory holds %v after the failure; want sub alone", n)
	}
}

// TestReaderSeesWholeFiles: a reader reading while the file is replaced
// again and again sees one whole version or the other, never a part.
func TestReaderSeesWholeFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "123.json")
	a, b := bytes.Repeat([]byte("a"), 1<<20), bytes.Repeat([]byte("b"), 1<<19)
	if err := Write(path, a, 0o600, true); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		for i := range 50 {
			data := a
			if i%2 == 0 {
				data = b
			}
			if err := Write(path, data, 0o600, true); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for {
		got, err := os.ReadFile(path)
		if err == nil && !bytes.Equal(got, a) && !bytes.Equal(got, b) {
			t.Fatalf("a reader saw %d bytes that are neither version", len(got))
		}
		if err != nil && runtime.GOOS != "windows" { // there a file being replaced may not open
			t.Fatalf("read while replacing: %v", err)
		}
		select {
		case <-done:
			wg.Wait()
			return
		default:
		}
	}
}
