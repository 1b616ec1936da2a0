package medial

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
)

func TestPermutationParity(t *testing.T) {
	for s := range 4 {
		a, b, c := evenRest(s)
		if !evenPerm(s, a, b, c) || evenPerm(s, b, a, c) {
			t.Errorf("evenRest(%d) = %d %d %d is not an even completion", s, a, b, c)
		}
	}
	// Every Freudenthal tet is positively oriented on the unit cube.
	corner := func(b int) geom.Vec { return geom.Vec{float64(b & 1), float64(b >> 1 & 1), float64(b >> 2 & 1)} }
	for _, tet := range freudenthal {
		if geom.Orient3D(corner(tet[0]), corner(tet[1]), corner(tet[2]), corner(tet[3])) <= 0 {
			t.Errorf("tet %v is not positively oriented", tet)
		}
	}
}

func TestContourSphere(t *testing.T) {
	const r = 0.8
	lv := level{f: func(p geom.Vec) float64 { return r - geom.Norm(p) }}
	for _, g := range []float64{0.2, 0.1, 0.05} {
		for _, snap := range []bool{false, true} {
			if snap {
				lv.project = func(p geom.Vec) (geom.Vec, bool) { return geom.Scale(r/geom.Norm(p), p), true }
			}
			s, err := contour(lv, geom.Vec{-1, -1, -1}, geom.Vec{1, 1, 1}, g, snap)
			if err != nil {
				t.Fatal(err)
			}
			o, err := newSolid(s, "contour")
			if err != nil {
				t.Fatalf("g=%g snap=%v: %v", g, snap, err)
			}
			for i := range s.NumVertices() {
				if d := geom.Norm(geom.At(s.Positions, int32(i))); math.Abs(d-r) > 1e-12 {
					t.Fatalf("g=%g: vertex %d at radius %v, want %v", g, i, d, r)
				}
			}
			// Inscribed polyhedron: volume a little below the ball's, by
			// O(g²) relative.
			want := 4 * math.Pi * r * r * r / 3
			if rel := (want - o.volume) / want; rel < 0 || rel > 2*g*g {
				t.Errorf("g=%g snap=%v: volume %v, ball %v (relative deficit %.2g)", g, snap, o.volume, want, rel)
			}
		}
	}
}

// TestContourSnapUnpinches contours pairs of balls a hair apart (gaps of
// 0.02-0.12 of the spacing, in random directions, over randomly shifted
// grids), whose grid vertices in the gap lie within a snap of both: snapped,
// such a vertex joins the two spheres (30 of these 40 contours pinched
// with the snaps left in place). contour must undo those snaps, so that
// every contour is closed and every vertex on the level set.
func TestContourSnapUnpinches(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const g = 0.1
	for i := range 40 {
		dir := geom.Vec{r.Float64(), r.Float64(), r.Float64()}
		gap := (0.02 + 0.1*r.Float64()) * g
		c := geom.Scale((0.5+gap/2)/geom.Norm(dir), dir)
		f := func(p geom.Vec) float64 { return max(0.5-geom.Norm(geom.Sub(p, c)), 0.5-geom.Norm(geom.Add(p, c))) }
		lo := geom.Sub(geom.Vec{-1.3, -1.3, -1.3}, geom.Vec{r.Float64() * g, r.Float64() * g, r.Float64() * g})
		s, err := contour(level{f: f}, lo, geom.Vec{1.3, 1.3, 1.3}, g, true)
		if err != nil {
			t.Fatalf("pair %d: %v", i, err)
		}
		if err := checkClosed(s); err != nil {
			t.Errorf("pair %d (gap %.3g along %v): %v", i, gap, dir, err)
			continue
		}
		for v := range int32(s.NumVertices()) {
			if d := f(geom.At(s.Positions, v)); math.Abs(d) > 1e-9 {
				t.Fatalf("pair %d: vertex %d off the level set by %g", i, v, d)
			}
		}
	}
}

// TestContourThinNeck contours two balls joined by a thin neck at a
// spacing that cannot resolve it: the result must still be a closed
// oriented surface (snapping may pinch it; contour then retries).
func TestContourThinNeck(t *testing.T) {
	lv := level{f: func(p geom.Vec) float64 {
		a := 0.5 - geom.Norm(geom.Sub(p, geom.Vec{-0.6, 0, 0}))
		b := 0.5 - geom.Norm(geom.Sub(p, geom.Vec{0.6, 0, 0}))
		neck := 0.03 - math.Hypot(p[1], p[2])
		return max(a, b, min(neck, 0.7-math.Abs(p[0])))
	}}
	lv.project = func(p geom.Vec) (geom.Vec, bool) { return p, false }
	for _, g := range []float64{0.1, 0.07, 0.05} {
		s, err := closedContour(lv, geom.Vec{-1.2, -0.6, -0.6}, geom.Vec{1.2, 0.6, 0.6}, g, math.MaxInt, nil)
		if err != nil {
			t.Fatalf("g=%g: %v", g, err)
		}
		if s.NumTriangles() == 0 {
			t.Fatalf("g=%g: empty", g)
		}
	}
}

