package security

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// Allowlist restricts which executables can be listed and connected.
// A pattern with a slash matches the executable's full path, any other its
// base name; both as path.Match globs ("firefox*", "/usr/bin/mousepad").
// An empty list allows every executable.
type Allowlist struct {
	patterns []string
}

// ParseAllowlist reads --apps: patterns separated by commas.
func ParseAllowlist(v string) (*Allowlist, error) {
	a := &Allowlist{}
	for _, p := range strings.Split(v, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if _, err := path.Match(p, ""); err != nil {
			return nil, fmt.Errorf("--apps pattern %q: %v", p, err)
		}
		a.patterns = append(a.patterns, p)
	}
	if len(a.patterns) == 0 {
		return nil, fmt.Errorf("--apps needs at least one pattern, like mousepad,firefox*")
	}
	return a, nil
}

// Allows reports whether executable may be connected. An executable the
// platform could not name matches nothing: an allowlist never lets in
// what it cannot see.
func (a *Allowlist) Allows(executable string) bool {
	if a == nil || len(a.patterns) == 0 {
		return true
	}
	if executable == "" {
		return false
	}
	base := filepath.Base(executable)
	for _, p := range a.patterns {
		subject := base
		if strings.Contains(p, "/") {
			subject = executable
		}
		if ok, _ := path.Match(p, subject); ok {
			return true
		}
	}
	return false
}

// Check refuses an executable the list does not allow.
func (a *Allowlist) Check(pid int, executable string) error {
	if a.Allows(executable) {
		return nil
	}
	return refuse(CodeAppNotAllowed, "pid %d (%s) is not among the applications this server may connect to (--apps %s); ask the user to allow it", pid, filepath.Base(executable), strings.Join(a.patterns, ","))
}

// String is the list as given.
func (a *Allowlist) String() string {
	if a == nil {
		return ""
	}
	return strings.Join(a.patterns, ",")
}
