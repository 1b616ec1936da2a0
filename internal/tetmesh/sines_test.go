package tetmesh

import (
	"math"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// The sines agree with the sines of Dihedral's angles, which are known
// in closed form for the regular and the corner tet.
func TestDihedralSines(t *testing.T) {
	regular := math.Sqrt(8.0 / 9) // sin(acos(1/3))
	for _, tc := range []struct {
		name       string
		a, b, c, d geom.Vec
		want       [6]float64
	}{
		{"regular", geom.Vec{1, 1, 1}, geom.Vec{1, -1, -1}, geom.Vec{-1, 1, -1}, geom.Vec{-1, -1, 1},
			[6]float64{regular, regular, regular, regular, regular, regular}},
		// Right angles at the three edges through the origin, acos(1/√3)
		// (sine √(2/3)) at the three of the far face.
		{"corner", geom.Vec{}, geom.Vec{1, 0, 0}, geom.Vec{0, 1, 0}, geom.Vec{0, 0, 1},
			[6]float64{1, 1, 1, math.Sqrt(2.0 / 3), math.Sqrt(2.0 / 3), math.Sqrt(2.0 / 3)}},
		{"flat", geom.Vec{}, geom.Vec{1, 0, 0}, geom.Vec{0, 1, 0}, geom.Vec{1, 1, 0}, [6]float64{}},
	} {
		got := DihedralSines(tc.a, tc.b, tc.c, tc.d)
		ang := Dihedral(tc.a, tc.b, tc.c, tc.d)
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-12 || math.Abs(got[i]-math.Sin(ang[i])) > 1e-12 {
				t.Errorf("%s: sine %d = %.15g, want %.15g (sin of Dihedral %.15g)", tc.name, i, got[i], tc.want[i], math.Sin(ang[i]))
			}
		}
	}
}
