package medial

import (
	"math"
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// TestRemeshSphere remeshes a marching-tetrahedra sphere to a target edge
// length: the result must stay closed, oriented and free of
// self-intersections, with every vertex on the sphere, edges near the
// target, no slivers, and an enclosed volume near the ball's.
func TestRemeshSphere(t *testing.T) {
	const r = 0.8
	lv := level{f: func(p geom.Vec) float64 { return r - geom.Norm(p) }}
	lv.project = func(p geom.Vec) (geom.Vec, bool) { return geom.Scale(r/geom.Norm(p), p), true }
	for _, c := range []struct{ g, length float64 }{{0.1, 0.1}, {0.1, 0.25}, {0.05, 0.2}} {
		s, err := contour(lv, geom.Vec{-1, -1, -1}, geom.Vec{1, 1, 1}, c.g, true)
		if err != nil {
			t.Fatal(err)
		}
		before := minAngles(s.Positions, s.Triangles)
		m := remesh(s, func(geom.Vec) float64 { return c.length }, lv.onto, remeshRounds)
		if err := checkClosed(m); err != nil {
			t.Fatalf("g=%g L=%g: %v", c.g, c.length, err)
		}
		for i := range m.NumVertices() {
			if d := geom.Norm(geom.At(m.Positions, int32(i))); math.Abs(d-r) > 1e-12 {
				t.Fatalf("g=%g L=%g: vertex %d at radius %v", c.g, c.length, i, d)
			}
		}
		var ls []float64
		for k := 0; k < len(m.Triangles); k += 3 {
			for j := range 3 {
				a, b := geom.At(m.Positions, m.Triangles[k+j]), geom.At(m.Positions, m.Triangles[k+(j+1)%3])
				ls = append(ls, math.Sqrt(geom.Dist2(a, b))/c.length)
			}
		}
		slices.Sort(ls)
		med := ls[len(ls)/2]
		after := minAngles(m.Positions, m.Triangles)
		t.Logf("g=%g L=%g: %d → %d triangles, edge/L median %.2f range [%.2f, %.2f], min angle %.1f° → %.1f°",
			c.g, c.length, s.NumTriangles(), m.NumTriangles(), med, ls[0], ls[len(ls)-1], before, after)
		if med < 0.7 || med > 1.3 || ls[len(ls)-1] > 4.0/3*1.05 {
			t.Errorf("g=%g L=%g: edge lengths / target: median %.2f, max %.2f", c.g, c.length, med, ls[len(ls)-1])
		}
		if after < 15 || after < before {
			t.Errorf("g=%g L=%g: smallest angle %.1f° (before %.1f°)", c.g, c.length, after, before)
		}
		o, err := newSolid(m, "remeshed")
		if err != nil {
			t.Fatal(err)
		}
		// An inscribed polyhedron with edges about L: deficit O(L²/r²).
		want := 4 * math.Pi * r * r * r / 3
		if rel := (want - o.volume) / want; rel < 0 || rel > sq(c.length/r) {
			t.Errorf("g=%g L=%g: volume deficit %.3g", c.g, c.length, rel)
		}
	}
}

// minAngles returns the smallest angle of the triangles, in degrees.
func minAngles(pos []float64, tris []int32) float64 {
	a := math.Pi
	for k := 0; k < len(tris); k += 3 {
		a = min(a, minAngle([3]geom.Vec{geom.At(pos, tris[k]), geom.At(pos, tris[k+1]), geom.At(pos, tris[k+2])}))
	}
	return a * 180 / math.Pi
}

// TestRemeshFoldsAndGaps remeshes unions of two balls, contoured finer
// than the target edge: overlapping balls meet at a crease circle, which
// remeshing must coarsen along (the crease edges of a marching-tetrahedra
// contour are short) while keeping it; balls a gap far narrower than the
// target edge apart make rounds that cross the two spheres, which must be
// undone. Every result must be closed, oriented and free of
// self-intersections (checkClosed decides it exactly), with every vertex
// on the level set and the edge lengths near the target away from the gap.
func TestRemeshFoldsAndGaps(t *testing.T) {
	const r, g, length = 0.5, 0.04, 0.2
	for _, c := range []struct {
		name   string
		offset float64 // centres at ±offset on x
		median float64 // smallest acceptable median edge / target
	}{
		{"crease", 0.3, 0.7},
		{"gap", r + 0.01, 0.7},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, b := geom.Vec{-c.offset, 0, 0}, geom.Vec{c.offset, 0, 0}
			lv := level{f: func(p geom.Vec) float64 {
				return max(r-math.Sqrt(geom.Dist2(p, a)), r-math.Sqrt(geom.Dist2(p, b)))
			}}
			s, err := contour(lv, geom.Vec{-1.2, -0.7, -0.7}, geom.Vec{1.2, 0.7, 0.7}, g, false)
			if err != nil {
				t.Fatal(err)
			}
			if err := checkClosed(s); err != nil {
				t.Fatalf("contour: %v", err)
			}
			m := remesh(s, func(geom.Vec) float64 { return length }, lv.onto, remeshRounds)
			if err := checkClosed(m); err != nil {
				t.Fatalf("remeshed: %v", err)
			}
			for i := range m.NumVertices() {
				if f := lv.f(geom.At(m.Positions, int32(i))); math.Abs(f) > 1e-9 {
					t.Fatalf("vertex %d off the level set by %g", i, f)
				}
			}
			var ls []float64
			for k := 0; k < len(m.Triangles); k += 3 {
				for j := range 3 {
					p, q := geom.At(m.Positions, m.Triangles[k+j]), geom.At(m.Positions, m.Triangles[k+(j+1)%3])
					ls = append(ls, math.Sqrt(geom.Dist2(p, q))/length)
				}
			}
			slices.Sort(ls)
			med := ls[len(ls)/2]
			t.Logf("%d → %d triangles, edge/L median %.2f, min angle %.1f°", s.NumTriangles(), m.NumTriangles(), med, minAngles(m.Positions, m.Triangles))
			if med < c.median {
				t.Errorf("median edge / target %.2f, want ≥ %.2f", med, c.median)
			}
		})
	}
}
