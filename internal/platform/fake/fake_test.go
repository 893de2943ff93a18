package fake

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
)

func TestStackingAndInput(t *testing.T) {
	ctx := context.Background()
	d := New()
	d.AddApp(App{Pid: 1, Name: "a", Tree: &platform.Node{Key: "r"}})
	d.AddApp(App{Pid: 2, Name: "b"})
	a := d.AddWindow(1, "A", platform.Rect{Width: 100, Height: 100})
	b := d.AddWindow(2, "B", platform.Rect{X: 50, Y: 50, Width: 100, Height: 100})
	if top, _ := d.TopmostAt(ctx, 60, 60); top != b {
		t.Fatalf("topmost %s, want the later window %s", top, b)
	}
	d.SetAbove(b, true)
	if err := d.Activate(ctx, platform.Window{ID: a}); err != nil {
		t.Fatal(err)
	}
	if top, _ := d.TopmostAt(ctx, 60, 60); top != b {
		t.Errorf("topmost %s after raising %s, want the window kept above, %s", top, a, b)
	}
	if act, _ := d.ActiveWindow(ctx); act != a {
		t.Errorf("active %s, want %s", act, a)
	}
	d.StealFocusAfter(3, b)
	if n, err := d.TypeText(ctx, "hello"); err != nil || n != 5 {
		t.Fatalf("TypeText = %d, %v", n, err)
	}
	if d.Typed(a) != "hel" || d.Typed(b) != "lo" {
		t.Errorf("typed %q to a and %q to b, want \"hel\" and \"lo\"", d.Typed(a), d.Typed(b))
	}
	apps, _ := d.Apps(ctx)
	if len(apps) != 2 || !apps[0].Accessible || apps[1].Accessible || len(apps[0].Windows) != 1 {
		t.Errorf("apps %+v", apps)
	}
}

func TestFreezeHonoursTheDeadline(t *testing.T) {
	d := New()
	d.AddApp(App{Pid: 1, Name: "a", Tree: &platform.Node{Key: "r"}})
	d.Freeze(1, true)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := d.Element(ctx, platform.App{Pid: 1}, "r")
	if !errors.Is(err, platform.ErrTimeout) {
		t.Fatalf("Element of a frozen app: %v, want ErrTimeout", err)
	}
	// The process table still answers.
	if _, err := d.Process(context.Background(), 1); err != nil {
		t.Errorf("Process of a frozen app: %v", err)
	}
}

func TestTreesAreCopies(t *testing.T) {
	d := New()
	root := &platform.Node{Key: "r", Name: "root", Children: []*platform.Node{{Key: "c", Name: "child"}}}
	d.AddApp(App{Pid: 1, Name: "a", Tree: root})
	root.Children[0].Name = "changed by the caller"
	got, _, err := d.Tree(context.Background(), platform.App{Pid: 1}, platform.TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got.Children[0].Name = "changed by the reader"
	again, _, _ := d.Tree(context.Background(), platform.App{Pid: 1}, platform.TreeOptions{})
	if again.Children[0].Name != "child" {
		t.Errorf("child named %q, want the name it was added with", again.Children[0].Name)
	}
}

// TestBuilders: Node keys an element by its role and name and gives it
// Shown; the edits change what they name; an unknown name panics.
func TestBuilders(t *testing.T) {
	save := With(Node("push button", "Save"), Actions("click"), AddStates("focused"), Bounds(1, 2, 3, 4), Desc("saves"))
	root := Root("editor", Keyed("frame", "frame", "Editor", save))
	frame := root.Children[0]
	if root.Key != "root" || root.Role != platform.RoleApplication || root.Name != "editor" || root.ChildCount != 1 || root.States != 0 {
		t.Errorf("root: %+v", root)
	}
	if frame.Key != "frame" || frame.Role != platform.RoleFrame || frame.ChildCount != 1 || frame.States != Shown {
		t.Errorf("frame: %+v", frame)
	}
	if save.Key != "test:1.1/push_button/Save" || save.Role != Role("push button") || len(save.Actions) != 1 || save.Description != "saves" ||
		save.States != Shown|States("focused") || *save.Bounds != (platform.Rect{X: 1, Y: 2, Width: 3, Height: 4}) {
		t.Errorf("save: %+v", save)
	}
	if With(Node("label", "x"), SetStates("showing")).States != States("showing") {
		t.Error("SetStates did not replace the states")
	}
	for _, bad := range []func(){func() { Role("no such role") }, func() { States("no such state") }} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("an unknown name did not panic")
				}
			}()
			bad()
		}()
	}
}
