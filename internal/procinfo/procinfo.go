//go:build linux

// Package procinfo reads process identity from /proc: start time, state,
// executable and name. It exists so that nothing in uiscope signals or trusts
// a pid without checking that it is still the same process.
package procinfo

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Identity pins a process: a pid plus its kernel start time (clock ticks
// since boot), which differs for a recycled pid.
type Identity struct {
	Pid       int    `json:"pid"`
	StartTime uint64 `json:"startTime"`
}

// stat returns the fields of /proc/PID/stat after "(comm) ", so that
// fields[0] is the state and fields[19] the start time.
func stat(pid int) (comm string, fields []string, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", nil, err
	}
	s := string(b)
	open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || close < open {
		return "", nil, fmt.Errorf("procinfo: malformed stat for pid %d", pid)
	}
	fields = strings.Fields(s[close+1:])
	if len(fields) < 20 {
		return "", nil, fmt.Errorf("procinfo: short stat for pid %d", pid)
	}
	return s[open+1 : close], fields, nil
}

// Lookup returns the identity of a live process.
func Lookup(pid int) (Identity, error) {
	if pid <= 0 {
		return Identity{}, fmt.Errorf("procinfo: invalid pid %d", pid)
	}
	_, f, err := stat(pid)
	if err != nil {
		return Identity{}, err
	}
	st, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return Identity{}, fmt.Errorf("procinfo: start time of pid %d: %w", pid, err)
	}
	return Identity{Pid: pid, StartTime: st}, nil
}

// Alive reports whether the process is running (not a zombie) and is still
// the one id names.
func (id Identity) Alive() bool {
	_, f, err := stat(id.Pid)
	if err != nil || f[0] == "Z" || f[0] == "X" {
		return false
	}
	return id.StartTime == 0 || f[19] == strconv.FormatUint(id.StartTime, 10)
}

// State returns the one-letter process state (R, S, T, Z...).
func State(pid int) (string, error) {
	_, f, err := stat(pid)
	if err != nil {
		return "", err
	}
	return f[0], nil
}

// Comm returns the process name (/proc/PID/comm).
func Comm(pid int) string {
	c, _, err := stat(pid)
	if err != nil {
		return ""
	}
	return c
}

// Executable returns the resolved path of the process image, or "" when it
// cannot be read.
func Executable(pid int) string {
	p, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(p, " (deleted)")
}

// Cmdline returns the process arguments.
func Cmdline(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

// DisplayName is the name a person knows the process by: the script name for
// interpreters (python3 app.py -> app.py; java's main class or -jar file),
// else the executable's base name, else comm.
func DisplayName(pid int) string {
	exe := filepath.Base(Executable(pid))
	if name, ok := scriptName(exe, Cmdline(pid)); ok {
		return name
	}
	if exe != "." && exe != "" {
		return exe
	}
	return Comm(pid)
}

// interpreter is a program that runs a script named in its arguments.
type interpreter struct {
	name   string   // the executable's base name, or its prefix (python3.11)
	valued []string // options whose value is the next argument
	runs   []string // options whose value names what runs (java -jar app.jar, python3 -m pkg)
	inline []string // options that give the program itself (python3 -c, perl -e): no script
}

var interpreters = []interpreter{
	{"python", []string{"-W", "-X", "--check-hash-based-pycs"}, []string{"-m"}, []string{"-c"}},
	{"java", []string{"-cp", "-classpath", "--class-path", "-p", "--module-path", "--upgrade-module-path",
		"--add-modules", "--add-opens", "--add-exports", "--add-reads", "--patch-module", "--limit-modules",
		"--enable-native-access", "--source", "--release"}, []string{"-jar", "-m", "--module"}, nil},
	{"node", []string{"-r", "--require", "--import", "--loader", "--experimental-loader", "--conditions", "-C", "--title"},
		nil, []string{"-e", "--eval", "-p", "--print"}},
	{"ruby", []string{"-I", "-r", "-C", "-E", "--encoding"}, nil, []string{"-e"}},
	{"perl", nil, nil, []string{"-e", "-E"}},
}

// scriptName finds the script, main class or jar an interpreter runs: the
// first argument that is neither an option nor an option's value, or the
// value of an option that names what runs. exe is the executable's base
// name; python, ruby and perl also match with a version (python3.11).
func scriptName(exe string, args []string) (string, bool) {
	i := slices.IndexFunc(interpreters, func(in interpreter) bool {
		return exe == in.name || in.name != "java" && in.name != "node" && strings.HasPrefix(exe, in.name)
	})
	if i < 0 {
		return "", false
	}
	in := interpreters[i]
	for j := 1; j < len(args); j++ {
		a := args[j]
		switch {
		case a == "--":
			if j+1 < len(args) {
				return filepath.Base(args[j+1]), true
			}
			return "", false
		case slices.Contains(in.inline, a):
			return "", false
		case slices.Contains(in.runs, a):
			if j+1 < len(args) {
				return filepath.Base(args[j+1]), true
			}
			return "", false
		case slices.Contains(in.valued, a):
			j++
		case strings.HasPrefix(a, "-"):
		default:
			return filepath.Base(a), true
		}
	}
	return "", false
}

// Children lists the pids whose parent is pid.
func Children(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		_, f, err := stat(p)
		if err == nil && f[1] == strconv.Itoa(pid) {
			out = append(out, p)
		}
	}
	return out
}
