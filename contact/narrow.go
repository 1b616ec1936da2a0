package contact

import (
	"math"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// The narrow phase works in the frame of P, the compliant body, with the
// other body Q placed by X_PQ; emit maps each polygon to world.

// overlapCompliant is the broad-phase node test for two compliant bodies:
// boxes that meet and pressure ranges that meet.
func (e *Evaluator) overlapCompliant(i, j int32) bool {
	return e.rangesMeet(e.p.gNode[2*i:2*i+2], e.q.gNode[2*j:2*j+2]) &&
		boxesMeet(e.p.tree.Bounds[6*i:6*i+6], e.qNode(j))
}

// overlapRigid is the broad-phase node test against a rigid body.
func (e *Evaluator) overlapRigid(i, j int32) bool {
	return boxesMeet(e.p.tree.Bounds[6*i:6*i+6], e.qNode(j))
}

// boxesMeet reports whether boxes a and b (min xyz, max xyz) meet.
func boxesMeet(a, b []float64) bool {
	return a[0] <= b[3] && b[0] <= a[3] && a[1] <= b[4] && b[1] <= a[4] && a[2] <= b[5] && b[2] <= a[5]
}

// tetP loads tet t of P.
func (e *Evaluator) tetP(t int32, v *[4]geom.Vec) {
	el, pos := e.p.elems[4*t:4*t+4], e.p.pos
	for k := range 4 {
		v[k] = geom.At(pos, el[k])
	}
}

// straddles reports whether s takes both signs in the sense of
// polygon.slice: some value > 0 and some ≤ 0.
func straddles(s *[4]float64) bool {
	pos := 0
	for _, x := range s {
		if x > 0 {
			pos++
		}
	}
	return pos > 0 && pos < 4
}

// rangesMeet reports whether pressure ranges E_P·[gp] and E_Q·[gq] meet:
// only then can the two regions hold a point of equal pressure.
func (e *Evaluator) rangesMeet(gp, gq []float64) bool {
	return e.eP*gp[1] >= e.eQ*gq[0] && e.eQ*gq[1] >= e.eP*gp[0]
}

// leaves handles leaf i of P's tree against leaf j of Q's: each element
// of j whose box (and, for a compliant Q, pressure range) meets leaf i's,
// against each tet of i.
func (e *Evaluator) leaves(i, j int32) bool {
	P, Q := e.p, e.q
	fi, ci := P.tree.Nodes[2*i], P.tree.Nodes[2*i+1]
	fj, cj := Q.tree.Nodes[2*j], Q.tree.Nodes[2*j+1]
	compliant := Q.kind == Compliant
	for b := fj; b < fj+cj; b++ {
		if compliant && !e.rangesMeet(P.gNode[2*i:2*i+2], Q.gRange[2*b:2*b+2]) {
			continue
		}
		qe := e.qElem(b)
		if !boxesMeet(P.tree.Bounds[6*i:6*i+6], qe[qBox:qBox+6]) {
			continue
		}
		for a := fi; a < fi+ci; a++ {
			if compliant {
				e.pairCompliant(a, b, qe)
			} else {
				e.pairRigid(a, b, qe)
			}
		}
	}
	return true
}

// pairCompliant handles tet a of P against tet b of Q (cached as qe), both
// compliant: the equal-pressure plane sliced by a and clipped by b.
func (e *Evaluator) pairCompliant(a, b int32, qe []float64) {
	P, Q := e.p, e.q
	if !e.rangesMeet(P.gRange[2*a:2*a+2], Q.gRange[2*b:2*b+2]) ||
		!boxesMeet(P.boxes[6*a:6*a+6], qe[qBox:qBox+6]) {
		return
	}
	e.cands++
	var vq [4]geom.Vec
	for k := range 4 {
		vq[k] = geom.Vec{qe[qVerts+3*k], qe[qVerts+3*k+1], qe[qVerts+3*k+2]}
	}
	fp := P.field[4*a : 4*a+4]
	gp := geom.Vec{e.eP * fp[0], e.eP * fp[1], e.eP * fp[2]}
	gq, cq := geom.Vec{qe[qField], qe[qField+1], qe[qField+2]}, qe[qField+3]
	// p_P − p_Q = n·x + d: positive on P's deep side.
	n := geom.Sub(gp, gq)
	d := e.eP*fp[3] - cq
	// The polygon lies in both tets, so in the intersection of their
	// boxes: skip the pair if the plane misses that box (a cheap test
	// before the vertex tests).
	pb, qb := P.boxes[6*a:6*a+6], qe[qBox:qBox+6]
	var sc, sr float64
	for k := range 3 {
		lo, hi := max(pb[k], qb[k]), min(pb[3+k], qb[3+k])
		sc += n[k] * (lo + hi)
		sr += math.Abs(n[k]) * (hi - lo)
	}
	if math.Abs(sc+2*d) > sr*(1+0x1p-40)+0x1p-40*(math.Abs(sc)+2*math.Abs(d)) {
		return
	}
	var sq [4]float64
	for k := range 4 {
		sq[k] = geom.Dot(n, vq[k]) + d
	}
	if !straddles(&sq) {
		return
	}
	var vp [4]geom.Vec
	e.tetP(a, &vp)
	var sp [4]float64
	for k := range 4 {
		sp[k] = geom.Dot(n, vp[k]) + d
	}
	if !straddles(&sp) {
		return
	}
	e.poly.slice(&vp, &sp)
	poly := clipByPlanes(&e.poly, &e.tmp, qFacePlanes(qe))
	if poly.n < 3 {
		return
	}
	// The drop rule, checked only for pairs that would give a polygon.
	nn := geom.Norm(n)
	if lp := geom.Norm(gp); lp > 0 && geom.Dot(n, gp) < e.cosMax*nn*lp {
		e.dropped++
		return
	}
	if lq := geom.Norm(gq); lq > 0 && -geom.Dot(n, gq) < e.cosMax*nn*lq {
		e.dropped++
		return
	}
	e.emit(poly, geom.Scale(1/nn, n), gp, e.eP*fp[3], a, b)
}

// pairRigid handles tet a of P against triangle b of the rigid Q (cached
// as qe): the triangle clipped by the tet.
func (e *Evaluator) pairRigid(a, b int32, qe []float64) {
	P := e.p
	if !boxesMeet(P.boxes[6*a:6*a+6], qe[qBox:qBox+6]) {
		return
	}
	e.cands++
	poly := &e.poly
	for k := range 3 {
		poly.v[k] = geom.Vec{qe[qVerts+3*k], qe[qVerts+3*k+1], qe[qVerts+3*k+2]}
	}
	poly.n = 3
	n := geom.Cross(geom.Sub(poly.v[1], poly.v[0]), geom.Sub(poly.v[2], poly.v[0]))
	var vp [4]geom.Vec
	e.tetP(a, &vp)
	// Sign convention of polygon.slice: a tet with a face in the triangle's
	// plane takes part only if its fourth vertex lies on the outer side, so
	// a triangle in a face shared by two tets counts once.
	var sp [4]float64
	for k := range 4 {
		sp[k] = geom.Dot(n, geom.Sub(vp[k], poly.v[0]))
	}
	nn := geom.Norm(n)
	if !straddles(&sp) || nn == 0 {
		return
	}
	clipped := clipByPlanes(poly, &e.tmp, e.pFaces(a))
	fp := P.field[4*a : 4*a+4]
	e.emit(clipped, geom.Scale(1/nn, n), geom.Vec{e.eP * fp[0], e.eP * fp[1], e.eP * fp[2]}, e.eP*fp[3], a, b)
}

// tetHalfSpace handles tet a of P against the half-space Q: the tet sliced
// by Q's boundary plane.
func (e *Evaluator) tetHalfSpace(a int32) bool {
	e.cands++
	X := &e.X_PQ
	n := geom.Vec{X.R[2], X.R[5], X.R[8]} // Q's +z in P
	var vp [4]geom.Vec
	e.tetP(a, &vp)
	var sp [4]float64
	for k := range 4 {
		sp[k] = geom.Dot(n, geom.Sub(vp[k], X.P))
	}
	if !straddles(&sp) {
		return true
	}
	e.poly.slice(&vp, &sp)
	fp := e.p.field[4*a : 4*a+4]
	e.emit(&e.poly, n, geom.Vec{e.eP * fp[0], e.eP * fp[1], e.eP * fp[2]}, e.eP*fp[3], a, -1)
	return true
}

// emit appends polygon poly (in P's frame, counterclockwise about the unit
// normal nhat, which points from Q into P) to the surface, with its area
// centroid and the static pressure p0 = g·x + c at each vertex. Polygons
// of zero area are dropped: they contribute nothing. On the way it
// integrates p0 and p0·x over the polygon exactly (a fan from its first
// vertex, closed forms for a linear integrand), for the static wrench.
func (e *Evaluator) emit(poly *polygon, nhat, g geom.Vec, c float64, a, b int32) {
	poly.dedup()
	if poly.n < 3 {
		return
	}
	var pv [maxPolyVerts]float64
	for k := range poly.n {
		pv[k] = geom.Dot(g, poly.v[k]) + c
	}
	v0, p0 := poly.v[0], pv[0]
	var area2, ip float64
	var cen, ipx geom.Vec
	for k := 1; k+1 < poly.n; k++ {
		v1, v2 := poly.v[k], poly.v[k+1]
		u, w := geom.Sub(v1, v0), geom.Sub(v2, v0)
		a2 := geom.Dot(nhat, geom.Cross(u, w))
		area2 += a2
		// ∫p = A·Σpᵢ/3 and ∫p·x = A/12·(Σ pᵢxᵢ + (Σ pᵢ)(Σ xᵢ)) on a triangle.
		p1, p2 := pv[k], pv[k+1]
		sp := p0 + p1 + p2
		ip += a2 * sp
		for i := range 3 {
			cen[i] += a2 * (u[i] + w[i])
			ipx[i] += a2 * (p0*v0[i] + p1*v1[i] + p2*v2[i] + sp*(v0[i]+v1[i]+v2[i]))
		}
	}
	if !(area2 > 0) {
		return
	}
	for i := range 3 {
		cen[i] = v0[i] + cen[i]/(3*area2)
	}
	s := &e.surf
	X := &e.X_WP
	for k := 0; k <= poly.n; k++ {
		x, p := cen, geom.Dot(g, cen)+c
		if k < poly.n {
			x, p = poly.v[k], pv[k]
		}
		// Round-off can take p a hair below 0 at the surface of a body.
		e.p0 = append(e.p0, max(p, 0))
		w := X.Apply(x)
		s.Vertices = append(s.Vertices, w[0], w[1], w[2])
	}
	nw := X.Rotate(nhat)
	s.Normals = append(s.Normals, nw[0], nw[1], nw[2])
	s.Areas = append(s.Areas, area2/2)
	s.Start = append(s.Start, int32(len(s.Vertices)/3))
	s.ElementA = append(s.ElementA, e.p.id[a])
	if b >= 0 {
		b = e.q.id[b]
	}
	s.ElementB = append(s.ElementB, b)
	// In world: ∫p·x_W = R·∫p·x_P + p_WP·∫p.
	ix := X.Rotate(geom.Scale(1.0/24, ipx))
	ipW := ip / 6
	e.static = append(e.static, ipW, ix[0]+X.P[0]*ipW, ix[1]+X.P[1]*ipW, ix[2]+X.P[2]*ipW)
}
