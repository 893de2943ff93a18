package core

import (
	"context"
	"fmt"
)

// Scroll brings an element into view (direction "intoView", through
// Component.ScrollTo) or turns the wheel over it.
func (m *Sessions) Scroll(ctx context.Context, sessionID, ref, direction string, amount int) (*ActResult, error) {
	dx, dy := 0, 0
	if amount <= 0 {
		amount = 3
	}
	if amount > 50 {
		return nil, Errorf(CodeInvalidArgument, "amount must be at most 50 wheel steps")
	}
	switch direction {
	case "up":
		dy = -amount
	case "down":
		dy = amount
	case "left":
		dx = -amount
	case "right":
		dx = amount
	case "intoView":
	default:
		return nil, Errorf(CodeInvalidArgument, "direction must be up, down, left, right or intoView, not %s", Quote(direction))
	}
	if m.modeOf(ctx, sessionID) == ModeVisual {
		return m.scrollVisual(ctx, sessionID, ref, direction, dx, dy, amount)
	}
	t, err := m.prepare(ctx, sessionID, ref)
	if err != nil {
		return nil, err
	}
	defer t.done()
	if direction == "intoView" {
		if err := t.actor.ScrollTo(ctx, t.s.App, t.node.Key); err != nil {
			return nil, mapActErr(err)
		}
		return m.finish(ctx, t, MethodSemantic, "Component.ScrollTo", nil, "")
	}
	x, y, err := m.pointerInput(ctx, t.s, func() (int, int, error) { return m.pointAt(ctx, t) },
		func(x, y int) error { return t.actor.Wheel(ctx, x, y, dx, dy) })
	if err != nil {
		return nil, err
	}
	return m.finish(ctx, t, MethodPointer, fmt.Sprintf("wheel %s x%d at %d,%d", direction, amount, x, y), nil, "")
}
