package medial

import (
	"math"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// thinPoints returns the points of pts (x, y, z each) that lie at least
// d > 0 from every point kept before them, in order: a hash of cells of
// size d, so that the points closer than d to a point lie in the 27 cells
// around its own.
func thinPoints(pts []float64, d float64) []float64 {
	cells := map[[3]int64][]geom.Vec{}
	var out []float64
	for i := 0; i < len(pts); i += 3 {
		p := geom.Vec{pts[i], pts[i+1], pts[i+2]}
		var key [3]int64
		for k := range 3 {
			key[k] = int64(math.Floor(p[k] / d))
		}
		if !hasWithin(cells, key, p, d*d) {
			cells[key] = append(cells[key], p)
			out = append(out, p[:]...)
		}
	}
	return out
}

// hasWithin reports whether a point of the cells around key lies closer
// to p than √d2.
func hasWithin(cells map[[3]int64][]geom.Vec, key [3]int64, p geom.Vec, d2 float64) bool {
	for dx := int64(-1); dx <= 1; dx++ {
		for dy := int64(-1); dy <= 1; dy++ {
			for dz := int64(-1); dz <= 1; dz++ {
				for _, q := range cells[[3]int64{key[0] + dx, key[1] + dy, key[2] + dz}] {
					if geom.Dist2(p, q) < d2 {
						return true
					}
				}
			}
		}
	}
	return false
}
