package tetgen

import (
	"fmt"
	"slices"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// Insertion of vertices inside the carved mesh: Bowyer–Watson with the
// cavity confined by the subfaces, so the result stays a constrained
// Delaunay tetrahedralization of the body.

// Outcomes of insertInside.
const (
	inserted = iota
	duplicate
	outside // beyond the boundary, or on it
	hidden  // the cavity could not be made star-shaped around the point
)

// insertInside inserts vertex v, which should lie strictly inside the
// body, searching from tet hint. It fails (hidden) where a new tet's
// smallest dihedral sine would be below minSine. On failure the mesh is
// unchanged; for a duplicate, dup is the vertex already there.
func (ms *mesher) insertInside(v, hint int32, minSine float64) (status int, dup int32) {
	m := ms.m
	t, blocked := m.locate(v, hint)
	if blocked >= 0 {
		// A straight walk can leave a non-convex body on its way: look
		// for the tet that holds v directly.
		if t = m.scanFor(v); t < 0 {
			return outside, -1
		}
	}
	if d := m.hasVertexAt(t, m.pos(v)); d >= 0 {
		return duplicate, d
	}
	for k := int32(0); k < 4; k++ {
		if m.c[t<<3|4|k] < 0 && m.orientFace(t, int(k), v) >= 0 {
			return outside, -1 // on a subface
		}
	}
	m.findCavity(v, t)
	if !m.starShape(v, t, false) || minSine > 0 && m.coneBelow(v, minSine) {
		m.clearMarks()
		return hidden, -1
	}
	m.fillCavity(v)
	return inserted, -1
}

// starShape shrinks the cavity, keeping tet t0, until every boundary face
// is seen from v strictly from inside, so the cone from v over it is
// made of positive tets. Cavities of points near subfaces can reach tets
// the point does not see; in exact Delaunay position they rarely do.
// With whole set it shrinks nothing: it reports whether the cavity is
// star-shaped as found.
func (m *tri) starShape(v, t0 int32, whole bool) bool {
	const provisional = 3
	for {
		bad := false
		for _, f := range m.bnd {
			t := f >> 2
			if m.mark[t] == inCavity && !m.faceHasGhost(f) && m.orientFace(t, int(f&3), v) >= 0 {
				if t == t0 || whole {
					return false
				}
				m.mark[t] = outCavity
				m.touched = append(m.touched, t)
				bad = true
			}
		}
		if !bad {
			lost := m.lostVertex()
			if lost < 0 {
				return true
			}
			if lost == t0 || whole {
				return false
			}
			m.mark[lost] = outCavity
			m.touched = append(m.touched, lost)
		}
		// Keep what is still connected to t0, and rebuild the boundary.
		for _, t := range m.cav {
			if m.mark[t] == inCavity {
				m.mark[t] = provisional
			}
		}
		m.touched = append(m.touched, m.cav...)
		for _, n := range m.outer {
			if n >= 0 {
				m.touched = append(m.touched, n>>2)
			}
		}
		m.cav = append(m.cav[:0], t0)
		m.mark[t0] = inCavity
		for i := 0; i < len(m.cav); i++ {
			t := m.cav[i]
			for k := int32(0); k < 4; k++ {
				if n := m.c[t<<3|4|k]; n >= 0 && m.mark[n>>2] == provisional {
					m.mark[n>>2] = inCavity
					m.cav = append(m.cav, n>>2)
				}
			}
		}
		m.bnd, m.outer = m.bnd[:0], m.outer[:0]
		for _, t := range m.cav {
			for k := int32(0); k < 4; k++ {
				n := m.c[t<<3|4|k]
				if n < 0 || m.mark[n>>2] != inCavity {
					m.bnd = append(m.bnd, 4*t+k)
					m.outer = append(m.outer, n)
				}
			}
		}
	}
}

// faceHasGhost reports whether face f = 4·t+k has the ghost vertex (it is
// a face of a ghost tet other than its hull face).
func (m *tri) faceHasGhost(f int32) bool {
	return m.isGhost(f>>2) && f&3 != 3
}

// insertPoints inserts Options.Points, in a spatial order. In coarse mode,
// which has no later stage to mend a flat tet, a point whose Delaunay
// insertion would make a tet below coarseFloorSine waits until the others
// are in and tries again; only then does it go in without the floor. The
// medial core's samples on a planar sheet that passes through a convex
// corner of the surface are coplanar with it to rounding: inserted in
// order they made a cluster of flat tets that nothing mended (the
// whole-pipeline fuzz target's seed medial-sheet: 14 of 131 points
// waited, and all then went in above the floor).
func (ms *mesher) insertPoints() error {
	pts := ms.opt.Points
	order := make([]int32, len(pts)/3)
	for i := range order {
		order[i] = int32(i)
	}
	order = brioOrder(pts, order)
	floors := []float64{0}
	if ms.opt.Coarse {
		floors = []float64{coarseFloorSine, coarseFloorSine, 0}
	}
	hint := ms.anyTet()
	for _, floor := range floors {
		var waiting []int32
		for _, i := range order {
			inserted, err := ms.insertPoint(i, &hint, floor)
			if err != nil {
				return err
			}
			if !inserted {
				waiting = append(waiting, i)
			}
		}
		order = waiting
	}
	return nil
}

// insertPoint inserts Options.Points[i] by a Delaunay insertion from hint
// (moved to a new tet) that makes no tet below floor, and reports whether
// it did; a point at a vertex's place tags that vertex instead.
func (ms *mesher) insertPoint(i int32, hint *int32, floor float64) (bool, error) {
	pts := ms.opt.Points
	p := geom.Vec{pts[3*i], pts[3*i+1], pts[3*i+2]}
	tag := tetmesh.Interior
	if ms.opt.PointTags != nil {
		tag = ms.opt.PointTags[i]
	}
	v := ms.addVertex(p, vPoint, i, onNone)
	ms.tag[v] = tag
	st, d := ms.insertInside(v, *hint, floor)
	if st == hidden && floor > 0 {
		ms.popVertex()
		return false, nil
	}
	switch st {
	case inserted:
		ms.rep.PointsInserted++
		*hint = ms.m.newTets[0]
	case duplicate:
		ms.popVertex()
		if ms.on[d] != onNone {
			return false, fmt.Errorf("tetgen: point %d (%g, %g, %g) lies on the surface", i, p[0], p[1], p[2])
		}
		if tag == tetmesh.Core {
			ms.tag[d] = tetmesh.Core
		}
	default:
		ms.popVertex()
		return false, fmt.Errorf("tetgen: point %d (%g, %g, %g) is not strictly inside the body", i, p[0], p[1], p[2])
	}
	return true, nil
}

// scanFor returns a live tet that contains vertex v (all four faces see it
// from inside or on), or −1: the slow, sure way to locate.
func (m *tri) scanFor(v int32) int32 {
	j := 3 * int(v)
	px, py, pz := m.xyz[j], m.xyz[j+1], m.xyz[j+2]
	for t := int32(0); t < int32(m.numTets()); t++ {
		if !m.alive(t) || m.isGhost(t) {
			continue
		}
		// A tet holds only points of its bounding box, and comparing
		// coordinates is exact: most tets fail this before any
		// orientation test (on occt_propeller.stl's sliver stage, whose
		// relocations scan 4 M tets, the tests were a tenth of the run).
		if !m.boxHolds(t, px, py, pz) {
			continue
		}
		inside := true
		for k := 0; k < 4 && inside; k++ {
			inside = m.orientFace(t, k, v) <= 0
		}
		if inside {
			return t
		}
	}
	return -1
}

// boxHolds reports whether the bounding box of finite tet t holds the
// point (x, y, z).
func (m *tri) boxHolds(t int32, x, y, z float64) bool {
	q := m.c[t<<3 : t<<3+4 : t<<3+4]
	a, b, c, d := 3*int(q[0]), 3*int(q[1]), 3*int(q[2]), 3*int(q[3])
	xyz := m.xyz
	return x >= min(xyz[a], xyz[b], xyz[c], xyz[d]) && x <= max(xyz[a], xyz[b], xyz[c], xyz[d]) &&
		y >= min(xyz[a+1], xyz[b+1], xyz[c+1], xyz[d+1]) && y <= max(xyz[a+1], xyz[b+1], xyz[c+1], xyz[d+1]) &&
		z >= min(xyz[a+2], xyz[b+2], xyz[c+2], xyz[d+2]) && z <= max(xyz[a+2], xyz[b+2], xyz[c+2], xyz[d+2])
}

// anyTet returns some live tet.
func (ms *mesher) anyTet() int32 {
	for _, t := range ms.m.vt {
		if t >= 0 {
			return t
		}
	}
	return 0
}

// maxForcedCavity bounds the tets a forced insertion may replace.
const maxForcedCavity = 512

// insertForced inserts vertex v, strictly inside the tetrahedralization,
// replacing at least the tets in must: the cavity is must (plus, with
// conflict, v's Delaunay conflict region), grown across every boundary
// face v does not see strictly from inside until the cone from v over the
// boundary is valid. The result is a valid tetrahedralization but not
// necessarily Delaunay; it removes simplices that no Delaunay insertion
// reaches, such as flat tets against the surface, and recovers missing
// boundary simplices in one step. It fails, leaving the mesh unchanged,
// when the cavity would cross a subface, destroy a protected subsegment
// or subface (during boundary recovery), grow too large, or (minSine > 0)
// make a tet whose smallest dihedral sine is below minSine.
func (ms *mesher) insertForced(v int32, hint int32, must []int32, conflict bool, minSine float64) int {
	t0 := ms.m.locateForced(v, hint)
	if t0 < 0 {
		return outside
	}
	return ms.insertForcedIn(v, t0, must, conflict, minSine)
}

// insertForcedIn is insertForced with v located in tet t0.
func (ms *mesher) insertForcedIn(v, t0 int32, must []int32, conflict bool, minSine float64) int {
	status, lost := ms.forcedCavity(v, t0, must, conflict, minSine)
	if status != inserted {
		return status
	}
	ms.fillForced(v, lost)
	return inserted
}

// locateForced returns the tet insertForced starts from, found by a walk
// from hint (or, where the walk meets a subface, by a scan), or −1 when
// no tet holds v.
func (m *tri) locateForced(v, hint int32) int32 {
	t0, blocked := m.locate(v, hint)
	if blocked >= 0 {
		return m.scanFor(v)
	}
	return t0
}

// fillForced fills the cavity forcedCavity accepted with the cone from v;
// lost are the vertices it swallows.
func (ms *mesher) fillForced(v int32, lost []int32) {
	ms.m.fillCavity(v)
	ms.m.flipped = true // a forced cavity need not be Delaunay
	for _, u := range lost {
		ms.m.vt[u] = noTet
		ms.rep.SteinerDropped++
	}
}

// forcedCavity is insertForced from t0, the tet that holds v, up to the
// filling: it returns inserted with the cavity found and marked (and the
// vertices the cone would swallow), ready for fillForced or clearMarks,
// or why it fails, with the marks cleared. It changes only the
// insertion's scratch, so that a view of the mesher with scratch of its
// own may run it beside the mesher (insertInFront).
func (ms *mesher) forcedCavity(v, t0 int32, must []int32, conflict bool, minSine float64) (int, []int32) {
	m := ms.m
	if m.hasVertexAt(t0, m.pos(v)) >= 0 {
		return duplicate, nil
	}
	if minSine > 0 && (m.subfaceConeBelow(t0, v, minSine) || slices.ContainsFunc(must, func(t int32) bool { return m.subfaceConeBelow(t, v, minSine) })) {
		return hidden, nil
	}
	if conflict {
		m.findCavity(v, t0)
	} else {
		m.cav = append(m.cav[:0], t0)
		m.mark[t0] = inCavity
		m.bnd, m.outer = m.bnd[:0], m.outer[:0]
	}
	for _, t := range must {
		if m.mark[t] != inCavity {
			m.mark[t] = inCavity
			m.cav = append(m.cav, t)
		}
	}
	const removed = 4
	const (
		faceSeen   = 1 // v sees the face strictly from inside
		faceUnseen = 2
	)
	fail := func() (int, []int32) {
		m.clearMarks()
		return hidden, nil
	}
	// Faces v does not see strictly from inside cannot bound the cone:
	// grow across them, or, where the face must stay (a subface or a
	// protected one), drop the tet that owns it, unless it is required.
	// Each sweep tests every face of the cavity again, but a face's side
	// does not change while the mesh does not: side[i] keeps, for
	// m.cav[i], each face's answer once known (0 unknown, seen strictly
	// from inside, not), so that each face is tested once a call.
	side := ms.cavSide[:0]
	defer func() { ms.cavSide = side }()
	grew := false
	for iter := 0; ; iter++ {
		for _, n := range m.outer {
			if n >= 0 {
				m.touched = append(m.touched, n>>2)
			}
		}
		m.bnd, m.outer = m.bnd[:0], m.outer[:0]
		changed := false
		for i := 0; i < len(m.cav); i++ {
			if i == len(side) {
				side = append(side, [4]uint8{})
			}
			t := m.cav[i]
			if m.mark[t] != inCavity {
				continue
			}
			for k := int32(0); k < 4; k++ {
				n := m.c[t<<3|4|k]
				if n >= 0 && m.mark[n>>2] == inCavity {
					continue
				}
				if side[i][k] == 0 {
					side[i][k] = faceUnseen
					if m.faceHasGhost(4*t+k) || m.orientFace(t, int(k), v) < 0 {
						side[i][k] = faceSeen
					}
				}
				if side[i][k] == faceSeen {
					m.bnd = append(m.bnd, 4*t+k)
					m.outer = append(m.outer, n)
					continue
				}
				changed = true
				if n < 0 || ms.isProtectedFace(4*t+k) || m.mark[n>>2] == removed {
					if t == t0 || slices.Contains(must, t) {
						return fail()
					}
					m.mark[t] = removed
					m.touched = append(m.touched, t)
					break
				}
				if len(m.cav) >= maxForcedCavity {
					return fail()
				}
				m.mark[n>>2] = inCavity
				m.cav = append(m.cav, n>>2)
			}
		}
		if !changed {
			break
		}
		grew = true
		if iter > 4*maxForcedCavity {
			return fail()
		}
		// Keep the cavity tets still joined to t0.
		keep, keepSide := m.cav[:0], side[:0]
		for i, t := range m.cav {
			if m.mark[t] == inCavity {
				keep, keepSide = append(keep, t), append(keepSide, side[i])
			}
		}
		m.cav, side = keep, keepSide
		if !m.connected() {
			return fail()
		}
	}
	// Every test below fails the same way, so the one that fails most
	// (the floor: 150 754 of 153 372 failed insertions that got this far
	// on netgen_hinge.stl at -q 1.414, most of them insertInFront's) goes
	// first. A sweep that grew the cavity tested its connection, and the
	// last sweep changed nothing.
	for _, f := range m.bnd {
		if minSine > 0 && m.faceMinSine(f, v) < minSine {
			return fail()
		}
	}
	if !grew && !m.connected() || !ms.keepsProtected() {
		return fail()
	}
	// The cavity may swallow whole stars: that is fine for Steiner points
	// of refinement and void splitting (the new vertex replaces them), not
	// for any vertex the caller or the surface owns.
	lost := m.lostVertices()
	for _, u := range lost {
		if ms.kind[u] != vVolume {
			return fail()
		}
	}
	return inserted, lost
}

// subfaceConeBelow reports whether a forced insertion of v that must
// keep tet t in its cavity fails on one of t's subfaces: such a face
// stays on the cavity boundary, where v must see it strictly from inside
// (or the cavity drop t, which it may not) and the tet it makes with v
// must pass the floor minSine, as insertForced's last test asks. Tested
// first, it spares the cavity's growth (most of insertInFront's failed
// tries at walls).
func (m *tri) subfaceConeBelow(t, v int32, minSine float64) bool {
	for k := int32(0); k < 4; k++ {
		if m.c[t<<3|4|k] >= noTet {
			continue
		}
		if !m.faceHasGhost(4*t+k) && m.orientFace(t, int(k), v) >= 0 || m.faceMinSine(4*t+k, v) < minSine {
			return true
		}
	}
	return false
}

// coneBelow reports whether a tet of the cone from v over the cavity's
// boundary would have a dihedral sine below minSine.
func (m *tri) coneBelow(v int32, minSine float64) bool {
	return slices.ContainsFunc(m.bnd, func(f int32) bool { return !m.faceHasGhost(f) && m.faceMinSine(f, v) < minSine })
}

// faceMinSine returns the smallest dihedral sine of the tet that cavity
// face f and vertex v would make.
func (m *tri) faceMinSine(f, v int32) float64 {
	q := m.faceVerts(f)
	return m.idsMinSine(q[0], q[1], q[2], v)
}

// isProtectedFace reports whether face f is a protected subface.
func (ms *mesher) isProtectedFace(f int32) bool {
	if ms.prot.faces == nil {
		return false
	}
	q := ms.m.faceVerts(f)
	return ms.prot.faces[sortedTri(q[0], q[1], q[2])]
}

// keepsProtected reports whether filling the current cavity keeps every
// protected subsegment and subface: none may be interior to it.
func (ms *mesher) keepsProtected() bool {
	if ms.prot.faces == nil {
		return true
	}
	m := ms.m
	onBoundary := make(map[uint64]bool, 3*len(m.bnd))
	for _, f := range m.bnd {
		q := m.faceVerts(f)
		for k := 0; k < 3; k++ {
			a, b := q[k], q[(k+1)%3]
			onBoundary[edgeKey(min(a, b), max(a, b))] = true
		}
	}
	for _, t := range m.cav {
		q := m.tet(t)
		for k := int32(0); k < 4; k++ {
			if n := m.c[t<<3|4|k]; n >= 0 && m.mark[n>>2] == inCavity {
				f := m.faceVerts(4*t + k)
				if ms.prot.faces[sortedTri(f[0], f[1], f[2])] {
					return false
				}
			}
		}
		for _, e := range tetEdges {
			a, b := q[e[0]], q[e[1]]
			key := edgeKey(min(a, b), max(a, b))
			if ms.prot.segs[key] && !onBoundary[key] {
				return false
			}
		}
	}
	return true
}

// connected reports whether the cavity tets form one face-connected set.
func (m *tri) connected() bool {
	const seen = 3
	stack := append(m.buf2[:0], m.cav[0])
	m.mark[m.cav[0]] = seen
	count := 1
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for k := int32(0); k < 4; k++ {
			if n := m.c[t<<3|4|k]; n >= 0 && m.mark[n>>2] == inCavity {
				m.mark[n>>2] = seen
				stack = append(stack, n>>2)
				count++
			}
		}
	}
	m.buf2 = stack
	for _, t := range m.cav {
		m.mark[t] = inCavity
	}
	return count == len(m.cav)
}

