package core

import (
	"context"
	"testing"
	"time"
)

// TestKeysNeverToHiddenElements: an element not on screen — no extents,
// or on a page whose document does not show — gets no key and no click:
// they would land in what is in front instead.
func TestKeysNeverToHiddenElements(t *testing.T) {
	old := changeTime
	changeTime = 200 * time.Millisecond
	t.Cleanup(func() { changeTime = old })
	for _, name := range []string{"Hidden", "Gone"} {
		t.Run(name, func(t *testing.T) {
			d, win := webDesk()
			m, s, tr := formSession(t, d.Platform())
			ctx := context.Background()
			ref := refOf(t, tr, name)
			_, err := m.TypeText(ctx, s.ID, ref, "secret")
			wantErrCode(t, "type_text", err, CodeOffscreen)
			_, err = m.SetValue(ctx, s.ID, ref, "secret")
			wantErrCode(t, "set_value", err, CodeOffscreen)
			if got := d.Typed(win); got != "" {
				t.Errorf("typed %q into the window", got)
			}
			if c := d.Clicks(); len(c) > 0 {
				t.Errorf("clicked %+v", c)
			}
		})
	}
}
