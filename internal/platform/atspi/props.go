//go:build linux

package atspi

import (
	"context"
	"math"
	"unicode/utf8"

	"github.com/godbus/dbus/v5"

	"github.com/uiscope/uiscope/internal/platform"
)

// MaxTextChars bounds the text read from one element, so that a document
// or a log view cannot flood an agent's context.
const MaxTextChars = 4000

// ElementOptions shape a single-element read.
type ElementOptions struct {
	// WindowOrigin and PopupOrigin correct window-relative extents, as
	// in TreeOptions.
	WindowOrigin func(ctx context.Context, top *platform.Node) (x, y int, ok bool)
	PopupOrigin  func(ctx context.Context, n *platform.Node) (x, y int, ok bool)
	// ScreenExtents as in TreeOptions.
	ScreenExtents bool
}

func (o ElementOptions) coord() uint32 { return coordType(o.WindowOrigin != nil && !o.ScreenExtents) }

// Element reads one element live: everything a tree read gives plus
// attributes, parent, text (never for password fields, nor for fields that
// hide their text: see hidden.go) and value. All calls are sent at once.
func (c *Conn) Element(ctx context.Context, key string, opts ElementOptions) (*platform.Details, error) {
	bus, path, err := ParseKey(key)
	if err != nil {
		return nil, err
	}
	d := &platform.Details{Node: platform.Node{Key: key}}
	n := &d.Node
	var first error
	fail := func(call *dbus.Call) bool {
		if call.Err != nil && first == nil {
			first = call.Err
		}
		return call.Err != nil
	}
	b := c.newBatch(ctx)
	defer b.close()
	b.get(bus, path, ifaceAccessible, "Name", func(v any, err error) {
		fail(&dbus.Call{Err: err})
		n.Name, _ = v.(string)
	})
	b.get(bus, path, ifaceAccessible, "Description", func(v any, err error) { n.Description, _ = v.(string) })
	b.get(bus, path, ifaceAccessible, "AccessibleId", func(v any, err error) { n.AccessibleID, _ = v.(string) })
	b.get(bus, path, ifaceAccessible, "ChildCount", func(v any, err error) {
		if cc, ok := v.(int32); ok {
			n.ChildCount = int(cc)
		}
	})
	b.get(bus, path, ifaceAccessible, "Parent", func(v any, err error) {
		var parent objRef
		if err == nil && dbus.Store([]any{v}, &parent) == nil && !parent.null() {
			d.ParentKey = parent.key()
		}
	})
	b.add(bus, path, ifaceAccessible+".GetRole", func(call *dbus.Call) {
		var role uint32
		if !fail(call) && call.Store(&role) == nil {
			n.Role = platform.Role(role)
		}
	})
	b.add(bus, path, ifaceAccessible+".GetState", func(call *dbus.Call) {
		var words []uint32
		if !fail(call) && call.Store(&words) == nil {
			n.States = platform.StateSetFromWords(words)
		}
	})
	b.add(bus, path, ifaceAccessible+".GetInterfaces", func(call *dbus.Call) {
		var ifaces []string
		if !fail(call) && call.Store(&ifaces) == nil {
			n.Interfaces = shortInterfaces(ifaces)
		}
	})
	b.add(bus, path, ifaceAccessible+".GetIndexInParent", func(call *dbus.Call) {
		var i int32
		if call.Err == nil && call.Store(&i) == nil {
			d.IndexInParent = int(i)
		}
	})
	b.add(bus, path, ifaceAccessible+".GetAttributes", func(call *dbus.Call) {
		var attrs map[string]string
		if call.Err == nil && call.Store(&attrs) == nil && len(attrs) > 0 {
			d.Attributes = attrs
		}
	})
	b.wait()
	if first != nil {
		// Errors of the Accessible interface itself, which every live
		// element implements: GTK 4 and Qt answer UnknownMethod or
		// UnknownInterface for a widget they removed.
		return nil, goneErr(first)
	}
	redact(n)
	if n.States.Has(platform.StateDefunct) {
		return nil, platform.ErrElementGone
	}

	// Second round: what depends on the interfaces.
	b = c.newBatch(ctx)
	defer b.close()
	if hasInterface(n, "component") {
		b.extents(bus, path, opts.coord(), func(r *platform.Rect) { n.Bounds = r })
	}
	if hasInterface(n, "action") {
		b.add(bus, path, ifaceAction+".GetActions", func(call *dbus.Call) {
			var acts []struct{ Name, Desc, Key string }
			if call.Err == nil && call.Store(&acts) == nil {
				for _, a := range acts {
					n.Actions = append(n.Actions, a.Name)
				}
			}
		})
	}
	// A field that may hide its text is read as it shows (hidden.go).
	var shown *shownText
	if mayHide(n) && c.showsLayout(ctx, bus) {
		shown = &shownText{}
		shown.read(b, bus, path)
		b.get(bus, path, ifaceText, "CaretOffset", func(v any, err error) {
			if c, ok := v.(int32); ok {
				d.Text = &platform.TextContent{Caret: int(c)}
			}
		})
	} else if hasInterface(n, "text") && !n.Redacted {
		t := &platform.TextContent{}
		b.get(bus, path, ifaceText, "CharacterCount", func(v any, err error) {
			if c, ok := v.(int32); ok {
				t.Length = int(c)
				d.Text = t
			}
		})
		b.get(bus, path, ifaceText, "CaretOffset", func(v any, err error) {
			if c, ok := v.(int32); ok {
				t.Caret = int(c)
			}
		})
	}
	if hasInterface(n, "value") {
		v := &platform.ValueInfo{}
		num := func(dst *float64) func(any, error) {
			return func(x any, err error) {
				if f, ok := x.(float64); ok {
					*dst = f
					d.Value = v
				}
			}
		}
		b.get(bus, path, ifaceValue, "CurrentValue", num(&v.Current))
		b.get(bus, path, ifaceValue, "MinimumValue", num(&v.Minimum))
		b.get(bus, path, ifaceValue, "MaximumValue", num(&v.Maximum))
		b.get(bus, path, ifaceValue, "MinimumIncrement", num(&v.Increment))
		b.get(bus, path, ifaceValue, "Text", func(x any, err error) { v.Text, _ = x.(string) })
	}
	b.wait()
	if r := n.Bounds; r != nil && n.States.Has(platform.StateShowing) && (r.Width == 0) != (r.Height == 0) && d.ParentKey != "" {
		c.flatBounds(ctx, d.ParentKey, r, opts.coord())
	}
	if shown != nil {
		if shown.hidden() || d.Text == nil {
			hide(n)
			d.Text = nil
		} else {
			d.Text.Text, d.Text.Length = shown.text, shown.count
		}
	} else if t := d.Text; t != nil && t.Length > 0 {
		// The end is the element's own count, never past it: Firefox and
		// Qt answer an end past the count with "" (measured: Qt 5.15,
		// Firefox ESR 153), and GTK 4.8 answers -1 with "".
		if err := c.call(ctx, bus, path, ifaceText+".GetText", []any{int32(0), int32(min(t.Length, MaxTextChars+1))}, &t.Text); err != nil {
			d.Text = nil
		}
	}
	if d.Text != nil && utf8.RuneCountInString(d.Text.Text) > MaxTextChars {
		r := []rune(d.Text.Text)
		d.Text.Text, d.Text.Truncated = string(r[:MaxTextChars]), true
	}
	// The node's value, as a tree read gives it (values.go).
	switch valueKindOf(n) {
	case textValue:
		if d.Text != nil {
			showValue(n, d.Text.Text, d.Text.Length > platform.MaxValueRunes)
		}
	case readValue:
		// Without its children read, only an element that has none
		// (whose text no child holds, and holds no embedded object).
		if d.Text != nil && n.ChildCount == 0 && !onlyObjects(d.Text.Text) {
			showValue(n, d.Text.Text, d.Text.Length > platform.MaxValueRunes)
		}
	case numberValue:
		if d.Value != nil {
			showValue(n, formatNumber(d.Value.Current), false)
		}
	}
	if n.Bounds != nil {
		// Inside a toolkit embedded in another (embed.go): where it is
		// drawn, or, with its ancestors unread, nowhere.
		if dx, dy, err := c.embedShift(ctx, bus, path, n, opts.coord()); err != nil {
			n.Bounds, n.BoundsUnknown = nil, true
		} else {
			n.Bounds.X += dx
			n.Bounds.Y += dy
		}
	}
	if n.Bounds != nil && opts.WindowOrigin != nil {
		// Without its top level (gone meanwhile, or no answer) the
		// element cannot be placed either.
		if top, popup, err := c.placing(ctx, bus, path, opts.PopupOrigin != nil); err != nil {
			n.Bounds, n.BoundsUnknown = nil, true
		} else if popup != nil {
			// In a popover: placed by its popup window (TreeOptions).
			if x, y, ok := opts.PopupOrigin(ctx, popup); ok {
				n.Bounds.X += x - popup.Bounds.X
				n.Bounds.Y += y - popup.Bounds.Y
			} else {
				n.Bounds, n.BoundsUnknown = nil, true
			}
		} else if x, y, ok := opts.WindowOrigin(ctx, top); ok {
			n.Bounds.X += x
			n.Bounds.Y += y
		} else {
			n.Bounds, n.BoundsUnknown = nil, true
		}
	}
	return d, ctx.Err()
}

