//go:build linux

package e2e

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/atspi"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// The agent tasks, each scripted both ways (agent_tasks_test.go). Today's
// scripts look at the app first (the default outline), take a ref from
// it where it shows one and search where it does not, act one action per
// call, and read after each action what it caused; the loop's scripts
// look at what is on screen (view "visible"), take refs from it the same
// way, and take what each action's own answer says.

// ref is the ref of an element the first look showed, or else the first
// match of a search: what an agent takes from an outline it has read.
func (r *taskRun) ref(t testing.TB, outline, role, name string, find map[string]any, states ...string) string {
	t.Helper()
	if ref := outlineRef(outline, role, name, states...); ref != "" {
		return ref
	}
	return findOne(t, r.s, r.sess, find).Ref
}

// saveAs is the loop's save through a GTK file chooser that the run
// before opened (its answer says a window opened, and that the name field
// took the focus, by ref): its value and Enter in one call, whose answer
// says the chooser closed, and the steps that follow in the same call.
func (r *taskRun) saveAs(t testing.TB, out map[string]any, then ...map[string]any) map[string]any {
	t.Helper()
	return r.saveIn(t, out, "Save As", then...)
}

// saveIn is saveAs through a file chooser titled title.
func (r *taskRun) saveIn(t testing.TB, out map[string]any, title string, then ...map[string]any) map[string]any {
	t.Helper()
	chooser := map[string]any{"name": title, "nameMatch": "exact", "role": "file chooser"}
	r.opened(t, out, "the "+title+" dialog", chooser)
	name := r.focused(t, out, "text", "", chooser, map[string]any{"role": "text", "states": []string{"editable", "focused"}})
	out = r.steps(t, append([]map[string]any{
		step("set_value", map[string]any{"element": name, "value": r.path}),
		step("press_key", map[string]any{"element": name, "keys": "Enter"}),
	}, then...)...)
	r.closed(t, out, chooser)
	return out
}

// opened is the loop's check that an action opened a window: its answer's
// effects, or else a wait for the window (args: wait_for's criteria).
func (r *taskRun) opened(t testing.TB, out map[string]any, what string, args map[string]any) {
	t.Helper()
	if e := decode[actEffects](t, out).Effects; e == nil || len(e.WindowsOpened) == 0 {
		appears(t, r.s, r.sess, what, maps.Clone(args))
	}
}

// closed is the loop's check that an action closed a window: its
// answer's effects, or else a wait for the window (args) to disappear.
func (r *taskRun) closed(t testing.TB, out map[string]any, args map[string]any) {
	t.Helper()
	if e := decode[actEffects](t, out).Effects; e == nil || len(e.WindowsClosed) == 0 {
		r.gone(t, maps.Clone(args))
	}
}

// focused finds the element an action's answer says took the focus, when
// it has this role (and name, unless empty): its ref when the answer gives
// one, else a search for the focused element. Where the answer names no
// such focus, it is a search (inDialog) within the window the action
// opened (dialog: wait_for's criteria for it).
func (r *taskRun) focused(t testing.TB, out map[string]any, role, name string, dialog, inDialog map[string]any) string {
	t.Helper()
	e := decode[actEffects](t, out).Effects
	if e == nil || e.Focus == nil || e.Focus.Role != role || name != "" && e.Focus.Name != name {
		find := maps.Clone(inDialog)
		find["within"] = appears(t, r.s, r.sess, "the dialog", maps.Clone(dialog)).Ref
		return findOne(t, r.s, r.sess, find).Ref
	}
	if e.Focus.Ref != "" {
		return e.Focus.Ref
	}
	find := map[string]any{"role": role, "states": []string{"focused"}}
	if name != "" {
		find["name"], find["nameMatch"] = name, "exact"
	}
	return findOne(t, r.s, r.sess, find).Ref
}

