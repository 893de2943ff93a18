//go:build linux

package atspi

// What an action caused, read cheaply: the application's top-level
// accessibles (a dialog opened, a window closed) and where the keyboard
// focus went, from the focus events the connection already receives; and
// actions started without waiting for their reply, because Qt answers
// DoAction only once the slot it ran has returned, which for a slot that
// runs QDialog::exec() is when the dialog closes.

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/godbus/dbus/v5"

	"github.com/uiscope/uiscope/internal/platform"
)

// TopLevels reads the application's top-level accessibles (the children of
// its root: frames, dialogs, menus' windows) with their role, name and
// states, in one round trip after GetChildren. Children that no longer
// answer are left out.
func (c *Conn) TopLevels(ctx context.Context, bus string) ([]platform.Node, error) {
	var refs []objRef
	if err := c.call(ctx, bus, rootPath, ifaceAccessible+".GetChildren", nil, &refs); err != nil {
		return nil, goneErr(err)
	}
	nodes := make([]platform.Node, 0, len(refs))
	live := make([]bool, 0, len(refs))
	b := c.newBatch(ctx)
	defer b.close()
	for _, r := range refs {
		if r.null() {
			continue
		}
		nodes = append(nodes, platform.Node{Key: r.key()})
		live = append(live, true)
		i := len(nodes) - 1
		n := &nodes[i]
		b.add(r.Bus, r.Path, ifaceAccessible+".GetRole", func(call *dbus.Call) {
			var role uint32
			if call.Err != nil || call.Store(&role) != nil {
				live[i] = false
				return
			}
			n.Role = platform.Role(role)
		})
		b.get(r.Bus, r.Path, ifaceAccessible, "Name", func(v any, err error) {
			n.Name, _ = v.(string)
		})
		b.states(r.Bus, r.Path, func(s platform.StateSet, err error) {
			if err != nil {
				live[i] = false
			}
			n.States = s
		})
		b.extents(r.Bus, r.Path, 0, func(rect *platform.Rect) { n.Bounds = rect })
	}
	b.wait()
	if err := ctx.Err(); err != nil {
		return nil, mapErr(err)
	}
	out := nodes[:0]
	for i, n := range nodes {
		if live[i] && !n.States.Has(platform.StateDefunct) {
			out = append(out, n)
		}
	}
	return out, nil
}

// Attached reports whether the element is still in its application's
// tree: whether the top level that holds it (climbing Parent links) is
// among the children of the application's root. GTK 4 keeps answering for
// the widgets of a window it destroyed while the app holds a reference to
// it (a dialog closed by its own button): their Parent links still climb
// to the root, which no longer lists their window. A top level is matched
// by path, else by name (GTK 4.8 lists a dialog under another path than
// its children's Parent links give); an unnamed one that is not listed
// under its path counts as there: an element is called detached only when
// that is certain.
func (c *Conn) Attached(ctx context.Context, key string) (bool, error) {
	top, err := c.TopLevel(ctx, key, false)
	if errors.Is(err, platform.ErrElementGone) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	bus, _, _ := ParseKey(key)
	tops, err := c.TopLevels(ctx, bus)
	if err != nil {
		return false, err
	}
	for _, n := range tops {
		if n.Key == top.Key || top.Name != "" && n.Name == top.Name {
			return true, nil
		}
	}
	return top.Name == "", nil
}

// Focus is the last element of an application that announced it took the
// keyboard focus since the connection started listening (Watch), and a
// count of such announcements: a count that moved between two looks means
// the focus moved in between, even back to where it was. Key is "" when
// nothing was announced yet.
func (c *Conn) Focus(bus string) (key string, moves uint64) {
	w := &c.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	f := w.focus[bus]
	return f.key, f.moves
}

// focusNote is what the dispatcher keeps of an application's focus events.
type focusNote struct {
	key   string
	moves uint64
}

// noteFocus records a focus event (state-changed:focused set); w.mu is held.
func (w *watchers) noteFocus(sig *dbus.Signal) {
	if len(sig.Body) < 2 {
		return
	}
	detail, _ := sig.Body[0].(string)
	on, _ := sig.Body[1].(int32)
	if detail != "focused" || on != 1 {
		return
	}
	if w.focus == nil {
		w.focus = map[string]focusNote{}
	}
	f := w.focus[sig.Sender]
	w.focus[sig.Sender] = focusNote{key: objRef{sig.Sender, sig.Path}.key(), moves: f.moves + 1}
}

// StartAction runs the element's action named by the first of names it has
// (as DoAction chooses) and returns at once with the action's own name and
// a channel that receives the reply's outcome: nil, ErrNoEffect when the
// element answered false, or the call's error. The call waits for its reply
// until ctx is done (ErrTimeout then), so ctx must carry the deadline the
// caller wants: a late reply is no failure here, the caller decides what it
// means.
func (c *Conn) StartAction(ctx context.Context, key string, names ...string) (string, <-chan error, error) {
	t, idx, name, err := c.chooseAction(ctx, key, names)
	if err != nil {
		return name, nil, err
	}
	if _, ok := ctx.Deadline(); !ok {
		return name, nil, errors.New("StartAction: the context has no deadline")
	}
	reply := make(chan error, 1)
	call := c.bus.Object(t.ref.Bus, t.ref.Path).GoWithContext(ctx, ifaceAction+".DoAction", dbus.FlagNoAutoStart, nil, int32(idx))
	go func() {
		<-call.Done
		var err error
		var ok bool
		switch {
		case call.Err != nil && errors.Is(mapErr(call.Err), platform.ErrTimeout):
			err = mapErr(call.Err)
		case call.Err != nil:
			// The element may be gone, or not implement the call: ask it
			// as op does, under a deadline of its own (ctx may be over).
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), DefaultCallTimeout)
			err = c.opErr(cctx, t, ifaceAction+".DoAction", call.Err)
			cancel()
		case call.Store(&ok) != nil:
			err = fmt.Errorf("DoAction: an answer that is not a boolean: %v", call.Body)
		case !ok:
			err = fmt.Errorf("%w: the %s refused action %q", ErrNoEffect, t.role, name)
		}
		reply <- err
	}()
	return name, reply, nil
}

