package core

import (
	"context"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
)

// A cold read of a browser: Gecko exports a page's accessibles only once
// something asks for them, so the first read of a session on a Firefox
// just started may find the page's internal frame showing and empty, the
// document coming a moment later. A caller's first read that finds one
// reads again, until the frame holds its document or coldFrameTime
// passed: the agent's first look (a find, the visible view) sees the
// page, not a frame it would have to read again for.

// coldFrameTime bounds the wait for an empty frame's document, and
// coldFrameGap paces its reads.
const (
	coldFrameTime = 2 * time.Second
	coldFrameGap  = 100 * time.Millisecond
)

// emptyFrame reports a tree with a showing internal frame that has no
// children.
func emptyFrame(t *Tree) bool {
	for _, n := range t.nodes {
		if n.Role.String() == "internal frame" && len(n.Children) == 0 && n.ChildCount == 0 && n.States.Has(platform.StateShowing) {
			return true
		}
	}
	return false
}

// warm reads again, while t has an empty frame and the session has no
// complete read of its own yet, up to coldFrameTime and the read's
// deadline; it returns the first read without one, or t.
func (m *Sessions) warm(ctx context.Context, s *Session, t *Tree, st platform.TreeStats, timeout time.Duration, opts platform.TreeOptions) (*Tree, platform.TreeStats) {
	s.mu.Lock()
	cold := s.complete == nil
	s.mu.Unlock()
	if !cold || s.Mode != ModeA11y || t.Truncated || !emptyFrame(t) {
		return t, st
	}
	began := time.Now()
	end := began.Add(min(coldFrameTime, timeout/2))
	for time.Now().Add(coldFrameGap).Before(end) {
		select {
		case <-ctx.Done():
			return t, st
		case <-time.After(coldFrameGap):
		}
		again, ast, err := m.read(ctx, s, timeout/2, opts)
		if err != nil || again.Truncated {
			return t, st
		}
		if !emptyFrame(again) {
			return again, ast
		}
	}
	return t, st
}
