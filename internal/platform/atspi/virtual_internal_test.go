//go:build linux

package atspi

import (
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
)

// The probe lines reach every edge of the area and leave no gap a row or
// column of usual size could hide in; a huge area costs a bounded number
// of points.
func TestProbePoints(t *testing.T) {
	for _, r := range []platform.Rect{
		{X: 41, Y: 186, Width: 686, Height: 330},
		{X: 0, Y: 0, Width: 1, Height: 1},
		{X: 10, Y: 10, Width: 3, Height: 50000},
	} {
		pts := probePoints(r)
		xs, ys := map[int32]bool{}, map[int32]bool{}
		for _, p := range pts {
			if !r.Contains(int(p[0]), int(p[1])) {
				t.Fatalf("%+v: point %v outside the area", r, p)
			}
			xs[p[0]], ys[p[1]] = true, true
		}
		if len(pts) > 6*(maxProbesPerLine+2) {
			t.Errorf("%+v: %d points", r, len(pts))
		}
		if r.Width > 2 && (!xs[int32(r.X+1)] || !xs[int32(r.X+r.Width-2)]) {
			t.Errorf("%+v: the left or right edge is not probed", r)
		}
		if r.Height > 2 && (!ys[int32(r.Y+1)] || !ys[int32(r.Y+r.Height-2)]) {
			t.Errorf("%+v: the top or bottom edge is not probed", r)
		}
		if r.Height <= maxProbesPerLine*probeStep {
			for y := r.Y + 1; y < r.Y+r.Height-1; y++ {
				near := false
				for d := int32(0); d < probeStep && !near; d++ {
					near = ys[int32(y)-d]
				}
				if !near {
					t.Fatalf("%+v: no probe within %d px above y=%d", r, probeStep, y)
				}
			}
		}
	}
}

func TestIntersect(t *testing.T) {
	a := platform.Rect{X: 0, Y: 0, Width: 100, Height: 100}
	if got := a.Intersect(platform.Rect{X: 50, Y: 60, Width: 100, Height: 100}); got != (platform.Rect{X: 50, Y: 60, Width: 50, Height: 40}) {
		t.Errorf("overlap: %+v", got)
	}
	if got := a.Intersect(platform.Rect{X: 100, Y: 0, Width: 10, Height: 10}); !got.Empty() {
		t.Errorf("beside: %+v", got)
	}
}