// maxStillText bounds the characters of one text read for a fingerprint.
const maxStillText = 20000

// Fingerprint sums up what the application shows now, in three round trips
// whatever its size: the elements its cache lists (role, name, states,
// child count), the character count of every text, the text itself of
// multi-line texts that are not editable single-line fields (never a
// password's or a hidden entry's characters: those count by their length
// alone), and every value. Two equal fingerprints a while apart mean the
// application held still in between, as far as an application that
// announces almost nothing (GTK 4.8) lets anyone tell. It is a hash: only
// compared for equality.
func (c *Conn) Fingerprint(ctx context.Context, bus string) (uint64, error) {
	items, err := c.readCache(ctx, bus)
	if err != nil {
		return 0, err
	}
	refs := make([]objRef, 0, len(items))
	for r := range items {
		refs = append(refs, r)
	}
	slices.SortFunc(refs, func(a, b objRef) int { return strings.Compare(a.key(), b.key()) })
	h := fnv.New64a()
	for _, r := range refs {
		n := &items[r].node
		fmt.Fprintf(h, "%s\x00%d\x00%s\x00%d\x00%d\x00", n.Key, n.Role, n.Name, n.States, n.ChildCount)
	}
	counts := make([]int32, len(refs))
	values := make([]float64, len(refs))
	b := c.newBatch(ctx)
	defer b.close()
	for i, r := range refs {
		n := &items[r].node
		if slices.Contains(n.Interfaces, "text") {
			b.get(r.Bus, r.Path, ifaceText, "CharacterCount", func(v any, err error) { counts[i], _ = v.(int32) })
		}
		if slices.Contains(n.Interfaces, "value") {
			b.get(r.Bus, r.Path, ifaceValue, "CurrentValue", func(v any, err error) { values[i], _ = v.(float64) })
		}
	}
	b.wait()
	texts := make([]string, len(refs))
	for i, r := range refs {
		n := &items[r].node
		readable := n.States.Has(stateMultiLine) && !n.Redacted && !n.IsPassword()
		if counts[i] > 0 && readable {
			b.add(r.Bus, r.Path, ifaceText+".GetText", func(call *dbus.Call) {
				if call.Err == nil {
					_ = call.Store(&texts[i])
				}
			}, int32(0), min(counts[i], maxStillText))
		}
	}
	b.wait()
	if err := ctx.Err(); err != nil {
		return 0, mapErr(err)
	}
	for i := range refs {
		fmt.Fprintf(h, "%d\x00%g\x00%s\x00", counts[i], values[i], texts[i])
	}
	return h.Sum64(), nil
}

// FocusedChild is the child of the element that has the keyboard focus,
// "" when none has: GetChildren, then every child's states in one round
// trip. AT-SPI has no call that asks an application where its focus is,
// and a focus event seen before the watch began is not known; LibreOffice's
// document text hands its focus to the paragraph with the caret, and so
// does a container to one of its children. The caller keeps it to elements
// with few children (not one that manages its descendants).
func (c *Conn) FocusedChild(ctx context.Context, key string) (string, error) {
	bus, path, err := ParseKey(key)
	if err != nil {
		return "", err
	}
	var refs []objRef
	if err := c.call(ctx, bus, path, ifaceAccessible+".GetChildren", nil, &refs); err != nil {
		return "", goneErr(err)
	}
	found := make([]bool, len(refs))
	b := c.newBatch(ctx)
	defer b.close()
	for i, r := range refs {
		if r.null() {
			continue
		}
		b.states(r.Bus, r.Path, func(s platform.StateSet, err error) {
			found[i] = err == nil && s.Has(platform.StateFocused) && !s.Has(platform.StateDefunct)
		})
	}
	b.wait()
	if err := ctx.Err(); err != nil {
		return "", mapErr(err)
	}
	for i, f := range found {
		if f {
			return refs[i].key(), nil
		}
	}
	return "", nil
}

// ChildExtents reads the extents of an element's children (window-relative,
// or in screen coordinates), in order, in one round trip after
// GetChildren; children that give none (not on screen, no Component, gone)
// are left out.
func (c *Conn) ChildExtents(ctx context.Context, key string, windowRelative bool) ([]platform.Rect, error) {
	bus, path, err := ParseKey(key)
	if err != nil {
		return nil, err
	}
	var refs []objRef
	if err := c.call(ctx, bus, path, ifaceAccessible+".GetChildren", nil, &refs); err != nil {
		return nil, goneErr(err)
	}
	rects := make([]*platform.Rect, len(refs))
	b := c.newBatch(ctx)
	defer b.close()
	for i, r := range refs {
		if !r.null() {
			b.extents(r.Bus, r.Path, coordType(windowRelative), func(rect *platform.Rect) { rects[i] = rect })
		}
	}
	b.wait()
	if err := ctx.Err(); err != nil {
		return nil, mapErr(err)
	}
	var out []platform.Rect
	for _, r := range rects {
		if r != nil {
			out = append(out, *r)
		}
	}
	return out, nil
}