// lostVertices returns the vertices of cavity tets that are on no
// boundary face: the cone would delete them from the mesh.
func (m *tri) lostVertices() []int32 {
	m.markBoundaryVertices()
	var lost []int32
	for _, t := range m.cav {
		for _, u := range m.tet(t) {
			if u >= 0 && !m.onCavityBoundary(u) && !slices.Contains(lost, u) {
				lost = append(lost, u)
			}
		}
	}
	return lost
}

// lostVertex returns a cavity tet having a vertex that is on no boundary
// face — one the cone would delete from the mesh — or −1. Bowyer–Watson
// never swallows a vertex in a Delaunay mesh; after flips and forced
// insertions it can.
func (m *tri) lostVertex() int32 {
	m.markBoundaryVertices()
	for _, t := range m.cav {
		if m.mark[t] != inCavity {
			continue
		}
		for _, u := range m.tet(t) {
			if u >= 0 && !m.onCavityBoundary(u) {
				return t
			}
		}
	}
	return -1
}

// markBoundaryVertices stamps the vertices of the cavity's boundary
// faces, for onCavityBoundary: a stamp per vertex instead of a set built
// for every insertion. It lists them in m.bverts, once each.
func (m *tri) markBoundaryVertices() {
	m.vseen.next(len(m.vt))
	m.bverts = m.bverts[:0]
	for _, f := range m.bnd {
		for _, u := range m.faceVerts(f) {
			if u >= 0 && m.vseen.mark(u) {
				m.bverts = append(m.bverts, u)
			}
		}
	}
}

// onCavityBoundary reports whether vertex u is on a boundary face of the
// cavity, as of the last markBoundaryVertices.
func (m *tri) onCavityBoundary(u int32) bool { return m.vseen.has(u) }

// stamps marks vertices: a stamp per vertex instead of a set built for
// every use.
type stamps struct {
	at  []uint32 // per vertex, the stamp that last marked it
	now uint32
}

// next unmarks every vertex of the n there are.
func (st *stamps) next(n int) {
	if len(st.at) < n {
		st.at = append(st.at, make([]uint32, n-len(st.at)+n/2)...)
	}
	st.now++
	if st.now == 0 {
		clear(st.at)
		st.now = 1
	}
}

// mark marks v and reports whether it was unmarked.
func (st *stamps) mark(v int32) bool {
	if st.at[v] == st.now {
		return false
	}
	st.at[v] = st.now
	return true
}

// has reports whether v is marked.
func (st *stamps) has(v int32) bool { return st.at[v] == st.now }
