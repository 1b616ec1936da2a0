package tetgen

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/bvh"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
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

// TestAcuteFacetPairs checks the facet pairs that meet at a small angle
// inside the body against creaseAngle on the input triangles: a 5°
// wedge's two long sides meet at its apex edge at 5° (below the 20.7° of
// the bound 1.414), and a block with a 5° notch cut into it has walls
// whose normals are as far apart but meet at 355° inside the body: none
// of its pairs is acute.
func TestAcuteFacetPairs(t *testing.T) {
	const b = 1.414
	d := 0.7 * math.Tan(2.5*math.Pi/180)
	notch := shapes.Extrude([][2]float64{{0, 0}, {2, 0}, {2, 1}, {1 + d, 1}, {1, 0.3}, {1 - d, 1}, {0, 1}}, 0.5)
	for _, c := range []struct {
		name  string
		s     *format.Surface
		pairs int
	}{
		{"5° wedge", shapes.Wedge(5, 1, 0.3), 1},
		{"5° notch", notch, 0},
	} {
		opt := Options{Quality: b}
		if err := checkOptions(&opt); err != nil {
			t.Fatal(err)
		}
		// Conforming recovery: the notch's walls defeat recovery by flips.
		ms, stages := newMesher(c.s, opt, true)
		for _, st := range stages {
			if err := st.run(); err != nil {
				t.Fatal(err)
			}
			if st.name == "refine" {
				break
			}
		}
		got := ms.ref8.balls.acuteFacets
		// The same from the input: triangles sharing an edge at an angle
		// inside the body whose sine is below 1/(2b).
		want := map[[2]int32]bool{}
		tri := c.s.Triangles
		for i := int32(0); i < int32(len(tri)/3); i++ {
			for j := i + 1; j < int32(len(tri)/3); j++ {
				for k := int32(0); k < 3; k++ {
					a, bb := tri[3*i+k], tri[3*i+(k+1)%3]
					for l := int32(0); l < 3; l++ {
						if tri[3*j+l] == bb && tri[3*j+(l+1)%3] == a {
							ang := creaseAngle(c.s.Positions, a, bb, tri[3*i+(k+2)%3], tri[3*j+(l+2)%3])
							if ang < math.Asin(1/(2*b))*180/math.Pi {
								want[[2]int32{i, j}] = true
							}
						}
					}
				}
			}
		}
		if len(want) < c.pairs || len(got) != len(want) {
			t.Fatalf("%s: %d acute facet pairs, the input's creases say %d (at least %d)", c.name, len(got), len(want), c.pairs)
		}
		for p := range want {
			if !got[p] {
				t.Errorf("%s: facets %v meet at a small angle, not in the pairs", c.name, p)
			}
		}
	}
}
