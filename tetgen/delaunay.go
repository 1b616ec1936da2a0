package tetgen

import (
	"math"
	"sync"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/radix"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// ghost is the vertex at infinity. A ghost tet (a, b, c, ghost) stands
// outside the convex hull face abc, whose right-handed normal points away
// from the hull; ghost tets always keep the ghost at slot 3.
const ghost int32 = -1

// dead marks a deleted tet in slot 0; its index is on the free list.
const dead int32 = -2

// noTet marks a face with no neighbour and no subface (only transiently).
const noTet int32 = -1

// subfaceRef encodes subface s in a neighbour slot: faces on a constraint
// surface do not link to the tet across, they name the subface, which
// knows the tets on both sides. Every negative neighbour below noTet is a
// subface reference.
func subfaceRef(s int32) int32 { return -2 - s }

// refSubface decodes a neighbour slot holding subfaceRef(s).
func refSubface(n int32) int32 { return -2 - n }

// faces is tetmesh.TetFaces: face k of a tet is opposite slot k, ordered
// so that its right-handed normal points out of the (positive) tet.
var faces = tetmesh.TetFaces

// tri is a tetrahedralization in flat arrays that is updated by point
// insertion (Bowyer–Watson). Before boundary recovery it is the Delaunay
// tetrahedralization of its vertices, convex hull closed by ghost tets;
// after, it holds only the tets inside the surface and neighbour slots on
// the surface hold subface references.
//
// Tet t is the record c[8t:8t+8]: its four vertices, then for each face k
// (opposite vertex k) the face id 4·t′+k′ of the same face seen from the
// tet across. One record per tet keeps a tet's vertices and links on one
// cache line, which matters once the mesh outgrows the caches.
//
// Delaunay decisions use geom.InSphereSoS keyed by vertex index, so the
// result is the unique Delaunay tetrahedralization of the symbolically
// perturbed point set, whatever the insertion order.
type tri struct {
	xyz []float64 // vertex coordinates
	c   []int32   // tet records; dead tets have c[8t] == dead
	vt  []int32   // per vertex: one live tet incident to it, or noTet

	free []int32 // dead tet slots for reuse

	// Scratch of one insertion.
	mark     []uint8 // per tet: inCavity, outCavity or 0
	cav      []int32 // cavity tets
	bnd      []int32 // cavity boundary faces, as 4·t+k of a cavity tet
	outer    []int32 // per boundary face, the face across it
	touched  []int32 // other tets whose marks need clearing
	buf2     []int32
	newTets  []int32
	newVerts []int32 // four per new tet, before slots are assigned
	shape    []uint8 // per new tet, where fillCavity put v (coneSlots)
	link     faceLinker
	cone     coneLinker
	vseen    stamps  // the vertices on the cavity boundary
	bverts   []int32 // the same, listed (markBoundaryVertices)
	rng      uint64
	// fills counts filled cavities: during refinement, where a filled
	// cavity is the only change to the tets, an unchanged count means an
	// unchanged mesh.
	fills uint64

	// onSubface, when set, is told where each subface's tet face moved.
	onSubface func(s, face int32)
	// crossSubface, when set, returns the tet face on the other side of
	// subface s from face, or noTet: walks pass through internal
	// constraint surfaces (the core) but stop at the boundary.
	crossSubface func(s, face int32) int32
	// region holds a byte per tet for the mesher (body or core); new tets
	// take the region of the cavity they fill.
	region []int8
	newReg []int8
	// sines counts tet quality evaluations: optimization's work budget.
	sines int
	// flipped is set once a flip or a forced insertion has made the
	// tetrahedralization possibly non-Delaunay: insertions then check
	// their cavities.
	flipped bool
	// logChanges, when set, makes insertions and flips append the tets
	// they make to changed, so that scanBad rescans only those (and
	// lastBad, what the previous scan, below lastScan, returned).
	logChanges bool
	changed    []int32
	lastBad    []int32
	lastScan   float64
	scanSeen   []int32 // per tet: scanStamp when rescanned
	scanStamp  int32
	version    int // counts changes made by flips
	// ringMemo holds the scores of bestRing's triangles (valid for those
	// its current call has scored).
	ringMemo [ringTris][2]float64
	// ringAccepted holds the triangles bestRing asks accept about: a
	// local array passed to accept would be allocated on every call.
	ringAccepted [maxRemovalRing - 2][3]int32
	// repl is replaceTets' scratch (a split round's halves have their
	// own).
	repl replaceScratch

	// own, when set, makes this tri one worker of a parallel insertion
	// (parallel.go): it changes only tets it owns (and the links of tets
	// across their faces), takes new slots from its free list and region
	// and leaves vt to be rebuilt at the end.
	own *worker

	// warm keeps findCavity's warming loads (see there) from being
	// optimized away.
	warm int32
}

const (
	inCavity  = 1
	outCavity = 2
)

// vi is the index in c of vertex k of tet t; ni that of the neighbour
// across face f = 4·t+k.
func vi(t int32, k int32) int32 { return t<<3 | k }
func ni(f int32) int32          { return (f>>2)<<3 | 4 | f&3 }

func (m *tri) pos(v int32) geom.Vec {
	j := 3 * int(v)
	return geom.Vec{m.xyz[j], m.xyz[j+1], m.xyz[j+2]}
}

func (m *tri) numTets() int { return len(m.c) / 8 }

// liveTets returns the number of live tets: the slots not on the free
// list (every dead slot is on it).
func (m *tri) liveTets() int { return m.numTets() - len(m.free) }

func (m *tri) tet(t int32) []int32 { return m.c[8*t : 8*t+4] }

func (m *tri) isGhost(t int32) bool { return m.c[t<<3|3] == ghost }

func (m *tri) alive(t int32) bool { return m.c[t<<3] != dead }

// across returns the face id seen from the other side of face f (or a
// subface reference).
func (m *tri) across(f int32) int32 { return m.c[ni(f)] }

func (m *tri) random() uint32 {
	// xorshift64*: deterministic, cheap.
	m.rng ^= m.rng >> 12
	m.rng ^= m.rng << 25
	m.rng ^= m.rng >> 27
	return uint32((m.rng * 2685821657736338717) >> 32)
}

// orientFace returns Orient3D of face k of tet t (outward) and vertex v:
// positive when v lies beyond the face.
func (m *tri) orientFace(t int32, k int, v int32) int {
	f := &faces[k]
	b := t << 3
	return geom.Orient3DAt(m.xyz, m.c[b+int32(f[0])], m.c[b+int32(f[1])], m.c[b+int32(f[2])], v)
}

// inSphere reports whether vertex v lies inside the perturbed circumsphere
// of finite tet t.
func (m *tri) inSphere(t int32, v int32) bool {
	q := m.c[t<<3 : t<<3+4]
	return inSphereAt(m.xyz, q[0], q[1], q[2], q[3], v) > 0
}

// conflict reports whether inserting vertex v destroys tet t.
func (m *tri) conflict(t int32, v int32) bool {
	if !m.isGhost(t) {
		return m.inSphere(t, v)
	}
	// Beyond the hull face: visible, in conflict. On its plane: in
	// conflict exactly when inside the face's circumcircle, which is
	// what the finite tet across the face says. Face 3 of a ghost tet
	// faces into the hull, so v beyond the hull face is on its negative
	// side.
	switch m.orientFace(t, 3, v) {
	case 1:
		return false
	case -1:
		return true
	}
	return m.inSphere(m.across(4*t+3)>>2, v)
}

// locate walks from tet t towards vertex v and returns the tet that
// contains it (all four face orientations ≥ 0) or, outside the hull, a
// ghost tet whose hull face v sees. In a carved mesh a walk that would
// leave through a subface stops and returns blocked = 4·t+k of that face.
//
// A parallel worker, whose t must be a tet it owns, returns found = −1
// when the walk meets a tet it does not own.
func (m *tri) locate(v int32, t int32) (found int32, blocked int32) {
	if m.isGhost(t) {
		t = m.across(4*t+3) >> 2
	}
	if m.own != nil {
		// The caller's t is owned, so t, its neighbour, may be read.
		if !m.own.owns(m, t) {
			return -1, -1
		}
		if t = m.approach(v, t); t < 0 {
			return -1, -1
		}
	}
	prev := int32(-1)
	for steps := 0; ; steps++ {
		if m.isGhost(t) {
			return t, -1
		}
		if steps > 1<<14 {
			if m.own != nil {
				return -1, -1
			}
			// Walks can cycle in a non-Delaunay tetrahedralization (after
			// flips); the scan always finds the answer.
			if s := m.scanFor(v); s >= 0 {
				return s, -1
			}
			return t, 4 * t
		}
		r := int(m.random() & 3)
		next := int32(-1)
		for i := 0; i < 4; i++ {
			k := (r + i) & 3
			n := m.across(4*t + int32(k))
			if n >= 0 && n>>2 == prev && steps < 1<<10 {
				continue
			}
			if m.orientFace(t, k, v) > 0 {
				if n < 0 && m.crossSubface != nil {
					n = m.crossSubface(refSubface(n), 4*t+int32(k))
				}
				if n < 0 {
					return t, 4*t + int32(k)
				}
				next = n
				break
			}
		}
		if next < 0 {
			return t, -1
		}
		if m.own != nil && !m.own.ownsAcross(m, next) {
			return -1, -1
		}
		prev, t = t, next>>2
	}
}

// hasVertexAt returns the vertex of tet t at exactly p, or −1.
func (m *tri) hasVertexAt(t int32, p geom.Vec) int32 {
	for _, v := range m.tet(t) {
		if v >= 0 && m.pos(v) == p {
			return v
		}
	}
	return -1
}

// findCavity collects the tets in conflict with vertex v, starting from
// t0, without crossing subfaces, into m.cav and their boundary into m.bnd
// (and the faces across it into m.outer). A parallel worker returns
// false, with the marks still to clear, when a tet in conflict is not its
// own; otherwise it returns true.
func (m *tri) findCavity(v int32, t0 int32) bool {
	m.cav = append(m.cav[:0], t0)
	m.bnd = m.bnd[:0]
	m.outer = m.outer[:0]
	mark := m.mark
	mark[t0] = inCavity
	j := 3 * int(v)
	pv := m.xyz[j : j+3 : j+3]
	ex, ey, ez := pv[0], pv[1], pv[2]
	// When a tet joins the cavity, its neighbours' records and marks are
	// read at once, for nothing but their cache misses: those then
	// overlap, where the search, reaching each neighbour after a branch
	// on an insphere test, would wait for them one by one. At 3·10⁵
	// random points this saved about 5% of the serial kernel's time.
	var warm int32
	for i := 0; i < len(m.cav); i++ {
		t := m.cav[i]
		for k, n := range m.c[t<<3+4 : t<<3+8 : t<<3+8] {
			if n >= 0 {
				u := n >> 2
				// A parallel worker may read u, which shares a face with
				// a tet it owns, and relink it, but not take it into the
				// cavity unless it owns it.
				switch mark[u] {
				case inCavity:
					continue
				case 0:
					// conflict, with the finite case inline.
					q := m.c[u<<3 : u<<3+4 : u<<3+4]
					var in bool
					if q[3] != ghost {
						in = inSphereAtPoint(m.xyz, q[0], q[1], q[2], q[3], v, ex, ey, ez) > 0
					} else {
						in = m.conflict(u, v)
					}
					if in {
						if m.own != nil && !m.own.ownsAcross(m, n) {
							m.warm = warm
							return false
						}
						mark[u] = inCavity
						m.cav = append(m.cav, u)
						for _, n := range m.c[u<<3+4 : u<<3+8 : u<<3+8] {
							if n >= 0 {
								warm += m.c[n>>2<<3|3] + int32(mark[n>>2])
							}
						}
						continue
					}
					mark[u] = outCavity
				}
			}
			m.bnd = append(m.bnd, 4*t+int32(k))
			m.outer = append(m.outer, n)
		}
	}
	m.warm = warm
	return true
}

// clearMarks resets the marks findCavity (and starShape) set.
func (m *tri) clearMarks() {
	for _, t := range m.touched {
		m.mark[t] = 0
	}
	m.touched = m.touched[:0]
	for _, t := range m.cav {
		m.mark[t] = 0
	}
	for _, n := range m.outer {
		if n >= 0 {
			m.mark[n>>2] = 0
		}
	}
}

// newSlot returns a tet slot: a free one or a new one.
func (m *tri) newSlot() int32 {
	if n := len(m.free); n > 0 {
		t := m.free[n-1]
		m.free = m.free[:n-1]
		return t
	}
	if m.own != nil {
		return m.own.newSlot()
	}
	return m.appendSlot()
}

// appendSlot adds a slot after the last and returns it.
func (m *tri) appendSlot() int32 {
	t := int32(len(m.c) / 8)
	m.c = append(m.c, 0, 0, 0, 0, 0, 0, 0, 0)
	m.mark = append(m.mark, 0)
	if m.region != nil {
		m.region = append(m.region, 0)
	}
	return t
}

// fillCavity replaces the cavity tets by the cone from v over the cavity
// boundary and returns the new tets in m.newTets.
func (m *tri) fillCavity(v int32) {
	m.fills++
	m.clearMarks()
	// Reuse cavity slots, then free slots, then grow.
	nc := len(m.cav)
	m.newTets = append(m.newTets[:0], m.cav[:min(nc, len(m.bnd))]...)
	for len(m.newTets) < len(m.bnd) {
		m.newTets = append(m.newTets, m.newSlot())
	}
	if m.region != nil {
		// Each new tet lies in the region of the cavity tet whose
		// boundary face it stands on.
		m.newReg = m.newReg[:0]
		for _, f := range m.bnd {
			m.newReg = append(m.newReg, m.region[f>>2])
		}
	}
	// Read the boundary faces before the cavity slots are overwritten,
	// entering them in the cone linker as they come.
	l := &m.cone
	cone := l.begin(m, len(m.bnd))
	m.newVerts, m.shape = m.newVerts[:0], m.shape[:0]
	for i, f := range m.bnd {
		t, k := f>>2, f&3
		fk := &faces[k]
		a, b, c := m.c[t<<3|int32(fk[0])], m.c[t<<3|int32(fk[1])], m.c[t<<3|int32(fk[2])]
		// v lies on the inner side of the outward face abc, so
		// (a, c, b, v) is positive; a ghost moves to slot 3 by an even
		// permutation.
		var shape uint8
		switch ghost {
		case a:
			m.newVerts = append(m.newVerts, v, b, c, ghost)
			shape = 1
		case c:
			m.newVerts = append(m.newVerts, b, v, a, ghost)
			shape = 2
		case b:
			m.newVerts = append(m.newVerts, c, a, v, ghost)
			shape = 3
		default:
			m.newVerts = append(m.newVerts, a, c, b, v)
		}
		m.shape = append(m.shape, shape)
		if cone {
			cone = m.enterFace(i, a, b, c, shape)
		}
	}
	for i, id := range m.newTets {
		r := (*[8]int32)(m.c[id<<3:])
		*(*[4]int32)(r[:4]) = [4]int32(m.newVerts[4*i:])
		if m.region != nil {
			m.region[id] = m.newReg[i]
		}
		// Link the face opposite v to the outside.
		vs := coneV[m.shape[i]&3]
		o := m.outer[i]
		r[4+vs] = o
		switch {
		case o >= 0:
			m.c[ni(o)] = 4*id + vs
		case o < noTet && m.onSubface != nil:
			m.onSubface(refSubface(o), 4*id+vs)
		}
	}
	if m.logChanges {
		m.changed = append(m.changed, m.newTets...)
	}
	// Free the cavity slots not reused.
	for i := len(m.bnd); i < nc; i++ {
		t := m.cav[i]
		m.c[t<<3] = dead
		m.free = append(m.free, t)
	}
	if cone {
		m.linkCone(v)
	} else {
		l.clear()
		m.linkAround(v, m.newTets)
	}
}

// coneVerts bounds the vertices of a cavity boundary that the cone
// linker takes, the ghost included; random points have about 15.
const coneVerts = 64

// coneTets is the most faces a closed surface with coneVerts vertices
// has: the most tets of a cone the linker takes.
const coneTets = 2*coneVerts - 4

// coneLinker links the tets of one insertion's cone across their faces
// through the new vertex v without hashing. Boundary vertices get local
// numbers (the ghost 0); the tet over boundary face abc has a face
// through v and each edge of abc, entered in a table at its directed
// edge, a→b, and linked to the face at the reverse edge, b→a, which the
// closed boundary surface has exactly once.
type coneLinker struct {
	loc   []uint32 // per vertex: stamp·coneVerts + local number
	stamp uint32
	next  uint32                        // next local number
	edge  *[coneVerts * coneVerts]int32 // face ids by directed edge; noTet where none
	ids   [4 * coneTets]uint8           // per boundary face: local a, b, c
	vert  [coneVerts]int32              // per local number: the vertex
	last  [coneVerts]int32              // per local number: its last new tet
}

// coneSlots[shape] holds the slots of a, b, c in the tet fillCavity makes
// over boundary face abc, and coneV[shape] that of v: shape 0 is
// (a, c, b, v), shapes 1-3 put the ghost (a, c or b) in slot 3.
var (
	coneSlots = [4][3]int32{{0, 2, 1}, {3, 1, 2}, {2, 0, 3}, {1, 3, 0}}
	coneV     = [4]int32{3, 0, 1, 2}
)

// begin prepares the linker for a cone of n tets and reports whether it
// can take it.
func (l *coneLinker) begin(m *tri, n int) bool {
	if n > coneTets {
		return false
	}
	if nv := len(m.vt); len(l.loc) < nv {
		l.loc = append(l.loc, make([]uint32, nv-len(l.loc)+nv/2)...)
	}
	if l.edge == nil {
		l.edge = new([coneVerts * coneVerts]int32)
		l.clear()
	}
	l.stamp++
	if l.stamp >= 1<<26 {
		clear(l.loc)
		l.stamp = 1
	}
	l.next = 1
	return true
}

// local returns the local number of vertex u, numbering it when new, or
// false when there are too many. It notes new tet id as u's last: linkCone
// points u at it, as linkAround does, so walks start where they did.
func (m *tri) local(u, id int32) (uint8, bool) {
	if u < 0 {
		return 0, true
	}
	l := &m.cone
	base := l.stamp * coneVerts
	x := l.loc[u] - base
	if x >= coneVerts {
		if l.next == coneVerts {
			return 0, false
		}
		x = l.next
		l.next++
		l.loc[u] = base + x
		l.vert[x] = u
	}
	l.last[x%coneVerts] = id
	return uint8(x), true
}

// enterFace enters the new tet over boundary face i, abc, in the linker
// and reports false, leaving entries to clear, when the linker cannot
// take it.
func (m *tri) enterFace(i int, a, b, c int32, shape uint8) bool {
	l := &m.cone
	id := m.newTets[i]
	la, ok1 := m.local(a, id)
	lb, ok2 := m.local(b, id)
	lc, ok3 := m.local(c, id)
	if !ok1 || !ok2 || !ok3 {
		return false
	}
	q := l.ids[4*i : 4*i+4 : 4*i+4]
	q[0], q[1], q[2] = la, lb, lc
	sl := &coneSlots[shape&3]
	// Edge a→b lies on the face opposite c, and so on.
	return l.enter(la, lb, 4*id+sl[2]) && l.enter(lb, lc, 4*id+sl[0]) && l.enter(lc, la, 4*id+sl[1])
}

// enter enters face f at directed edge x→y and reports false when that
// edge is taken: the boundary is not a simple closed surface.
func (l *coneLinker) enter(x, y uint8, f int32) bool {
	e := &l.edge[uint(x)%coneVerts*coneVerts+uint(y)%coneVerts]
	if *e != noTet {
		return false
	}
	*e = f
	return true
}

// take returns the face entered at directed edge x→y, or noTet, and
// empties the entry.
func (l *coneLinker) take(x, y uint8) int32 {
	e := &l.edge[uint(x)%coneVerts*coneVerts+uint(y)%coneVerts]
	f := *e
	*e = noTet
	return f
}

// linkCone links the faces enterFace entered to the faces at their
// reverse edges and empties the table. A face without one (not on a
// closed surface) stays noTet, as linkAround leaves it.
func (m *tri) linkCone(v int32) {
	l := &m.cone
	open := false
	for i, id := range m.newTets {
		q := l.ids[4*i : 4*i+4 : 4*i+4]
		sl := &coneSlots[m.shape[i]&3]
		r := (*[8]int32)(m.c[id<<3:])
		ab, bc, ca := l.take(q[1], q[0]), l.take(q[2], q[1]), l.take(q[0], q[2])
		r[4+sl[2]&3], r[4+sl[0]&3], r[4+sl[1]&3] = ab, bc, ca
		open = open || ab == noTet || bc == noTet || ca == noTet
	}
	if open {
		// Empty the entries no reverse edge took: the table is 16 KB,
		// and every surface insertion leaves some (its cone is open
		// along the surface).
		for i := range m.newTets {
			q := l.ids[4*i : 4*i+4 : 4*i+4]
			l.take(q[0], q[1])
			l.take(q[1], q[2])
			l.take(q[2], q[0])
		}
	}
	if m.own == nil { // else vertices may be in other workers' tets
		for x := uint32(1); x < l.next && x < coneVerts; x++ {
			m.vt[l.vert[x]] = l.last[x]
		}
		if v >= 0 {
			m.vt[v] = m.newTets[len(m.newTets)-1]
		}
	}
}

// clear empties the edge table.
func (l *coneLinker) clear() {
	for i := range l.edge {
		l.edge[i] = noTet
	}
}

// faceLinker links the new tets of one insertion across their faces
// through the new vertex. Each such face is known by its other two
// vertices, a directed edge a→b of the cavity boundary, and meets the face
// with the edge b→a: an open-addressing table keyed by the edge, hashed
// symmetrically so both directions probe the same run. Entries carry the
// insertion's stamp instead of being cleared, so the work per insertion
// is proportional to the cavity, whatever the mesh size.
type faceLinker struct {
	slot  []linkSlot
	stamp uint32
}

type linkSlot struct {
	edge  uint64 // edgeKey(a, b)
	face  int32  // 4·t+k
	stamp uint32
}

// reset prepares the table for n faces.
func (l *faceLinker) reset(n int) {
	size := 64
	for size < 2*n {
		size *= 2
	}
	l.stamp++
	if size > len(l.slot) || l.stamp == 0 {
		l.slot = make([]linkSlot, size)
		l.stamp = 1
	}
}

// match returns the face already entered with edge b→a, or enters face f
// with edge a→b and returns noTet.
func (l *faceLinker) match(a, b, f int32) int32 {
	ua, ub := uint64(uint32(a)), uint64(uint32(b))
	mask := uint64(len(l.slot) - 1)
	h := ((ua^ub)<<32 | (ua+ub)&0xFFFFFFFF) * 0x9E3779B97F4A7C15
	want, own := ub<<32|ua, ua<<32|ub
	for i := h >> 40 & mask; ; i = (i + 1) & mask {
		e := &l.slot[i]
		if e.stamp != l.stamp {
			*e = linkSlot{edge: own, face: f, stamp: l.stamp}
			return noTet
		}
		if e.edge == want {
			e.edge = ^uint64(0) // matched: no third face may take it
			return e.face
		}
	}
}

// linkAround links the given tets, which all have vertex v, to each other
// across their faces through v, and points their vertices at them. A face
// through v that no other tet shares (on a surface the caller is
// building) is left as noTet.
func (m *tri) linkAround(v int32, tets []int32) {
	l := &m.link
	l.reset(3 * len(tets))
	for _, id := range tets {
		b := id << 3
		r := m.c[b : b+8 : b+8]
		for s := int32(0); s < 4; s++ {
			if r[s] == v {
				continue
			}
			f := &faces[s]
			x0, x1, x2 := r[f[0]], r[f[1]], r[f[2]]
			var a, b int32
			switch v {
			case x0:
				a, b = x1, x2
			case x1:
				a, b = x2, x0
			default:
				a, b = x0, x1
			}
			o := l.match(a, b, 4*id+s)
			r[4+s] = o
			if o >= 0 {
				m.c[ni(o)] = 4*id + s
			}
		}
	}
	if m.own != nil {
		return // vertices may be shared with other workers' tets
	}
	for _, id := range tets {
		for _, u := range m.c[id<<3 : id<<3+4] {
			if u >= 0 {
				m.vt[u] = id
			}
		}
	}
}

// newTri returns an empty tetrahedralization over the given coordinates
// (which it keeps and appends to), with room for the tets of est vertices.
func newTri(xyz []float64, est int) *tri {
	nv := len(xyz) / 3
	m := &tri{xyz: xyz, vt: make([]int32, nv), rng: 0x2545F4914F6CDD1D}
	for i := range m.vt {
		m.vt[i] = noTet
	}
	est *= 7
	m.c = make([]int32, 0, 8*est)
	m.mark = make([]uint8, 0, est)
	return m
}

// addVertex appends a vertex and returns its index.
func (m *tri) addVertex(p geom.Vec) int32 {
	m.xyz = append(m.xyz, p[0], p[1], p[2])
	m.vt = append(m.vt, noTet)
	return int32(len(m.vt) - 1)
}

// collinear reports whether a, b, c lie on one line, exactly.
func collinear(a, b, c geom.Vec) bool {
	for k := 0; k < 3; k++ {
		i, j := (k+1)%3, (k+2)%3
		if geom.Orient2D([2]float64{a[i], a[j]}, [2]float64{b[i], b[j]}, [2]float64{c[i], c[j]}) != 0 {
			return false
		}
	}
	return true
}

// errFlat is returned when all points lie in one plane.
var errFlat = errorString("all points are coplanar: no tetrahedron can be formed")

type errorString string

func (e errorString) Error() string { return string(e) }

// start builds the first tet from the first four affinely independent
// vertices of order and its four ghosts, and returns the positions in
// order of the vertices it used.
func (m *tri) start(order []int32) (used [4]int, err error) {
	a := order[0]
	pa := m.pos(a)
	ib, ic, id := -1, -1, -1
	for i, v := range order {
		if ib < 0 {
			if m.pos(v) != pa {
				ib = i
			}
			continue
		}
		if ic < 0 {
			if !collinear(pa, m.pos(order[ib]), m.pos(v)) {
				ic = i
			}
			continue
		}
		if geom.Orient3D(pa, m.pos(order[ib]), m.pos(order[ic]), m.pos(v)) != 0 {
			id = i
			break
		}
	}
	if id < 0 {
		return used, errFlat
	}
	b, c, d := order[ib], order[ic], order[id]
	if geom.Orient3D(pa, m.pos(b), m.pos(c), m.pos(d)) < 0 {
		b, c = c, b
	}
	q := [4]int32{a, b, c, d}
	t0 := m.newSlot()
	copy(m.c[t0<<3:], q[:])
	ghosts := make([]int32, 4)
	for k, f := range faces {
		g := m.newSlot()
		copy(m.c[g<<3:], []int32{q[f[0]], q[f[1]], q[f[2]], ghost})
		m.c[ni(4*t0+int32(k))] = 4*g + 3
		m.c[ni(4*g+3)] = 4*t0 + int32(k)
		ghosts[k] = g
	}
	m.linkAround(ghost, ghosts)
	for _, v := range q {
		m.vt[v] = t0
	}
	return [4]int{0, ib, ic, id}, nil
}

// insert adds vertex v, searching from tet hint. It returns the vertex
// already at v's position, −1 when v was inserted, or −2 when it could not
// be (only after flips: v on the boundary of its tet's cavity).
func (m *tri) insert(v int32, hint int32) int32 {
	t, _ := m.locate(v, hint)
	if !m.isGhost(t) {
		if d := m.hasVertexAt(t, m.pos(v)); d >= 0 {
			return d
		}
	}
	m.findCavity(v, t)
	if m.flipped && !m.starShape(v, t, false) {
		// Only a mesh changed by flips can have a cavity v does not
		// see whole; the shrunk cavity keeps t, and t holds v.
		m.clearMarks()
		return -2
	}
	m.fillCavity(v)
	return -1
}

// delaunay returns the Delaunay tetrahedralization of the points xyz. Its
// vertices are the input points renumbered in insertion order, so that
// points close in space are close in memory: vertex i of the result is
// input point perm[i]. dup[i] ≥ 0 marks vertex i as a duplicate of vertex
// dup[i] (it is in no tet). Large inputs are inserted in parallel and
// their tets put in canonical order (parallel.go); the result does not
// depend on GOMAXPROCS.
func delaunay(xyz []float64) (m *tri, perm, dup []int32, err error) {
	return delaunayWith(xyz, defaultPar())
}

// delaunayWith is delaunay with the given parallel configuration.
func delaunayWith(xyz []float64, cfg parConfig) (m *tri, perm, dup []int32, err error) {
	nv := len(xyz) / 3
	if nv < 4 {
		return nil, nil, nil, errorString("fewer than four points")
	}
	all := make([]int32, nv)
	for i := range all {
		all[i] = int32(i)
	}
	perm = brioOrder(xyz, all)
	sorted := make([]float64, 3*nv)
	runRanges(workRanges(nv), func(_, from, to int) {
		for i, v := range perm[from:to] {
			copy(sorted[3*(from+i):3*(from+i)+3], xyz[3*v:3*v+3])
		}
	})
	parallel := nv >= cfg.minPoints
	serial := nv
	var marked []int32
	var marking sync.WaitGroup
	if parallel {
		// The serial start ends with a BRIO round.
		serial = min(cfg.serial, nv)
		for serial < nv && brioRound(perm[serial]) == brioRound(perm[serial-1]) {
			serial++
		}
		// Workers skip duplicates found beforehand, keeping the first
		// in order as the serial insertion does. They are found beside
		// the serial start (on the other core: about 30 ms at 10⁶ points),
		// which finds its own as it goes, the same: the first in order
		// at each position.
		marked = make([]int32, nv)
		marking.Go(func() {
			for i := range marked {
				marked[i] = -1
			}
			markDuplicates(sorted, marked)
		})
	}
	// The serial start's duplicates; after it, the parallel phase's
	// array takes them in.
	dup = make([]int32, serial)
	for i := range dup {
		dup[i] = -1
	}
	m = newTri(sorted, serial)
	used, err := m.start(all)
	if err != nil {
		marking.Wait()
		return nil, nil, nil, err
	}
	isUsed := func(i int) bool { return i == used[0] || i == used[1] || i == used[2] || i == used[3] }
	hint := int32(0)
	for i := range serial {
		if isUsed(i) || dup[i] >= 0 {
			continue
		}
		if d := m.insert(int32(i), hint); d >= 0 {
			dup[i] = d
			continue
		}
		hint = m.newTets[0]
	}
	if !parallel {
		return m, perm, dup, nil
	}
	marking.Wait()
	copy(marked, dup)
	dup = marked
	p := newParInsert(m, cfg, hint)
	var left []int32 // deferred points left for the next round
	for from := serial; from < nv; {
		to := from + 1
		for to < nv && brioRound(perm[to]) == brioRound(perm[from]) {
			to++
		}
		var pts []int32
		for i := from; i < to; i++ {
			if !isUsed(i) && dup[i] < 0 {
				pts = append(pts, int32(i))
			}
		}
		if left, err = p.insert(append(pts, left...), to == nv); err != nil {
			return nil, nil, nil, err
		}
		from = to
	}
	p.finish()
	return m, perm, dup, nil
}

// markDuplicates sets dup[i] to the first vertex at the position of
// vertex i, when that is not i.
func markDuplicates(xyz []float64, dup []int32) {
	n := len(dup)
	keys := make([]uint64, n)
	idx := make([]int32, n)
	runRanges(workRanges(n), func(_, from, to int) {
		for i := from; i < to; i++ {
			// +0 makes −0 hash as 0: they are the same position.
			h := splitmix(math.Float64bits(xyz[3*i] + 0))
			h = splitmix(h ^ math.Float64bits(xyz[3*i+1]+0))
			// 32 bits of hash: the sort passes over the upper digits,
			// all zero, only count; the rare equal keys of different
			// points are told apart below.
			keys[i] = splitmix(h^math.Float64bits(xyz[3*i+2]+0)) >> 32
			idx[i] = int32(i)
		}
	})
	radix.Sort(keys, idx) // stable: equal keys in vertex order
	for lo := 0; lo < n; {
		hi := lo + 1
		for hi < n && keys[hi] == keys[lo] {
			hi++
		}
		for j := lo + 1; j < hi; j++ {
			a := 3 * int(idx[j])
			for _, k := range idx[lo:j] {
				b := 3 * int(k)
				if dup[k] < 0 && xyz[a] == xyz[b] && xyz[a+1] == xyz[b+1] && xyz[a+2] == xyz[b+2] {
					dup[idx[j]] = k
					break
				}
			}
		}
		lo = hi
	}
}

// edgeKey packs a directed edge (or, with a < b, an undirected one).
func edgeKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

func geomOrient(m *tri, a, b, c, d int32) int { return geom.Orient3DAt(m.xyz, a, b, c, d) }
