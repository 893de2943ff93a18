// Package atomicfile writes a file so that a reader sees no file or the
// whole file, never a part of one, and a failure leaves nothing behind: the
// data goes to a temporary file in the same directory (so that the last
// step is a rename or a link, never a copy across file systems), which is
// given its mode, written, synced and closed, then put in place.
//
// It is for the files the server writes for others to read: screenshots
// and the HTTP server's discovery file. Where the file goes, and whether
// its directory is private, is the caller's to decide.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Steps at which a Write fails, as Error.Op.
const (
	OpCreate = "create" // no temporary file could be made in the directory
	OpWrite  = "write"  // setting its mode, writing, syncing or closing it
	OpPlace  = "place"  // renaming or linking it into place
)

// Error is a Write that failed: the step, the file that was to be written,
// and the cause as the os package gave it (which names the paths).
type Error struct {
	Op   string
	Path string
	Err  error
}

func (e *Error) Error() string { return "atomicfile: " + e.Op + ": " + e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// Write writes data to path with mode perm. With replace, the file is
// renamed over path, replacing what is there. Without it, the file is
// linked into place, which fails when path exists (errors.Is(err,
// os.ErrExist)): nothing already at path, a symbolic link included, is
// followed or overwritten. A failed Write removes its temporary file.
func Write(path string, data []byte, perm os.FileMode, replace bool) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return &Error{Op: OpCreate, Path: path, Err: err}
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a rename a no-op, after a link the spare name
	err = f.Chmod(perm)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return &Error{Op: OpWrite, Path: path, Err: err}
	}
	if replace {
		err = os.Rename(tmp, path)
	} else {
		err = os.Link(tmp, path)
	}
	if err != nil {
		return &Error{Op: OpPlace, Path: path, Err: err}
	}
	return nil
}
