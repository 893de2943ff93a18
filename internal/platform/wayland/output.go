//go:build linux

package wayland

import (
	"context"
	"image"
	"slices"
)

// Output is a wl_output as the compositor describes it: where it lies in
// the compositor's space and its current mode.
type Output struct {
	id     ObjectID
	global uint32
	// Name is the output's name (wl_output version 4, "HEADLESS-1"), ""
	// from older compositors.
	Name string
	// X, Y are the output's top-left corner in compositor space.
	X, Y int
	// Width, Height are the current mode's size in pixels.
	Width, Height int
	Scale         int
	Transform     int
}

// Rect is where the output lies in compositor space, in logical pixels
// (the mode's size divided by the scale; the transform rotating it).
func (o Output) Rect() image.Rectangle {
	w, h := o.Width, o.Height
	if o.Transform%2 == 1 { // 90 and 270 degrees, flipped or not
		w, h = h, w
	}
	if s := max(o.Scale, 1); s > 1 {
		w, h = w/s, h/s
	}
	return image.Rect(o.X, o.Y, o.X+w, o.Y+h)
}

// outputs binds every wl_output global not bound yet and keeps each one's
// state from its events.
func (c *Conn) bindOutputs() error {
	for _, g := range c.globals {
		if g.Interface != "wl_output" || slices.ContainsFunc(c.outputs, func(o *Output) bool { return o.global == g.Name }) {
			continue
		}
		id := c.newID()
		v := min(g.Version, 4)
		if err := c.send(newRequest(c.registry, 0).Uint(g.Name).String("wl_output").Uint(v).NewID(id)); err != nil {
			return err
		}
		o := &Output{id: id, global: g.Name, Scale: 1}
		c.outputs = append(c.outputs, o)
		c.handlers[id] = func(opcode uint16, a *args) error {
			switch opcode {
			case 0: // geometry(x, y, physical_width, physical_height, subpixel, make, model, transform)
				x, y := a.Int(), a.Int()
				a.Int()
				a.Int()
				a.Int()
				_ = a.String()
				_ = a.String()
				t := a.Int()
				if a.Done() == nil {
					o.X, o.Y, o.Transform = int(x), int(y), int(t)
				}
			case 1: // mode(flags, width, height, refresh)
				flags, w, h := a.Uint(), a.Int(), a.Int()
				if a.Done() == nil && flags&1 != 0 { // current
					o.Width, o.Height = int(w), int(h)
				}
			case 3: // scale(factor)
				if s := a.Int(); a.Done() == nil && s > 0 {
					o.Scale = int(s)
				}
			case 4: // name(name)
				if n := a.String(); a.Done() == nil {
					o.Name = n
				}
			}
			return a.Done()
		}
	}
	return nil
}

// Outputs lists the compositor's outputs as they are now.
func (c *Conn) Outputs(ctx context.Context) ([]Output, error) {
	var out []Output
	err := c.do(ctx, "reading the outputs", func() error {
		if err := c.bindOutputs(); err != nil {
			return err
		}
		if err := c.roundtrip(); err != nil {
			return err
		}
		out = c.liveOutputs()
		return nil
	})
	return out, err
}

// liveOutputs are the bound outputs whose globals are still announced.
func (c *Conn) liveOutputs() []Output {
	var out []Output
	for _, o := range c.outputs {
		if slices.ContainsFunc(c.globals, func(g Global) bool { return g.Name == o.global }) {
			out = append(out, *o)
		}
	}
	return out
}
