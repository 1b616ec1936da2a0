package tetgen

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// TestInSphereAt checks the cavity search's filtered insphere against the
// exact perturbed predicate: random points, points on a common sphere
// (exact zeros the perturbation decides), lattice points (many zeros),
// and tiny perturbations of cospherical points (the filter's edge).
func TestInSphereAt(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	cases := []struct {
		name string
		gen  func() float64
	}{
		{"random", func() float64 { return r.Float64()*2 - 1 }},
		{"lattice", func() float64 { return float64(r.Intn(3)) }},
		{"offset lattice", func() float64 { return 1e6 + float64(r.Intn(3))*1e-3 }},
		{"tiny", func() float64 { return r.Float64() * 1e-200 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			xyz := make([]float64, 15)
			for it := 0; it < 20000; it++ {
				for i := range xyz {
					xyz[i] = tc.gen()
				}
				checkInSphereAt(t, xyz)
			}
		})
	}
	// Points of the unit sphere's rational parametrisation are exactly on
	// it; nudging one by an ulp leaves the sign to be decided by exact
	// arithmetic. Scaled by a power of two they stay cospherical: at
	// 2²⁰ and 2⁻²⁰ a bound of the wrong degree in L would show, at
	// 2⁻¹⁰⁰ the quick filter's squared bound is below the normal floats,
	// at 2¹⁵⁰ it overflows.
	for _, scale := range []float64{1, 0x1p-20, 0x1p20, 0x1p-100, 0x1p150} {
		t.Run(fmt.Sprintf("cospherical×%g", scale), func(t *testing.T) {
			xyz := make([]float64, 15)
			for it := 0; it < 10000; it++ {
				for p := 0; p < 5; p++ {
					u, w := float64(r.Intn(9)-4), float64(r.Intn(9)-4)
					den := 1 + u*u + w*w
					xyz[3*p], xyz[3*p+1], xyz[3*p+2] = 2*u/den*scale, 2*w/den*scale, (u*u+w*w-1)/den*scale
					if it%4 >= 2 {
						// Off the origin the coordinates round: the
						// float determinant's sign is often wrong.
						xyz[3*p] += 3 * scale
						xyz[3*p+1] += 5 * scale
					}
				}
				if it%2 == 1 {
					k := r.Intn(15)
					xyz[k] = xyz[k] * (1 + 0x1p-52*float64(r.Intn(3)-1))
				}
				checkInSphereAt(t, xyz)
			}
		})
	}
}

func checkInSphereAt(t *testing.T, xyz []float64) {
	t.Helper()
	for _, p := range [][5]int32{{0, 1, 2, 3, 4}, {3, 1, 4, 0, 2}, {4, 2, 0, 1, 3}} {
		got := inSphereAt(xyz, p[0], p[1], p[2], p[3], p[4])
		want := geom.InSphereSoS(geom.At(xyz, p[0]), geom.At(xyz, p[1]), geom.At(xyz, p[2]), geom.At(xyz, p[3]),
			geom.At(xyz, p[4]), p[0], p[1], p[2], p[3], p[4])
		if got != want {
			t.Fatalf("points %v order %v: inSphereAt %d, exact %d", xyz, p, got, want)
		}
	}
}
