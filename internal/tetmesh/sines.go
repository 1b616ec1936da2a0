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

// SineDiff is a dihedral sine and its forward differences in the
// coordinates of a moving vertex (DihedralSineDiffs).
type SineDiff struct {
	F float64
	G geom.Vec
}

// DihedralSineDiffs writes to out, when the smallest of
// DihedralSines(p[0], p[1], p[2], p[3]) is at most limit, those sines
// (F) and their forward differences in vertex k: G[ax] = (s′ − s)/h,
// with s′ the sine DihedralSines gives with h added to p[k][ax]. All of
// them are the same bits as DihedralSines', with less work: the face
// opposite k keeps its normal and length when k moves, each other face
// the component of its normal along the move (movedNormal), the sines' clamp
// is left out (a cosine beyond ±1 gives a sine of 0 either way), and
// most tets with every sine above limit are ruled out by products
// before any square root or division. It reports whether it wrote them
// (out is left as it was when every sine is above limit). Smoothing's
// ascent calls it for every tet of every star it moves, so it is
// written out in scalars like dihedralCosines, and writes in place:
// returned by value, the sines took a fifth as long again to copy into
// the ascent's list as to compute.
func DihedralSineDiffs(out *[6]SineDiff, p *[4]geom.Vec, k int, h, limit float64) bool {
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
	// Moving k along axis ax changes, in each face through k, only the
	// ax components of the edges u, v that faceNormal crosses, so the
	// other edge components are taken once and movedNormal keeps the
	// normal's ax component.
	for ax := range 3 {
		c := [4]float64{p[0][ax], p[1][ax], p[2][ax], p[3][ax]}
		c[k] += h
		m0x, m0y, m0z, m0 := n0x, n0y, n0z, l0
		m1x, m1y, m1z, m1 := n1x, n1y, n1z, l1
		m2x, m2y, m2z, m2 := n2x, n2y, n2z, l2
		m3x, m3y, m3z, m3 := n3x, n3y, n3z, l3
		if k != 0 {
			m0x, m0y, m0z = movedNormal(ax, n0x, n0y, n0z, u0x, u0y, u0z, v0x, v0y, v0z, c[2]-c[1], c[3]-c[1])
			m0 = math.Sqrt(m0x*m0x + m0y*m0y + m0z*m0z)
		}
		if k != 1 {
			m1x, m1y, m1z = movedNormal(ax, n1x, n1y, n1z, u1x, u1y, u1z, v1x, v1y, v1z, c[3]-c[0], c[2]-c[0])
			m1 = math.Sqrt(m1x*m1x + m1y*m1y + m1z*m1z)
		}
		if k != 2 {
			m2x, m2y, m2z = movedNormal(ax, n2x, n2y, n2z, u2x, u2y, u2z, v2x, v2y, v2z, c[1]-c[0], c[3]-c[0])
			m2 = math.Sqrt(m2x*m2x + m2y*m2y + m2z*m2z)
		}
		if k != 3 {
			m3x, m3y, m3z = movedNormal(ax, n3x, n3y, n3z, u3x, u3y, u3z, v3x, v3y, v3z, c[2]-c[0], c[1]-c[0])
			m3 = math.Sqrt(m3x*m3x + m3y*m3y + m3z*m3z)
		}
		t := sinesFrom(m2x*m3x+m2y*m3y+m2z*m3z, m1x*m3x+m1y*m3y+m1z*m3z, m1x*m2x+m1y*m2y+m1z*m2z,
			m0x*m3x+m0y*m3y+m0z*m3z, m0x*m2x+m0y*m2y+m0z*m2z, m0x*m1x+m0y*m1y+m0z*m1z, m0, m1, m2, m3)
		for j := range t {
			out[j].G[ax] = (t[j] - s[j]) / h
		}
	}
	for j := range s {
		out[j].F = s[j]
	}
	return true
}

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

// movedNormal returns the cross product u×v = n with the ax components
// of u and v replaced by ua and va: the same bits as crossing the
// replaced edges, without the products the ax component of n is made
// of, which it keeps.
func movedNormal(ax int, nx, ny, nz, ux, uy, uz, vx, vy, vz, ua, va float64) (x, y, z float64) {
	switch ax {
	case 0:
		return nx, uz*va - ua*vz, ua*vy - uy*va
	case 1:
		return ua*vz - uz*va, ny, ux*va - ua*vx
	}
	return uy*va - ua*vy, ua*vx - ux*va, nz
}
