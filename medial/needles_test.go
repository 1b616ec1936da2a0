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
