package mcpserver

import (
	"context"
	"strings"
	"time"

	"github.com/uiscope/uiscope/internal/core"
)

// session checks a timeoutMs argument and returns the (identity-checked)
// session with it.
func (h *handlers) session(ctx context.Context, id string, timeoutMs *int) (*core.Session, time.Duration, error) {
	limit, err := core.Timeout(timeoutMs)
	if err != nil {
		return nil, 0, err
	}
	s, err := h.sessions.Get(ctx, id)
	return s, limit, err
}

const truncatedNote = "the tree read was cut short (%s): elements may be missing, and a negative answer proves nothing; retry with a larger timeoutMs"

// joinNotes joins the notes that are not empty.
func joinNotes(notes ...string) string {
	var out []string
	for _, n := range notes {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, "; ")
}
