package medial

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// TestThinPoints checks thinPoints against the definition, by brute
// force: it keeps, in order, each point at least d from every point kept
// before it, so the kept points are at least d apart and each dropped one
// lies within d of a kept one that comes before it.
func TestThinPoints(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		n    int
		d    float64
		flat bool
	}{{0, 0.1, false}, {1, 0.1, false}, {500, 0.05, false}, {2000, 0.1, true}, {2000, 0.3, false}, {300, 2, false}} {
		pts := make([]float64, 3*c.n)
		for i := range pts {
			pts[i] = 2*rng.Float64() - 1 // cells on both sides of 0
			if c.flat && i%3 == 2 {
				pts[i] = 0.5
			}
		}
		got := thinPoints(pts, c.d)
		var want []float64
		for i := 0; i < len(pts); i += 3 {
			p := geom.Vec{pts[i], pts[i+1], pts[i+2]}
			keep := true
			for j := 0; j < len(want); j += 3 {
				if math.Sqrt(geom.Dist2(p, geom.Vec{want[j], want[j+1], want[j+2]})) < c.d {
					keep = false
					break
				}
			}
			if keep {
				want = append(want, p[:]...)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("n=%d d=%v: %d points kept, want %d", c.n, c.d, len(got)/3, len(want)/3)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("n=%d d=%v: kept point %d is %v, want %v", c.n, c.d, i/3, got[i-i%3:i-i%3+3], want[i-i%3:i-i%3+3])
			}
		}
	}
}
