package tetmesh

import (
	"math"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// DihedralSines returns the sines of the six dihedral angles of tet abcd,
// in the order of TetEdges: small for an angle near 0 and for one near
// 180°, so the smallest is a flatness measure without arc cosines. A
// degenerate tet (a zero-area face) gets 0 where the angle is undefined.
func DihedralSines(a, b, c, d geom.Vec) [6]float64 {
	cs := dihedralCosines(a, b, c, d)
	var s [6]float64
	for i, x := range cs {
		if v := 1 - x*x; v > 0 {
			s[i] = math.Sqrt(v)
		}
	}
	return s
}
