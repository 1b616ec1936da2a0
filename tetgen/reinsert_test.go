package tetgen

import (
	"math"
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
)

// skewBipyramid is a bipyramid over an irregular pentagon with apexes
// off its axis: no symmetry fixes its best interior point, and the
// centre of its largest inscribed ball is not that point.
func skewBipyramid() *format.Surface {
	s := &format.Surface{}
	for i, a := range []float64{0, 1.1, 2.5, 3.6, 5.0} {
		r := []float64{1, 0.8, 1, 0.9, 1}[i]
		s.Positions = append(s.Positions, r*math.Cos(a), r*math.Sin(a), 0)
	}
	s.Positions = append(s.Positions, 0.2, -0.1, 1, -0.1, 0.2, -0.6)
	for i := range int32(5) {
		j := (i + 1) % 5
		s.Triangles = append(s.Triangles, i, j, 5, j, i, 6)
	}
	return s
}

// bestApex from a point outside the region (above the top apex) first
// climbs into it, then to where the cone's worst tet is best, which a
// brute-force search finds: a grid over the bounding box, then finer
// grids around the best point (sines by tetmesh.Dihedral).
func TestBestApexSkewBipyramid(t *testing.T) {
	ms, v := centred(t, skewBipyramid())
	m := ms.m
	star := slices.Clone(m.star(v, nil))
	var bnd [][3]geom.Vec
	for _, s := range star {
		k := int32(slices.Index(m.tet(s), v))
		f := m.faceVerts(4*s + k)
		bnd = append(bnd, [3]geom.Vec{m.pos(f[0]), m.pos(f[1]), m.pos(f[2])})
	}
	// objective is the star's smallest sine with v at p, 0 when a tet
	// is not positive.
	objective := func(p geom.Vec) float64 {
		m.setPos(v, p)
		for _, s := range star {
			q := m.tet(s)
			if geom.Orient3DAt(m.xyz, q[0], q[1], q[2], q[3]) <= 0 {
				return 0
			}
		}
		return starMinSine(m, star)
	}
	centre, half, brute := geom.Vec{0, 0, 0.2}, 1.2, 0.0
	for range 6 {
		const n = 24
		c := centre
		for i := range n + 1 {
			for j := range n + 1 {
				for k := range n + 1 {
					p := geom.Add(c, geom.Scale(half, geom.Vec{2*float64(i)/n - 1, 2*float64(j)/n - 1, 2*float64(k)/n - 1}))
					if s := objective(p); s > brute {
						brute, centre = s, p
					}
				}
			}
		}
		half /= 4
	}
	p, obj := ms.bestApex(bnd, geom.Vec{0.2, -0.1, 1.3})
	got := objective(p)
	t.Logf("apex %.4f, smallest sine %.6f (objective %.6f); brute force %.6f at %.4f", p, got, obj, brute, centre)
	if math.Abs(got-obj) > 1e-9 || got < brute-1e-4 || got > brute+1e-3 {
		t.Errorf("smallest sine %.6f (objective %.6f), brute force %.6f", got, obj, brute)
	}
}

// A bipyramid whose centre sits near a face: reinsertSliver replaces the
// centre's star by the cone from the best point, which a scan of the
// axis finds (as above); the mesh stays valid and keeps its volume.
func TestReinsertSliverBipyramid(t *testing.T) {
	s := bipyramid(5, 1, 0.5)
	ms, v := centred(t, s)
	m := ms.m
	star := slices.Clone(m.star(v, nil))
	best := 0.0
	for i := 1; i < 10000; i++ {
		m.setPos(v, geom.Vec{0, 0, -0.5 + 1.5*float64(i)/10000})
		best = max(best, starMinSine(m, star))
	}
	// Near the face (0, 1, top), inside.
	a, b := m.pos(0), m.pos(1)
	c := geom.Scale(1.0/3, geom.Add(geom.Add(a, b), geom.Vec{0, 0, 1}))
	m.setPos(v, geom.Scale(0.97, c))
	worst := m.badWorstFirst(math.Sin(optTarget))
	if len(worst) == 0 {
		t.Fatal("no tet below the target")
	}
	before := worst[0].sine
	if !ms.reinsertSliver(worst[0].t) {
		t.Fatal("reinsertSliver refused")
	}
	after := 1.0
	for tt := int32(0); tt < int32(m.numTets()); tt++ {
		if m.alive(tt) {
			after = min(after, starMinSine(m, []int32{tt}))
		}
	}
	t.Logf("smallest sine %.6f → %.6f; the axis's best %.6f", before, after, best)
	if after < best-1e-5 || after > best+1e-4 {
		t.Errorf("smallest sine %.6f → %.6f, the axis's best %.6f", before, after, best)
	}
	checkMesh(t, s, ms.output())
}