// flatBounds gives a showing element whose extents are a line (one side
// 0) its parent's extent on that side, where the parent spans it: Java's
// ATK wrapper gives a Swing table's column headers a height of 0 inside a
// header panel 19 pixels high, and a click on one would be refused as off
// screen.
func (c *Conn) flatBounds(ctx context.Context, parentKey string, r *platform.Rect, coord uint32) {
	pbus, ppath, err := ParseKey(parentKey)
	if err != nil {
		return
	}
	var p struct{ X, Y, W, H int32 }
	if c.call(ctx, pbus, ppath, ifaceComponent+".GetExtents", []any{coord}, &p) != nil || !validExtents(p.X, p.Y, p.W, p.H) {
		return
	}
	switch {
	case r.Height == 0 && p.H > 0 && int(p.Y) <= r.Y && r.Y <= int(p.Y+p.H) && int(p.X) <= r.X && r.X+r.Width <= int(p.X+p.W):
		r.Y, r.Height = int(p.Y), int(p.H)
	case r.Width == 0 && p.W > 0 && int(p.X) <= r.X && r.X <= int(p.X+p.W) && int(p.Y) <= r.Y && r.Y+r.Height <= int(p.Y+p.H):
		r.X, r.Width = int(p.X), int(p.W)
	}
}

