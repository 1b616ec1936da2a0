package bvh

import (
	"math"
	"math/rand"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// Skipping the subtrees that hold only unwanted items (here: points with
// x < 0.5, recognised by the node's box) gives the brute-force nearest
// wanted point; skipping the root finds nothing.
func TestNearestWhereMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	const n = 2000
	pts := make([]float64, 3*n)
	boxes := make([]float64, 6*n)
	for i := range n {
		for k := range 3 {
			pts[3*i+k] = r.Float64()
			boxes[6*i+k], boxes[6*i+3+k] = pts[3*i+k], pts[3*i+k]
		}
	}
	tree := Build(boxes, 4)
	skipped := 0
	skip := func(node int32) bool {
		if tree.Bounds[6*node+3] < 0.5 { // the box's max x
			skipped++
			return true
		}
		return false
	}
	for q := 0; q < 300; q++ {
		p := geom.Vec{r.Float64(), r.Float64(), r.Float64()}
		wanted := func(it int32) float64 {
			if pts[3*it] < 0.5 {
				return math.Inf(1)
			}
			return geom.Dist2(p, geom.At(pts, it))
		}
		got, d2 := tree.NearestWhere(p, math.Inf(1), skip, wanted)
		want, w2 := int32(-1), math.Inf(1)
		for i := int32(0); i < n; i++ {
			if d := wanted(i); d < w2 {
				want, w2 = i, d
			}
		}
		if got != want || d2 != w2 {
			t.Fatalf("nearest %d (%g), want %d (%g)", got, d2, want, w2)
		}
		if got, d2 := tree.NearestWhere(p, 1, func(int32) bool { return true }, wanted); got != -1 || d2 != 1 {
			t.Fatalf("root skipped: %d (%g), want -1 (1)", got, d2)
		}
	}
	if skipped == 0 {
		t.Error("no subtree skipped: the test exercises nothing")
	}
}
