package medial

import (
	"math"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// r2a, r2b are the steps of the R2 low-discrepancy sequence (Roberts 2018):
// 1/g and 1/g², g the plastic number, the real root of x³ = x + 1.
const (
	r2a = 0.7548776662466927
	r2b = 0.5698402909980532
)

// trianglePoints returns n points inside triangle t, evenly spread by the
// R2 sequence started at the centroid and folded into the triangle, none
// on an edge or corner (where the normal is undefined). The first points
// are the same whatever n.
func (o *solid) trianglePoints(t int32, n int, dst []geom.Vec) []geom.Vec {
	id := o.tris[3*t : 3*t+3]
	a, b, c := geom.At(o.pos, id[0]), geom.At(o.pos, id[1]), geom.At(o.pos, id[2])
	ab, ac := geom.Sub(b, a), geom.Sub(c, a)
	for i := range n {
		u, v := math.Mod(1.0/3+float64(i)*r2a, 1), math.Mod(1.0/3+float64(i)*r2b, 1)
		if u+v > 1 {
			u, v = 1-u, 1-v
		}
		// Keep off the edges by a sliver of the triangle.
		const e = 1e-6
		u, v = e+(1-3*e)*u, e+(1-3*e)*v
		dst = append(dst, geom.Add(a, geom.Add(geom.Scale(u, ab), geom.Scale(v, ac))))
	}
	return dst
}

// sampleCount returns how many samples triangle t needs to space them
// about spacing apart: its area over spacing²/2, and at least one per
// spacing along its longest edge (a sliver's).
func (o *solid) sampleCount(t int32, spacing float64) int {
	sz := o.triangleSize(t)
	n := max(sz.twiceArea/(spacing*spacing), sz.long/spacing, 1)
	return int(min(n, 1<<22))
}
