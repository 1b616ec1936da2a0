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

// SineGrad is a dihedral sine and its gradient in the position of a
// moving vertex (DihedralSineGrads).
type SineGrad struct {
	F float64
	G geom.Vec
}

// DihedralSineGrads writes to out, when the smallest of
// DihedralSines(p[0], p[1], p[2], p[3]) is at most limit, those sines
// (F, the same bits) and their gradients in the position of vertex k
// (G; zero where a sine is 0). Most tets with every sine above limit
// are ruled out by products before any square root or division. It
// reports whether it wrote them (out is left as it was when every sine
// is above limit). Smoothing's ascent calls it for every tet of every
// star it moves, so it is written out in scalars like dihedralCosines,
// and writes in place.
//
// A face's normal n (its edges' cross product, as dihedralCosines takes
// it) is a×b + b×c + c×a over its vertices in order, so moving one of
// them by e changes n by e×w, w = next − prev, its neighbours in that
// order: ∇(n·m) = w×m. The sine s of the angle between faces i and j
// is √(1 − x²), x = nᵢ·nⱼ/(|nᵢ||nⱼ|), so ∇s = −(x/s)∇x with
// ∇x = (wᵢ×nⱼ + wⱼ×nᵢ)/(|nᵢ||nⱼ|) − x(wᵢ×nᵢ/|nᵢ|² + wⱼ×nⱼ/|nⱼ|²); the
// face opposite k keeps its normal (w = 0). Forward differences, which
// this replaced, took three more sets of sines, twice the time.
func DihedralSineGrads(out *[6]SineGrad, p *[4]geom.Vec, k int, limit float64) bool {
	u0x, u0y, u0z, v0x, v0y, v0z := faceEdges(p[1], p[2], p[3])
	u1x, u1y, u1z, v1x, v1y, v1z := faceEdges(p[0], p[3], p[2])
	u2x, u2y, u2z, v2x, v2y, v2z := faceEdges(p[0], p[1], p[3])
	u3x, u3y, u3z, v3x, v3y, v3z := faceEdges(p[0], p[2], p[1])
	n0x, n0y, n0z := cross(u0x, u0y, u0z, v0x, v0y, v0z)
	n1x, n1y, n1z := cross(u1x, u1y, u1z, v1x, v1y, v1z)
	n2x, n2y, n2z := cross(u2x, u2y, u2z, v2x, v2y, v2z)
	n3x, n3y, n3z := cross(u3x, u3y, u3z, v3x, v3y, v3z)
	q0 := n0x*n0x + n0y*n0y + n0z*n0z
	q1 := n1x*n1x + n1y*n1y + n1z*n1z
	q2 := n2x*n2x + n2y*n2y + n2z*n2z
	q3 := n3x*n3x + n3y*n3y + n3z*n3z
	c23 := n2x*n3x + n2y*n3y + n2z*n3z
	c13 := n1x*n3x + n1y*n3y + n1z*n3z
	c12 := n1x*n2x + n1y*n2y + n1z*n2z
	c03 := n0x*n3x + n0y*n3y + n0z*n3z
	c02 := n0x*n2x + n0y*n2y + n0z*n2z
	c01 := n0x*n1x + n0y*n1y + n0z*n1z
	// sin² = 1 − (nᵢ·nⱼ)²/(|nᵢ|²|nⱼ|²). A margin of 1e-10 on sin² is far
	// more than the rounding of either side here, so a tet this passes
	// has every sine above limit by more than DihedralSines' rounding.
	// NaN and a zero-area face (0 < 0) pass nothing.
	b := limit + 1e-9
	if f := 1 - b*b - 1e-10; c23*c23 < f*q2*q3 && c13*c13 < f*q1*q3 && c12*c12 < f*q1*q2 &&
		c03*c03 < f*q0*q3 && c02*c02 < f*q0*q2 && c01*c01 < f*q0*q1 {
		return false
	}
	l0, l1, l2, l3 := math.Sqrt(q0), math.Sqrt(q1), math.Sqrt(q2), math.Sqrt(q3)
	s := sinesFrom(c23, c13, c12, c03, c02, c01, l0, l1, l2, l3)
	if min(s[0], s[1], s[2], s[3], s[4], s[5]) > limit {
		return false
	}
	n := [4][3]float64{{n0x, n0y, n0z}, {n1x, n1y, n1z}, {n2x, n2y, n2z}, {n3x, n3y, n3z}}
	sineGrads(out, p, k, &s, &n, &[6]float64{c23, c13, c12, c03, c02, c01}, &[4]float64{q0, q1, q2, q3}, &[4]float64{l0, l1, l2, l3})
	return true
}

