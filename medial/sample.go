package medial

import (
	"math"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// trianglePoints returns k² points strictly inside triangle t — the
// centroids of its split into k² congruent triangles — so no sample sits
// on an edge or corner, where the normal is undefined.
func (o *solid) trianglePoints(t int32, k int, dst []geom.Vec) []geom.Vec {
	id := o.tris[3*t : 3*t+3]
	a, b, c := geom.At(o.pos, id[0]), geom.At(o.pos, id[1]), geom.At(o.pos, id[2])
	ab, ac := geom.Sub(b, a), geom.Sub(c, a)
	at := func(u, v float64) geom.Vec {
		return geom.Add(a, geom.Add(geom.Scale(u/float64(k), ab), geom.Scale(v/float64(k), ac)))
	}
	for i := range k {
		for j := 0; i+j < k; j++ {
			dst = append(dst, at(float64(i)+1.0/3, float64(j)+1.0/3))
			if i+j < k-1 {
				dst = append(dst, at(float64(i)+2.0/3, float64(j)+2.0/3))
			}
		}
	}
	return dst
}

// splitFor returns the split k of triangle t (k² samples) that spaces
// its samples about spacing apart: k² sub-triangles of about spacing²/2
// each, and at least a quarter of that resolution along the longest edge
// of a sliver.
func (o *solid) splitFor(t int32, spacing float64) int {
	sz := o.triangleSize(t)
	k := max(math.Sqrt(sz.twiceArea)/spacing, sz.long/(4*spacing))
	return max(1, min(2048, int(math.Ceil(k))))
}
