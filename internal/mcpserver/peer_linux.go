//go:build linux

package mcpserver

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// peerProcess finds the local process at the other end of an HTTP client's
// connection: remote is the client's address as the server saw it, local
// the server's. /proc/net/tcp{,6} give the socket's inode (the line whose
// local port is the client's and remote port the server's), and the
// process holding that inode among its descriptors is the client. 0 and ""
// when it cannot be told (another user's process, not on this machine).
func peerProcess(remote, local string) (int, string) {
	_, rport, err := net.SplitHostPort(remote)
	if err != nil {
		return 0, ""
	}
	_, lport, err := net.SplitHostPort(local)
	if err != nil {
		return 0, ""
	}
	rp, err1 := strconv.Atoi(rport)
	lp, err2 := strconv.Atoi(lport)
	if err1 != nil || err2 != nil {
		return 0, ""
	}
	inode := ""
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		if inode = socketInode(f, rp, lp); inode != "" {
			break
		}
	}
	if inode == "" {
		return 0, ""
	}
	want := "socket:[" + inode + "]"
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		fds, err := os.ReadDir(filepath.Join("/proc", p.Name(), "fd"))
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if l, err := os.Readlink(filepath.Join("/proc", p.Name(), "fd", fd.Name())); err == nil && l == want {
				exe, _ := os.Readlink(filepath.Join("/proc", p.Name(), "exe"))
				return pid, exe
			}
		}
	}
	return 0, ""
}

// socketInode is the inode of the TCP socket in table whose local port is
// lport and remote port rport.
func socketInode(table string, lport, rport int) string {
	f, err := os.Open(table)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	wantL, wantR := fmt.Sprintf(":%04X", lport), fmt.Sprintf(":%04X", rport)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 10 {
			continue
		}
		if strings.HasSuffix(fs[1], wantL) && strings.HasSuffix(fs[2], wantR) {
			return fs[9]
		}
	}
	return ""
}

// parentProcess is the process that started the server: over stdio, the
// client.
func parentProcess() (int, string) {
	pid := os.Getppid()
	exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	return pid, exe
}
