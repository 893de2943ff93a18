package security

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"
)

// Record is one line of the audit log. It says who did what to which
// process and how it ended — never what the UI showed or what was typed:
// no names, texts, values, keys or pixels, so that the log can be kept
// where the UI's contents may not.
type Record struct {
	Time      time.Time `json:"time"`
	Client    string    `json:"client"`              // hashed, see Audit.client
	Pid       int       `json:"pid,omitempty"`       // the target process, when the call had one
	StartTime uint64    `json:"startTime,omitempty"` // its start time: a pid alone is no identity
	Operation string    `json:"operation"`           // the tool's name
	Outcome   string    `json:"outcome"`             // started, ok, refused or failed
	Reason    string    `json:"reason,omitempty"`    // the error or refusal code
}

// Outcomes of a call. An action's record with OutcomeStarted is written
// before it runs (an action that could not be logged is not run); its
// outcome follows in a second record.
const (
	OutcomeStarted = "started"
	OutcomeOK      = "ok"
	OutcomeRefused = "refused"
	OutcomeFailed  = "failed"
)

// Audit appends records to a JSONL file, one whole line per write, the
// file opened append-only with mode 0600. Safe for concurrent use.
type Audit struct {
	mu   sync.Mutex
	f    *os.File
	salt []byte
}

// OpenAudit opens (or creates) the log at path. An existing file is
// appended to, never truncated, and must be a regular file that only its
// owner can read, so that a log others can read is not quietly extended.
func OpenAudit(path string) (*Audit, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|oNoFollow|oNonBlock, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("audit log: %w", err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("audit log %s is not a regular file", path)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		f.Close()
		return nil, fmt.Errorf("audit log %s has mode %04o: others could read it; make it 0600 (chmod 600) or give a new path", path, perm)
	}
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		f.Close()
		return nil, err
	}
	return &Audit{f: f, salt: salt}, nil
}

// Client hashes a client's identity with the run's secret salt: lines of
// one client can be told apart from another's within a run, and the
// identity itself (a token, a session handle) is not in the file.
func (a *Audit) Client(id string) string {
	h := sha256.New()
	h.Write(a.salt)
	h.Write([]byte(id))
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// Write appends r as one line.
func (a *Audit) Write(r Record) error {
	if a == nil {
		return nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	a.mu.Lock()
	defer a.mu.Unlock()
	_, err = a.f.Write(b)
	return err
}

// Close closes the file.
func (a *Audit) Close() error {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.f.Close()
}

func hashHex(salt, s string) string {
	h := sha256.Sum256([]byte(salt + "\x00" + s))
	return hex.EncodeToString(h[:])
}
