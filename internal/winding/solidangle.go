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
//
// It is written out in scalars (every winding query sums it over the
// triangles near the point, and the vector form copied [3]float64 values
// through memory); the operations are the vector form's, in its order.
func Triangle(p, a, b, c geom.Vec) float64 { return triangle(&p, &a, &b, &c) }

// triangle is Triangle on pointers.
func triangle(p, a, b, c *geom.Vec) float64 {
	ax, ay, az := a[0]-p[0], a[1]-p[1], a[2]-p[2]
	bx, by, bz := b[0]-p[0], b[1]-p[1], b[2]-p[2]
	cx, cy, cz := c[0]-p[0], c[1]-p[1], c[2]-p[2]
	la := math.Sqrt(ax*ax + ay*ay + az*az)
	lb := math.Sqrt(bx*bx + by*by + bz*bz)
	lc := math.Sqrt(cx*cx + cy*cy + cz*cz)
	num := ax*(by*cz-bz*cy) + ay*(bz*cx-bx*cz) + az*(bx*cy-by*cx)
	den := la*lb*lc + (ax*bx+ay*by+az*bz)*lc + (ax*cx+ay*cy+az*cz)*lb + (bx*cx+by*cy+bz*cz)*la
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
