package geom

import (
	"math/rand"
	"testing"
)

// TestPredicatesAtExtremeScales checks the predicates against exact
// rational arithmetic on random and near-cospherical point sets of extent
// ExtentMin and ExtentMax, placed at the origin and far from it: the range
// the package documents as exact.
func TestPredicatesAtExtremeScales(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for _, s := range []float64{ExtentMin, ExtentMax} {
		for _, off := range []float64{0, 1e3 * s} {
			for i := 0; i < 2000; i++ {
				var p [5]Vec
				c := Add(Vec{off, off, off}, Scale(s, randVec(r, 1)))
				rad := s * (0.5 + r.Float64())
				for k := range p {
					u := randVec(r, 2)
					if i%2 == 1 { // on a sphere up to rounding, nudged
						u = Scale(rad/Norm(u), u)
						p[k] = nudge(r, Add(c, u))
					} else {
						p[k] = Add(c, Scale(s, u))
					}
				}
				if got, want := InSphere(p[0], p[1], p[2], p[3], p[4]), refInSphere(p[0], p[1], p[2], p[3], p[4]); got != want {
					t.Fatalf("extent %g offset %g: InSphere(%v) = %d, want %d", s, off, p, got, want)
				}
				if got, want := Orient3D(p[0], p[1], p[2], p[3]), refOrient3D(p[0], p[1], p[2], p[3]); got != want {
					t.Fatalf("extent %g offset %g: Orient3D(%v) = %d, want %d", s, off, p, got, want)
				}
			}
		}
	}
}

func TestCheckExtent(t *testing.T) {
	for _, tc := range []struct {
		name string
		xyz  []float64
		ok   bool
	}{
		{"unit", []float64{0, 0, 0, 1, 1, 1}, true},
		{"micrometre", []float64{0, 0, 0, 1e-6, 0, 0}, true},
		{"far from origin", []float64{1e9, 0, 0, 1e9 + 1, 0, 0}, true},
		{"too small", []float64{0, 0, 0, 1e-40, 0, 0}, false},
		{"too large", []float64{0, 0, 0, 1e40, 0, 0}, false},
		{"one point", []float64{1, 2, 3}, false},
		{"huge coordinate", []float64{0, 0, 0, 1, 1, ExtentMax * 2}, false},
	} {
		if err := CheckExtent(tc.xyz); (err == nil) != tc.ok {
			t.Errorf("%s: CheckExtent = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}
