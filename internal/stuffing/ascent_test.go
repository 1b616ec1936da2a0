package stuffing

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// The point of least norm in the convex hull satisfies the optimality
// condition x·(g − x) ≥ 0 for every g, and on a segment it is the
// analytic foot of the perpendicular.
func TestMinNormInHull(t *testing.T) {
	seg := []geom.Vec{{1, -1, 2}, {1, 3, 2}}
	if x := minNormInHull(seg); geom.Dist2(x, geom.Vec{1, 0, 2}) > 1e-18 {
		t.Errorf("segment: got %v, want (1, 0, 2)", x)
	}
	if x := minNormInHull([]geom.Vec{{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}}); geom.Norm(x) > 1e-9 {
		t.Errorf("hull containing the origin: got %v, want 0", x)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		gs := make([]geom.Vec, 1+r.IntN(6))
		for i := range gs {
			gs[i] = geom.Vec{r.Float64() + 0.2, 2*r.Float64() - 1, 2*r.Float64() - 1}
		}
		x := minNormInHull(gs)
		for _, g := range gs {
			if d := geom.Dot(x, geom.Sub(g, x)); d < -1e-9 {
				t.Fatalf("trial %d: x·(g − x) = %g < 0 for g = %v, x = %v", trial, d, g, x)
			}
		}
	}
}

// jitteredOctahedron is the star of a vertex inside a jittered octahedron
// (eight tets).
func jitteredOctahedron(r *rand.Rand) *star {
	var ps [6]geom.Vec
	for a := range 3 {
		for s := range 2 {
			p := geom.Vec{}
			p[a] = float64(1 - 2*s)
			for k := range 3 {
				p[k] += 0.15 * (2*r.Float64() - 1)
			}
			ps[2*a+s] = p
		}
	}
	st := &star{}
	for _, x := range [2]int{0, 1} {
		for _, y := range [2]int{2, 3} {
			for _, z := range [2]int{4, 5} {
				c := [4]geom.Vec{{}, ps[x], ps[y], ps[z]}
				if geom.Orient3D(c[0], c[1], c[2], c[3]) < 0 {
					c[1], c[2] = c[2], c[1]
				}
				st.add(c, 0)
			}
		}
	}
	return st
}

// From a poor start, ascent ends within 0.3° of the best smallest angle a
// brute-force grid search finds for the centre, and never below where it
// started.
func TestAscendReachesGridOptimum(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	free := func(geom.Vec) bool { return true }
	deg := func(c float64) float64 { return math.Acos(min(1, c)) * 180 / math.Pi }
	for trial := range 3 {
		st := jitteredOctahedron(r)
		gridBest := 2.0
		const n = 30
		for i := range n + 1 {
			for j := range n + 1 {
				for k := range n + 1 {
					p := geom.Vec{float64(i)/n - 0.5, float64(j)/n - 0.5, float64(k)/n - 0.5}
					gridBest = min(gridBest, st.worst(p, math.Inf(1)))
				}
			}
		}
		start := geom.Vec{0.3, -0.25, 0.2}
		c0 := st.worst(start, math.Inf(1))
		_, c := st.ascend(start, c0, nil, free)
		if c > c0 {
			t.Errorf("trial %d: ascent lowered the smallest angle %.3f° → %.3f°", trial, deg(c0), deg(c))
		}
		if deg(c) < deg(gridBest)-0.3 {
			t.Errorf("trial %d: ascent reached %.3f° from %.3f°, the grid's best is %.3f°", trial, deg(c), deg(c0), deg(gridBest))
		}
	}
}