func TestDepthCorePlate(t *testing.T) {
	const w, th, h = 4.0, 1.0, 0.25
	core, err := Build(shapes.Plate(w, th, 4), Options{Mode: Depth, Depth: h, Resolution: h / 2})
	if err != nil {
		t.Fatal(err)
	}
	o, err := newSolid(core.Surface, "core")
	if err != nil {
		t.Fatal(err)
	}
	// The offset of a box is the box shrunk by H: every vertex on its
	// faces (exactly), the volume exact.
	in := geom.Vec{w - 2*h, w - 2*h, th - 2*h}
	for i := range core.Surface.NumVertices() {
		p := geom.Sub(geom.At(core.Surface.Positions, int32(i)), geom.Vec{h, h, h})
		if d := boxDistance(p, in); math.Abs(d) > 1e-14 {
			t.Fatalf("core vertex %v is %g off the offset box", p, d)
		}
	}
	if want := in[0] * in[1] * in[2]; math.Abs(o.volume-want) > 1e-12*want {
		t.Errorf("core volume %v, want %v", o.volume, want)
	}
	for _, c := range []struct {
		p    geom.Vec
		want bool
	}{{geom.Vec{2, 2, 0.5}, true}, {geom.Vec{2, 2, 0.25 + 1e-6}, true}, {geom.Vec{2, 2, 0.25 - 1e-6}, false}, {geom.Vec{0.2, 2, 0.5}, false}} {
		if got := core.Inside(c.p); got != c.want {
			t.Errorf("Inside(%v) = %v, want %v", c.p, got, c.want)
		}
	}
	// At the default resolution (a coarser grid, within the cell budget) the
	// edges of the offset box are chamfered, but its faces stay exactly
	// planar.
	coarse, err := Build(shapes.Plate(w, th, 4), Options{Mode: Depth, Depth: h})
	if err != nil {
		t.Fatal(err)
	}
	for i := range coarse.Surface.NumVertices() {
		p := geom.At(coarse.Surface.Positions, int32(i))
		if p[0] > 1 && p[0] < 3 && p[1] > 1 && p[1] < 3 && p[2] != h && p[2] != th-h {
			t.Fatalf("default resolution: core vertex %v is off the offset planes", p)
		}
	}
	if s := core.Sizing(geom.Vec{2, 2, 0.1}); s != h/2 {
		t.Errorf("sizing in the layer %v, want %v", s, h/2)
	}
}

// TestDepthCoreLBracket checks the offset of a non-convex prism: the inner
// L with a quarter-circle fillet of radius H at the re-entrant edge.
func TestDepthCoreLBracket(t *testing.T) {
	const a, th, depth, h = 3.0, 1.0, 2.0, 0.25
	core, err := Build(shapes.LBracket(a, th, depth), Options{Mode: Depth, Depth: h, Resolution: h / 2})
	if err != nil {
		t.Fatal(err)
	}
	o, err := newSolid(core.Surface, "core")
	if err != nil {
		t.Fatal(err)
	}
	arm, t2 := a-2*h, th-2*h
	area := 2*arm*t2 - t2*t2 + (h*h - math.Pi*h*h/4)
	want := area * (depth - 2*h)
	if rel := math.Abs(o.volume-want) / want; rel > 1e-3 {
		t.Errorf("core volume %v, want %v (relative error %.2g)", o.volume, want, rel)
	}
}

