package winding_test

import (
	"fmt"
	"math"
	"math/rand"
	"sync"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/fptest"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
	"github.com/pfmesh/pfmesh/internal/trisearch"
	"github.com/pfmesh/pfmesh/internal/winding"
)

// Triangle is the vector form of Van Oosterom and Strackee's formula bit
// for bit (its scalars keep the vector form's operations and order, on
// which the robust path's meshes depend): on random points and triangles,
// degenerate ones and points on a corner among them.
func TestTriangleMatchesVectorForm(t *testing.T) {
	if fptest.Fused() {
		t.Skip("this build fuses multiply-adds: the scalar and vector forms may round differently")
	}
	vector := func(p, a, b, c geom.Vec) float64 {
		a, b, c = geom.Sub(a, p), geom.Sub(b, p), geom.Sub(c, p)
		la, lb, lc := geom.Norm(a), geom.Norm(b), geom.Norm(c)
		num := geom.Dot(a, geom.Cross(b, c))
		den := la*lb*lc + geom.Dot(a, b)*lc + geom.Dot(a, c)*lb + geom.Dot(b, c)*la
		return math.Atan2(num, den) / (2 * math.Pi)
	}
	r := rand.New(rand.NewSource(7))
	pt := func() geom.Vec { return geom.Vec{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()} }
	for i := range 20000 {
		p, a, b, c := pt(), pt(), pt(), pt()
		switch i % 4 {
		case 1:
			c = geom.Add(a, geom.Scale(r.Float64(), geom.Sub(b, a))) // collinear
		case 2:
			p = b
		}
		got, want := winding.Triangle(p, a, b, c), vector(p, a, b, c)
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("Triangle(%v, %v, %v, %v) = %v, the vector form %v", p, a, b, c, got, want)
		}
	}
}

// Solid angles with closed forms: a cube face seen from the centre is 1/6
// of the sphere, an octant triangle seen from the origin 1/8.
func TestTriangleClosedForms(t *testing.T) {
	o := geom.Vec{}
	cases := []struct {
		name    string
		p       geom.Vec
		a, b, c geom.Vec
		want    float64
	}{
		{"octant", o, geom.Vec{1, 0, 0}, geom.Vec{0, 1, 0}, geom.Vec{0, 0, 1}, 1.0 / 8},
		{"octant reversed", o, geom.Vec{1, 0, 0}, geom.Vec{0, 0, 1}, geom.Vec{0, 1, 0}, -1.0 / 8},
		// Half of the top face z=1 of the cube [-1,1]³, counterclockwise from above.
		{"half cube face", o, geom.Vec{-1, -1, 1}, geom.Vec{1, -1, 1}, geom.Vec{1, 1, 1}, 1.0 / 12},
		{"in plane", o, geom.Vec{1, 0, 0}, geom.Vec{2, 0, 0}, geom.Vec{1, 1, 0}, 0},
		{"at a corner", geom.Vec{1, 0, 0}, geom.Vec{1, 0, 0}, geom.Vec{2, 0, 0}, geom.Vec{1, 1, 0}, 0},
	}
	for _, c := range cases {
		if got := winding.Triangle(c.p, c.a, c.b, c.c); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("%s: got %.17g, want %.17g", c.name, got, c.want)
		}
	}
}

// testSurfaces are closed outward solids with an exact inside test that
// does not use winding numbers.
func testSurfaces() []struct {
	name   string
	s      *format.Surface
	inside func(p geom.Vec) bool
} {
	sphere := shapes.Icosphere(1, 3)
	return []struct {
		name   string
		s      *format.Surface
		inside func(p geom.Vec) bool
	}{
		{"box", shapes.Box(1, 2, 3, 4), func(p geom.Vec) bool {
			return p[0] > 0 && p[0] < 1 && p[1] > 0 && p[1] < 2 && p[2] > 0 && p[2] < 3
		}},
		{"icosphere", sphere, func(p geom.Vec) bool { return convexInside(sphere, p) }},
		{"torus", shapes.Torus(1, 0.3, 64, 32), func(p geom.Vec) bool {
			q := math.Hypot(p[0], p[1]) - 1
			return q*q+p[2]*p[2] < 0.3*0.3
		}},
		{"L-bracket", shapes.LBracket(2, 0.5, 1), func(p geom.Vec) bool {
			inL := p[0] > 0 && p[1] > 0 && (p[0] < 2 && p[1] < 0.5 || p[0] < 0.5 && p[1] < 2)
			return inL && p[2] > 0 && p[2] < 1
		}},
		{"plate", shapes.Plate(1, 0.05, 8), func(p geom.Vec) bool {
			return p[0] > 0 && p[0] < 1 && p[1] > 0 && p[1] < 1 && p[2] > 0 && p[2] < 0.05
		}},
	}
}