// topLevel climbs Parent links to the child of the application root that
// holds the element (its frame, dialog or window).
func (c *Conn) topLevel(ctx context.Context, bus string, path dbus.ObjectPath, windowRelative bool) (*platform.Node, error) {
	cur := objRef{bus, path}
	for range 256 {
		var v dbus.Variant
		if err := c.call(ctx, cur.Bus, cur.Path, ifaceProps+".Get", []any{ifaceAccessible, "Parent"}, &v); err != nil {
			return nil, err
		}
		var parent objRef
		if err := dbus.Store([]any{v.Value()}, &parent); err != nil {
			return nil, err
		}
		parent = c.embeds.treeParent(bus, cur.Path, parent)
		if parent.null() {
			return nil, platform.ErrElementGone
		}
		if parent.Path == rootPath {
			return c.topNode(ctx, cur, windowRelative), nil
		}
		cur = parent
	}
	return nil, platform.ErrElementGone
}

// topNode reads a top level's name, states and extents (window-relative,
// or in screen coordinates) in one round trip; what cannot be read is left
// out.
func (c *Conn) topNode(ctx context.Context, ref objRef, windowRelative bool) *platform.Node {
	top := &platform.Node{Key: ref.key()}
	b := c.newBatch(ctx)
	defer b.close()
	b.add(ref.Bus, ref.Path, ifaceProps+".Get", func(call *dbus.Call) {
		var v dbus.Variant
		if call.Err == nil && call.Store(&v) == nil {
			top.Name, _ = v.Value().(string)
		}
	}, ifaceAccessible, "Name")
	b.add(ref.Bus, ref.Path, ifaceComponent+".GetExtents", func(call *dbus.Call) {
		var r struct{ X, Y, W, H int32 }
		if call.Err == nil && call.Store(&r) == nil {
			top.Bounds = &platform.Rect{X: int(r.X), Y: int(r.Y), Width: int(r.W), Height: int(r.H)}
		}
	}, coordType(windowRelative))
	b.states(ref.Bus, ref.Path, func(st platform.StateSet, err error) {
		if err == nil {
			top.States = st
		}
	})
	b.wait()
	return top
}