// focusedOr is the ref of the element an answer (an action's, or
// connect's) says has the focus, when it has this role; else a search
// (find) for it.
func (r *taskRun) focusedOr(t testing.TB, out map[string]any, role string, find map[string]any) string {
	t.Helper()
	var f *elem
	if e := decode[actEffects](t, out).Effects; e != nil && e.Focus != nil {
		f = e.Focus
	} else if c := decode[struct{ Focus *elem }](t, out); c.Focus != nil {
		f = c.Focus
	}
	if f != nil && f.Role == role && f.Ref != "" {
		return f.Ref
	}
	return findOne(t, r.s, r.sess, maps.Clone(find)).Ref
}

// connect opens the run's session on its app and returns connect's
// answer (where the focus is).
func (r *taskRun) connect(t testing.TB) map[string]any {
	t.Helper()
	out := r.s.ok(t, "connect", map[string]any{"pid": r.app.Pid})
	r.sess, _ = out["session"].(string)
	if r.sess == "" {
		t.Fatalf("connect: no session: %v", out)
	}
	return out
}

// fileState waits until path holds want and returns what it holds.
func fileState(t testing.TB, path, want string) string {
	t.Helper()
	fileHolds(t, path, want)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// gedit: type two lines, save them through Save As, type a third, close
// the document and answer its "Save changes?" question with Save.

const (
	geditLines = "gedit's first line\nits second line"
	geditMore  = "\nand a third"
)

// focusedText is the ref of the focused editable text an outline shows
// (a document that has the keys), searched for where it shows none.
func (r *taskRun) focusedText(t testing.TB, outline string) string {
	t.Helper()
	return r.ref(t, outline, "text", "", map[string]any{"role": "text", "states": []string{"editable", "focused"}}, "focused", "editable")
}

// chooserSaveAs is today's GTK 3 Save As, once the keys that open it were
// sent: wait for the file chooser, find its name field, set the path,
// press Enter in it and wait for the chooser to close.
func (r *taskRun) chooserSaveAs(t testing.TB) {
	t.Helper()
	s := r.s
	chooser := appears(t, s, r.sess, "the Save As dialog", map[string]any{"name": "Save As", "nameMatch": "exact", "role": "file chooser"})
	name := findOne(t, s, r.sess, map[string]any{"within": chooser.Ref, "role": "text", "states": []string{"editable", "focused"}})
	s.ok(t, "set_value", map[string]any{"session": r.sess, "element": name.Ref, "value": r.path})
	s.ok(t, "press_key", map[string]any{"session": r.sess, "element": name.Ref, "keys": "Enter"})
	r.gone(t, map[string]any{"name": "Save As", "nameMatch": "exact", "role": "file chooser"})
}

var geditTask = agentTask{
	name: "gedit",
	start: func(t testing.TB, r *taskRun) {
		r.app = r.d.Launch(t, append(freshHome(t), "gedit", "--new-window")...)
		r.path = filepath.Join(r.dir, "gedit.txt")
	},
	today: func(t testing.TB, r *taskRun) {
		s := r.s
		r.sess = s.connect(t, map[string]any{"pid": r.app.Pid})
		outline := r.look(t)
		doc := r.focusedText(t, outline)
		s.ok(t, "type_text", map[string]any{"session": r.sess, "element": doc, "text": geditLines})
		expect(t, r.textOf(t, doc) == geditLines, "the document holds the lines", nil)
		s.ok(t, "press_key", map[string]any{"session": r.sess, "keys": "Ctrl+S"})
		r.chooserSaveAs(t)
		s.ok(t, "type_text", map[string]any{"session": r.sess, "element": doc, "text": geditMore})
		expect(t, r.textOf(t, doc) == geditLines+geditMore, "the document holds the third line", nil)
		s.ok(t, "press_key", map[string]any{"session": r.sess, "keys": "Ctrl+W"})
		alert := appears(t, s, r.sess, "the Save changes question", map[string]any{"role": "alert"})
		save := findOne(t, s, r.sess, map[string]any{"within": alert.Ref, "name": "Save", "nameMatch": "exact", "role": "push button"})
		s.ok(t, "click", map[string]any{"session": r.sess, "element": save.Ref})
		r.gone(t, map[string]any{"role": "alert"})
	},
	loop: func(t testing.TB, r *taskRun) {
		s := r.s
		doc := r.focusedOr(t, r.connect(t), "text", map[string]any{"role": "text", "states": []string{"editable", "focused"}})
		out := r.steps(t,
			step("type_text", map[string]any{"element": doc, "text": geditLines}),
			step("press_key", map[string]any{"keys": "Ctrl+S"}))
		out = r.saveAs(t, out,
			step("type_text", map[string]any{"element": doc, "text": geditMore}),
			step("press_key", map[string]any{"keys": "Ctrl+W"}))
		r.opened(t, out, "the Save changes question", map[string]any{"role": "alert"})
		save := r.focused(t, out, "push button", "Save", map[string]any{"role": "alert"}, map[string]any{"name": "Save", "nameMatch": "exact", "role": "push button"})
		out = s.ok(t, "click", map[string]any{"session": r.sess, "element": save})
		r.closed(t, out, map[string]any{"role": "alert"})
	},
	end: func(t testing.TB, r *taskRun) string {
		// gedit ends a file with a newline it does not show.
		return fileState(t, r.path, geditLines+geditMore+"\n")
	},
}

// mousepad: type two lines and save them through its Save As dialog.

const mousepadLines = "first line of the task\nsecond line, the last"

var mousepadTask = agentTask{
	name: "mousepad",
	start: func(t testing.TB, r *taskRun) {
		r.app = r.d.Launch(t, append(freshHome(t), "mousepad")...)
		r.path = filepath.Join(r.dir, "mousepad.txt")
	},
	today: func(t testing.TB, r *taskRun) {
		s := r.s
		r.sess = s.connect(t, map[string]any{"pid": r.app.Pid})
		outline := r.look(t)
		doc := r.focusedText(t, outline)
		s.ok(t, "type_text", map[string]any{"session": r.sess, "element": doc, "text": mousepadLines})
		expect(t, r.textOf(t, doc) == mousepadLines, "the document holds the lines", nil)
		s.ok(t, "press_key", map[string]any{"session": r.sess, "keys": "Ctrl+S"})
		r.chooserSaveAs(t)
	},
	loop: func(t testing.TB, r *taskRun) {
		doc := r.focusedOr(t, r.connect(t), "text", map[string]any{"role": "text", "states": []string{"editable", "focused"}})
		out := r.steps(t,
			step("type_text", map[string]any{"element": doc, "text": mousepadLines}),
			step("press_key", map[string]any{"keys": "Ctrl+S"}))
		r.saveAs(t, out)
	},
	end: func(t testing.TB, r *taskRun) string {
		return fileState(t, r.path, mousepadLines)
	},
}

// SpeedCrunch: evaluate an expression and read the result.

var speedcrunchTask = agentTask{
	name: "speedcrunch",
	start: func(t testing.TB, r *taskRun) {
		r.app = r.d.Launch(t, append(freshHome(t), "speedcrunch")...)
	},
	today: func(t testing.TB, r *taskRun) {
		s := r.s
		r.sess = s.connect(t, map[string]any{"pid": r.app.Pid})
		outline := r.look(t)
		field := r.ref(t, outline, "text", "", map[string]any{"role": "text", "states": []string{"editable"}}, "editable")
		history := findOne(t, s, r.sess, map[string]any{"role": "text", "states": []string{"!editable"}}).Ref
		s.ok(t, "type_text", map[string]any{"session": r.sess, "element": field, "text": "12*7\n"})
		got := r.textOf(t, history)
		expect(t, strings.Contains(got, "84"), "the history shows the result", map[string]any{"history": got})
	},
	loop: func(t testing.TB, r *taskRun) {
		// connect says the expression field has the focus.
		field := r.focusedOr(t, r.connect(t), "text", map[string]any{"role": "text", "states": []string{"editable"}})
		out := r.steps(t,
			step("type_text", map[string]any{"element": field, "text": "12*7\n"}),
			step("find_elements", map[string]any{"text": "84"}))
		found := stepFound(t, out, 1)
		expect(t, len(found) > 0, "a search for the result finds it", map[string]any{"found": found})
	},
	end: func(t testing.TB, r *taskRun) string {
		history := ""
		until(t, "the history shows 12*7 = 84 once", func(ctx context.Context) (bool, string) {
			root, err := r.d.A11y.AppForPid(ctx, r.app.Pid)
			if err != nil {
				return false, err.Error()
			}
			history = historyText(ctx, r.d, root.Bus)
			return strings.Count(history, "12*7") == 1 && strings.Contains(history, "84"), fmt.Sprintf("%q", history)
		})
		return strings.Join(strings.Fields(history), " ")
	},
}

// A to-do page: three items added through its form, one checked off, and
// its status line read.

const todoPage = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>todo ready</title></head>
<body>
<form id="f"><label for="task">New task</label> <input id="task" type="text"> <button type="submit">Add</button></form>
<ul id="list"></ul>
<p role="status" id="status">nothing to do</p>
<script>
var f = document.getElementById("f"), list = document.getElementById("list");
function show() {
  var all = [], done = [];
  list.querySelectorAll("input").forEach(function (b) { all.push(b.value); if (b.checked) done.push(b.value); });
  document.getElementById("status").textContent = done.length + " of " + all.length + " done";
  document.title = "todo=" + all.join(",") + "|done=" + done.join(",");
}
f.addEventListener("submit", function (e) {
  e.preventDefault();
  var v = f.task.value.trim();
  if (!v) return;
  var li = document.createElement("li"), id = "item" + list.children.length;
  li.innerHTML = '<input type="checkbox" id="' + id + '"> <label for="' + id + '"></label>';
  li.querySelector("label").textContent = v;
  li.querySelector("input").value = v;
  li.querySelector("input").addEventListener("change", show);
  list.appendChild(li);
  f.task.value = "";
  show();
});
</script>
</body>
</html>
`

var todoItems = []string{"milk", "eggs", "bread"}

var todoTask = agentTask{
	name: "firefox-todo",
	start: func(t testing.TB, r *taskRun) {
		r.app = openPage(t, r.d, browsers[0], "todo ready", todoPage)
	},
	today: func(t testing.TB, r *taskRun) {
		s := r.s
		r.sess = s.connect(t, map[string]any{"pid": r.app.Pid})
		outline := r.look(t)
		entry := r.ref(t, outline, "entry", "New task", map[string]any{"name": "New task", "nameMatch": "exact", "role": "entry"})
		add := r.ref(t, outline, "push button", "Add", map[string]any{"name": "Add", "nameMatch": "exact", "role": "push button"})
		boxes := map[string]string{}
		for _, item := range todoItems {
			s.ok(t, "set_value", map[string]any{"session": r.sess, "element": entry, "value": item})
			s.ok(t, "click", map[string]any{"session": r.sess, "element": add})
			boxes[item] = findOne(t, s, r.sess, map[string]any{"name": item, "nameMatch": "exact", "role": "check box"}).Ref
		}
		s.ok(t, "toggle", map[string]any{"session": r.sess, "element": boxes["eggs"]})
		s.ok(t, "wait_for", map[string]any{"session": r.sess, "name": "1 of 3 done", "nameMatch": "exact", "until": "appears", "timeoutMs": 20000})
	},
	loop: func(t testing.TB, r *taskRun) {
		s := r.s
		r.sess = s.connect(t, map[string]any{"pid": r.app.Pid})
		// The visible view holds Firefox's window and its toolbars: a
		// search for the field costs less. Enter in it submits the form.
		entry := findOne(t, s, r.sess, map[string]any{"name": "New task", "nameMatch": "exact", "role": "entry"}).Ref
		var adds []map[string]any
		for _, item := range todoItems {
			adds = append(adds, step("set_value", map[string]any{"element": entry, "value": item}), step("press_key", map[string]any{"element": entry, "keys": "Enter"}))
		}
		adds = append(adds, step("find_elements", map[string]any{"name": "eggs", "nameMatch": "exact", "role": "check box"}))
		out := r.steps(t, adds...)
		eggs := stepFound(t, out, len(adds)-1)
		expect(t, len(eggs) == 1, "the run finds the new item's check box", out)
		out = r.steps(t,
			step("toggle", map[string]any{"element": eggs[0].Ref}),
			step("find_elements", map[string]any{"text": "1 of 3 done"}))
		expect(t, len(stepFound(t, out, 1)) == 1, "the status line says one of three is done", out)
	},
	end: func(t testing.TB, r *taskRun) string {
		const want = "todo=milk,eggs,bread|done=eggs"
		until(t, "the page's title "+want, func(ctx context.Context) (bool, string) {
			titles := pidTitles(t, ctx, r.d, r.app.Pid)
			for _, got := range titles {
				if strings.HasPrefix(got, want+" ") {
					return true, ""
				}
			}
			return false, fmt.Sprintf("%q", titles)
		})
		return want
	},
}

// historyText is what SpeedCrunch's history (its text that is not
// editable) holds, read over AT-SPI from the test process.
func historyText(ctx context.Context, d *testdesk.Desk, bus string) string {
	root, _, err := d.A11y.Tree(ctx, bus, atspi.TreeOptions{})
	if err != nil {
		return "<" + err.Error() + ">"
	}
	var history *platform.Node
	var walk func(n *platform.Node)
	walk = func(n *platform.Node) {
		if history == nil && n.Role.String() == "text" && !n.States.Has(platform.StateEditable) {
			history = n
		}
		for _, k := range n.Children {
			walk(k)
		}
	}
	walk(root)
	if history == nil {
		return "<no history>"
	}
	return liveText(ctx, d, history.Key)
}

// KWrite: a new document, two lines typed, saved through File ▸ Save As…,
// whose Qt dialog runs in a nested loop (docs/api.md: the click is
// answered by its effect, the dialog that opened).

const kwriteLines = "kwrite's first line\nits second line"

var kwriteTask = agentTask{
	name: "kwrite",
	start: func(t testing.TB, r *taskRun) {
		r.app = r.d.Launch(t, append(freshHome(t), "kwrite")...)
		r.path = filepath.Join(r.dir, "kwrite.txt")
	},
	today: func(t testing.TB, r *taskRun) {
		s := r.s
		r.sess = s.connect(t, map[string]any{"pid": r.app.Pid})
		outline := r.look(t)
		s.ok(t, "press_key", map[string]any{"session": r.sess, "keys": "Ctrl+N"})
		doc := appears(t, s, r.sess, "the new document", map[string]any{"role": "text", "states": []string{"editable", "focused"}}).Ref
		s.ok(t, "type_text", map[string]any{"session": r.sess, "element": doc, "text": kwriteLines})
		expect(t, r.textOf(t, doc) == kwriteLines, "the document holds the lines", nil)
		// Qt's menu bar holds menu items, not menus.
		file := r.ref(t, outline, "menu item", "File", map[string]any{"name": "File", "nameMatch": "exact", "role": "menu item"})
		s.ok(t, "click", map[string]any{"session": r.sess, "element": file})
		item := findOne(t, s, r.sess, map[string]any{"name": "Save As...", "nameMatch": "exact", "role": "menu item"}).Ref
		s.ok(t, "click", map[string]any{"session": r.sess, "element": item})
		dialog := appears(t, s, r.sess, "the Save File dialog", map[string]any{"name": "Save File", "nameMatch": "exact", "role": "dialog"})
		name := findOne(t, s, r.sess, map[string]any{"within": dialog.Ref, "role": "text", "states": []string{"editable", "focused"}}).Ref
		s.ok(t, "set_value", map[string]any{"session": r.sess, "element": name, "value": r.path})
		s.ok(t, "press_key", map[string]any{"session": r.sess, "element": name, "keys": "Enter"})
		r.gone(t, map[string]any{"name": "Save File", "nameMatch": "exact", "role": "dialog"})
	},
	loop: func(t testing.TB, r *taskRun) {
		r.connect(t)
		file := r.ref(t, r.glance(t), "menu item", "File", map[string]any{"name": "File", "nameMatch": "exact", "role": "menu item"})
		// The new document takes the focus: the answer's effects name it.
		out := r.steps(t, step("press_key", map[string]any{"keys": "Ctrl+N"}))
		doc := r.focusedOr(t, out, "text", map[string]any{"role": "text", "states": []string{"editable", "focused"}})
		out = r.steps(t,
			step("type_text", map[string]any{"element": doc, "text": kwriteLines}),
			step("click", map[string]any{"element": file}),
			step("find_elements", map[string]any{"name": "Save As...", "nameMatch": "exact", "role": "menu item"}))
		item := stepFound(t, out, 2)
		expect(t, len(item) > 0, "the run finds File ▸ Save As…", out)
		dialog := map[string]any{"name": "Save File", "nameMatch": "exact", "role": "dialog"}
		out = r.steps(t, step("click", map[string]any{"element": item[0].Ref}))
		r.opened(t, out, "the Save File dialog", dialog)
		name := r.focusedOr(t, out, "text", map[string]any{"role": "text", "states": []string{"editable", "focused"}})
		out = r.steps(t,
			step("set_value", map[string]any{"element": name, "value": r.path}),
			step("press_key", map[string]any{"element": name, "keys": "Enter"}))
		r.closed(t, out, dialog)
	},
	end: func(t testing.TB, r *taskRun) string {
		return fileState(t, r.path, kwriteLines+"\n")
	},
}

// LibreOffice Writer: two paragraphs typed into the document and saved
// through Writer's Save As dialog (the GTK file chooser, titled "Save").

const writerFirst, writerSecond = "The first paragraph, typed by the task.", "And the second one."

var writerTask = agentTask{
	name: "writer",
	start: func(t testing.TB, r *taskRun) {
		r.app = launchWriter(t, r.d, []string{""})
		r.path = filepath.Join(r.dir, "typed.odt")
	},
	today: func(t testing.TB, r *taskRun) {
		s := r.s
		r.sess = s.connect(t, map[string]any{"pid": r.app.Pid})
		outline := r.look(t)
		doc := r.ref(t, outline, "document text", "", map[string]any{"role": "document text"})
		typed := s.ok(t, "type_text", map[string]any{"session": r.sess, "element": doc, "text": writerFirst + "\n" + writerSecond})
		// The keys went to the paragraph with the caret: read it back.
		para, _ := typed["element"].(string)
		expect(t, r.textOf(t, para) == writerFirst, "the paragraph holds the first line", typed)
		s.ok(t, "press_key", map[string]any{"session": r.sess, "keys": "Ctrl+Shift+S"})
		chooser := appears(t, s, r.sess, "the Save dialog", map[string]any{"name": "Save", "nameMatch": "exact", "role": "file chooser"})
		name := findOne(t, s, r.sess, map[string]any{"within": chooser.Ref, "role": "text", "states": []string{"editable", "focused"}}).Ref
		s.ok(t, "set_value", map[string]any{"session": r.sess, "element": name, "value": r.path})
		s.ok(t, "press_key", map[string]any{"session": r.sess, "element": name, "keys": "Enter"})
		r.gone(t, map[string]any{"name": "Save", "nameMatch": "exact", "role": "file chooser"})
	},
	loop: func(t testing.TB, r *taskRun) {
		r.sess = r.s.connect(t, map[string]any{"pid": r.app.Pid})
		doc := r.ref(t, r.glance(t), "document text", "", map[string]any{"role": "document text"})
		out := r.steps(t,
			step("type_text", map[string]any{"element": doc, "text": writerFirst + "\n" + writerSecond}),
			step("press_key", map[string]any{"keys": "Ctrl+Shift+S"}))
		r.saveIn(t, out, "Save")
	},
	end: func(t testing.TB, r *taskRun) string {
		var paras []string
		until(t, "the document saved with its paragraphs", func(_ context.Context) (bool, string) {
			var err error
			paras, err = odtParagraphs(r.path)
			if err != nil {
				return false, err.Error()
			}
			return strings.Join(paras, "\n") == writerFirst+"\n"+writerSecond, fmt.Sprintf("%q", paras)
		})
		return strings.Join(paras, "\n")
	},
}

// Evince: the text of a PDF's page, read.

var evinceLines = []string{"Quarterly report page", "Revenue grew by nine percent"}

var evinceTask = agentTask{
	name: "evince",
	start: func(t testing.TB, r *taskRun) {
		r.path = filepath.Join(r.dir, "report.pdf")
		if err := os.WriteFile(r.path, minimalPDF(evinceLines), 0o600); err != nil {
			t.Fatal(err)
		}
		r.app = r.d.Launch(t, append(freshHome(t), "evince", r.path)...)
	},
	today: func(t testing.TB, r *taskRun) {
		s := r.s
		r.sess = s.connect(t, map[string]any{"pid": r.app.Pid})
		r.look(t)
		page := findOne(t, s, r.sess, map[string]any{"name": "Revenue grew"})
		r.read = r.textOf(t, page.Ref)
	},
	loop: func(t testing.TB, r *taskRun) {
		r.sess = r.s.connect(t, map[string]any{"pid": r.app.Pid})
		page := findOne(t, r.s, r.sess, map[string]any{"text": "Revenue grew"})
		expect(t, page.Value != nil, "the search answers the page's text", map[string]any{"page": page})
		r.read = *page.Value
	},
	end: func(t testing.TB, r *taskRun) string {
		// Evince joins the lines as it lays them out: with a line break
		// or a space between them.
		got := strings.Join(strings.Fields(r.read), " ")
		if want := strings.Join(evinceLines, " "); got != want {
			t.Fatalf("the agent read %q, the PDF holds %q", r.read, want)
		}
		return got
	},
}

// LibreOffice Calc: a cell of a sheet edited (B3, item 2's quantity, to
// 42), read back, and the sheet saved.

var calcTask = agentTask{
	name: "calc",
	start: func(t testing.TB, r *taskRun) {
		r.app, r.path = openCalc(t, r.d, sheetData(10))
	},
	today: func(t testing.TB, r *taskRun) {
		s := r.s
		r.sess = s.connect(t, map[string]any{"pid": r.app.Pid})
		outline := r.look(t)
		cell := r.ref(t, outline, "table cell", "B3", map[string]any{"name": "B3", "nameMatch": "exact", "role": "table cell"})
		s.ok(t, "set_value", map[string]any{"session": r.sess, "element": cell, "value": "42"})
		got := r.textOf(t, cell)
		expect(t, got == "42", "B3 holds 42", map[string]any{"text": got})
		s.ok(t, "press_key", map[string]any{"session": r.sess, "keys": "Ctrl+S"})
	},
	loop: func(t testing.TB, r *taskRun) {
		r.sess = r.s.connect(t, map[string]any{"pid": r.app.Pid})
		// The visible view of a sheet holds every cell on screen (25 KB):
		// a search for the cell the task names costs less.
		cell := findOne(t, r.s, r.sess, map[string]any{"name": "B3", "nameMatch": "exact", "role": "table cell"}).Ref
		out := r.steps(t,
			step("set_value", map[string]any{"element": cell, "value": "42"}),
			step("press_key", map[string]any{"keys": "Ctrl+S"}))
		expect(t, out["completed"] == float64(2), "the run completes", out)
	},
	end: func(t testing.TB, r *taskRun) string {
		want := sheetData(10)
		want[2][1] = "42"
		var rows [][]string
		until(t, "the sheet saved with B3 = 42", func(_ context.Context) (bool, string) {
			var err error
			rows, err = odsRows(r.path)
			if err != nil {
				return false, err.Error()
			}
			return len(rows) > 2 && len(rows[2]) > 1 && rows[2][1] == "42", fmt.Sprintf("%q", rows)
		})
		return fmt.Sprint(rows)
	},
}

// odsRows reads the first sheet's rows of an .ods as the cells' text, or
// an error while the file is not complete yet.
func odsRows(path string) ([][]string, error) {
	b, err := zipEntry(path, "content.xml")
	if err != nil {
		return nil, err
	}
	var rows [][]string
	for _, row := range regexp.MustCompile(`(?s)<table:table-row\b[^>]*>(.*?)</table:table-row>`).FindAllStringSubmatch(string(b), -1) {
		var cells []string
		for _, c := range regexp.MustCompile(`(?s)<table:table-cell\b[^>]*?(?:/>|>(.*?)</table:table-cell>)`).FindAllStringSubmatch(row[1], -1) {
			cells = append(cells, regexp.MustCompile(`<[^>]*>`).ReplaceAllString(c[1], ""))
		}
		rows = append(rows, cells)
	}
	return rows, nil
}

// GNOME Text Editor (GTK 4.8): two lines typed and saved through its Save
// As dialog, a window with its own origin, whose button is "_Save Save".

const gteLines = "text editor's first line\nits second line"

var gteTask = agentTask{
	name: "gnome-text-editor",
	start: func(t testing.TB, r *taskRun) {
		r.app = r.d.Launch(t, append(freshHome(t), "gnome-text-editor", "--standalone")...)
		r.path = filepath.Join(r.dir, "gte.txt")
	},
	today: func(t testing.TB, r *taskRun) {
		s := r.s
		r.sess = s.connect(t, map[string]any{"pid": r.app.Pid})
		outline := r.look(t)
		doc := r.ref(t, outline, "text", "", map[string]any{"role": "text", "states": []string{"editable"}}, "editable")
		s.ok(t, "type_text", map[string]any{"session": r.sess, "element": doc, "text": gteLines})
		expect(t, r.textOf(t, doc) == gteLines, "the document holds the lines", nil)
		s.ok(t, "press_key", map[string]any{"session": r.sess, "keys": "Ctrl+Shift+S"})
		dialog := appears(t, s, r.sess, "the Save As dialog", map[string]any{"name": "Save As", "nameMatch": "exact"})
		// The focused one: the dialog also holds Other Locations' server
		// address, first in its tree on Wayland (saveIn).
		name := findOne(t, s, r.sess, map[string]any{"within": dialog.Ref, "role": "text", "states": []string{"editable", "focused"}}).Ref
		s.ok(t, "set_value", map[string]any{"session": r.sess, "element": name, "value": r.path})
		save := findOne(t, s, r.sess, map[string]any{"within": dialog.Ref, "name": "Save", "nameMatch": "exact", "role": "push button"}).Ref
		s.ok(t, "click", map[string]any{"session": r.sess, "element": save})
		r.gone(t, map[string]any{"name": "Save As", "nameMatch": "exact"})
	},
	loop: func(t testing.TB, r *taskRun) {
		// connect says the document has the focus; the Save As dialog's
		// answer says its name field has it, and Enter there saves.
		doc := r.focusedOr(t, r.connect(t), "text", map[string]any{"role": "text", "states": []string{"editable"}})
		dialog := map[string]any{"name": "Save As", "nameMatch": "exact"}
		out := r.steps(t,
			step("type_text", map[string]any{"element": doc, "text": gteLines}),
			step("press_key", map[string]any{"keys": "Ctrl+Shift+S"}))
		r.opened(t, out, "the Save As dialog", dialog)
		name := r.focusedOr(t, out, "text", map[string]any{"role": "text", "states": []string{"editable", "focused"}})
		out = r.steps(t,
			step("set_value", map[string]any{"element": name, "value": r.path}),
			step("press_key", map[string]any{"element": name, "keys": "Enter"}))
		r.closed(t, out, dialog)
	},
	end: func(t testing.TB, r *taskRun) string {
		return fileState(t, r.path, gteLines+"\n")
	},
}
