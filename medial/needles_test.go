package medial

import (
	"math"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
)

// TestRemeshNeedles remeshes the union of three overlapping balls of
// different radii, whose contour is creased where the balls meet, along
// circles that cross at two corners: remeshing keeps crease vertices in
// place, and without mendNeedles left triangles down to 6.3° there. The
// result must be closed, oriented and free of self-intersections, with
// every vertex on the level set, no angle below 10° and the union's volume
// (found independently, by counting grid points in a ball) about kept.
func TestRemeshNeedles(t *testing.T) {
	cs := []geom.Vec{{-0.3, 0, 0}, {0.3, 0.05, 0}, {0, 0.4, 0.1}}
	rs := []float64{0.5, 0.45, 0.4}
	lv := level{f: func(p geom.Vec) float64 {
		f := math.Inf(-1)
		for i, c := range cs {
			f = max(f, rs[i]-math.Sqrt(geom.Dist2(p, c)))
		}
		return f
	}}
	const g, length = 0.04, 0.2
	s, err := contour(lv, geom.Vec{-1, -1, -1}, geom.Vec{1, 1, 1}, g, true)
	if err != nil {
		t.Fatal(err)
	}
	m := remeshOnLevel(t, s, lv, length)
	o, err := newSolid(m, "remeshed")
	if err != nil {
		t.Fatal(err)
	}
	// The balls lie in [-0.8, 0.75] × [-0.5, 0.8] × [-0.5, 0.5].
	const h = 0.01
	n := 0
	for x := -0.8 + h/2; x < 0.75; x += h {
		for y := -0.5 + h/2; y < 0.8; y += h {
			for z := -0.5 + h/2; z < 0.5; z += h {
				if lv.f(geom.Vec{x, y, z}) > 0 {
					n++
				}
			}
		}
	}
	want := float64(n) * h * h * h
	angle := minAngles(m.Positions, m.Triangles)
	t.Logf("%d → %d triangles, min angle %.1f°, volume %.5f, union %.5f (%.2f%%)", s.NumTriangles(), m.NumTriangles(), angle, o.volume, want, 100*(o.volume-want)/want)
	if angle < 10 {
		t.Errorf("smallest angle %.1f°, want ≥ 10°", angle)
	}
	// Inscribed in the union with edges about L: a deficit of order
	// (L/r)²/4: 6.2% with mendNeedles and without.
	if d := (want - o.volume) / want; d < 0 || d > 0.08 {
		t.Errorf("volume deficit %.2f%%, want within [0, 8%%]", 100*d)
	}
}

// remeshOnLevel remeshes s, a contour of lv, to edges about length long,
// and fails t unless the result is closed, oriented and free of
// self-intersections with every vertex on the level set.
func remeshOnLevel(t *testing.T, s *format.Surface, lv level, length float64) *format.Surface {
	t.Helper()
	m := remesh(s, func(geom.Vec) float64 { return length }, lv.onto, remeshRounds)
	if err := checkClosed(m); err != nil {
		t.Fatalf("remeshed: %v", err)
	}
	for i := range m.NumVertices() {
		if f := lv.f(geom.At(m.Positions, int32(i))); math.Abs(f) > 1e-9 {
			t.Fatalf("vertex %d off the level set by %g", i, f)
		}
	}
	return m
}

// TestRemeshNeedlesValenceThree mends what the lever's and example001's
// core surfaces kept: a tiny triangle split at a vertex of valence three,
// its edges the short sides of needles. The flat top of a box holds the
// tiny triangle abe at its centre, split at x near a, and needles from its
// edges to the top's corners; collapsing ab would pinch the surface while
// x stands (a and b share x, e and a corner), and collapsing x alone
// raises no angle. Mended, the box must stay a closed 2-manifold (brute force),
// its top flat, its volume the box's, and no angle below 10°.
func TestRemeshNeedlesValenceThree(t *testing.T) {
	const h, r = 1.0, 1e-4 // box height; size of the tiny triangle
	pos := []float64{
		-1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0, // 0-3 bottom corners
		-1, -1, h, 1, -1, h, 1, 1, h, -1, 1, h, // 4-7 top corners
		0, -r, h, r, r, h, -r, r, h, // 8-10: a, b, e
		0.05 * r, -0.8 * r, h, // 11: x, near a
	}
	tris := []int32{
		0, 2, 1, 0, 3, 2, // bottom
		0, 1, 5, 0, 5, 4, 1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7, // sides
		8, 9, 11, 9, 10, 11, 10, 8, 11, // abe split at x
		8, 5, 9, 9, 6, 10, 10, 4, 8, // needles on ab, be, ea
		8, 4, 5, 9, 5, 6, 10, 6, 7, 10, 7, 4, // fans to the top's edges
	}
	m := &triMesh{pos: pos, tris: tris, frozen: make([]bool, len(pos)/3)}
	if err := brutalManifold(m); err != nil {
		t.Fatalf("box: %v", err)
	}
	before := minAngles(m.pos, m.tris)
	out := m.mendNeedles(func(geom.Vec) float64 { return 1 }, func(p, _ geom.Vec, _ float64) geom.Vec { return p })
	if err := brutalManifold(out); err != nil {
		t.Fatalf("mended: %v", err)
	}
	s := out.surface()
	for i := range s.NumVertices() {
		if z := s.Positions[3*i+2]; z != 0 && z != h {
			t.Fatalf("vertex %d left the box's faces (z = %g)", i, z)
		}
	}
	o, err := newSolid(s, "mended")
	if err != nil {
		t.Fatal(err)
	}
	angle := minAngles(s.Positions, s.Triangles)
	t.Logf("%d → %d triangles, min angle %.4f° → %.1f°, volume %g", len(tris)/3, s.NumTriangles(), before, angle, o.volume)
	if math.Abs(o.volume-4*h) > 1e-12 {
		t.Errorf("volume %g, want %g", o.volume, 4*h)
	}
	if angle < 10 {
		t.Errorf("smallest angle %.4f°, want ≥ 10°", angle)
	}
}
