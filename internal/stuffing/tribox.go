package stuffing

import (
	"math"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// triBoxOverlap reports whether triangle abc meets the axis-aligned box
// with centre c and half-size h, by the separating-axis test of
// Akenine-Möller ("Fast 3D Triangle-Box Overlap Testing", 2001): the box
// axes, the triangle normal and the nine edge cross products. It decides
// which octree cells hold surface, where a float answer is enough: callers
// pad the box so that near-misses count as hits.
func triBoxOverlap(a, b, c, centre geom.Vec, h float64) bool {
	v0, v1, v2 := geom.Sub(a, centre), geom.Sub(b, centre), geom.Sub(c, centre)
	for k := 0; k < 3; k++ {
		if min(v0[k], v1[k], v2[k]) > h || max(v0[k], v1[k], v2[k]) < -h {
			return false
		}
	}
	e := [3]geom.Vec{geom.Sub(v1, v0), geom.Sub(v2, v1), geom.Sub(v0, v2)}
	for _, ei := range e {
		for k := 0; k < 3; k++ {
			var axis geom.Vec // unit axis k crossed with ei
			axis[(k+1)%3], axis[(k+2)%3] = -ei[(k+2)%3], ei[(k+1)%3]
			p0, p1, p2 := geom.Dot(axis, v0), geom.Dot(axis, v1), geom.Dot(axis, v2)
			r := h * (math.Abs(axis[0]) + math.Abs(axis[1]) + math.Abs(axis[2]))
			if min(p0, p1, p2) > r || max(p0, p1, p2) < -r {
				return false
			}
		}
	}
	n := geom.Cross(e[0], e[1])
	r := h * (math.Abs(n[0]) + math.Abs(n[1]) + math.Abs(n[2]))
	d := geom.Dot(n, v0)
	return math.Abs(d) <= r
}
