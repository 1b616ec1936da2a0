package winding

import (
	"math"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// The expansion converges at the predicted rate: the second-order
// expansion of one node errs by O(radius³/distance⁵), so moving 10× farther
// cuts the error by about 1e5. (A closed surface would not do: every term
// of its expansion vanishes outside it, exactly as its winding number.)
func TestFarFieldOrder(t *testing.T) {
	pos, tris := paraboloidPatch(12)
	tree := New(pos, tris)
	root := tree.moments[:stride]
	dir := geom.Vec{0.3, 0.5, 0.8}
	errAt := func(d float64) float64 {
		p := geom.Sub(geom.At(root, 0), geom.Scale(d, dir))
		r := geom.Sub(geom.At(root, 0), p)
		return math.Abs(farField(root, r, geom.Dot(r, r)) - BruteForce(pos, tris, p))
	}
	e1, e2 := errAt(5), errAt(50)
	if ratio := e1 / e2; ratio < 2e4 {
		t.Errorf("error at d=5: %g, at d=50: %g; ratio %g, want ≈ 1e5", e1, e2, ratio)
	}
}

// paraboloidPatch returns an open n×n grid of triangles on z = x² + y²/2
// over [0,1]², a surface without symmetries that would cancel terms.
func paraboloidPatch(n int) ([]float64, []int32) {
	var pos []float64
	var tris []int32
	for i := 0; i <= n; i++ {
		for j := 0; j <= n; j++ {
			x, y := float64(i)/float64(n), float64(j)/float64(n)
			pos = append(pos, x, y, x*x+y*y/2)
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := int32(i*(n+1) + j)
			w := v + int32(n+1)
			tris = append(tris, v, w, w+1, v, w+1, v+1)
		}
	}
	return pos, tris
}
