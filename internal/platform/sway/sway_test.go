//go:build linux

package sway

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
)

// fakeSway serves the IPC on a socket: reply answers each message (type,
// payload) with a payload, or "" to hang up without answering; hang keeps
// the connection open and silent.
func fakeSway(t *testing.T, reply func(typ uint32, payload string) (string, bool)) *Client {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "sway-ipc.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	serve(l, reply)
	return New(sock)
}

// serve answers the IPC on l as fakeSway says.
func serve(l net.Listener, reply func(typ uint32, payload string) (string, bool)) {
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				hdr := make([]byte, 14)
				if _, err := io.ReadFull(c, hdr); err != nil || string(hdr[:6]) != magic {
					return
				}
				n, typ := binary.NativeEndian.Uint32(hdr[6:]), binary.NativeEndian.Uint32(hdr[10:])
				body := make([]byte, n)
				if _, err := io.ReadFull(c, body); err != nil {
					return
				}
				out, ok := reply(typ, string(body))
				if !ok {
					// Silent: hold the connection until the client gives up.
					_, _ = io.Copy(io.Discard, c)
					return
				}
				if out == "" {
					return
				}
				msg := make([]byte, 14+len(out))
				copy(msg, magic)
				binary.NativeEndian.PutUint32(msg[6:], uint32(len(out)))
				binary.NativeEndian.PutUint32(msg[10:], typ)
				copy(msg[14:], out)
				_, _ = c.Write(msg)
			}()
		}
	}()
}

