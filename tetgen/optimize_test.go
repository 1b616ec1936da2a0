package tetgen

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// testTets returns n random tets, flatter and flatter in z (heights 1 to
// 1e−5), every 40th with a repeated vertex (flat: sine 0).
func testTets(n int) [][4]geom.Vec {
	rng := rand.New(rand.NewPCG(7, 8))
	point := func(h float64) geom.Vec { return geom.Vec{rng.Float64(), rng.Float64(), h * rng.Float64()} }
	out := make([][4]geom.Vec, n)
	for i := range out {
		h := math.Pow(10, -float64(i%6))
		out[i] = [4]geom.Vec{point(h), point(h), point(h), point(h)}
		if i%40 == 0 {
			out[i][3] = out[i][1]
		}
	}
	return out
}

// minSine against the sines of the dihedral angles tetmesh.Dihedral
// finds by arccosines.
func TestMinSine(t *testing.T) {
	for i, p := range testTets(5000) {
		want := 1.0
		for _, a := range tetmesh.Dihedral(p[0], p[1], p[2], p[3]) {
			want = min(want, math.Sin(a))
		}
		if math.IsNaN(want) {
			want = 0
		}
		got := minSine(p[0], p[1], p[2], p[3])
		// Arccosines near ±1 lose about ε/θ of an angle θ.
		if math.Abs(got-want) > 1e-8 {
			t.Fatalf("tet %d %v: smallest sine %.12g, from the angles %.12g", i, p, got, want)
		}
	}
}

// shapeOf against tetmesh.RadiusEdge, the equidistance of its
// circumcentre from the four vertices, the shortest edge by brute force
// and the volume from geom.TetVolume.
func TestShapeOf(t *testing.T) {
	m := &tri{}
	for i, p := range testTets(5000) {
		if i%40 == 0 {
			continue // no circumcentre
		}
		m.xyz, m.c = m.xyz[:0], []int32{0, 1, 2, 3, 0, 0, 0, 0}
		for _, v := range p {
			m.xyz = append(m.xyz, v[0], v[1], v[2])
		}
		s := m.shapeOf(0)
		short := math.Inf(1)
		for _, e := range tetEdges {
			short = min(short, geom.Dist2(p[e[0]], p[e[1]]))
		}
		if s.short != short {
			t.Fatalf("tet %d: shortest edge² %g, want %g", i, s.short, short)
		}
		if re, want := math.Sqrt(s.r2/s.short), tetmesh.RadiusEdge(p[0], p[1], p[2], p[3]); math.Abs(re-want) > 1e-9*want {
			t.Fatalf("tet %d: radius-edge %.12g, tetmesh %.12g", i, re, want)
		}
		cc, r2 := m.tetCircumcentre(0)
		for k, v := range p {
			if d := geom.Dist2(cc, v); math.Abs(d-r2) > 1e-6*r2 {
				t.Fatalf("tet %d: vertex %d at squared distance %g from the circumcentre, radius² %g", i, k, d, r2)
			}
		}
		if v := geom.TetVolume(p[0], p[1], p[2], p[3]); math.Abs(s.vol6/6-v) > 1e-12*max(math.Abs(v), 1e-3) {
			t.Fatalf("tet %d: volume %g, want %g", i, s.vol6/6, v)
		}
	}
}
