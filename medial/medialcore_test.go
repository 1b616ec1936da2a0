package medial_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
	"github.com/pfmesh/pfmesh/medial"
)

// winding returns the winding number of the closed surface s about p, by
// summing the solid angles of its triangles (Van Oosterom & Strackee
// 1983): 1 inside, 0 outside.
func winding(s *format.Surface, p geom.Vec) float64 {
	w := 0.0
	for t := range s.NumTriangles() {
		var v [3]geom.Vec
		var l [3]float64
		for k := range 3 {
			v[k] = geom.Sub(geom.At(s.Positions, s.Triangles[3*t+k]), p)
			l[k] = geom.Norm(v[k])
		}
		num := geom.Dot(v[0], geom.Cross(v[1], v[2]))
		den := l[0]*l[1]*l[2] + geom.Dot(v[0], v[1])*l[2] + geom.Dot(v[1], v[2])*l[0] + geom.Dot(v[2], v[0])*l[1]
		w += 2 * math.Atan2(num, den)
	}
	return w / (4 * math.Pi)
}

// TestMedialCoreInsideIsSurface: where the medial core has a surface,
// Inside is the inside of that polyhedron, not of the smooth set whose
// boundary its vertices sample. The faces of a sphere's core cut up to
// about a hundredth of its radius inside the core ball; a test that took
// the ball would tag Core the vertices a finer mesh puts in between, and
// the 1-set would grow as the mesh refines (by 2% in ε next to the core,
// see docs/field.md). Checked against the winding number of the surface
// at points in the shell the faces cut off and around it.
func TestMedialCoreInsideIsSurface(t *testing.T) {
	core, err := medial.Build(shapes.Icosphere(1, 3), medial.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if core.Surface == nil {
		t.Fatal("no core surface for a sphere")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	gap := 0
	for range 2000 {
		d := geom.Vec{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		p := geom.Scale((0.47+0.04*rng.Float64())/geom.Norm(d), d)
		in := winding(core.Surface, p) > 0.5
		if core.Inside(p) != in {
			t.Fatalf("Inside(%v) = %v, but the winding number of the core surface says %v", p, !in, in)
		}
		if !in && geom.Norm(p) < 0.495 {
			gap++ // in the core ball, outside the polyhedron
		}
	}
	if gap == 0 {
		t.Fatal("no sample fell between the core's faces and the core ball: the test checks nothing")
	}
	t.Logf("%d core triangles; %d of 2000 samples between the faces and the core ball", core.Surface.NumTriangles(), gap)
}

// TestTetBudget: Options.TetBudget floors Sizing at the edge length at
// which the budget's tets (a tenth of the edge cubed each) fill the body,
// and changes nothing above it; a negative budget is no bound.
func TestTetBudget(t *testing.T) {
	s := shapes.Icosphere(1, 3)
	free, err := medial.Build(s, medial.Options{TetBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	const tets = 12_000
	bound, err := medial.Build(s, medial.Options{TetBudget: tets})
	if err != nil {
		t.Fatal(err)
	}
	vol := 0.0
	for i := range s.NumTriangles() {
		v := s.Triangles[3*i : 3*i+3]
		vol += geom.TetVolume(geom.Vec{}, geom.At(s.Positions, v[0]), geom.At(s.Positions, v[1]), geom.At(s.Positions, v[2]))
	}
	floor := math.Cbrt(vol / (0.1 * tets))
	floored := 0
	for i := range 200 {
		u := 2 * math.Pi * float64(i) / 200
		for _, r := range []float64{0, 0.2, 0.5, 0.7, 0.95} {
			p := geom.Vec{r * math.Cos(u), r * math.Sin(u), 0}
			want := max(free.Sizing(p), floor)
			if got := bound.Sizing(p); math.Abs(got-want) > 1e-12*want {
				t.Fatalf("Sizing(%v) = %v with the budget, want max(%v, %v)", p, got, free.Sizing(p), floor)
			}
			if free.Sizing(p) < floor {
				floored++
			}
		}
	}
	if floored == 0 {
		t.Fatalf("the budget's floor %v binds nowhere in the sphere: the test checks nothing", floor)
	}
}

// TestTetBudgetThinPlate: on a plate far thinner than the budget's edge,
// the budget bounds the samples (at most the budget, once the first pass
// is in) and the Core points (at most a tenth of it), which still lie on
// the mid-plane short of the rim and cover the plate: every point of a
// grid over the mid-plane has a Core point within a few budget edges.
// Without the bounds this plate gave 1 M points, in 14 s. A budget of a
// few tets leaves one point.
func TestTetBudgetThinPlate(t *testing.T) {
	const w, th, tets = 4.0, 0.004, 20_000
	c, err := medial.Build(shapes.Plate(w, th, 8), medial.Options{TetBudget: tets})
	if err != nil {
		t.Fatal(err)
	}
	n := len(c.Points) / 3
	t.Logf("%d samples, %d points", c.Stats.Samples, n)
	if c.Stats.Samples > tets {
		t.Errorf("%d samples, over the budget of %d", c.Stats.Samples, tets)
	}
	if n == 0 || n > tets/10 {
		t.Fatalf("%d Core points, want 1 to %d", n, tets/10)
	}
	edge := math.Cbrt(w * w * th / (0.1 * tets))
	// Short of the rim, where the axis branches into the edges.
	const rim = 0.1
	for i := range n {
		p := geom.At(c.Points, int32(i))
		if p[0] > rim && p[0] < w-rim && p[1] > rim && p[1] < w-rim && math.Abs(p[2]-th/2) > th/4 {
			t.Fatalf("Core point %v is off the mid-plane z = %v of the plate", p, th/2)
		}
	}
	// Every grid point over the plate, short of its rim, has a Core point
	// within 4 budget edges: the thinned points still carry the sheet.
	for x := 0.25; x < w; x += 0.25 {
		for y := 0.25; y < w; y += 0.25 {
			q, best := geom.Vec{x, y, th / 2}, math.Inf(1)
			for i := range n {
				best = min(best, geom.Dist2(q, geom.At(c.Points, int32(i))))
			}
			if math.Sqrt(best) > 4*edge {
				t.Fatalf("no Core point within %.3g of %v (the nearest at %.3g)", 4*edge, q, math.Sqrt(best))
			}
		}
	}
	c, err = medial.Build(shapes.Plate(w, th, 8), medial.Options{TetBudget: 5})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(c.Points) / 3; n != 1 {
		t.Fatalf("%d Core points with a budget of 5 tets, want 1", n)
	}
}

// TestSheetPointsOffThinEdges: the sheet of a 5° wedge runs into its sharp
// edge with radii falling to 0; no Core point lies closer to the surface
// than a tenth of the tet budget's edge (its distance taken over the
// convex wedge's face planes), and points remain further in.
func TestSheetPointsOffThinEdges(t *testing.T) {
	s := shapes.Wedge(5, 1, 0.3)
	c, err := medial.Build(s, medial.Options{})
	if err != nil {
		t.Fatal(err)
	}
	vol := 0.5 * math.Sin(5*math.Pi/180) * 0.3
	cut := math.Cbrt(vol/(0.1*medial.DefaultTetBudget)) / 10
	n := len(c.Points) / 3
	if n == 0 {
		t.Fatal("no Core points in the wedge")
	}
	closest := math.Inf(1)
	for i := range n {
		p := geom.At(c.Points, int32(i))
		d := math.Inf(1)
		for f := range s.NumTriangles() {
			q := s.Triangles[3*f : 3*f+3]
			a, b, e := geom.At(s.Positions, q[0]), geom.At(s.Positions, q[1]), geom.At(s.Positions, q[2])
			nrm := geom.Cross(geom.Sub(b, a), geom.Sub(e, a))
			d = min(d, -geom.Dot(geom.Sub(p, a), nrm)/geom.Norm(nrm))
		}
		closest = min(closest, d)
	}
	t.Logf("%d points, the closest %.3g from the surface (cut %.3g)", n, closest, cut)
	if closest < cut*(1-1e-6) {
		t.Fatalf("a Core point lies %.3g from the surface, under a tenth of the budget's edge %.3g", closest, cut)
	}
}
