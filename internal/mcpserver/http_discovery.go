package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/uiscope/uiscope/internal/atomicfile"
)

// Discovery is the discovery file's content (docs/api.md, "Files").
type Discovery struct {
	Version   int    `json:"version"`
	Pid       int    `json:"pid"`
	Transport string `json:"transport"`
	URL       string `json:"url"`
	Port      int    `json:"port"`
	Token     string `json:"token"`
	// StartTime is the server process's start time (clock ticks since
	// boot, Linux), so that a file whose pid a later process took over
	// is told from a live server's; 0 where it cannot be read.
	StartTime uint64 `json:"startTime,omitempty"`
}

// DiscoveryDir is $XDG_RUNTIME_DIR/uiscope/mcp. XDG_RUNTIME_DIR is the
// user's private runtime directory; without it there is no place the
// token is known to be private, so the server does not start.
func DiscoveryDir() (string, error) {
	rt := os.Getenv("XDG_RUNTIME_DIR")
	if rt == "" || !filepath.IsAbs(rt) {
		return "", errors.New("XDG_RUNTIME_DIR is not set (or not absolute): the discovery file, which holds the bearer token, has no private place to go; set it to a directory only you can read")
	}
	return filepath.Join(rt, "uiscope", "mcp"), nil
}

// writeDiscovery writes d to dir/<pid>.json, mode 0600, atomically: a
// reader sees no file or the whole file, never a part. dir is made 0700
// and must be the user's own. startTime reads a live process's start time
// (0 when it cannot), to tell stale files of reused pids.
func writeDiscovery(dir string, d Discovery, startTime func(pid int) uint64) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	// MkdirAll leaves an existing directory as it is: make sure nobody
	// else can list it or swap files in it.
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", fmt.Errorf("discovery directory %s: %w", dir, err)
	}
	if err := ownedByUs(dir); err != nil {
		return "", err
	}
	removeStale(dir, d.Pid, startTime)
	b, err := json.Marshal(d)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, strconv.Itoa(d.Pid)+".json")
	if err := atomicfile.Write(path, append(b, '\n'), 0o600, true); err != nil {
		return "", fmt.Errorf("discovery file %s: %w", path, err)
	}
	return path, nil
}

// removeStale removes the discovery files of servers that died without
// removing their own (SIGKILL, a crash): their tokens open nothing, but a
// client reading the directory would try them. A file whose pid is alive
// is stale too when the process under that pid started at another time
// than the server that wrote it (the pid was reused).
func removeStale(dir string, self int, startTime func(int) uint64) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(strings.TrimSuffix(e.Name(), ".json"))
		if err != nil || !strings.HasSuffix(e.Name(), ".json") || pid <= 0 || pid == self {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if alive(pid) && !reused(path, pid, startTime) {
			continue
		}
		os.Remove(path)
	}
}

// reused reports whether the discovery file at path names a start time
// other than that of the process now under pid. A file that says none, or
// a start time that cannot be read, is not proof of reuse.
func reused(path string, pid int, startTime func(int) uint64) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var d Discovery
	if json.Unmarshal(b, &d) != nil || d.StartTime == 0 {
		return false
	}
	now := startTime(pid)
	return now != 0 && now != d.StartTime
}