// sineGrads writes DihedralSineGrads' out from the tet's sines s, its
// face normals n, their dot products c (in the sines' order), squared
// lengths q and lengths l: a function of its own, so that the test of
// the limit before it, which rules out most tets, stays small.
func sineGrads(out *[6]SineGrad, p *[4]geom.Vec, k int, s *[6]float64, n *[4][3]float64, c *[6]float64, q, l *[4]float64) {
	// w of the faces through k, in TetFaces' order, and wᵢ×nᵢ/|nᵢ|².
	var w, r [4][3]float64
	switch k {
	case 0:
		w[1], w[2], w[3] = geom.Sub(p[3], p[2]), geom.Sub(p[1], p[3]), geom.Sub(p[2], p[1])
	case 1:
		w[0], w[2], w[3] = geom.Sub(p[2], p[3]), geom.Sub(p[3], p[0]), geom.Sub(p[0], p[2])
	case 2:
		w[0], w[1], w[3] = geom.Sub(p[3], p[1]), geom.Sub(p[0], p[3]), geom.Sub(p[1], p[0])
	default:
		w[0], w[1], w[2] = geom.Sub(p[1], p[2]), geom.Sub(p[2], p[0]), geom.Sub(p[0], p[1])
	}
	for i := range 4 {
		if q[i] > 0 {
			iq := 1 / q[i]
			x, y, z := cross(w[i][0], w[i][1], w[i][2], n[i][0], n[i][1], n[i][2])
			r[i] = [3]float64{x * iq, y * iq, z * iq}
		}
	}
	for e := range 6 {
		i, j := sineFaces[e][0]&3, sineFaces[e][1]&3 // &3: no bounds checks
		out[e].F = s[e]
		if !(s[e] > 0) {
			out[e].G = geom.Vec{}
			continue
		}
		wi, wj, ni, nj := &w[i], &w[j], &n[i], &n[j]
		gx, gy, gz := cross(wi[0], wi[1], wi[2], nj[0], nj[1], nj[2])
		hx, hy, hz := cross(wj[0], wj[1], wj[2], ni[0], ni[1], ni[2])
		il := 1 / (l[i] * l[j])
		x := c[e] * il
		m := -x / s[e]
		out[e].G = geom.Vec{m * ((gx+hx)*il - x*(r[i][0]+r[j][0])), m * ((gy+hy)*il - x*(r[i][1]+r[j][1])), m * ((gz+hz)*il - x*(r[i][2]+r[j][2]))}
	}
}

// sineFaces holds, for each sine of DihedralSines, the two faces (by
// TetFaces' order) whose angle it is.
var sineFaces = [6][2]int{{2, 3}, {1, 3}, {1, 2}, {0, 3}, {0, 2}, {0, 1}}

// sinesFrom returns DihedralSines from the dot products cᵢⱼ of the face
// normals of TetFaces and their lengths lᵢ, computed as dihedralCosines
// and DihedralSines compute them.
func sinesFrom(c23, c13, c12, c03, c02, c01, l0, l1, l2, l3 float64) [6]float64 {
	var s [6]float64
	for i, x := range [6]float64{c23 / (l2 * l3), c13 / (l1 * l3), c12 / (l1 * l2), c03 / (l0 * l3), c02 / (l0 * l2), c01 / (l0 * l1)} {
		if v := 1 - x*x; v > 0 {
			s[i] = math.Sqrt(v)
		}
	}
	return s
}

// faceEdges returns the edges q−p and r−p that faceNormal(p, q, r)
// crosses (which spells them out itself: calling this, it no longer
// inlines).
func faceEdges(p, q, r geom.Vec) (ux, uy, uz, vx, vy, vz float64) {
	return q[0] - p[0], q[1] - p[1], q[2] - p[2], r[0] - p[0], r[1] - p[1], r[2] - p[2]
}
