package tetgen

import (
	"fmt"
	"math"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// Boundary recovery by conforming Delaunay refinement of the surface:
// Steiner points are added on subsegments and inside facets, and inserted
// into the Delaunay tetrahedralization, until every subsegment is an edge
// and every subface a face of it. The surface then separates the tets
// into inside and outside (see carve.go). Split points on input edges
// follow Shewchuk's concentric shells: a subsegment at an input vertex is
// split at a power-of-two distance from it, so that the subsegments of
// input edges meeting at small angles shrink in step and stop
// encroaching on each other instead of splitting forever.

// star appends to buf the live tets that have vertex v.
func (m *tri) star(v int32, buf []int32) []int32 {
	buf, _ = m.starFind(v, buf, nil)
	return buf
}

// starFind walks v's star as star does, into buf, but stops at the first
// tet t (in star's order) for which hit(t) holds (hit may be nil) and
// returns it, or −1. Boundary recovery asks of every subsegment whether
// it is an edge: the whole star of its end took most of the stage.
func (m *tri) starFind(v int32, buf []int32, hit func(t int32) bool) ([]int32, int32) {
	t0 := m.vt[v]
	buf = append(buf[:0], t0)
	m.mark[t0] = inCavity
	found := int32(-1)
	for i := 0; i < len(buf); i++ {
		t := buf[i]
		if hit != nil && hit(t) {
			found = t
			break
		}
		for k := int32(0); k < 4; k++ {
			if m.c[t<<3|k] == v {
				continue
			}
			n := m.c[t<<3|4|k]
			if n < noTet && m.crossSubface != nil {
				n = m.crossSubface(refSubface(n), 4*t+k)
			}
			if n < 0 {
				continue
			}
			u := n >> 2
			if m.mark[u] == 0 {
				m.mark[u] = inCavity
				buf = append(buf, u)
			}
		}
	}
	for _, t := range buf {
		m.mark[t] = 0
	}
	return buf, found
}

// findEdge reports whether a–b is an edge of the tetrahedralization.
func (ms *mesher) findEdge(a, b int32) bool {
	var t int32
	ms.buf, t = ms.m.starFind(a, ms.buf, func(t int32) bool {
		q := ms.m.tet(t)
		return q[0] == b || q[1] == b || q[2] == b || q[3] == b
	})
	return t >= 0
}

// findFace returns a face id 4·t+k of a tet with face {a, b, c}, or −1.
func (ms *mesher) findFace(a, b, c int32) int32 {
	m := ms.m
	face := int32(-1)
	ms.buf, _ = m.starFind(a, ms.buf, func(t int32) bool {
		mask := 0
		for k, v := range m.tet(t) {
			if v == a || v == b || v == c {
				mask |= 1 << k
			}
		}
		for k := int32(0); k < 4; k++ {
			if mask == 15^(1<<k) {
				face = 4*t + k
				return true
			}
		}
		return false
	})
	return face
}

// recoverSurface adds Steiner points until the surface is part of the
// tetrahedralization.
func (ms *mesher) recoverSurface() error {
	s := &ms.s
	splits := 0
	for {
		changed := false
		ms.protect()
		for f := int32(0); f < s.num(); f++ {
			for e := int32(0); e < 3; e++ {
				a, b := s.edge(f, e)
				if !s.isSeg(f, e) || a > b || ms.findEdge(a, b) {
					continue
				}
				changed = true
				if ms.conforming {
					if err := ms.splitSubsegment(f, e); err != nil {
						return err
					}
					continue
				}
				if ms.flipToEdge(a, b) {
					continue
				}
				if err := ms.forceSubsegment(f, e); err != nil {
					if err := ms.splitLocally(&splits, err, func() error { return ms.splitSubsegment(f, e) }); err != nil {
						return err
					}
				}
			}
		}
		if changed {
			continue
		}
		for f := int32(0); f < s.num(); f++ {
			q := s.sv[3*f : 3*f+3]
			if ms.findFace(q[0], q[1], q[2]) >= 0 {
				continue
			}
			changed = true
			if ms.conforming {
				if err := ms.splitMissingSubface(f); err != nil {
					return err
				}
				continue
			}
			if ms.flipToFace(q[0], q[1], q[2]) {
				continue
			}
			if err := ms.forceSubface(f); err != nil {
				if err := ms.splitLocally(&splits, err, func() error { return ms.splitMissingSubface(f) }); err != nil {
					return err
				}
			}
		}
		if !changed {
			ms.prot = protected{}
			return nil
		}
	}
}

// maxLocalSplits bounds how many subsegments and subfaces recovery by
// flips splits by Delaunay insertion where a forced insertion failed.
// A few such splits let the flips go on, with few Steiner points, on CAD
// parts where other subsegments block the forced insertions (the hinge:
// 175 Steiner points against 9 601 by conforming recovery); surfaces
// that need many more (fans of needle triangles, where each split leaves
// subfaces that flips cannot recover either) are recovered faster by
// conforming recovery from the start.
const maxLocalSplits = 100

// maxLocalDepth bounds chains of local splits, each splitting a simplex
// that has a vertex the last one made: Delaunay insertion in the
// non-Delaunay mesh that flips leave need not join the new point to the
// ends of the subsegment it splits, and a missing subface then has its
// subsegment halved again and again towards one end (FuzzBuild's seed
// close-segment-points: two chains of about 45 splits, which left
// Steiner points 7e−14 apart). The corpus's coarse builds that recover
// by flips need chains of at most 4 (the cura plate, merged).
const maxLocalDepth = 8

// splitLocally splits, by split, a simplex that flips and a forced
// insertion (which failed with forceErr) could not recover; splits counts
// such splits. It returns a recoveryError, so that Build starts over with
// conforming recovery, when split fails, after maxLocalSplits or in a
// chain deeper than maxLocalDepth, and in quality mode: Delaunay
// refinement from the non-Delaunay mesh that flips and local splits leave
// ends at smaller dihedral angles than from conforming recovery on the
// corpus parts this helps (docs/meshing.md).
func (ms *mesher) splitLocally(splits *int, forceErr error, split func() error) error {
	if !ms.opt.Coarse {
		return &recoveryError{forceErr}
	}
	if *splits++; *splits > maxLocalSplits {
		return &recoveryError{fmt.Errorf("%w (after %d local splits)", forceErr, maxLocalSplits)}
	}
	if ms.localDepth == nil {
		ms.localDepth = map[int32]int{}
	}
	ms.splitting = true
	err := split()
	ms.splitting = false
	if err != nil {
		return &recoveryError{err}
	}
	if d := ms.localDepth[int32(len(ms.kind)-1)]; d > maxLocalDepth {
		return &recoveryError{fmt.Errorf("%w (in a chain of %d local splits)", forceErr, d)}
	}
	return nil
}

// steinerBudget bounds the Steiner points boundary recovery may add
// before it gives up: it ends loops that small angles between nearby
// facets could otherwise make endless.
func (ms *mesher) steinerBudget() int { return 200*ms.nInput + 100000 }

// newSurfaceVertex adds a Steiner vertex at p of the given kind, lying in
// subface f or on its edge e, to the surface and to the Delaunay
// tetrahedralization.
func (ms *mesher) newSurfaceVertex(p geom.Vec, kind uint8, ref int32, f, e int32) (int32, error) {
	near := ms.s.sv[3*f]
	on := ms.on[near]
	if ms.rep.SteinerSegment+ms.rep.SteinerFacet >= ms.steinerBudget() {
		return -1, fmt.Errorf("tetgen: boundary recovery needs more than %d Steiner points near (%g, %g, %g); "+
			"facets meeting at a very small angle, or nearly touching parts of the surface, prevent it",
			ms.steinerBudget(), p[0], p[1], p[2])
	}
	depth := 0
	if ms.splitting {
		// One deeper than the deepest vertex of the simplex it splits.
		split := ms.s.sv[3*f : 3*f+3]
		if e >= 0 {
			a, b := ms.s.edge(f, e)
			split = []int32{a, b}
		}
		for _, u := range split {
			depth = max(depth, ms.localDepth[u])
		}
		depth++
	}
	v := ms.addVertex(p, kind, ref, on)
	if !ms.surfaceCavity(v, f, e) {
		ms.popVertex()
		return -1, fmt.Errorf("tetgen: internal error: no surface cavity for a Steiner point at (%g, %g, %g)", p[0], p[1], p[2])
	}
	if d := ms.m.insert(v, ms.m.vt[near]); d != -1 {
		ms.popVertex()
		if d < 0 {
			return -1, fmt.Errorf("tetgen: internal error: Steiner point at (%g, %g, %g) could not be inserted", p[0], p[1], p[2])
		}
		return -1, errTouches(ms.m.pos(d))
	}
	ms.surfFan(v)
	ms.countSteiner(kind)
	if ms.splitting {
		ms.localDepth[v] = depth
	}
	return v, nil
}

// countSteiner counts a new surface Steiner point of the given kind.
func (ms *mesher) countSteiner(kind uint8) {
	if kind == vSegment {
		ms.rep.SteinerSegment++
	} else {
		ms.rep.SteinerFacet++
	}
}

// errTouches reports a Steiner point that falls on an existing vertex.
func errTouches(p geom.Vec) error {
	return fmt.Errorf("tetgen: a Steiner point on the surface falls on a vertex at (%g, %g, %g): "+
		"the surface touches or intersects itself there", p[0], p[1], p[2])
}

// splitSubsegment splits subsegment e of subface f.
func (ms *mesher) splitSubsegment(f, e int32) error {
	a, b := ms.s.edge(f, e)
	p, ref, err := ms.segmentSplitPoint(a, b, recoverySearch)
	if err != nil {
		return err
	}
	_, err = ms.newSurfaceVertex(p, vSegment, ref, f, e)
	return err
}

// segmentSplitPoint chooses where to split subsegment a–b, which is not
// an edge of the Delaunay tetrahedralization because some vertex w lies
// in its diametral ball. Splitting where w's presence is answered keeps
// the split count proportional to the number of nearby vertices rather
// than to the inverse of the angles between segments (CAD surfaces fan
// long triangles at angles of 1e−5 degrees):
//   - if w lies on a segment that shares an input endpoint V with this
//     one (or is joined to V by an input edge), split at w's distance
//     from V — the two segments then have vertices at the same radii
//     from V, which never encroach each other (concentric shells);
//   - otherwise split at w's projection on the subsegment;
//   - with no such w, or a point too near an end, use the power-of-two
//     shell nearest the middle from an input end (Shewchuk), or the
//     midpoint.
//
// It returns the point and the input edge it lies on.
func (ms *mesher) segmentSplitPoint(a, b int32, search int) (geom.Vec, int32, error) {
	return ms.segmentSplitPointFor(a, b, ms.encroacher(a, b, search))
}

// segmentSplitPointFor is segmentSplitPoint with the encroaching vertex
// w given (−1 for none).
func (ms *mesher) segmentSplitPointFor(a, b, w int32) (geom.Vec, int32, error) {
	pa, pb := ms.m.pos(a), ms.m.pos(b)
	ref := ms.segmentOf(a, b)
	l := math.Sqrt(geom.Dist2(pa, pb))
	t := -1.0
	if w >= 0 {
		pw := ms.m.pos(w)
		ends := ms.segEnds[2*ref : 2*ref+2]
		t = geom.Dot(geom.Sub(pw, pa), geom.Sub(pb, pa)) / (l * l)
		for _, apex := range ends {
			if !ms.joined(w, apex) {
				continue
			}
			pv := ms.m.pos(apex)
			r := math.Sqrt(geom.Dist2(pv, pw))
			ra, rb := math.Sqrt(geom.Dist2(pv, pa)), math.Sqrt(geom.Dist2(pv, pb))
			t = (r - ra) / (rb - ra)
			break
		}
		if !(t > 0.02 && t < 0.98) {
			t = -1
		}
	}
	if t < 0 {
		t = 0.5
		switch ia, ib := ms.kind[a] == vInput, ms.kind[b] == vInput; {
		case ia && !ib:
			t = shell(l) / l
		case ib && !ia:
			t = 1 - shell(l)/l
		}
	}
	p := geom.Add(pa, geom.Scale(t, geom.Sub(pb, pa)))
	if p == pa || p == pb {
		return p, ref, fmt.Errorf("tetgen: cannot split the surface edge (%g, %g, %g)–(%g, %g, %g): "+
			"it is too short to hold a point between its ends", pa[0], pa[1], pa[2], pb[0], pb[1], pb[2])
	}
	return p, ref, nil
}

// Tets encroacher searches: widely in boundary recovery, where the split
// point decides how many more follow on CAD fans; near a–b in refinement,
// where the encroaching vertex is usually a neighbour of the subsegment
// and the search ran for every split.
const (
	recoverySearch = 128
	refineSearch   = 64
)

// joined reports whether vertex w lies on an input edge ending at input
// vertex v, or is joined to v by one.
func (ms *mesher) joined(w, v int32) bool {
	switch ms.kind[w] {
	case vSegment:
		e := ms.segEnds[2*ms.ref[w] : 2*ms.ref[w]+2]
		return e[0] == v || e[1] == v
	case vInput:
		_, ok := ms.segIndex[edgeKey(min(v, w), max(v, w))]
		return ok
	}
	return false
}

// encroacher returns the vertex inside the diametral ball of a–b that sees
// a–b at the largest angle, or −1. It searches the tets meeting the ball,
// starting around a, at most search of them.
func (ms *mesher) encroacher(a, b int32, search int) int32 {
	pa, pb := ms.m.pos(a), ms.m.pos(b)
	best, bestCos := int32(-1), 0.0
	ms.nearVertices(a, b, geom.Scale(0.5, geom.Add(pa, pb)), geom.Dist2(pa, pb)/4, search, func(w int32) bool {
		pw := ms.m.pos(w)
		u, v := geom.Sub(pa, pw), geom.Sub(pb, pw)
		if d := geom.Dot(u, v); d < 0 {
			if cos := d / math.Sqrt(geom.Dot(u, u)*geom.Dot(v, v)); cos < bestCos {
				best, bestCos = w, cos
			}
		}
		return false
	})
	return best
}

// nearVertices calls visit once for every vertex other than a and b of
// the tets that meet the ball of centre c and squared radius r2,
// searched from the star of a outwards, at most search tets, until
// visit returns true. It returns the tets it queued (the star of a, then
// the others in the order searched), valid until the next search.
func (ms *mesher) nearVertices(a, b int32, c geom.Vec, r2 float64, search int, visit func(w int32) bool) []int32 {
	m := ms.m
	ms.buf = m.star(a, ms.buf)
	queue := append(ms.buf2[:0], ms.buf...)
	for _, t := range queue {
		m.mark[t] = inCavity
	}
	// A vertex is in several of the tets searched; the callers' answers
	// do not depend on repeats, so each is visited once (gmsh_lever.stl
	// with MergeCoplanar at -q 1.414: the refine stage, mostly the
	// close-crease pass's searches, 5.1 → 2.9 s, the same mesh).
	seen := &ms.visited
	seen.next(len(ms.kind))
	seen.mark(a)
	seen.mark(b)
	stop := false
	for i := 0; i < len(queue) && i < search && !stop; i++ {
		t := queue[i]
		for _, w := range m.tet(t) {
			if w >= 0 && !stop && seen.mark(w) {
				stop = visit(w)
			}
		}
		// A tet queued past search would never be searched: with that
		// many queued (a's star is often larger), growing stops.
		for k := int32(0); k < 4 && len(queue) < search; k++ {
			n := m.c[t<<3|4|k]
			if n < 0 || m.mark[n>>2] != 0 {
				continue
			}
			u := n >> 2
			if m.isGhost(u) || !ms.boxMeetsBall(u, c, r2) {
				continue
			}
			m.mark[u] = inCavity
			queue = append(queue, u)
		}
	}
	for _, t := range queue {
		m.mark[t] = 0
	}
	ms.buf2 = queue
	return queue
}

// boxMeetsBall reports whether the bounding box of tet t meets the ball.
// It is written out in scalars with plain comparisons: as a range over
// the tet with min and max (which handle NaN and −0, but coordinates are
// finite, and either zero gives the same sums) it took 360 instructions
// a call, 150 now: 1.3 % of stlmodels_gearwheel.bin.stl's build with
// MergeCoplanar at -q 1.414 (0.5 % now), most calls from encroacher.
func (ms *mesher) boxMeetsBall(t int32, c geom.Vec, r2 float64) bool {
	xyz, q := ms.m.xyz, (*[4]int32)(ms.m.tet(t))
	p0 := (*[3]float64)(xyz[3*int(q[0]):])
	p1 := (*[3]float64)(xyz[3*int(q[1]):])
	p2 := (*[3]float64)(xyz[3*int(q[2]):])
	p3 := (*[3]float64)(xyz[3*int(q[3]):])
	d2 := 0.0
	for k := range 3 {
		lo, hi := order(p0[k], p1[k])
		lo2, hi2 := order(p2[k], p3[k])
		if lo2 < lo {
			lo = lo2
		}
		if hi2 > hi {
			hi = hi2
		}
		switch {
		case c[k] < lo:
			d2 += (lo - c[k]) * (lo - c[k])
		case c[k] > hi:
			d2 += (c[k] - hi) * (c[k] - hi)
		}
		// The sum only grows: once past r2, the axes left cannot bring
		// the box back within reach.
		if d2 > r2 {
			return false
		}
	}
	return true
}

// order returns x and y, the lesser first.
func order(x, y float64) (float64, float64) {
	if y < x {
		return y, x
	}
	return x, y
}

// shell returns the power of two nearest l/2.
func shell(l float64) float64 {
	frac, exp := math.Frexp(l / 2) // l/2 = frac·2^exp, frac in [0.5, 1)
	if frac < math.Sqrt2/2 {
		return math.Ldexp(1, exp-1)
	}
	return math.Ldexp(1, exp)
}

// segmentOf returns the input edge the subsegment a–b lies on.
func (ms *mesher) segmentOf(a, b int32) int32 {
	switch {
	case ms.kind[a] == vSegment:
		return ms.ref[a]
	case ms.kind[b] == vSegment:
		return ms.ref[b]
	}
	return ms.segIndex[edgeKey(min(a, b), max(a, b))]
}

// splitMissingSubface adds a Steiner point for subface f, which is not a
// face of the tetrahedralization: its circumcentre, unless that lies
// outside the facet or on a subsegment, in which case the subsegment is
// split instead.
func (ms *mesher) splitMissingSubface(f int32) error {
	s := &ms.s
	cc, _ := ms.subfaceCircle(f)
	// Locate the circumcentre in the facet through a provisional vertex.
	v := ms.addVertex(cc, vFacet, s.facet[f], onNone)
	g, e, blocked := ms.locateInFacet(f, v)
	if !blocked && (e < 0 || !s.isSeg(g, e)) {
		if sf, se, enc := ms.encroachedSubsegment(v, g, e); enc {
			g, e, blocked = sf, se, true
		}
	}
	ms.popVertex()
	if blocked || (e >= 0 && s.isSeg(g, e)) {
		return ms.splitSubsegment(g, e)
	}
	_, err := ms.newSurfaceVertex(cc, vFacet, s.facet[f], g, e)
	return err
}

// encroachedSubsegment returns a subsegment on the boundary of the surface
// cavity of vertex v (in subface f, or on its edge e) whose diametral
// sphere holds v. Ruppert's rule: such a subsegment is split instead of
// inserting v, which keeps Steiner points away from the facet borders
// and the subfaces well shaped.
func (ms *mesher) encroachedSubsegment(v, f, e int32) (sf, se int32, ok bool) {
	if !ms.surfaceCavity(v, f, e) {
		return 0, 0, false
	}
	return ms.cavityEncroached(v)
}

// cavityEncroached is encroachedSubsegment once ms.sc holds v's surface
// cavity.
func (ms *mesher) cavityEncroached(v int32) (sf, se int32, ok bool) {
	p := ms.m.pos(v)
	for _, ce := range ms.sc.edges {
		if !ce.seg {
			continue
		}
		a, b := ms.m.pos(ce.a), ms.m.pos(ce.b)
		if geom.Dot(geom.Sub(p, a), geom.Sub(p, b)) < 0 {
			h := ms.s.adj[ce.across]
			return h / 3, h % 3, true
		}
	}
	return 0, 0, false
}

// circumcentre returns the centre of the circle through a, b, c.
func circumcentre(a, b, c geom.Vec) geom.Vec {
	u, v := geom.Sub(b, a), geom.Sub(c, a)
	w := geom.Cross(u, v)
	num := geom.Cross(geom.Sub(geom.Scale(geom.Dot(u, u), v), geom.Scale(geom.Dot(v, v), u)), w)
	return geom.Add(a, geom.Scale(1/(2*geom.Dot(w, w)), num))
}
