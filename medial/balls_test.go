package medial

import (
	"math/rand/v2"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// ballIndex.largest against a scan of every indexed ball: random balls
// with radii from a few values (ties, which go to the lowest index),
// every ball or every third, scaled by 1 and by supportReach, at random
// points and at points on a ball's scaled surface (to rounding).
func TestBallIndexLargest(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ax := &Axis{}
	for range 2000 {
		ax.Centres = append(ax.Centres, rng.Float64(), rng.Float64(), rng.Float64())
		ax.Radii = append(ax.Radii, 0.01*float64(1+rng.IntN(8)))
	}
	var third []int32
	for i := int32(0); i < 2000; i += 3 {
		third = append(third, i)
	}
	for _, ids := range [][]int32{nil, third} {
		for _, reach := range []float64{1, supportReach} {
			idx := newBallIndex(ax, ids, reach)
			brute := func(p geom.Vec) int32 {
				best := int32(-1)
				for _, i := range idx.ids {
					r := reach * ax.Radii[i]
					if geom.Dist2(p, ax.Centre(int(i))) <= r*r && (best < 0 || ax.Radii[i] > ax.Radii[best]) {
						best = i // ids ascend: the first of equal radii stays
					}
				}
				return best
			}
			found := 0
			for k := range 5000 {
				p := geom.Vec{rng.Float64(), rng.Float64(), rng.Float64()}
				if k%2 == 1 { // on the scaled surface of a ball, along an axis
					i := idx.ids[rng.IntN(len(idx.ids))]
					p = ax.Centre(int(i))
					p[k%3] += reach * ax.Radii[i]
				}
				want := brute(p)
				if got := idx.largest(p); got != want {
					t.Fatalf("ids %d, reach %g: largest(%v) = %d, want %d", len(idx.ids), reach, p, got, want)
				}
				if want >= 0 {
					found++
				}
			}
			if found < 2000 {
				t.Errorf("ids %d, reach %g: only %d of 5000 points in a ball", len(idx.ids), reach, found)
			}
		}
	}
}