func TestDepthCoreSphere(t *testing.T) {
	s := shapes.Icosphere(1, 4)
	core, err := Build(s, Options{Mode: Depth, Depth: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	o, err := newSolid(core.Surface, "core")
	if err != nil {
		t.Fatal(err)
	}
	// The facets lie within 0.3% of the unit sphere, so the offset lies
	// between radii 0.697 and 0.7.
	for i := range core.Surface.NumVertices() {
		if r := geom.Norm(geom.At(core.Surface.Positions, int32(i))); r < 0.696 || r > 0.7+1e-12 {
			t.Fatalf("core vertex at radius %v", r)
		}
	}
	// An inscribed polyhedron: a triangle with longest edge L has
	// circumradius at most L/√3 in the non-obtuse case, so it sags at most
	// L²/(6r) below the sphere, which costs 3·L²/(6r²) of the volume; the
	// vertices' own spread costs 3·0.004/0.7 more.
	var lmax float64
	for k := 0; k < len(core.Surface.Triangles); k += 3 {
		for j := range 3 {
			a, b := geom.At(core.Surface.Positions, core.Surface.Triangles[k+j]), geom.At(core.Surface.Positions, core.Surface.Triangles[k+(j+1)%3])
			lmax = max(lmax, math.Sqrt(geom.Dist2(a, b)))
		}
	}
	want := 4 * math.Pi * 0.7 * 0.7 * 0.7 / 3
	if rel := (want - o.volume) / want; rel < 0 || rel > 3*0.004/0.7+lmax*lmax/(2*0.7*0.7) {
		t.Errorf("core volume %v, ball of radius 0.7 %v (deficit %.3g, longest edge %.3g)", o.volume, want, rel, lmax)
	}
}

func TestDepthCoreErrors(t *testing.T) {
	plate := shapes.Plate(4, 1, 4)
	for _, c := range []struct {
		h    float64
		want string
	}{{0, "positive"}, {-1, "positive"}, {math.NaN(), "positive"}, {math.Inf(1), "positive"}, {0.6, "0.6 deep"}} {
		if _, err := Build(plate, Options{Mode: Depth, Depth: c.h}); err == nil || !contains(err, c.want) {
			t.Errorf("depth %v: error %v, want one mentioning %q", c.h, err, c.want)
		}
	}
}

func TestFileCore(t *testing.T) {
	body := shapes.Box(2, 2, 2, 2)
	shift := func(s *format.Surface, d geom.Vec) *format.Surface {
		out := &format.Surface{Positions: append([]float64(nil), s.Positions...), Triangles: s.Triangles}
		for i := 0; i < len(out.Positions); i += 3 {
			for k := range 3 {
				out.Positions[i+k] += d[k]
			}
		}
		return out
	}
	good := shift(shapes.Icosphere(0.5, 2), geom.Vec{1, 1, 1})
	core, err := Build(body, Options{Mode: File, CoreFile: good})
	if err != nil {
		t.Fatal(err)
	}
	if !core.Inside(geom.Vec{1, 1, 1}) || core.Inside(geom.Vec{1, 1, 1.6}) || core.Surface != good {
		t.Error("file core: wrong inside test or surface")
	}
	open := &format.Surface{Positions: good.Positions, Triangles: good.Triangles[3:]}
	// A body with a cavity (inner shell wound inward) around (1, 1, 1).
	cavity := shift(shapes.Box(0.2, 0.2, 0.2, 1), geom.Vec{0.9, 0.9, 0.9})
	for i := 0; i < len(cavity.Triangles); i += 3 {
		cavity.Triangles[i+1], cavity.Triangles[i+2] = cavity.Triangles[i+2], cavity.Triangles[i+1]
	}
	hollow := &format.Surface{Positions: append(append([]float64(nil), body.Positions...), cavity.Positions...), Triangles: append([]int32(nil), body.Triangles...)}
	for _, v := range cavity.Triangles {
		hollow.Triangles = append(hollow.Triangles, v+int32(body.NumVertices()))
	}
	for _, c := range []struct {
		name string
		body *format.Surface
		core *format.Surface
		want string
	}{
		{"outside", body, shift(good, geom.Vec{5, 0, 0}), "not strictly inside"},
		{"crossing", body, shift(good, geom.Vec{0.7, 0, 0}), "not strictly inside"},
		{"open", body, open, "not closed"},
		{"missing", body, nil, "empty"},
		{"around a cavity", hollow, good, "encloses part of the body"},
		{"touching", body, shift(shapes.Box(1, 1, 1, 1), geom.Vec{1, 0.5, 0.5}), "not strictly inside"},
	} {
		if _, err := Build(c.body, Options{Mode: File, CoreFile: c.core}); err == nil || !contains(err, c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		}
	}
}

// TestFileCoreCrossingEdge puts every core vertex inside a non-convex body
// while a core edge passes through the body's notch: only the triangle
// test can see it.
func TestFileCoreCrossingEdge(t *testing.T) {
	body := shapes.LBracket(3, 1, 1)
	// A thin triangle prism from one arm to the other, across the notch.
	core := shapes.Extrude([][2]float64{{2.5, 0.5}, {0.5, 2.5}, {0.4, 2.4}}, 0.5)
	for i := 2; i < len(core.Positions); i += 3 {
		core.Positions[i] += 0.25
	}
	if _, err := Build(body, Options{Mode: File, CoreFile: core}); err == nil || !contains(err, "crosses") {
		t.Errorf("error %v, want one saying the core crosses the body", err)
	}
}

func contains(err error, s string) bool {
	return err != nil && len(s) > 0 && strings.Contains(err.Error(), s)
}

// errTooMuchWork stops a contour whose level was asked too often.
type errTooMuchWork struct{}

// TestSpacingTinyStart contours a ball of radius 1 from a start spacing
// 10⁵ times finer than the cell budget allows, as a part with one tiny
// core ball and a large core asks for. The level is floored at two start
// spacings below zero (as the medial kernel's is), so only its bound can
// rule out the octree's large blocks. The search must end at the
// smallest spacing g0·1.5^k whose cells fit the budget — counted by brute
// force over every cell of the grid — after work bounded by a small
// multiple of the budget per try.
func TestSpacingTinyStart(t *testing.T) {
	const g0, budget = 1e-5, 2000
	lo, hi := geom.Vec{-1.1, -1.1, -1.1}, geom.Vec{1.1, 1.1, 1.1}
	calls := 0
	exact := func(p geom.Vec) float64 { return 1 - geom.Norm(p) }
	count := func() {
		if calls++; calls > 100*budget {
			panic(errTooMuchWork{})
		}
	}
	lv := level{
		f:     func(p geom.Vec) float64 { count(); return max(exact(p), -2*g0) },
		bound: func(p geom.Vec, r float64) float64 { count(); return max(exact(p), -r) },
	}
	var g float64
	func() {
		defer func() {
			if e := recover(); e != nil {
				if _, ok := e.(errTooMuchWork); !ok {
					panic(e)
				}
				t.Fatalf("the spacing search evaluated the level more than %d times", 100*budget)
			}
		}()
		g = spacing(lv, lo, hi, g0, budget)
	}()
	t.Logf("spacing %.4g after %d evaluations", g, calls)
	// Brute force: every cell whose centre is within its half diagonal
	// of the sphere.
	bruteCells := func(g float64) int {
		gr, err := newGrid(lo, hi, g)
		if err != nil {
			t.Fatal(err)
		}
		n, h := 0, g/2
		for i := range gr.n[0] {
			for j := range gr.n[1] {
				for k := range gr.n[2] {
					c := geom.Add(gr.at(i, j, k), geom.Vec{h, h, h})
					if math.Abs(exact(c)) <= h*math.Sqrt(3)*(1+1e-9) {
						n++
					}
				}
			}
		}
		return n
	}
	if n := bruteCells(g); n > budget {
		t.Errorf("spacing %g: %d cells, over the budget %d", g, n, budget)
	}
	if n := bruteCells(g / 1.5); n <= budget {
		t.Errorf("spacing %g: the finer %g fits too (%d cells ≤ %d)", g, g/1.5, n, budget)
	}
	if k := math.Log(g/g0) / math.Log(1.5); math.Abs(k-math.Round(k)) > 1e-9 {
		t.Errorf("spacing %g is not g0·1.5^k (k = %v)", g, k)
	}
	// The contour at that spacing is the inscribed polyhedron of the ball.
	calls = 0
	s, err := closedContour(level{f: exact}, lo, hi, g, math.MaxInt, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newSolid(s, "contour"); err != nil {
		t.Fatal(err)
	}
}

// Two tetrahedra whose apexes are distinct vertices at one point: closed
// and oriented edge by edge, which is all the topology shows, but the
// mesher takes no two vertices at one point (contouring with snapping made
// such core surfaces on the propeller at --core-depth 5), so checkClosed
// must refuse it, as format.Diagnose does.
func TestCheckClosedCoincidentVertices(t *testing.T) {
	s := &format.Surface{Positions: []float64{
		0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1,
		0, 0, 0, -1, 0, 0, 0, -1, 0, 0, 0, -1,
	}}
	s.Triangles = []int32{0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3}             // outward
	s.Triangles = append(s.Triangles, 4, 5, 6, 4, 7, 5, 4, 6, 7, 5, 7, 6) // the mirror image, turned outward
	if _, err := newSolid(s, "pinch"); err != nil {
		t.Fatalf("the topology should pass: %v", err)
	}
	if err := checkClosed(s); err == nil {
		t.Error("two vertices at one point passed checkClosed")
	}
}