// convexInside decides with exact predicates whether p is strictly inside
// a convex outward surface: below the plane of every face.
func convexInside(s *format.Surface, p geom.Vec) bool {
	for i := 0; i < len(s.Triangles); i += 3 {
		a, b, c := geom.At(s.Positions, s.Triangles[i]), geom.At(s.Positions, s.Triangles[i+1]), geom.At(s.Positions, s.Triangles[i+2])
		if geom.Orient3D(a, b, c, p) >= 0 {
			return false
		}
	}
	return true
}

func bbox(s *format.Surface) (lo, hi geom.Vec) {
	lo, hi = geom.At(s.Positions, 0), geom.At(s.Positions, 0)
	for i := 1; i < s.NumVertices(); i++ {
		p := geom.At(s.Positions, int32(i))
		for k := range 3 {
			lo[k], hi[k] = min(lo[k], p[k]), max(hi[k], p[k])
		}
	}
	return lo, hi
}

// randomPoints returns n points uniform in the bounding box grown by 20%.
func randomPoints(r *rand.Rand, s *format.Surface, n int) []geom.Vec {
	lo, hi := bbox(s)
	pts := make([]geom.Vec, n)
	for i := range pts {
		for k := range 3 {
			ext := hi[k] - lo[k]
			pts[i][k] = lo[k] - 0.2*ext + 1.4*ext*r.Float64()
		}
	}
	return pts
}

// The acceptance test: 1e4 random points per closed solid, no mismatch
// against the exact answer except within 1e-3 of the diagonal of the
// surface (the torus's facets stray up to 0.003 from the true torus, so
// its band is 1e-2).
func TestInsideMatchesExact(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, c := range testSurfaces() {
		tree := winding.New(c.s.Positions, c.s.Triangles)
		ix := trisearch.New(c.s.Positions, c.s.Triangles)
		lo, hi := bbox(c.s)
		band := 1e-3 * math.Sqrt(geom.Dist2(lo, hi))
		if c.name == "torus" {
			band = 1e-2
		}
		skipped := 0
		for _, p := range randomPoints(r, c.s, 10000) {
			if _, _, d2 := ix.Closest(p); d2 < band*band {
				skipped++
				continue
			}
			w := tree.At(p)
			want := 0.0
			if c.inside(p) {
				want = 1
			}
			if math.Abs(w-want) > 1e-2 {
				t.Fatalf("%s: w(%v) = %g, want %g", c.name, p, w, want)
			}
			if tree.Inside(p) != c.inside(p) {
				t.Fatalf("%s: Inside(%v) = %v", c.name, p, !c.inside(p))
			}
		}
		if skipped > 1000 {
			t.Errorf("%s: %d of 10000 points skipped as near the surface", c.name, skipped)
		}
	}
}

// The hierarchical evaluation agrees with the brute-force sum everywhere,
// including points on and very near the surface (where it must descend
// to exact leaves).
func TestTreeMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for _, c := range testSurfaces() {
		tree := winding.New(c.s.Positions, c.s.Triangles)
		pts := randomPoints(r, c.s, 300)
		for i := range 100 { // near-surface points: a vertex plus a tiny offset
			v := geom.At(c.s.Positions, int32(r.Intn(c.s.NumVertices())))
			pts = append(pts, geom.Add(v, geom.Vec{1e-6 * r.NormFloat64(), 1e-6 * r.NormFloat64(), float64(i%2) * 1e-9}))
		}
		pts = append(pts, geom.Vec{1e3, -2e3, 5e2})
		var worst float64
		for _, p := range pts {
			worst = max(worst, math.Abs(tree.At(p)-winding.BruteForce(c.s.Positions, c.s.Triangles, p)))
		}
		if worst > 1e-2 {
			t.Errorf("%s: largest |tree − brute force| = %g", c.name, worst)
		}
	}
}

