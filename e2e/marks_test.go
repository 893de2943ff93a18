//go:build linux

package e2e

import (
	"context"
	"fmt"
	"image"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// Screenshot marks on real apps: numbered 1 to N, each number's ref the
// element named, on controls only: a table is one mark, not its cells; a
// text view is marked, not the pane around it; no label lies on the text
// of its element, nor on a page's text, where the image has room.

type mark struct {
	Label           int
	Ref, Role, Name string
	Box             struct{ X, Y, Width, Height int }
}

// checkMarks checks a screenshot's marks: numbered 1 to N in order, each
// ref resolving to an element of the role and name the mark says (names
// are cut at 40 characters). It returns the marks.
func checkMarks(t *testing.T, s *mcpServer, sess, what string, out map[string]any) []mark {
	t.Helper()
	if out["ok"] != true {
		t.Fatalf("%s: screenshot %v", what, out)
	}
	marks := decode[[]mark](t, out["annotations"])
	if len(marks) == 0 {
		t.Fatalf("%s: no marks", what)
	}
	for i, m := range marks {
		if m.Label != i+1 {
			t.Errorf("%s: mark %d is numbered %d", what, i, m.Label)
		}
		p, _ := s.ok(t, "get_element_properties", map[string]any{"session": sess, "element": m.Ref})["properties"].(map[string]any)
		// A name read later may have grown (Chromium's tab adds its
		// memory use): the one marked starts it.
		name, _ := p["name"].(string)
		if p["role"] != m.Role || !strings.HasPrefix(name, strings.TrimSuffix(m.Name, "…")) {
			t.Errorf("%s: mark %d says %s %q, its ref %s is %v %q", what, m.Label, m.Role, m.Name, m.Ref, p["role"], name)
		}
	}
	return marks
}

// noCells fails on a mark of a table's or list's parts and returns the
// marks of the given role.
func noCells(t *testing.T, what string, marks []mark, role string) []mark {
	t.Helper()
	var of []mark
	for _, m := range marks {
		switch m.Role {
		case "table cell", "table row", "table column header", "table row header", "column header", "row header", "list item", "tree item":
			t.Errorf("%s: mark %d is on a %s %q", what, m.Label, m.Role, m.Name)
		case role:
			of = append(of, m)
		}
	}
	return of
}

func TestScreenshotMarks(t *testing.T) { testdesk.ForEach(t, testScreenshotMarks) }

func testScreenshotMarks(t *testing.T, d *testdesk.Desk) {
	t.Run("gedit", func(t *testing.T) {
		app := d.Launch(t, append(freshHome(t), "gedit", "--new-window")...)
		s := startMCP(t, d, "")
		defer s.logCost(t, "gedit: an annotated screenshot")
		sess := s.connect(t, map[string]any{"pid": app.Pid})
		view := findOne(t, s, sess, map[string]any{"role": "text", "states": []string{"editable", "showing"}})
		out, _, _ := s.screenshot(t, map[string]any{"session": sess})
		marks := checkMarks(t, s, sess, "gedit", out)
		found := false
		for _, m := range marks {
			found = found || m.Ref == view.Ref
			if m.Role == "split pane" || m.Role == "scroll pane" || m.Role == "panel" || m.Role == "filler" {
				t.Errorf("gedit: mark %d is on a %s", m.Label, m.Role)
			}
		}
		if !found {
			t.Errorf("gedit: the text view %s is not marked: %+v", view.Ref, marks)
		}
		t.Logf("gedit: %d marks", len(marks))
	})
	t.Run("system-monitor", func(t *testing.T) {
		// The process table's rows change every few seconds on a busy
		// machine (the more so in sway's 1916x1053 tab): Launch's wait
		// for a tree that holds still may never end. Its window and the
		// table are enough (below).
		app := launchBusy(t, d, append(freshHome(t), "gnome-system-monitor"))
		s := startMCP(t, d, "")
		defer s.logCost(t, "system-monitor: an annotated screenshot")
		var sess string
		until(t, "gnome-system-monitor connected", func(context.Context) (bool, string) {
			out := s.call(t, "connect", map[string]any{"pid": app.Pid})
			sess, _ = out["session"].(string)
			return out["ok"] == true, fmt.Sprint(out["errorCode"])
		})
		var table elem
		until(t, "the process table", func(context.Context) (bool, string) {
			els := decode[[]elem](t, s.ok(t, "find_elements", map[string]any{"session": sess, "role": "tree table", "interface": "table"})["elements"])
			if len(els) != 1 {
				return false, fmt.Sprintf("%d tables", len(els))
			}
			table = els[0]
			return true, ""
		})
		out, _, _ := s.screenshot(t, map[string]any{"session": sess, "timeoutMs": 60000})
		marks := checkMarks(t, s, sess, "system monitor", out)
		if tables := noCells(t, "system monitor", marks, "tree table"); len(tables) != 1 || tables[0].Ref != table.Ref {
			t.Errorf("system monitor: the process table %s has marks %+v, want one", table.Ref, tables)
		}
		t.Logf("system monitor: %d marks", len(marks))
	})
	t.Run("calc", func(t *testing.T) {
		var rows [][]string
		for i := range 30 {
			rows = append(rows, []string{"item", strings.Repeat("x", i%5+1), "42"})
		}
		app := launchCalc(t, d, rows)
		s := startMCP(t, d, "")
		defer s.logCost(t, "calc: an annotated screenshot")
		sess := s.connect(t, map[string]any{"pid": app.Pid})
		out, _, _ := s.screenshot(t, map[string]any{"session": sess, "timeoutMs": 60000})
		marks := checkMarks(t, s, sess, "calc", out)
		if tables := noCells(t, "calc", marks, "table"); len(tables) != 1 || !strings.HasPrefix(tables[0].Name, "Sheet") {
			t.Errorf("calc: the sheet's marks %+v, want one", tables)
		}
		t.Logf("calc: %d marks", len(marks))
	})
	t.Run("chromium", func(t *testing.T) {
		checkLabelsClear(t, d)
	})
}

// launchBusy starts argv in the desktop and waits until it shows a window
// only, for an app whose tree never holds still (testdesk's Launch waits
// for that).
func launchBusy(t *testing.T, d *testdesk.Desk, argv []string) *testdesk.App {
	t.Helper()
	p, err := d.Desktop.Launch(argv)
	if err != nil {
		t.Fatalf("launch %v: %v", argv, err)
	}
	t.Cleanup(func() { p.Stop() })
	app := &testdesk.App{Proc: p, Pid: p.Pid()}
	shown := func() bool {
		if d.Sway != nil {
			return len(swayViews(t, d, app.Pid)) > 0
		}
		cmd := exec.Command("xdotool", "search", "--onlyvisible", "--pid", strconv.Itoa(app.Pid))
		cmd.Env = d.Env()
		out, _ := cmd.Output()
		return len(strings.Fields(string(out))) > 0
	}
	// As generous as Launch: a cold start on a loaded machine.
	deadline := time.Now().Add(180 * time.Second)
	for !shown() {
		if time.Now().After(deadline) {
			t.Fatalf("launch %v: no window after 180 s (log: %s)", argv, p.LogPath)
		}
		select {
		case <-p.Done():
			t.Fatalf("launch %v: exited with status %d (log: %s)", argv, p.ExitCode(), p.LogPath)
		case <-time.After(100 * time.Millisecond):
		}
	}
	return app
}

// marksTodoPage is a to-do list: a count line, check boxes in a bulleted list,
// an entry and a button, with room around them.
const marksTodoPage = `<!DOCTYPE html><html><head><title>To-do</title></head><body>
<h1>To-do</h1>
<p>1 of 3 done</p>
<ul>
<li><label><input type="checkbox" checked> Buy milk</label></li>
<li><label><input type="checkbox"> Write report</label></li>
<li><label><input type="checkbox"> Call Alice</label></li>
</ul>
<input aria-label="New item" placeholder="New item"> <button>Add</button>
</body></html>`

// checkLabelsClear: on Chromium's to-do page the check boxes, the entry
// and the button are marked, the text is not, and no label lies on the
// page's text nor inside a marked element's box: the annotated image and
// a clean one are the same there.
func checkLabelsClear(t *testing.T, d *testdesk.Desk) {
	var chromium browser
	for _, b := range browsers {
		if b.name == "chromium" {
			chromium = b
		}
	}
	app := openPage(t, d, chromium, "To-do", marksTodoPage)
	s := startMCP(t, d, "")
	defer s.logCost(t, "chromium: an annotated screenshot")
	sess := s.connect(t, map[string]any{"pid": app.Pid})
	status := findOne(t, s, sess, map[string]any{"name": "1 of 3 done", "nameMatch": "exact", "role": "static"})
	out, img, _ := s.screenshot(t, map[string]any{"session": sess})
	marks := checkMarks(t, s, sess, "chromium", out)
	_, clean, _ := s.screenshot(t, map[string]any{"session": sess, "annotate": false})
	if img == nil || clean == nil || img.Rect != clean.Rect {
		t.Fatalf("chromium: the two captures differ in size")
	}
	shot := decode[shotResult](t, out)
	same := func(what string, r image.Rectangle) {
		t.Helper()
		r = r.Intersect(img.Rect)
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				if img.RGBAAt(x, y) != clean.RGBAAt(x, y) {
					t.Errorf("chromium: %s at %v: pixel %d,%d is drawn over (a label)", what, r, x, y)
					return
				}
			}
		}
	}
	// The status line's text, in image pixels.
	b := status.Bounds
	same("the text \"1 of 3 done\"", image.Rect(b.X-shot.Bounds.X, b.Y-shot.Bounds.Y, b.X-shot.Bounds.X+b.Width, b.Y-shot.Bounds.Y+b.Height))
	want := map[string]bool{"Buy milk": false, "Write report": false, "Call Alice": false, "New item": false, "Add": false}
	for _, m := range marks {
		switch m.Role {
		case "static", "paragraph", "heading", "list", "list item", "document web", "panel", "section":
			t.Errorf("chromium: mark %d on the %s %q", m.Label, m.Role, m.Name)
		}
		if _, ok := want[m.Name]; !ok {
			continue
		}
		want[m.Name] = true
		// Inside the box's 2-pixel line, the element as the page shows it.
		same(m.Role+" "+m.Name, image.Rect(m.Box.X+2, m.Box.Y+2, m.Box.X+m.Box.Width-2, m.Box.Y+m.Box.Height-2))
	}
	for name, marked := range want {
		if !marked {
			t.Errorf("chromium: %q is not marked: %+v", name, marks)
		}
	}
}
