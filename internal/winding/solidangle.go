package winding

import (
	"math"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// Triangle returns the winding number contribution of triangle abc at p:
// its signed solid angle seen from p divided by 4π. It is positive when p
// lies on the side the triangle's normal (b−a)×(c−a) points away from, so a
// closed outward-oriented surface sums to 1 at points inside it.
//
// It uses the formula of Van Oosterom and Strackee (1983),
// tan(Ω/2) = a·(b×c) / (|a||b||c| + (a·b)|c| + (a·c)|b| + (b·c)|a|),
// with a, b, c the corners relative to p, through atan2 so every quadrant
// is right. At a corner of the triangle both arguments vanish and the
// result is 0, never NaN.
func Triangle(p, a, b, c geom.Vec) float64 {
	a, b, c = geom.Sub(a, p), geom.Sub(b, p), geom.Sub(c, p)
	la, lb, lc := geom.Norm(a), geom.Norm(b), geom.Norm(c)
	num := geom.Dot(a, geom.Cross(b, c))
	den := la*lb*lc + geom.Dot(a, b)*lc + geom.Dot(a, c)*lb + geom.Dot(b, c)*la
	return math.Atan2(num, den) / (2 * math.Pi)
}

// BruteForce returns the winding number at p of the triangles (three
// vertex indices each) over positions by summing Triangle over all of
// them: the exact reference the hierarchical Tree approximates.
func BruteForce(positions []float64, triangles []int32, p geom.Vec) float64 {
	var w float64
	for t := 0; t+2 < len(triangles); t += 3 {
		w += Triangle(p, geom.At(positions, triangles[t]), geom.At(positions, triangles[t+1]), geom.At(positions, triangles[t+2]))
	}
	return w
}
