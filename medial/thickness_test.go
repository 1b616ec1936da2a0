package medial

import (
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
)

func TestLocalHalfThickness(t *testing.T) {
	// A part with a thick foot (2 thick) and a thin wall (0.4 thick).
	step := shapes.Extrude([][2]float64{{0, 0}, {4, 0}, {4, 2}, {0.4, 2}, {0.4, 6}, {0, 6}}, 4)
	tests := []struct {
		name string
		s    *format.Surface
		// want returns the expected half thickness at p, or 0 to skip p.
		want func(p geom.Vec) float64
	}{
		{"plate", shapes.Plate(6, 1, 6), func(geom.Vec) float64 { return 0.5 }},
		{"cube", shapes.Box(1, 1, 1, 3), func(geom.Vec) float64 { return 0.5 }},
		{"sphere", shapes.Icosphere(1, 3), func(geom.Vec) float64 { return 1 }},
		{"step", step, func(p geom.Vec) float64 {
			switch {
			case p[1] >= 4:
				return 0.2 // the wall, away from the foot
			case p[1] <= 2 && p[0] >= 2:
				return 1 // the foot, away from the wall
			}
			return 0
		}},
	}
	for _, tc := range tests {
		th, err := LocalHalfThickness(tc.s, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, got := range th {
			p := geom.At(tc.s.Positions, int32(i))
			// Sampled balls reaching a corner fall short of the inscribed one
			// by up to 10%.
			if want := tc.want(p); want > 0 && (got > want*1.002 || got < want*0.9) {
				t.Errorf("%s: half thickness %v at %v, want %v", tc.name, got, p, want)
			}
		}
	}
}

func TestLocalHalfThicknessInput(t *testing.T) {
	cube := shapes.Box(1, 1, 1, 1)
	if _, err := LocalHalfThickness(cube, []float64{1, 2}); err == nil {
		t.Error("ragged points accepted")
	}
	if _, err := LocalHalfThickness(&format.Surface{}, nil); err == nil {
		t.Error("empty surface accepted")
	}
	th, err := LocalHalfThickness(cube, []float64{0.5, 0.5, 0.5, 40, 40, 40})
	if err != nil || th[0] < 0.45 || th[1] != 0 {
		t.Errorf("thickness %v, %v: want about 0.5 inside and 0 far outside", th, err)
	}
}
