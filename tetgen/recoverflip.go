package tetgen

import (
	"fmt"
	"slices"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// Boundary recovery by flips, tried before any Steiner point: a missing
// subsegment or subface is often only a few 2-3 flips or edge removals
// away from being in the tetrahedralization (TetGen recovers whole CAD
// parts so). Flips never destroy a subsegment or subface already there,
// so they never undo earlier recovery; the mesh stops being Delaunay,
// which no later step needs.

// protected holds the subsegments and subfaces flips must keep.
type protected struct {
	segs  map[uint64]bool
	faces map[[3]int32]bool
}

func sortedTri(a, b, c int32) [3]int32 {
	k := [3]int32{a, b, c}
	slices.Sort(k[:])
	return k
}

// protect collects the current subsegments and subfaces.
func (ms *mesher) protect() {
	s := &ms.s
	ms.prot.segs = make(map[uint64]bool, 2*s.num())
	ms.prot.faces = make(map[[3]int32]bool, s.num())
	all := make([]int32, s.num())
	for f := range all {
		all[f] = int32(f)
	}
	ms.setProtected(all, true)
}

// setProtected adds the given subfaces and their subsegments to the
// protected sets, or drops them (when they are about to be replaced).
func (ms *mesher) setProtected(subs []int32, on bool) {
	if ms.prot.faces == nil {
		return
	}
	s := &ms.s
	for _, f := range subs {
		q := s.sv[3*f : 3*f+3]
		setIn(ms.prot.faces, sortedTri(q[0], q[1], q[2]), on)
		for e := int32(0); e < 3; e++ {
			if s.isSeg(f, e) {
				a, b := s.edge(f, e)
				setIn(ms.prot.segs, edgeKey(min(a, b), max(a, b)), on)
			}
		}
	}
}

// setIn adds key to set or removes it.
func setIn[K comparable](set map[K]bool, key K, on bool) {
	if on {
		set[key] = true
	} else {
		delete(set, key)
	}
}

// mayRemoveEdge reports whether removing edge x–y (and the faces through
// it, with link vertices link) keeps every protected simplex.
func (ms *mesher) mayRemoveEdge(x, y int32, link []int32) bool {
	if ms.prot.segs[edgeKey(min(x, y), max(x, y))] {
		return false
	}
	for _, r := range link {
		if ms.prot.faces[sortedTri(x, y, r)] {
			return false
		}
	}
	return true
}

// flipFace 2-3 flips face f unless it is protected.
func (ms *mesher) flipFace(f int32) bool {
	q := ms.m.faceVerts(f)
	if ms.prot.faces[sortedTri(q[0], q[1], q[2])] {
		return false
	}
	return ms.m.flip23(f)
}

// removeEdgeAccepting removes edge x–y of tet t unless protected, with a
// triangulation of its link that accept approves. When no triangulation
// works it first removes, recursively (to a small depth), an edge from x
// or y to a link vertex r so that the tets on both sides of face x, y, r
// merge: each such removal shrinks the ring by one (Si's flipnm).
func (ms *mesher) removeEdgeAccepting(x, y, t int32, accept func([][3]int32) bool) bool {
	return ms.removeEdgeDepth(x, y, t, accept, 2)
}

func (ms *mesher) removeEdgeDepth(x, y, t int32, accept func([][3]int32) bool, depth int) bool {
	m := ms.m
	for attempt := 0; ; attempt++ {
		tets, link, ok := m.ring(x, y, t, nil, nil)
		if !ok || !ms.mayRemoveEdge(x, y, link) {
			return false
		}
		if len(link) <= maxRemovalRing && m.removeEdge(x, y, t, accept, nil) {
			return true
		}
		if depth == 0 || attempt > len(link) {
			return false
		}
		shrunk := false
		for i, r := range link {
			prev, next := link[(i+len(link)-1)%len(link)], link[(i+1)%len(link)]
			for _, ends := range [2][2]int32{{x, y}, {y, x}} {
				e, other := ends[0], ends[1]
				// Removing e–r with triangle (other, prev, next) in its new
				// link triangulation replaces the two tets at face x, y, r
				// by one: x–y loses r from its link.
				want := sortedTri(other, prev, next)
				before := m.version
				ok := ms.removeEdgeDepth(e, r, tets[i], func(tris [][3]int32) bool {
					for _, tr := range tris {
						if sortedTri(tr[0], tr[1], tr[2]) == want {
							return true
						}
					}
					return false
				}, depth-1)
				if ok || m.version != before {
					// Success, or flips that changed the ring anyway:
					// look at the ring again.
					shrunk = true
					break
				}
			}
			if shrunk {
				break
			}
		}
		if !shrunk {
			return false
		}
		if t = ms.tetWithEdge(x, y); t < 0 {
			return false
		}
	}
}

// Kinds of the first simplex the open segment from a towards b meets.
const (
	crossNone = iota
	crossFace
	crossEdge
	crossVertex
)

// firstCrossing finds the tet at a that the segment a→b enters and what
// it leaves that tet through: the face opposite a (f = 4·t+k), an edge of
// it (x, y), or a vertex (x).
func (ms *mesher) firstCrossing(a, b int32) (kind int, t int32, k int32, x, y int32) {
	m := ms.m
	ms.buf = m.star(a, ms.buf)
	for _, t := range ms.buf {
		if m.isGhost(t) {
			continue
		}
		q := m.tet(t)
		i := int32(slices.Index(q, a))
		if m.orientFace(t, int(i), b) <= 0 {
			continue
		}
		var zeros []int32
		inside := true
		for k := int32(0); k < 4 && inside; k++ {
			if k == i {
				continue
			}
			switch m.orientFace(t, int(k), b) {
			case 1:
				inside = false
			case 0:
				zeros = append(zeros, k)
			}
		}
		if !inside {
			continue
		}
		switch len(zeros) {
		case 0:
			return crossFace, t, i, -1, -1
		case 1:
			// The faces opposite i and zeros[0] share the edge of the
			// other two slots.
			var e []int32
			for s := int32(0); s < 4; s++ {
				if s != i && s != zeros[0] {
					e = append(e, q[s])
				}
			}
			return crossEdge, t, i, e[0], e[1]
		default:
			for s := int32(0); s < 4; s++ {
				if s != i && s != zeros[0] && s != zeros[1] {
					return crossVertex, t, i, q[s], -1
				}
			}
		}
	}
	return crossNone, -1, -1, -1, -1
}

// flipToEdge tries to make a–b an edge by flipping away what the segment
// crosses next to either end. It reports success.
func (ms *mesher) flipToEdge(a, b int32) bool {
	for iter := 0; iter < 32; iter++ {
		if ms.findEdge(a, b) {
			return true
		}
		progress := false
		for _, end := range [2][2]int32{{a, b}, {b, a}} {
			kind, t, k, x, y := ms.firstCrossing(end[0], end[1])
			switch kind {
			case crossFace:
				progress = ms.flipFace(4*t + k)
			case crossEdge:
				other := end[1]
				progress = ms.removeEdgeAccepting(x, y, t, func(tris [][3]int32) bool {
					return !hasVertex(tris, other) || hasEdge(tris, a, b)
				})
			}
			if progress {
				break
			}
		}
		if !progress {
			return false
		}
	}
	return ms.findEdge(a, b)
}

func hasVertex(tris [][3]int32, v int32) bool {
	for _, t := range tris {
		if t[0] == v || t[1] == v || t[2] == v {
			return true
		}
	}
	return false
}

func hasEdge(tris [][3]int32, a, b int32) bool {
	for _, t := range tris {
		for k := 0; k < 3; k++ {
			u, v := t[k], t[(k+1)%3]
			if (u == a && v == b) || (u == b && v == a) {
				return true
			}
		}
	}
	return false
}

// flipToFace tries to make triangle a, b, c a face by flips: first its
// edges, then removing the edges that cross it. It reports success.
func (ms *mesher) flipToFace(a, b, c int32) bool {
	for _, e := range [3][2]int32{{a, b}, {b, c}, {c, a}} {
		if !ms.flipToEdge(e[0], e[1]) {
			return false
		}
	}
	m := ms.m
	for iter := 0; iter < 32; iter++ {
		if ms.findFace(a, b, c) >= 0 {
			return true
		}
		progress := false
		for _, e := range [3][3]int32{{a, b, c}, {b, c, a}, {c, a, b}} {
			x, y, z := e[0], e[1], e[2]
			t := ms.tetWithEdge(x, y)
			if t < 0 {
				return false
			}
			tets, link, ok := m.ring(x, y, t, nil, nil)
			if !ok {
				continue
			}
			// The triangle leaves edge x–y inside the tet whose link
			// edge r_i–r_{i+1} it crosses: z lies on the positive side
			// of (x, y, r_i) and the negative side of (x, y, r_{i+1}).
			// If instead a link vertex r is coplanar with the triangle on
			// its side of x–y, the face x, y, r overlaps it and the edge
			// x–r or y–r crosses it (a 2D flip in a planar facet).
			for i := range link {
				r0, r1 := link[i], link[(i+1)%len(link)]
				o0, o1 := m.orientXY(x, y, r0, z), m.orientXY(x, y, r1, z)
				if o0 == 0 && o1 < 0 {
					progress = ms.flipInPlane(x, y, z, r0, r1)
					break
				}
				if o0 <= 0 || o1 >= 0 {
					continue
				}
				progress = ms.removeEdgeAccepting(r0, r1, tets[i], func(tris [][3]int32) bool {
					return !(hasVertex(tris, x) && hasVertex(tris, y) && hasVertex(tris, z)) || hasTriangle(tris, x, y, z)
				})
				break
			}
			if progress {
				break
			}
		}
		if !progress {
			return false
		}
	}
	return ms.findFace(a, b, c) >= 0
}

// flipInPlane removes the edge that crosses triangle x, y, z when the face
// x, y, r of the mesh lies in its plane on the same side of x–y; eye is a
// vertex off the plane. It removes y–r (asking for diagonal x–z) when r
// lies beyond line x–z, else x–r (asking for y–z).
func (ms *mesher) flipInPlane(x, y, z, r, eye int32) bool {
	m := ms.m
	side := func(u, w, p int32) int { return m.orientXY(u, w, p, eye) }
	var e0, e1, d0, d1 int32
	switch {
	case side(x, z, r) != 0 && side(x, z, r) != side(x, z, y):
		e0, e1, d0, d1 = y, r, x, z
	case side(y, z, r) != 0 && side(y, z, r) != side(y, z, x):
		e0, e1, d0, d1 = x, r, y, z
	default:
		return false
	}
	t := ms.tetWithEdge(e0, e1)
	if t < 0 {
		return false
	}
	return ms.removeEdgeAccepting(e0, e1, t, func(tris [][3]int32) bool {
		return !(hasVertex(tris, d0) && hasVertex(tris, d1)) || hasEdge(tris, d0, d1)
	})
}

// orientXY is Orient3D(x, y, r, z).
func (m *tri) orientXY(x, y, r, z int32) int {
	return geomOrient(m, x, y, r, z)
}

func hasTriangle(tris [][3]int32, a, b, c int32) bool {
	want := sortedTri(a, b, c)
	for _, t := range tris {
		if sortedTri(t[0], t[1], t[2]) == want {
			return true
		}
	}
	return false
}

// tetWithEdge returns a tet that has edge a–b, or −1.
func (ms *mesher) tetWithEdge(a, b int32) int32 {
	ms.buf = ms.m.star(a, ms.buf)
	for _, t := range ms.buf {
		if slices.Contains(ms.m.tet(t), b) && !ms.m.isGhost(t) {
			return t
		}
	}
	return -1
}

// tetsMeeting returns the finite tets whose closure meets the interior of
// triangle a, b, c of facet fc: they cross its plane through it, or lie
// on it with a face that overlaps it. A forced insertion that puts a
// vertex on the triangle must replace them all.
func (ms *mesher) tetsMeeting(a, b, c int32) []int32 {
	m := ms.m
	tri := [3]int32{a, b, c}
	meets := func(t int32) bool { return !m.isGhost(t) && m.tetMeetsTriangle(t, a, b, c) }
	var out []int32
	for _, p := range tri {
		ms.buf = m.star(p, ms.buf)
		for _, t := range ms.buf {
			if m.mark[t] == 0 {
				m.mark[t] = outCavity
				m.touched = append(m.touched, t)
				if meets(t) {
					m.mark[t] = inCavity
					out = append(out, t)
				}
			}
		}
	}
	for i := 0; i < len(out) && len(out) < maxForcedCavity; i++ {
		t := out[i]
		for k := int32(0); k < 4; k++ {
			n := m.c[t<<3|4|k]
			if n < 0 || m.mark[n>>2] != 0 {
				continue
			}
			u := n >> 2
			m.mark[u] = outCavity
			m.touched = append(m.touched, u)
			if meets(u) {
				m.mark[u] = inCavity
				out = append(out, u)
			}
		}
	}
	for _, t := range m.touched {
		m.mark[t] = 0
	}
	m.touched = m.touched[:0]
	return out
}

// forceSurfaceVertex adds a Steiner vertex at one of the points cand, in
// subface f (or on its edge e), by a forced insertion that replaces every
// tet meeting the subfaces it splits: the new vertex joins every vertex
// around it, so the missing simplex it lies on is recovered at once. It tries the candidates
// in turn and reports the vertex or an error.
func (ms *mesher) forceSurfaceVertex(cand []geom.Vec, kind uint8, ref int32, f, e int32) (int32, error) {
	near := ms.s.sv[3*f]
	for _, p := range cand {
		if ms.rep.SteinerSegment+ms.rep.SteinerFacet >= ms.steinerBudget() {
			return -1, fmt.Errorf("tetgen: boundary recovery needs more than %d Steiner points near (%g, %g, %g)",
				ms.steinerBudget(), p[0], p[1], p[2])
		}
		v := ms.addVertex(p, kind, ref, ms.on[near])
		if !ms.surfaceCavityGrow(v, f, e, false) {
			ms.popVertex()
			continue
		}
		var must []int32
		for _, g := range ms.sc.subs {
			q := ms.s.sv[3*g : 3*g+3]
			must = append(must, ms.tetsMeeting(q[0], q[1], q[2])...)
		}
		switch ms.insertForced(v, ms.m.vt[near], must, false, 0) {
		case inserted:
			ms.surfFan(v)
			ms.countSteiner(kind)
			return v, nil
		case duplicate:
			ms.popVertex()
			return -1, errTouches(p)
		}
		ms.popVertex()
	}
	p := ms.m.pos(near)
	return -1, fmt.Errorf("tetgen: cannot recover the surface near (%g, %g, %g)", p[0], p[1], p[2])
}

// forceSubsegment recovers subsegment e of subface f with a Steiner point.
func (ms *mesher) forceSubsegment(f, e int32) error {
	a, b := ms.s.edge(f, e)
	pa, pb := ms.m.pos(a), ms.m.pos(b)
	p0, ref, err := ms.segmentSplitPoint(a, b, recoverySearch)
	if err != nil {
		return err
	}
	cand := []geom.Vec{p0}
	for _, t := range []float64{0.5, 0.4, 0.6, 0.3, 0.7} {
		cand = append(cand, geom.Add(pa, geom.Scale(t, geom.Sub(pb, pa))))
	}
	_, err = ms.forceSurfaceVertex(cand, vSegment, ref, f, e)
	return err
}

// forceSubface recovers subface f with a Steiner point inside it, after
// its edges.
func (ms *mesher) forceSubface(f int32) error {
	s := &ms.s
	for e := int32(0); e < 3; e++ {
		a, b := s.edge(f, e)
		if ms.findEdge(a, b) || ms.flipToEdge(a, b) {
			continue
		}
		if s.isSeg(f, e) {
			return ms.forceSubsegment(f, e)
		}
		// An edge inside the facet: split it (and the subface across).
		pa, pb := ms.m.pos(a), ms.m.pos(b)
		var cand []geom.Vec
		for _, t := range []float64{0.5, 0.4, 0.6} {
			cand = append(cand, geom.Add(pa, geom.Scale(t, geom.Sub(pb, pa))))
		}
		_, err := ms.forceSurfaceVertex(cand, vFacet, s.facet[f], f, e)
		return err
	}
	q := s.sv[3*f : 3*f+3]
	pa, pb, pc := ms.m.pos(q[0]), ms.m.pos(q[1]), ms.m.pos(q[2])
	var cand []geom.Vec
	for _, w := range [][3]float64{{1, 1, 1}, {2, 1, 1}, {1, 2, 1}, {1, 1, 2}} {
		sum := w[0] + w[1] + w[2]
		cand = append(cand, geom.Add(geom.Add(geom.Scale(w[0]/sum, pa), geom.Scale(w[1]/sum, pb)), geom.Scale(w[2]/sum, pc)))
	}
	_, err := ms.forceSurfaceVertex(cand, vFacet, s.facet[f], f, -1)
	return err
}