// TestBacklogFull: sway listens with a backlog of 3, and a unix socket
// whose queue is full refuses a connection at once (EAGAIN): the call
// tries again until sway accepts, within its deadline.
func TestBacklogFull(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "sway-ipc.sock")
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: sock}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fd), sock)
	l, err := net.FileListener(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	// Fill the queue until a connection is refused, as sway's is under load.
	full := false
	for range 10 {
		c, err := net.Dial("unix", sock)
		if errors.Is(err, syscall.EAGAIN) {
			full = true
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	if !full {
		t.Fatal("the listen queue never filled")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := New(sock).Version(ctx)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("the call answered (%v) while the queue was full", err)
	case <-time.After(200 * time.Millisecond):
	}
	serve(l, func(uint32, string) (string, bool) { return `{"major":1,"minor":7}`, true })
	if err := <-done; err != nil {
		t.Errorf("once sway accepts again: %v", err)
	}
}

// tree is a get_tree reply: a tiled window with sway's title bar, a
// floating one above it, an empty workspace on another output, and one on
// a hidden workspace.
const tree = `{"id":1,"type":"root","rect":{"x":0,"y":0,"width":3840,"height":1080},"nodes":[
 {"id":3,"type":"output","name":"HEADLESS-1","nodes":[
  {"id":4,"type":"workspace","name":"1","nodes":[
   {"id":5,"type":"con","name":"Widget Factory","pid":100,"app_id":"gtk3-widget-factory","shell":"xdg_shell","visible":true,"focused":false,
    "rect":{"x":0,"y":25,"width":1920,"height":1055},"window_rect":{"x":2,"y":0,"width":1916,"height":1053},"deco_rect":{"x":0,"y":0,"width":1920,"height":25}}],
   "floating_nodes":[
   {"id":7,"type":"floating_con","name":"About","pid":100,"app_id":"gtk3-widget-factory","shell":"xdg_shell","visible":true,"focused":true,
    "rect":{"x":700,"y":300,"width":400,"height":300},"window_rect":{"x":0,"y":0,"width":400,"height":300}}]},
  {"id":8,"type":"workspace","name":"2","nodes":[
   {"id":9,"type":"con","name":"hidden","pid":200,"app_id":"foot","visible":false,
    "rect":{"x":0,"y":0,"width":1920,"height":1080},"window_rect":{"x":0,"y":0,"width":1920,"height":1080}}]}]}]}`

func TestWindows(t *testing.T) {
	var cmds []string
	c := fakeSway(t, func(typ uint32, payload string) (string, bool) {
		switch typ {
		case msgGetTree:
			return tree, true
		case msgRunCommand:
			cmds = append(cmds, payload)
			if strings.Contains(payload, "con_id=99") {
				return `[{"success":false,"error":"No matching node."}]`, true
			}
			return `[{"success":true}]`, true
		}
		return `{}`, true
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	wins, err := c.Windows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(wins) != 3 {
		t.Fatalf("%d windows: %+v", len(wins), wins)
	}
	w := wins[0]
	if w.Con != 5 || w.Pid != 100 || w.AppID != "gtk3-widget-factory" || w.Title != "Widget Factory" || w.Floating || !w.Visible || w.Workspace != "1" {
		t.Errorf("tiled window %+v", w)
	}
	if want := (platform.Rect{X: 2, Y: 25, Width: 1916, Height: 1053}); w.Bounds != want {
		t.Errorf("content %+v, want %+v", w.Bounds, want)
	}
	if want := (platform.Rect{X: 0, Y: 0, Width: 1920, Height: 1080}); w.Frame != want {
		t.Errorf("frame %+v, want %+v (title bar included)", w.Frame, want)
	}
	if w.ID().String() != "sway:5" {
		t.Errorf("id %s", w.ID())
	}
	if f := wins[1]; f.Con != 7 || !f.Floating || !f.Focused {
		t.Errorf("floating window %+v", f)
	}
	for _, p := range []struct {
		x, y int
		con  int64
	}{{10, 10, 5}, {800, 400, 7}, {1919, 1079, 5}, {2500, 10, 0}} {
		got, ok, err := c.At(ctx, p.x, p.y)
		if err != nil || ok != (p.con != 0) || got.Con != p.con {
			t.Errorf("At(%d, %d) = %d %v %v, want %d", p.x, p.y, got.Con, ok, err, p.con)
		}
	}
	if f, ok, err := c.Focused(ctx); err != nil || !ok || f.Con != 7 {
		t.Errorf("Focused = %+v %v %v", f, ok, err)
	}
	if err := c.Focus(ctx, 7); err != nil {
		t.Errorf("Focus(7): %v", err)
	}
	if err := c.Kill(ctx, 99); !errors.Is(err, ErrNoWindow) {
		t.Errorf("Kill(99) = %v, want ErrNoWindow", err)
	}
	if len(cmds) != 2 || cmds[0] != "[con_id=7] focus" {
		t.Errorf("commands sent %q", cmds)
	}
	// Focus is verified: a window the tree never shows focused fails at
	// the deadline.
	short, cancel2 := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel2()
	if err := c.Focus(short, 5); !errors.Is(err, ErrNotApplied) {
		t.Errorf("Focus(5) on a tree where 7 keeps the focus = %v, want ErrNotApplied", err)
	}
}

// TestDeadlines: a compositor that never answers fails at the caller's
// deadline; one that hangs up, or is not there, fails at once.
func TestDeadlines(t *testing.T) {
	silent := fakeSway(t, func(uint32, string) (string, bool) { return "", false })
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := silent.Version(ctx); !errors.Is(err, platform.ErrTimeout) {
		t.Errorf("silent compositor: %v, want ErrTimeout", err)
	}
	hangup := fakeSway(t, func(uint32, string) (string, bool) { return "", true })
	ctx2, cancel2 := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel2()
	if _, err := hangup.Version(ctx2); err == nil || ctx2.Err() != nil || !strings.Contains(err.Error(), "closed the connection") {
		t.Errorf("compositor hanging up: %v", err)
	}
	gone := New(filepath.Join(t.TempDir(), "none.sock"))
	if _, err := gone.Windows(ctx2); err == nil || ctx2.Err() != nil {
		t.Errorf("no compositor: %v", err)
	}
	garbage := fakeSway(t, func(uint32, string) (string, bool) { return "not json", true })
	if _, err := garbage.Outputs(ctx2); err == nil {
		t.Error("a reply that is not JSON decoded")
	}
}

// TestWatchInputs: the subscription is answered, input events come on the
// same connection (others are skipped), stop ends the watch; a silent
// compositor holds the subscription to its deadline.
func TestWatchInputs(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "sway-ipc.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	frame := func(typ uint32, body string) []byte {
		msg := make([]byte, 14+len(body))
		copy(msg, magic)
		binary.NativeEndian.PutUint32(msg[6:], uint32(len(body)))
		binary.NativeEndian.PutUint32(msg[10:], typ)
		copy(msg[14:], body)
		return msg
	}
	subscribed := make(chan string, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		hdr := make([]byte, 14)
		if _, err := io.ReadFull(c, hdr); err != nil {
			return
		}
		body := make([]byte, binary.NativeEndian.Uint32(hdr[6:]))
		if _, err := io.ReadFull(c, body); err != nil {
			return
		}
		subscribed <- string(body)
		_, _ = c.Write(frame(msgSubscribe, `{"success": true}`))
		_, _ = c.Write(frame(1<<31, `{"change": "focus"}`)) // a workspace event (number 0): skipped
		_, _ = c.Write(frame(eventInput, `{"change": "removed", "input": {"identifier": "0:0:virtual", "type": "keyboard"}}`))
		_, _ = io.Copy(io.Discard, c)
	}()
	got := make(chan InputEvent, 4)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stop, err := New(sock).WatchInputs(ctx, func(ev InputEvent) { got <- ev })
	if err != nil {
		t.Fatal(err)
	}
	if p := <-subscribed; p != `["input"]` {
		t.Errorf("subscribed to %s", p)
	}
	select {
	case ev := <-got:
		if ev.Change != "removed" || ev.Input.Type != "keyboard" || ev.Input.Identifier != "0:0:virtual" {
			t.Errorf("event %+v", ev)
		}
	case <-ctx.Done():
		t.Fatal("no input event")
	}
	stop()
	if len(got) != 0 {
		t.Errorf("more events: %+v", <-got)
	}

	silent := fakeSway(t, func(uint32, string) (string, bool) { return "", false })
	sctx, scancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer scancel()
	if _, err := silent.WatchInputs(sctx, func(InputEvent) {}); !errors.Is(err, platform.ErrTimeout) {
		t.Errorf("silent compositor: %v, want ErrTimeout", err)
	}
}
