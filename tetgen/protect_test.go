package tetgen

import (
	"math/rand/v2"
	"testing"

	"github.com/pfmesh/pfmesh/internal/bvh"
	"github.com/pfmesh/pfmesh/internal/geom"
)

// holdsSegment agrees with a test of every ball, and a segment it says a
// ball holds is covered all along; ends in two overlapping balls, none
// holding both, are not held.
func TestHoldsSegment(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	p := &protection{}
	var boxes []float64
	for i := 0; i < 40; i++ {
		c := geom.Vec{rng.Float64() * 10, rng.Float64() * 10, rng.Float64() * 10}
		r := 0.2 + rng.Float64()
		p.centre, p.r2 = append(p.centre, c), append(p.r2, r*r)
		boxes = append(boxes, c[0]-r, c[1]-r, c[2]-r, c[0]+r, c[1]+r, c[2]+r)
	}
	p.tree = bvh.Build(boxes, 4)
	near := func() geom.Vec { // a point near a random ball
		i := rng.IntN(len(p.r2))
		return geom.Add(p.centre[i], geom.Vec{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()})
	}
	held := 0
	for n := 0; n < 20000; n++ {
		a, b := near(), near()
		if n%2 == 0 {
			b = geom.Add(a, geom.Vec{rng.NormFloat64() / 4, rng.NormFloat64() / 4, rng.NormFloat64() / 4})
		}
		want := false
		for i := range p.r2 {
			want = want || geom.Dist2(a, p.centre[i]) < p.r2[i] && geom.Dist2(b, p.centre[i]) < p.r2[i]
		}
		if got := p.holdsSegment(a, b); got != want {
			t.Fatalf("holdsSegment(%v, %v) = %v, a test of every ball says %v", a, b, got, want)
		}
		if !want {
			continue
		}
		held++
		for s := 0.0; s <= 1; s += 1.0 / 16 {
			if x := geom.Add(a, geom.Scale(s, geom.Sub(b, a))); !p.covers(x) {
				t.Fatalf("segment %v–%v held, but %v on it is not covered", a, b, x)
			}
		}
	}
	if held < 1000 {
		t.Fatalf("only %d of 20000 segments held: the test no longer covers its case", held)
	}
	// Two unit balls 1.5 apart: each end in one ball only.
	two := &protection{centre: []geom.Vec{{0, 0, 0}, {1.5, 0, 0}}, r2: []float64{1, 1}}
	two.tree = bvh.Build([]float64{-1, -1, -1, 1, 1, 1, 0.5, -1, -1, 2.5, 1, 1}, 4)
	if two.holdsSegment(geom.Vec{-0.5, 0, 0}, geom.Vec{2, 0, 0}) {
		t.Error("a segment whose ends lie in different balls is held")
	}
	if !two.holdsSegment(geom.Vec{0.6, 0, 0}, geom.Vec{0.9, 0.1, 0}) {
		t.Error("a segment inside both balls is not held")
	}
	if (&protection{}).holdsSegment(geom.Vec{}, geom.Vec{1, 0, 0}) {
		t.Error("no balls hold a segment")
	}
}
