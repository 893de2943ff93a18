//go:build linux

package wayland

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// The windows a wlroots compositor lists to any client through
// zwlr_foreign_toplevel_management_v1 (the protocol taskbars use): title,
// app_id, states, the outputs a window is on, and requests to activate,
// close, maximize, minimize and fullscreen it. It gives no pid and no
// geometry: a compositor with an IPC of its own (sway's) tells more, and
// this is for those without one.

// ToplevelID names a toplevel for as long as this connection lives (the
// protocol object's id; a window that closes and another that opens never
// share it while the connection lasts, since the compositor creates a new
// object for each).
type ToplevelID uint32

// Toplevel is one window as the compositor lists it.
type Toplevel struct {
	ID         ToplevelID
	Title      string
	AppID      string
	Maximized  bool
	Minimized  bool
	Activated  bool
	Fullscreen bool
	Parent     ToplevelID // 0: none (version 3; a dialog's main window)
	Outputs    []string   // the names of the outputs it is on
}

// ErrToplevelGone: the window closed (or was never listed on this
// connection).
var ErrToplevelGone = errors.New("the window is gone")

// Toplevel states (the state event's array of uint32).
const (
	stateMaximized  = 0
	stateMinimized  = 1
	stateActivated  = 2
	stateFullscreen = 3
)

// toplevel is a handle's state: what the last done event made current,
// and what the events since are changing.
type toplevel struct {
	cur, pending Toplevel
	outputs      map[ObjectID]bool // pending: the outputs it is on
	seen         bool              // a done event came
	closed       bool
}

const toplevelManager = "zwlr_foreign_toplevel_manager_v1"

// bindToplevels binds the manager once; the compositor then announces
// every window and keeps telling of their changes for as long as the
// connection lives.
func (c *Conn) bindToplevels() error {
	if c.toplevelMgr != 0 {
		return nil
	}
	ids, vs, err := c.bind(toplevelManager, 1, 3, false)
	if err != nil {
		return err
	}
	c.toplevelMgr, c.toplevelVersion = ids[0], vs[0]
	c.toplevels = map[ObjectID]*toplevel{}
	c.handlers[c.toplevelMgr] = func(opcode uint16, a *args) error {
		if opcode == 0 { // toplevel(new_id handle)
			id := a.Object()
			if err := a.Done(); err != nil {
				return err
			}
			tl := &toplevel{outputs: map[ObjectID]bool{}}
			tl.pending.ID = ToplevelID(id)
			c.toplevels[id] = tl
			c.toplevelOrder = append(c.toplevelOrder, id)
			c.handlers[id] = c.onToplevel(id, tl)
		}
		return a.Done() // finished: the manager stops; its windows stay as they were
	}
	return nil
}

// onToplevel handles one handle's events.
func (c *Conn) onToplevel(id ObjectID, tl *toplevel) handler {
	return func(opcode uint16, a *args) error {
		p := &tl.pending
		switch opcode {
		case 0: // title(string)
			p.Title = a.String()
		case 1: // app_id(string)
			p.AppID = a.String()
		case 2: // output_enter(output)
			tl.outputs[a.Object()] = true
		case 3: // output_leave(output)
			delete(tl.outputs, a.Object())
		case 4: // state(array of uint32)
			b := a.Array()
			p.Maximized, p.Minimized, p.Activated, p.Fullscreen = false, false, false, false
			for i := 0; i+4 <= len(b); i += 4 {
				switch byteOrder.Uint32(b[i:]) {
				case stateMaximized:
					p.Maximized = true
				case stateMinimized:
					p.Minimized = true
				case stateActivated:
					p.Activated = true
				case stateFullscreen:
					p.Fullscreen = true
				}
			}
		case 5: // done
			p.Outputs = p.Outputs[:0]
			for _, o := range c.outputs {
				if tl.outputs[o.id] {
					p.Outputs = append(p.Outputs, o.Name)
				}
			}
			tl.cur = *p
			tl.cur.Outputs = append([]string(nil), p.Outputs...)
			tl.seen = true
		case 6: // closed
			tl.closed = true
			delete(c.toplevels, id)
			c.toplevelOrder = slices.DeleteFunc(c.toplevelOrder, func(o ObjectID) bool { return o == id })
			delete(c.handlers, id)
			c.sendLater(newRequest(id, 7)) // destroy
		case 7: // parent(handle or null)
			p.Parent = ToplevelID(a.Object())
		}
		return a.Done()
	}
}

// Toplevels lists the compositor's windows as they are now, in the order
// it announced them. ErrNoGlobal when it does not offer the protocol.
func (c *Conn) Toplevels(ctx context.Context) ([]Toplevel, error) {
	var out []Toplevel
	err := c.do(ctx, "listing the windows", func() error {
		if err := c.bindOutputs(); err != nil {
			return err
		}
		if err := c.bindToplevels(); err != nil {
			return err
		}
		if err := c.roundtrip(); err != nil {
			return err
		}
		out = c.currentToplevels()
		return nil
	})
	return out, err
}

// currentToplevels are the described windows, in the order the
// compositor announced them.
func (c *Conn) currentToplevels() []Toplevel {
	out := []Toplevel{}
	for _, id := range c.toplevelOrder {
		if tl := c.toplevels[id]; tl.seen {
			out = append(out, tl.cur)
		}
	}
	return out
}

// ToplevelAction is a request on a window.
type ToplevelAction int

// The requests a window takes.
const (
	ToplevelActivate ToplevelAction = iota
	ToplevelClose
	ToplevelMaximize
	ToplevelUnmaximize
	ToplevelMinimize
	ToplevelUnminimize
	ToplevelFullscreen
	ToplevelUnfullscreen
)

func (a ToplevelAction) String() string {
	return [...]string{"activate", "close", "maximize", "unmaximize", "minimize", "unminimize", "fullscreen", "unfullscreen"}[a]
}

// ActOnToplevel sends a request for a window and waits until the
// compositor has handled it (a round trip). Whether it took effect is for
// the caller to read back (Toplevels): a compositor may ignore a request
// it has no use for (sway keeps no minimized state).
func (c *Conn) ActOnToplevel(ctx context.Context, id ToplevelID, action ToplevelAction) error {
	return c.do(ctx, "asking the compositor to "+action.String()+" a window", func() error {
		if err := c.bindToplevels(); err != nil {
			return err
		}
		if err := c.roundtrip(); err != nil {
			return err
		}
		h := ObjectID(id)
		if c.toplevels[h] == nil {
			return fmt.Errorf("window %d: %w", id, ErrToplevelGone)
		}
		var req *request
		switch action {
		case ToplevelActivate:
			if err := c.bindSeat(); err != nil {
				return err
			}
			req = newRequest(h, 4).Object(c.seat)
		case ToplevelClose:
			req = newRequest(h, 5)
		case ToplevelMaximize, ToplevelUnmaximize, ToplevelMinimize, ToplevelUnminimize:
			req = newRequest(h, uint16(action-ToplevelMaximize))
		case ToplevelFullscreen, ToplevelUnfullscreen:
			if c.toplevelVersion < 2 {
				return fmt.Errorf("%w: %s version 2 (fullscreen)", ErrNoGlobal, toplevelManager)
			}
			req = newRequest(h, 9)
			if action == ToplevelFullscreen {
				req = newRequest(h, 8).Object(0) // the compositor picks the output
			}
		default:
			return fmt.Errorf("wayland: unknown window action %d", action)
		}
		if err := c.send(req); err != nil {
			return err
		}
		return c.roundtrip()
	})
}
