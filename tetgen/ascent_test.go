package tetgen

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/fptest"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// bipyramid returns a bipyramid over a regular n-gon of radius 1 in the
// plane z = 0, apexes at heights top and −bottom: its symmetries fix the
// z axis and no point of it when top ≠ bottom.
func bipyramid(n int, top, bottom float64) *format.Surface {
	s := &format.Surface{}
	for i := range n {
		a := 2 * math.Pi * float64(i) / float64(n)
		s.Positions = append(s.Positions, math.Cos(a), math.Sin(a), 0)
	}
	s.Positions = append(s.Positions, 0, 0, top, 0, 0, -bottom)
	t, b := int32(n), int32(n+1)
	for i := range int32(n) {
		j := (i + 1) % int32(n)
		s.Triangles = append(s.Triangles, i, j, t, j, i, b)
	}
	return s
}

// centred returns the coarse mesh of s, which has one interior vertex,
// and that vertex.
func centred(t *testing.T, s *format.Surface) (*mesher, int32) {
	t.Helper()
	ms, stages := newMesher(s, Options{Coarse: true}, false)
	for _, st := range stages {
		if err := st.run(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
	}
	var inner []int32
	for v := range int32(len(ms.kind)) {
		if ms.movable(v) && ms.m.vt[v] != noTet {
			inner = append(inner, v)
		}
	}
	if len(inner) != 1 {
		t.Fatalf("%d movable vertices, want the one centre", len(inner))
	}
	return ms, inner[0]
}

// starMinSine returns the smallest dihedral sine of star by the sines of
// tetmesh.Dihedral's angles, not by the code under test.
func starMinSine(m *tri, star []int32) float64 {
	w := 1.0
	for _, t := range star {
		q := m.tet(t)
		for _, a := range tetmesh.Dihedral(m.pos(q[0]), m.pos(q[1]), m.pos(q[2]), m.pos(q[3])) {
			w = min(w, math.Sin(a))
		}
	}
	return w
}

// The centre of an icosahedron, moved off centre, ascends back to the
// centre, where symmetry puts the best star: its smallest sine there is
// that of the tet on one face and the origin.
func TestAscendIcosahedron(t *testing.T) {
	ms, v := centred(t, shapes.Icosphere(1, 0))
	m := ms.m
	star := slices.Clone(m.star(v, nil))
	m.setPos(v, geom.Vec{})
	best := starMinSine(m, star)
	start := geom.Vec{0.12, -0.07, 0.05}
	m.setPos(v, start)
	before := starMinSine(m, star)
	a := &ascent{}
	if !ms.ascend(v, star, a, 0, 0.2, ms.starObjective(star, &a.worst, 0, math.Inf(-1))) {
		t.Fatal("the off-centre vertex did not move")
	}
	after := starMinSine(m, star)
	if !(after > before) || after < best-1e-3 || after > best+1e-9 {
		t.Errorf("smallest sine %.6f → %.6f, the centre's %.6f", before, after, best)
	}
	if d := geom.Norm(m.pos(v)); d > 1e-2 {
		t.Errorf("vertex at %v, %.3g from the centre", m.pos(v), d)
	}
}

// The centre of a bipyramid with apexes at different heights: the best
// position is on the axis by symmetry, at the height a scan of the axis
// finds (brute force, sines by tetmesh.Dihedral), which the centroid of
// the neighbours misses. Smoothing from off the axis gets there: ascent
// follows the ridge where the tied sines of the tets around the axis
// stay equal.
func TestSmoothBipyramid(t *testing.T) {
	ms, v := centred(t, bipyramid(5, 1, 0.5))
	m := ms.m
	star := slices.Clone(m.star(v, nil))
	best, bestZ := 0.0, 0.0
	for i := 1; i < 10000; i++ {
		z := -0.5 + 1.5*float64(i)/10000
		m.setPos(v, geom.Vec{0, 0, z})
		if s := starMinSine(m, star); s > best {
			best, bestZ = s, z
		}
	}
	m.setPos(v, geom.Vec{0.15, 0.1, 0.3})
	before := starMinSine(m, star)
	if !ms.smoothFor(v, &ascent{}) {
		t.Fatal("the vertex did not move")
	}
	p := m.pos(v)
	after := starMinSine(m, star)
	t.Logf("smallest sine %.6f → %.6f at %.4f; the axis's best %.6f at z = %.4f", before, after, p, best, bestZ)
	// Compass search alone stops at 0.66060, 3e-4 short, 9e-4 off the axis.
	if after < best-1e-5 || after > best+1e-4 {
		t.Errorf("smallest sine %.6f → %.6f, the axis's best %.6f (z = %.4f)", before, after, best, bestZ)
	}
	if r := math.Hypot(p[0], p[1]); r > 2e-4 || math.Abs(p[2]-bestZ) > 2e-3 {
		t.Errorf("vertex at %.4f, want (0, 0, %.4f)", p, bestZ)
	}
}

// minNormHull against brute force: the shortest convex combination over
// a grid of weights, for sets of one to four gradients, and zero when
// the origin is inside their hull.
func TestMinNormHull(t *testing.T) {
	for _, tc := range []struct {
		name string
		g    []geom.Vec
		want geom.Vec
	}{
		{"one", []geom.Vec{{1, 2, 2}}, geom.Vec{1, 2, 2}},
		{"two orthogonal", []geom.Vec{{1, 0, 0}, {0, 1, 0}}, geom.Vec{0.5, 0.5, 0}},
		{"a vertex nearest", []geom.Vec{{1, 0, 0}, {2, 1, 0}}, geom.Vec{1, 0, 0}},
		{"triangle", []geom.Vec{{1, 0, 1}, {0, 1, 1}, {-1, -1, 1}}, geom.Vec{0, 0, 1}},
		{"origin inside", []geom.Vec{{1, 0, 0}, {-1, 1, 0}, {-1, -1, 1}, {0, 0, -1}}, geom.Vec{}},
		{"opposite", []geom.Vec{{1, 1, 0}, {-1, -1, 0}}, geom.Vec{}},
	} {
		fns := make([]ascentFn, len(tc.g))
		for i, g := range tc.g {
			fns[i].G = g
		}
		got := minNormHull(fns)
		if geom.Norm(geom.Sub(got, tc.want)) > 1e-12 {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	// Random sets against a grid of weights (step 1/60).
	r := uint64(1)
	rnd := func() float64 {
		r = r*6364136223846793005 + 1442695040888963407
		return float64(r>>11)/(1<<53)*2 - 1
	}
	for trial := range 200 {
		n := 1 + trial%4
		fns := make([]ascentFn, n)
		for i := range fns {
			fns[i].G = geom.Vec{rnd() + 0.5, rnd(), rnd()}
		}
		const k = 60
		brute := math.Inf(1)
		var w [4]int
		var walk func(i, left int)
		walk = func(i, left int) {
			if i == n-1 {
				w[i] = left
				var p geom.Vec
				for j := range n {
					p = geom.Add(p, geom.Scale(float64(w[j])/k, fns[j].G))
				}
				brute = min(brute, geom.Norm(p))
				return
			}
			for x := 0; x <= left; x++ {
				w[i] = x
				walk(i+1, left-x)
			}
		}
		walk(0, k)
		got := geom.Norm(minNormHull(fns))
		// The grid's best is within one grid step of the true minimum.
		if got > brute+1e-12 || got < brute-0.1 {
			t.Fatalf("trial %d: |p| = %.6f, grid %.6f", trial, got, brute)
		}
	}
}

// minNormHullVec is minNormHull as it was written with geom's vector
// functions, the reference for its scalar form.
func minNormHullVec(fns []ascentFn) geom.Vec {
	best, bestN := geom.Vec{}, math.Inf(1)
	keep := func(p geom.Vec) {
		if n := geom.Dot(p, p); n < bestN {
			best, bestN = p, n
		}
	}
	for i := range fns {
		gi := fns[i].G
		keep(gi)
		for j := i + 1; j < len(fns); j++ {
			e1 := geom.Sub(fns[j].G, gi)
			if l := geom.Dot(e1, e1); l > 0 {
				if t := -geom.Dot(gi, e1) / l; t > 0 && t < 1 {
					keep(geom.Add(gi, geom.Scale(t, e1)))
				}
			}
			for k := j + 1; k < len(fns); k++ {
				e2 := geom.Sub(fns[k].G, gi)
				a11, a12, a22 := geom.Dot(e1, e1), geom.Dot(e1, e2), geom.Dot(e2, e2)
				b1, b2 := -geom.Dot(gi, e1), -geom.Dot(gi, e2)
				det := a11*a22 - a12*a12
				if !(det > 1e-12*a11*a22) {
					continue
				}
				s, t := (b1*a22-b2*a12)/det, (b2*a11-b1*a12)/det
				if s > 0 && t > 0 && s+t < 1 {
					keep(geom.Add(gi, geom.Add(geom.Scale(s, e1), geom.Scale(t, e2))))
				}
			}
		}
	}
	for _, fn := range fns {
		if geom.Dot(best, fn.G) < bestN*(1-1e-9) {
			return geom.Vec{}
		}
	}
	return best
}

// minNormHull gives the bits of its vector form, on sets of 1 to
// ascentMax random gradients, some of them repeated, scaled, nearly
// parallel or coplanar with others, zero, or spanning scales of 1e±12.
func TestMinNormHullBits(t *testing.T) {
	if fptest.Fused() {
		t.Skip("this build fuses multiply-adds: the scalar and vector forms may round differently")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	vec := func() geom.Vec { return geom.Vec{rng.Float64() + 0.3, rng.Float64()*2 - 1, rng.Float64()*2 - 1} }
	nonzero := 0
	for trial := range 200000 {
		fns := make([]ascentFn, 1+trial%ascentMax)
		for i := range fns {
			g := vec()
			if i > 0 {
				o := fns[rng.IntN(i)].G
				e := math.Pow(10, -15*rng.Float64())
				switch rng.IntN(8) {
				case 0: // repeated
					g = o
				case 1: // parallel
					g = geom.Scale(rng.Float64()*3, o)
				case 2: // nearly parallel
					g = geom.Add(o, geom.Scale(e, g))
				case 3: // coplanar with two others
					g = geom.Add(geom.Scale(rng.Float64(), o), geom.Scale(rng.Float64(), fns[rng.IntN(i)].G))
				case 4:
					g = geom.Vec{}
				case 5:
					g = geom.Scale(math.Pow(10, float64(rng.IntN(25)-12)), g)
				case 6: // pointing back
					g = geom.Scale(-rng.Float64(), g)
				}
			}
			fns[i] = ascentFn{F: rng.Float64(), G: g}
		}
		got, want := minNormHull(fns), minNormHullVec(fns)
		for ax := range 3 {
			if math.Float64bits(got[ax]) != math.Float64bits(want[ax]) {
				t.Fatalf("trial %d %v: %v, vector form %v", trial, fns, got, want)
			}
		}
		if want != (geom.Vec{}) {
			nonzero++
		}
	}
	if nonzero < 50000 {
		t.Errorf("only %d of the sets have a direction", nonzero)
	}
}