// placing climbs from an element to its top level (the child of the
// application root that holds it: frame, dialog, window), a round trip
// per level, and returns the top level with its name, states and
// window-relative extents, and with popups true the nearest
// ancestor-or-self below it whose role a popup's has (PopupRole) and that
// has extents, with those extents (nil when there is none).
func (c *Conn) placing(ctx context.Context, bus string, path dbus.ObjectPath, popups bool) (top, popup *platform.Node, err error) {
	cur := objRef{bus, path}
	// fromSelf: popup is the element itself, which a menu bar's menu is
	// not (it is drawn in the bar): its parent's role decides, read next.
	fromSelf := false
	for i := range 256 {
		var parent objRef
		var perr error
		var role uint32
		var ext *platform.Rect
		b := c.newBatch(ctx)
		b.add(cur.Bus, cur.Path, ifaceProps+".Get", func(call *dbus.Call) {
			var v dbus.Variant
			if perr = call.Err; perr == nil {
				if perr = call.Store(&v); perr == nil {
					perr = dbus.Store([]any{v.Value()}, &parent)
				}
			}
		}, ifaceAccessible, "Parent")
		if popups && (popup == nil || fromSelf) {
			b.add(cur.Bus, cur.Path, ifaceAccessible+".GetRole", func(call *dbus.Call) {
				if call.Err != nil || call.Store(&role) != nil {
					role = 0
				}
			})
			b.extents(cur.Bus, cur.Path, coordType(true), func(r *platform.Rect) { ext = r })
		}
		b.wait()
		b.close()
		if perr != nil {
			return nil, nil, perr
		}
		parent = c.embeds.treeParent(bus, cur.Path, parent)
		if parent.null() {
			return nil, nil, platform.ErrElementGone
		}
		if fromSelf {
			fromSelf = false
			if platform.Role(role).String() == "menu bar" {
				popup = nil
			}
		}
		if parent.Path == rootPath {
			return c.topNode(ctx, cur, true), popup, nil
		}
		if popup == nil && PopupRole(platform.Role(role)) && ext != nil && !ext.Empty() {
			popup = &platform.Node{Key: cur.key(), Role: platform.Role(role), Bounds: ext}
			fromSelf = i == 0
		}
		cur = parent
	}
	return nil, nil, platform.ErrElementGone
}

// validExtents filters the extents toolkits give elements that are not on
// screen: GTK reports G_MININT origins for unmapped menus.
func validExtents(x, y, w, h int32) bool {
	return w >= 0 && h >= 0 && x != math.MinInt32 && y != math.MinInt32
}

// TopLevel returns the window-level element (a child of the application
// root: frame, dialog, window) that holds the element, with its name,
// states and extents: window-relative, or in screen coordinates.
func (c *Conn) TopLevel(ctx context.Context, key string, windowRelative bool) (*platform.Node, error) {
	bus, path, err := ParseKey(key)
	if err != nil {
		return nil, err
	}
	if path == rootPath {
		return nil, platform.ErrNotSupported
	}
	return c.topLevel(ctx, bus, path, windowRelative)
}
