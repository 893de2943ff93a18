package fake

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/uiscope/uiscope/internal/platform"
)

// Apps lists the applications with their windows, in the order added.
func (d *Desktop) Apps(ctx context.Context) ([]platform.App, error) {
	if err := d.enter(ctx, "Apps", 0, false); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]platform.App, 0, len(d.order))
	for _, pid := range d.order {
		st := d.apps[pid]
		a := platform.App{Pid: pid, Name: st.Name, Executable: st.Executable, Toolkit: st.Toolkit,
			ToolkitVersion: st.ToolkitVersion, Accessible: st.Tree != nil, Windows: []platform.Window{}}
		if a.Accessible {
			a.BusName = fmt.Sprintf(":fake.%d", pid)
		}
		for _, w := range d.wins {
			if w.Pid == pid {
				a.Windows = append(a.Windows, w.Window)
			}
		}
		out = append(out, a)
	}
	return out, nil
}

// Tree returns a copy of the application's tree.
func (d *Desktop) Tree(ctx context.Context, a platform.App, opts platform.TreeOptions) (*platform.Node, platform.TreeStats, error) {
	if err := d.enter(ctx, "Tree", a.Pid, true); err != nil {
		return nil, platform.TreeStats{}, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	st, err := d.appLocked(a)
	if err != nil {
		return nil, platform.TreeStats{}, err
	}
	root := copyTree(st.Tree)
	n := 0
	walk(root, func(*platform.Node, *platform.Node, int) bool { n++; return true })
	return root, platform.TreeStats{Strategy: "fake", Nodes: n}, nil
}

// Element reads one element live, with its text and value.
func (d *Desktop) Element(ctx context.Context, a platform.App, key string) (*platform.Details, error) {
	if err := d.enter(ctx, "Element", a.Pid, true); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	st, n, parent, i, err := d.element(a, key)
	if err != nil {
		return nil, err
	}
	c := copyTree(n)
	c.Children = nil
	det := &platform.Details{Node: *c, IndexInParent: i}
	if parent != nil {
		det.ParentKey = parent.Key
	}
	if t, ok := st.text[key]; ok && !n.IsPassword() && !n.Redacted {
		det.Text = &platform.TextContent{Text: t, Length: len([]rune(t)), Caret: len([]rune(t))}
	}
	if v := st.value[key]; v != nil {
		vc := *v
		det.Value = &vc
	}
	return det, nil
}

// Texts reads the text of many elements at once: what Element's Text
// would hold, cut to maxRunes; never a password's or a redacted one's.
func (d *Desktop) Texts(ctx context.Context, a platform.App, nodes []*platform.Node, maxRunes int) ([]*string, error) {
	out := make([]*string, len(nodes))
	if err := d.enter(ctx, "Texts", a.Pid, true); err != nil {
		return out, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, q := range nodes {
		st, n, _, _, err := d.element(a, q.Key)
		if err != nil || n.IsPassword() || n.Redacted || q.IsPassword() || q.Redacted {
			continue
		}
		if t, ok := st.text[q.Key]; ok {
			if r := []rune(t); len(r) > maxRunes {
				t = string(r[:maxRunes])
			}
			out[i] = &t
		}
	}
	return out, nil
}

// Owner: every application owns its own accessibility connection.
func (d *Desktop) Owner(ctx context.Context, a platform.App) (int, error) {
	if err := d.enter(ctx, "Owner", a.Pid, false); err != nil {
		return 0, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if st := d.apps[a.Pid]; st == nil || st.Tree == nil {
		return 0, fmt.Errorf("%w: no connection for pid %d", platform.ErrElementGone, a.Pid)
	}
	return a.Pid, nil
}

// Process returns a running application's identity.
func (d *Desktop) Process(ctx context.Context, pid int) (platform.Process, error) {
	if err := d.enter(ctx, "Process", pid, false); err != nil {
		return platform.Process{}, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	st := d.apps[pid]
	if st == nil {
		return platform.Process{}, fmt.Errorf("%w: pid %d", platform.ErrProcessGone, pid)
	}
	return platform.Process{Pid: pid, StartTime: st.StartTime, Executable: st.Executable}, nil
}

// Frameworks reports the application's toolkit.
func (d *Desktop) Frameworks(ctx context.Context, pid int) ([]platform.Framework, error) {
	if err := d.enter(ctx, "Frameworks", pid, false); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	st := d.apps[pid]
	if st == nil {
		return nil, fmt.Errorf("%w: pid %d", platform.ErrProcessGone, pid)
	}
	out := []platform.Framework{}
	if st.Toolkit != "" {
		out = append(out, platform.Framework{Name: st.Toolkit, Version: st.ToolkitVersion, Evidence: "fake"})
	}
	return out, nil
}

// Window is the application's window whose bounds hold the element's
// centre, else its first window.
func (d *Desktop) Window(ctx context.Context, a platform.App, key string) (platform.Window, error) {
	if err := d.enter(ctx, "Window", a.Pid, true); err != nil {
		return platform.Window{}, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	_, n, _, _, err := d.element(a, key)
	if err != nil {
		return platform.Window{}, err
	}
	var first *window
	for _, w := range d.wins {
		if w.Pid != a.Pid {
			continue
		}
		if first == nil {
			first = w
		}
		if b := n.Bounds; b != nil && w.Bounds.Contains(b.X+b.Width/2, b.Y+b.Height/2) {
			return w.Window, nil
		}
	}
	if first == nil {
		return platform.Window{}, fmt.Errorf("%w: pid %d has no window", platform.ErrNotActivated, a.Pid)
	}
	return first.Window, nil
}

// Activate raises a window and gives it the focus.
func (d *Desktop) Activate(ctx context.Context, win platform.Window) error {
	if err := d.enter(ctx, "Activate", win.Pid, false); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.raise(win.ID) {
		return fmt.Errorf("%w: no window %s", platform.ErrNotActivated, win.ID)
	}
	return nil
}

// ActiveWindow is the window that has the focus.
func (d *Desktop) ActiveWindow(ctx context.Context) (platform.WindowID, error) {
	if err := d.enter(ctx, "ActiveWindow", 0, false); err != nil {
		return 0, err
	}
	return d.Active(), nil
}

// TopmostAt is the mapped window on top at a point (0 for none).
func (d *Desktop) TopmostAt(ctx context.Context, x, y int) (platform.WindowID, error) {
	if err := d.enter(ctx, "TopmostAt", 0, false); err != nil {
		return 0, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.topmost(x, y), nil
}

// WindowPid is the process behind a window.
func (d *Desktop) WindowPid(ctx context.Context, id platform.WindowID) (int, error) {
	if err := d.enter(ctx, "WindowPid", 0, false); err != nil {
		return 0, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if w := d.window(id); w != nil {
		return w.Pid, nil
	}
	return 0, nil
}

// WindowAction minimizes (unmaps), maximizes (to the screen), restores or
// closes (removes) a window.
func (d *Desktop) WindowAction(ctx context.Context, win platform.Window, action string) error {
	if err := d.enter(ctx, "WindowAction", win.Pid, false); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	w := d.window(win.ID)
	if w == nil {
		return fmt.Errorf("%w: no window %s", platform.ErrElementGone, win.ID)
	}
	switch action {
	case "minimize":
		w.Mapped = false
		if d.active == w.ID {
			d.active = 0
		}
	case "maximize":
		w.Bounds = d.screen
	case "restore":
		w.Mapped = true
	case "close":
		d.wins = slices.DeleteFunc(d.wins, func(o *window) bool { return o == w })
		if d.active == w.ID {
			d.active = 0
		}
	default:
		return fmt.Errorf("%w: window action %q", platform.ErrNotSupported, action)
	}
	return nil
}

// Screen is the screen's rectangle.
func (d *Desktop) Screen(ctx context.Context) (platform.Rect, error) {
	if err := d.enter(ctx, "Screen", 0, false); err != nil {
		return platform.Rect{}, err
	}
	return d.screen, nil
}

// Click records a click on the window on top at the point and, as a
// click-to-focus window manager does, activates that window.
func (d *Desktop) Click(ctx context.Context, x, y, button, count int) error {
	if err := d.enter(ctx, "Click", 0, false); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.screen.Contains(x, y) {
		return fmt.Errorf("%w: %d,%d", platform.ErrOffscreen, x, y)
	}
	top := d.topmost(x, y)
	d.clicks = append(d.clicks, Click{X: x, Y: y, Button: button, Count: count, Window: top})
	if top != 0 {
		d.raise(top)
	}
	return nil
}

// Wheel turns the wheel: recorded as a click with button 4-7.
func (d *Desktop) Wheel(ctx context.Context, x, y, dx, dy int) error {
	if err := d.enter(ctx, "Wheel", 0, false); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.screen.Contains(x, y) {
		return fmt.Errorf("%w: %d,%d", platform.ErrOffscreen, x, y)
	}
	button, count := 5, dy
	switch {
	case dy < 0:
		button, count = 4, -dy
	case dx < 0:
		button, count = 6, -dx
	case dx > 0:
		button, count = 7, dx
	}
	d.clicks = append(d.clicks, Click{X: x, Y: y, Button: button, Count: count, Window: d.topmost(x, y)})
	return nil
}

// ValidateChord accepts what the real backend does (platform.ParseChord).
func (d *Desktop) ValidateChord(chord string) error {
	if _, err := platform.ParseChord(chord); err != nil {
		return fmt.Errorf("%w: %v", platform.ErrInvalidKeys, err)
	}
	return nil
}

// KeyChord records a chord sent to the active window.
func (d *Desktop) KeyChord(ctx context.Context, chord string) error {
	if err := d.ValidateChord(chord); err != nil {
		return err
	}
	if err := d.enter(ctx, "KeyChord", 0, false); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.keys[d.active] = append(d.keys[d.active], chord)
	if w := d.window(d.active); w != nil {
		if st := d.apps[w.Pid]; st != nil {
			d.editKey(st, chord)
		}
	}
	return nil
}

// editKey applies the chords a text field acts on to the application's
// focused text element: Ctrl+A selects all of it, BackSpace then clears it.
func (d *Desktop) editKey(st *app, chord string) {
	n := focusedText(st)
	switch {
	case n == nil:
	case strings.EqualFold(chord, "Ctrl+a"):
		st.all = n.Key
	case chord == "BackSpace" && st.all == n.Key:
		st.text[n.Key], st.all = "", ""
		d.changed(st)
	}
}

// focusedText is the application's focused element that takes typing: one
// with editable text, or an editable one with a Text interface only (as
// Chromium's inputs).
func focusedText(st *app) *platform.Node {
	var found *platform.Node
	walk(st.Tree, func(n, _ *platform.Node, _ int) bool {
		if n.States.Has(platform.StateFocused) && (has(n, "editabletext") || has(n, "text") && n.States.Has(platform.StateEditable)) {
			found = n
			return false
		}
		return true
	})
	return found
}

// TypeText types into the active window, one character at a time: into
// the focused text element of its application when there is one.
func (d *Desktop) TypeText(ctx context.Context, text string) (int, error) {
	if err := d.enter(ctx, "TypeText", 0, false); err != nil {
		return 0, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, r := range text {
		if d.stealAfter == 0 {
			d.raise(d.stealTo)
			d.stealAfter = -1
		}
		b := d.typed[d.active]
		if b == nil {
			b = &strings.Builder{}
			d.typed[d.active] = b
		}
		b.WriteRune(r)
		if w := d.window(d.active); w != nil {
			if st := d.apps[w.Pid]; st != nil {
				d.typeInto(st, r)
			}
		}
		if d.stealAfter > 0 {
			d.stealAfter--
		}
		n++
	}
	return n, nil
}

// typeInto appends a character to the application's focused text element,
// or replaces its text when Ctrl+A selected it all.
func (d *Desktop) typeInto(st *app, r rune) {
	n := focusedText(st)
	if n == nil {
		return
	}
	if st.all == n.Key {
		st.text[n.Key], st.all = "", ""
	}
	st.text[n.Key] += string(r)
	d.changed(st)
}

// DoAction runs the element's first action named in names: "toggle" and
// "click" flip a checkable element's checked state, "expand or contract"
// its expanded state; other actions only report that they ran.
func (d *Desktop) DoAction(ctx context.Context, a platform.App, key string, names ...string) (string, error) {
	if err := d.enter(ctx, "DoAction", a.Pid, true); err != nil {
		return "", err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	st, n, _, _, err := d.element(a, key)
	if err != nil {
		return "", err
	}
	for _, name := range names {
		if !slices.Contains(n.Actions, name) {
			continue
		}
		switch {
		case (name == "toggle" || name == "click") && n.States.Has(platform.StateCheckable):
			n.States ^= 1 << platform.StateChecked
		case name == "expand or contract" && n.States.Has(platform.StateExpandable):
			n.States ^= 1 << platform.StateExpanded
		}
		d.changed(st)
		return name, nil
	}
	return "", fmt.Errorf("%w: %s has none of the actions %q", platform.ErrNotSupported, key, names)
}

// SetText replaces an editable element's text.
func (d *Desktop) SetText(ctx context.Context, a platform.App, key, text string) (string, string, error) {
	if err := d.enter(ctx, "SetText", a.Pid, true); err != nil {
		return "", "", err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	st, n, _, _, err := d.element(a, key)
	if err != nil {
		return "", "", err
	}
	if !has(n, "editabletext") {
		return "", "", fmt.Errorf("%w: %s has no editable text", platform.ErrNotSupported, key)
	}
	st.text[key] = text
	d.changed(st)
	if n.IsPassword() || n.Redacted {
		return "", "EditableText.SetTextContents", nil
	}
	return text, "EditableText.SetTextContents", nil
}

// SetValue sets a Value element; a value outside its range is refused.
func (d *Desktop) SetValue(ctx context.Context, a platform.App, key string, v float64) (float64, error) {
	if err := d.enter(ctx, "SetValue", a.Pid, true); err != nil {
		return 0, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	st, _, _, _, err := d.element(a, key)
	if err != nil {
		return 0, err
	}
	val := st.value[key]
	if val == nil {
		return 0, fmt.Errorf("%w: %s has no value", platform.ErrNotSupported, key)
	}
	if math.IsNaN(v) || v < val.Minimum || v > val.Maximum {
		return val.Current, fmt.Errorf("%w: %v is outside %v..%v", platform.ErrOutOfRange, v, val.Minimum, val.Maximum)
	}
	val.Current = v
	d.changed(st)
	return val.Current, nil
}

// GrabFocus moves the application's focus to a focusable element.
func (d *Desktop) GrabFocus(ctx context.Context, a platform.App, key string) error {
	if err := d.enter(ctx, "GrabFocus", a.Pid, true); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	st, n, _, _, err := d.element(a, key)
	if err != nil {
		return err
	}
	if !n.States.Has(platform.StateFocusable) {
		return fmt.Errorf("%w: %s is not focusable", platform.ErrNotSupported, key)
	}
	walk(st.Tree, func(o, _ *platform.Node, _ int) bool {
		o.States &^= 1 << platform.StateFocused
		return true
	})
	n.States |= 1 << platform.StateFocused
	d.changed(st)
	return nil
}

// ScrollTo succeeds for elements with the component interface.
func (d *Desktop) ScrollTo(ctx context.Context, a platform.App, key string) error {
	if err := d.enter(ctx, "ScrollTo", a.Pid, true); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	_, n, _, _, err := d.element(a, key)
	if err != nil {
		return err
	}
	if !has(n, "component") {
		return fmt.Errorf("%w: %s has no component", platform.ErrNotSupported, key)
	}
	return nil
}

// Select changes the selected state of a container's child.
func (d *Desktop) Select(ctx context.Context, a platform.App, containerKey string, index int, selected, clear bool) error {
	if err := d.enter(ctx, "Select", a.Pid, true); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	st, c, _, _, err := d.element(a, containerKey)
	if err != nil {
		return err
	}
	if !has(c, "selection") {
		return fmt.Errorf("%w: %s has no selection", platform.ErrNotSupported, containerKey)
	}
	if index < 0 || index >= len(c.Children) {
		return fmt.Errorf("%w: %s has no child %d", platform.ErrOutOfRange, containerKey, index)
	}
	if clear {
		for _, k := range c.Children {
			k.States &^= 1 << platform.StateSelected
		}
	}
	if selected {
		c.Children[index].States |= 1 << platform.StateSelected
	} else {
		c.Children[index].States &^= 1 << platform.StateSelected
	}
	d.changed(st)
	return nil
}

// IsSelected reports a container's child's selected state.
func (d *Desktop) IsSelected(ctx context.Context, a platform.App, containerKey string, index int) (bool, error) {
	if err := d.enter(ctx, "IsSelected", a.Pid, true); err != nil {
		return false, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	_, c, _, _, err := d.element(a, containerKey)
	if err != nil {
		return false, err
	}
	if !has(c, "selection") {
		return false, fmt.Errorf("%w: %s has no selection", platform.ErrNotSupported, containerKey)
	}
	if index < 0 || index >= len(c.Children) {
		return false, fmt.Errorf("%w: %s has no child %d", platform.ErrOutOfRange, containerKey, index)
	}
	return c.Children[index].States.Has(platform.StateSelected), nil
}

// SelectText records a text selection.
func (d *Desktop) SelectText(ctx context.Context, a platform.App, key string, start, end int) error {
	if err := d.enter(ctx, "SelectText", a.Pid, true); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	st, _, _, _, err := d.element(a, key)
	if err != nil {
		return err
	}
	t, ok := st.text[key]
	if !ok {
		return fmt.Errorf("%w: %s has no text", platform.ErrNotSupported, key)
	}
	if start < 0 || end < start || end > len([]rune(t)) {
		return fmt.Errorf("%w: range %d..%d", platform.ErrOutOfRange, start, end)
	}
	st.selected[key] = [2]int{start, end}
	d.changed(st)
	return nil
}

// Watch sends a value whenever the application changes.
func (d *Desktop) Watch(ctx context.Context, a platform.App) (<-chan struct{}, func(), error) {
	if err := d.enter(ctx, "Watch", a.Pid, false); err != nil {
		return nil, func() {}, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	st, err := d.appLocked(a)
	if err != nil {
		return nil, func() {}, err
	}
	ch := make(chan struct{}, 1)
	st.changes = append(st.changes, ch)
	stop := func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		st.changes = slices.DeleteFunc(st.changes, func(c chan struct{}) bool { return c == ch })
	}
	return ch, stop, nil
}
