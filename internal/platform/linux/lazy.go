package linux

import (
	"context"
	"sync"

	"github.com/uiscope/uiscope/internal/platform"
)

// Lazy is a Desktop that connects on first use and tries again on the next
// call when connecting failed, so that a long-running server started before
// the desktop (or its accessibility bus) keeps working once it appears. Being
// long-lived, it mirrors the trees it can (Desktop.Mirror).
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
	d.Mirror = true
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

var _ platform.Actor = (*Lazy)(nil)

// The Actor methods delegate to the connected desktop.

func (l *Lazy) DoAction(ctx context.Context, app platform.App, key string, names ...string) (string, error) {
	d, err := l.get(ctx)
	if err != nil {
		return "", err
	}
	return d.DoAction(ctx, app, key, names...)
}

func (l *Lazy) SetText(ctx context.Context, app platform.App, key, text string) (string, string, error) {
	d, err := l.get(ctx)
	if err != nil {
		return "", "", err
	}
	return d.SetText(ctx, app, key, text)
}

func (l *Lazy) SetValue(ctx context.Context, app platform.App, key string, v float64) (float64, error) {
	d, err := l.get(ctx)
	if err != nil {
		return 0, err
	}
	return d.SetValue(ctx, app, key, v)
}

func (l *Lazy) GrabFocus(ctx context.Context, app platform.App, key string) error {
	d, err := l.get(ctx)
	if err != nil {
		return err
	}
	return d.GrabFocus(ctx, app, key)
}

func (l *Lazy) ScrollTo(ctx context.Context, app platform.App, key string) error {
	d, err := l.get(ctx)
	if err != nil {
		return err
	}
	return d.ScrollTo(ctx, app, key)
}

func (l *Lazy) Select(ctx context.Context, app platform.App, containerKey string, index int, selected, clear bool) error {
	d, err := l.get(ctx)
	if err != nil {
		return err
	}
	return d.Select(ctx, app, containerKey, index, selected, clear)
}

func (l *Lazy) IsSelected(ctx context.Context, app platform.App, containerKey string, index int) (bool, error) {
	d, err := l.get(ctx)
	if err != nil {
		return false, err
	}
	return d.IsSelected(ctx, app, containerKey, index)
}

func (l *Lazy) SelectText(ctx context.Context, app platform.App, key string, start, end int) error {
	d, err := l.get(ctx)
	if err != nil {
		return err
	}
	return d.SelectText(ctx, app, key, start, end)
}

func (l *Lazy) Window(ctx context.Context, app platform.App, key string) (platform.Window, error) {
	d, err := l.get(ctx)
	if err != nil {
		return platform.Window{}, err
	}
	return d.Window(ctx, app, key)
}

func (l *Lazy) Activate(ctx context.Context, win platform.Window) error {
	d, err := l.get(ctx)
	if err != nil {
		return err
	}
	return d.Activate(ctx, win)
}

func (l *Lazy) ActiveWindow(ctx context.Context) (uint32, error) {
	d, err := l.get(ctx)
	if err != nil {
		return 0, err
	}
	return d.ActiveWindow(ctx)
}

func (l *Lazy) TopmostAt(ctx context.Context, x, y int) (uint32, error) {
	d, err := l.get(ctx)
	if err != nil {
		return 0, err
	}
	return d.TopmostAt(ctx, x, y)
}

func (l *Lazy) WindowPid(ctx context.Context, id uint32) (int, error) {
	d, err := l.get(ctx)
	if err != nil {
		return 0, err
	}
	return d.WindowPid(ctx, id)
}

func (l *Lazy) Click(ctx context.Context, x, y, button, count int) error {
	d, err := l.get(ctx)
	if err != nil {
		return err
	}
	return d.Click(ctx, x, y, button, count)
}

func (l *Lazy) Wheel(ctx context.Context, x, y, dx, dy int) error {
	d, err := l.get(ctx)
	if err != nil {
		return err
	}
	return d.Wheel(ctx, x, y, dx, dy)
}

func (l *Lazy) ValidateChord(chord string) error { return (&Desktop{}).ValidateChord(chord) }

func (l *Lazy) KeyChord(ctx context.Context, chord string) error {
	d, err := l.get(ctx)
	if err != nil {
		return err
	}
	return d.KeyChord(ctx, chord)
}

func (l *Lazy) TypeText(ctx context.Context, text string) (int, error) {
	d, err := l.get(ctx)
	if err != nil {
		return 0, err
	}
	return d.TypeText(ctx, text)
}

func (l *Lazy) WindowAction(ctx context.Context, win platform.Window, action string) error {
	d, err := l.get(ctx)
	if err != nil {
		return err
	}
	return d.WindowAction(ctx, win, action)
}

func (l *Lazy) Screen() platform.Rect {
	d, err := l.get(context.Background())
	if err != nil {
		return platform.Rect{}
	}
	return d.Screen()
}

// Watch reports the application's accessibility events.
func (l *Lazy) Watch(ctx context.Context, app platform.App) (<-chan struct{}, func(), error) {
	d, err := l.get(ctx)
	if err != nil {
		return nil, func() {}, err
	}
	return d.Watch(ctx, app)
}
