package core

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/fake"
)

// coldBrowser is a browser's tree whose page shows in its internal frame
// only from the reads-th read on (Gecko exporting a page once asked).
type coldBrowser struct {
	platform.Accessibility
	reads *atomic.Int32
	from  int32
}

func (c coldBrowser) Tree(ctx context.Context, app platform.App, opts platform.TreeOptions) (*platform.Node, platform.TreeStats, error) {
	frame := &platform.Node{Key: "if", Role: fake.Role("internal frame"), States: fake.Shown, Bounds: &platform.Rect{Width: 800, Height: 600}}
	if c.reads.Add(1) >= c.from {
		entry := &platform.Node{Key: "task", Role: fake.Role("entry"), Name: "New task", States: fake.Shown, Bounds: &platform.Rect{X: 10, Y: 10, Width: 100, Height: 20}}
		doc := &platform.Node{Key: "doc", Role: fake.Role("document web"), Name: "todo", States: fake.Shown, Bounds: &platform.Rect{Width: 800, Height: 600},
			ChildCount: 1, Children: []*platform.Node{entry}}
		frame.ChildCount, frame.Children = 1, []*platform.Node{doc}
	}
	win := &platform.Node{Key: "win", Role: fake.Role("frame"), Name: "todo — Firefox", States: fake.Shown, Bounds: &platform.Rect{Width: 800, Height: 600},
		ChildCount: 1, Children: []*platform.Node{frame}}
	return fake.Root("Firefox", win), platform.TreeStats{}, nil
}

// TestColdReadWaitsForThePage: the session's first read of a browser whose
// internal frame is still empty reads again until the page is there; once
// the session has a complete read, an empty frame is taken as it is.
func TestColdReadWaitsForThePage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newSafetyDesk()
		desk := d.Platform()
		reads := &atomic.Int32{}
		desk.Accessibility = coldBrowser{Accessibility: desk.Accessibility, reads: reads, from: 4}
		m := NewSessions(desk)
		ctx := context.Background()
		s, err := m.Connect(ctx, AppSpec{Pid: editorPid}, "")
		if err != nil {
			t.Fatal(err)
		}
		reads.Store(0)
		tr, _, err := m.Fetch(ctx, s, 5*time.Second, platform.TreeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := tr.ByKey("task"); !ok || emptyFrame(tr) {
			t.Fatalf("the first read after %d reads of the app: no page in the frame", reads.Load())
		}
		reads.Store(-100) // empty from now on
		tr, _, err = m.Fetch(ctx, s, 5*time.Second, platform.TreeOptions{})
		if err != nil || !emptyFrame(tr) || reads.Load() != -99 {
			t.Errorf("a later read: %v, empty frame %v, %d reads; want the empty frame taken at once", err, emptyFrame(tr), reads.Load()+100)
		}
	})
}
