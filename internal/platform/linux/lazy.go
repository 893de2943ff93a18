package linux

import (
	"context"
	"sync"

	"github.com/uiscope/uiscope/internal/platform"
)

// Lazy is a Desktop that connects on first use and tries again on the next
// call when connecting failed, so that a long-running server started before
// the desktop (or its accessibility bus) keeps working once it appears.
type Lazy struct {
	mu sync.Mutex
	d  *Desktop
}

var _ platform.Desktop = (*Lazy)(nil)

func (l *Lazy) get(ctx context.Context) (*Desktop, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.d != nil && l.d.A11y != nil {
		return l.d, nil
	}
	d, err := Open(ctx)
	if err != nil {
		if l.d != nil {
			return l.d, nil // X only is better than nothing
		}
		return nil, err
	}
	if l.d != nil {
		l.d.Close()
	}
	l.d = d
	return d, nil
}

// Apps lists applications.
func (l *Lazy) Apps(ctx context.Context) ([]platform.App, error) {
	d, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return d.Apps(ctx)
}

// Tree reads an application's tree.
func (l *Lazy) Tree(ctx context.Context, app platform.App, opts platform.TreeOptions) (*platform.Node, platform.TreeStats, error) {
	d, err := l.get(ctx)
	if err != nil {
		return nil, platform.TreeStats{}, err
	}
	return d.Tree(ctx, app, opts)
}

// Element reads one element.
func (l *Lazy) Element(ctx context.Context, app platform.App, key string) (*platform.Details, error) {
	d, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return d.Element(ctx, app, key)
}

// BusOwner returns the pid behind a bus name.
func (l *Lazy) BusOwner(ctx context.Context, bus string) (int, error) {
	d, err := l.get(ctx)
	if err != nil {
		return 0, err
	}
	return d.BusOwner(ctx, bus)
}

// Close closes the connections.
func (l *Lazy) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.d != nil {
		l.d.Close()
		l.d = nil
	}
	return nil
}