// openSphere returns a unit icosphere without the triangles whose centroid
// lies above z = zCut.
func openSphere(level int, zCut float64) *format.Surface {
	s := shapes.Icosphere(1, level)
	var kept []int32
	for i := 0; i < len(s.Triangles); i += 3 {
		zc := (s.Positions[3*s.Triangles[i]+2] + s.Positions[3*s.Triangles[i+1]+2] + s.Positions[3*s.Triangles[i+2]+2]) / 3
		if zc <= zCut {
			kept = append(kept, s.Triangles[i:i+3]...)
		}
	}
	s.Triangles = kept
	return s
}

// An inside-out surface winds −1 inside.
func TestInverted(t *testing.T) {
	s := shapes.Icosphere(1, 2)
	flipped := append([]int32(nil), s.Triangles...)
	for i := 0; i < len(flipped); i += 3 {
		flipped[i+1], flipped[i+2] = flipped[i+2], flipped[i+1]
	}
	tree := winding.New(s.Positions, flipped)
	if w := tree.At(geom.Vec{0.1, 0.2, -0.1}); math.Abs(w+1) > 1e-2 {
		t.Errorf("w = %g inside an inverted sphere, want −1", w)
	}
	if tree.Inside(geom.Vec{}) {
		t.Error("Inside on an inverted sphere")
	}
}

// A sphere with a cap cut out: at the centre w = 1 − Ω_hole/4π, where the
// missing cap's solid angle is that of a spherical cap, 2π(1 − cos θ),
// up to the facet approximation; deep inside the answer stays above 1/2
// and far outside near 0.
func TestHoledSphere(t *testing.T) {
	// The cap z > 0.8 has solid angle 2π·0.2.
	s := openSphere(4, 0.8)
	tree := winding.New(s.Positions, s.Triangles)
	w := tree.At(geom.Vec{})
	if want := 1 - 0.2/2; math.Abs(w-want) > 0.01 {
		t.Errorf("w(centre) = %g, want ≈ %g", w, want)
	}
	for _, p := range []geom.Vec{{0, 0, -0.9}, {0.5, 0, 0}, {0, 0, 0.5}} {
		if !tree.Inside(p) {
			t.Errorf("%v not inside the holed sphere (w = %g)", p, tree.At(p))
		}
	}
	for _, p := range []geom.Vec{{0, 0, 1.5}, {3, 0, 0}, {0, 0, -1.2}} {
		if tree.Inside(p) {
			t.Errorf("%v inside the holed sphere (w = %g)", p, tree.At(p))
		}
	}
}

func TestEmptyAndDegenerate(t *testing.T) {
	if w := winding.New(nil, nil).At(geom.Vec{}); w != 0 {
		t.Errorf("empty surface: w = %g", w)
	}
	// Zero-area triangles contribute nothing and do not poison the moments.
	pos := []float64{0, 0, 0, 1, 0, 0, 2, 0, 0}
	if w := winding.New(pos, []int32{0, 1, 2, 0, 0, 1}).At(geom.Vec{5, 5, 5}); w != 0 || math.IsNaN(w) {
		t.Errorf("degenerate triangles: w = %g", w)
	}
}

func TestConcurrentAndAllocationFree(t *testing.T) {
	s := shapes.Torus(1, 0.3, 48, 24)
	tree := winding.New(s.Positions, s.Triangles)
	pts := randomPoints(rand.New(rand.NewSource(3)), s, 400)
	want := make([]float64, len(pts))
	for i, p := range pts {
		want[i] = tree.At(p)
	}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for g := range 4 {
		wg.Go(func() {
			for i, p := range pts {
				if w := tree.At(p); w != want[i] {
					errs[g] = fmt.Errorf("goroutine %d point %d: %g != %g", g, i, w, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if a := testing.AllocsPerRun(100, func() { tree.At(pts[7]) }); a != 0 {
		t.Errorf("At allocates %v times per call", a)
	}
}

func BenchmarkAt(b *testing.B) {
	for _, level := range []int{4, 6, 8} {
		s := shapes.Icosphere(1, level)
		tree := winding.New(s.Positions, s.Triangles)
		pts := randomPoints(rand.New(rand.NewSource(4)), s, 1024)
		b.Run(fmt.Sprintf("n=%.0e", float64(s.NumTriangles())), func(b *testing.B) {
			i := 0
			for b.Loop() {
				tree.At(pts[i&1023])
				i++
			}
		})
	}
}

func BenchmarkNew(b *testing.B) {
	s := shapes.Icosphere(1, 8)
	b.Run(fmt.Sprintf("n=%.0e", float64(s.NumTriangles())), func(b *testing.B) {
		for b.Loop() {
			winding.New(s.Positions, s.Triangles)
		}
	})
}
