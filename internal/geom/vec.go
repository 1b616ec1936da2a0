package geom

import "math"

// Vec is a point or vector in R³.
type Vec = [3]float64

// Sub returns a − b.
func Sub(a, b Vec) Vec { return Vec{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }

// Add returns a + b.
func Add(a, b Vec) Vec { return Vec{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }

// Scale returns s·a.
func Scale(s float64, a Vec) Vec { return Vec{s * a[0], s * a[1], s * a[2]} }

// Dot returns a·b.
func Dot(a, b Vec) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

// Cross returns a × b.
func Cross(a, b Vec) Vec {
	return Vec{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// Norm returns |a|.
func Norm(a Vec) float64 { return math.Sqrt(Dot(a, a)) }

// Dist2 returns |a − b|².
func Dist2(a, b Vec) float64 { d := Sub(a, b); return Dot(d, d) }

// At returns point i of a flat xyz slice.
func At(xyz []float64, i int32) Vec {
	j := 3 * int(i)
	return Vec{xyz[j], xyz[j+1], xyz[j+2]}
}

// TetVolume returns the signed volume of tetrahedron abcd, positive when
// (b−a)×(c−a)·(d−a) > 0. It is a float estimate; use Orient3D for signs.
func TetVolume(a, b, c, d Vec) float64 {
	return Dot(Cross(Sub(b, a), Sub(c, a)), Sub(d, a)) / 6
}
