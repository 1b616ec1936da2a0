package tetgen

import "github.com/pfmesh/pfmesh/internal/geom"

// tetMeetsTriangle reports whether closed tet t meets the open triangle
// a, b, c (its relative interior), exactly, with orientation tests only.
//
// Let σ be each tet vertex's side of the triangle's plane. If the tet
// lies on one side, it meets the triangle only through what it has in
// the plane: a face, an edge or a vertex, tested in 2D. Otherwise it cuts
// the plane in a convex polygon P whose corners are the crossing points
// of its edges (and its vertices on the plane), and P meets the open
// triangle unless a separating line exists (2D separating axes): a line
// through a triangle edge with every corner of P on or outside it, or a
// face plane of the tet with every triangle vertex on or outside it. The
// side of the crossing point of edge (lo, hi) with respect to the
// triangle edge u→w is the sign of Orient3D(lo, hi, u, w), so no crossing
// point is ever computed.
func (m *tri) tetMeetsTriangle(t int32, a, b, c int32) bool {
	q := m.tet(t)
	tri := [3]int32{a, b, c}
	var sig [4]int
	var up, on []int32
	pos, neg := false, false
	for i, v := range q {
		sig[i] = geom.Orient3DAt(m.xyz, a, b, c, v)
		switch sig[i] {
		case 1:
			pos = true
			up = append(up, v)
		case -1:
			neg = true
		default:
			on = append(on, v)
		}
	}
	// A face plane of the tet with the whole triangle on or outside it
	// separates (unless the triangle lies in it, handled in 2D below).
	for k := 0; k < 4; k++ {
		zeros, outs := 0, 0
		for _, p := range tri {
			switch m.orientFace(t, k, p) {
			case 0:
				zeros++
			case 1:
				outs++
			}
		}
		if zeros < 3 && zeros+outs == 3 {
			return false
		}
	}
	if !(pos && neg) {
		// In-plane contact only. An off-plane vertex of the tet serves as
		// the eye of the 2D tests.
		var eye int32
		for i, v := range q {
			if sig[i] != 0 {
				eye = v
			}
		}
		inner := func(u, w, x int32) int { return geom.Orient3DAt(m.xyz, u, w, x, eye) * m.planeSign(a, b, c, eye) }
		switch len(on) {
		case 3:
			return overlap2D(tri, [3]int32{on[0], on[1], on[2]}, inner)
		case 2:
			return segmentMeetsOpenTriangle(on[0], on[1], tri, inner)
		case 1:
			return inner(a, b, on[0]) > 0 && inner(b, c, on[0]) > 0 && inner(c, a, on[0]) > 0
		}
		return false
	}
	// P's corners: crossing points and on-plane vertices; P is separated
	// by the line of edge u→w when no corner is strictly inside it.
	hi := up[0]
	for e := 0; e < 3; e++ {
		u, w := tri[e], tri[(e+1)%3]
		inside := false
		for i := 0; i < 4 && !inside; i++ {
			switch sig[i] {
			case 0:
				inside = geom.Orient3DAt(m.xyz, u, w, q[i], hi) > 0
			case -1:
				for j := 0; j < 4 && !inside; j++ {
					if sig[j] == 1 {
						inside = geom.Orient3DAt(m.xyz, q[i], q[j], u, w) > 0
					}
				}
			}
		}
		if !inside {
			return false
		}
	}
	return true
}

// planeSign is +1 when x lies on the side of plane a, b, c its normal
// points to, −1 on the other.
func (m *tri) planeSign(a, b, c, x int32) int { return geom.Orient3DAt(m.xyz, a, b, c, x) }

// overlap2D reports whether the interiors of two coplanar triangles meet;
// inner(u, w, x) > 0 when x is left of u→w seen from the first triangle's
// normal side. The second triangle may run either way.
func overlap2D(s, f [3]int32, inner func(u, w, x int32) int) bool {
	if inner(f[0], f[1], f[2]) < 0 {
		f[1], f[2] = f[2], f[1]
	}
	sep := func(p, q [3]int32) bool {
		for k := 0; k < 3; k++ {
			u, w := p[k], p[(k+1)%3]
			all := true
			for _, x := range q {
				if inner(u, w, x) > 0 {
					all = false
					break
				}
			}
			if all {
				return true
			}
		}
		return false
	}
	return !sep(s, f) && !sep(f, s)
}

// segmentMeetsOpenTriangle reports whether the closed segment p–r meets
// the open triangle s, all coplanar.
func segmentMeetsOpenTriangle(p, r int32, s [3]int32, inner func(u, w, x int32) int) bool {
	for k := 0; k < 3; k++ {
		u, w := s[k], s[(k+1)%3]
		if inner(u, w, p) <= 0 && inner(u, w, r) <= 0 {
			return false
		}
	}
	// The segment's line separates when the triangle lies on one side.
	l, rr := false, false
	for _, x := range s {
		switch inner(p, r, x) {
		case 1:
			l = true
		case -1:
			rr = true
		}
	}
	return l && rr
}
