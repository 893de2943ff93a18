//go:build linux

package wayland

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// memfd_create's number per architecture: the syscall package does not
// list it everywhere (amd64 lacks it).
var sysMemfdCreate = map[string]uintptr{
	"amd64": 319, "arm64": 279, "riscv64": 279, "loong64": 279,
	"386": 356, "arm": 385, "ppc64le": 360, "ppc64": 360, "s390x": 350,
}

const mfdCloexec = 0x1

// shmFile is a file of size bytes shared with the compositor, mapped into
// this process: a memfd, or where there is none an unlinked temporary file.
type shmFile struct {
	fd   int
	data []byte
}

func newShmFile(name string, size int) (*shmFile, error) {
	if size <= 0 {
		return nil, fmt.Errorf("shm file of %d bytes", size)
	}
	fd, err := memfd(name)
	if err != nil {
		return nil, err
	}
	if err := syscall.Ftruncate(fd, int64(size)); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("sizing the shm file: %w", err)
	}
	data, err := syscall.Mmap(fd, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("mapping the shm file: %w", err)
	}
	return &shmFile{fd: fd, data: data}, nil
}

func memfd(name string) (int, error) {
	if nr, ok := sysMemfdCreate[runtime.GOARCH]; ok {
		p, err := syscall.BytePtrFromString(name)
		if err != nil {
			return -1, err
		}
		fd, _, errno := syscall.Syscall(nr, uintptr(unsafe.Pointer(p)), mfdCloexec, 0)
		if errno == 0 {
			return int(fd), nil
		}
		if !errors.Is(errno, syscall.ENOSYS) {
			return -1, fmt.Errorf("memfd_create: %w", errno)
		}
	}
	// No memfd: a temporary file, unlinked at once so that only the
	// descriptor (and the compositor's copy of it) holds it.
	f, err := os.CreateTemp("", "uiscope-wl-*")
	if err != nil {
		return -1, fmt.Errorf("creating the shm file: %w", err)
	}
	os.Remove(f.Name())
	fd, err := syscall.Dup(int(f.Fd()))
	f.Close()
	if err != nil {
		return -1, fmt.Errorf("creating the shm file: %w", err)
	}
	syscall.CloseOnExec(fd)
	return fd, nil
}

// close unmaps and closes the file; the compositor's mapping, if any,
// stays valid until it lets go.
func (f *shmFile) close() {
	if f.data != nil {
		syscall.Munmap(f.data)
		f.data = nil
	}
	if f.fd >= 0 {
		syscall.Close(f.fd)
		f.fd = -1
	}
}
