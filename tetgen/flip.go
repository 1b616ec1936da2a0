package tetgen

import (
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// Topological flips: the 2-3 flip (a face between two tets becomes an
// edge inside three) and edge removal (the n tets around an edge become
// 2n−4 tets on a triangulation of the edge's link polygon; n = 3 is the
// 3-2 flip). Every new tet is checked positive by the exact predicate
// before anything changes, so a flip either keeps the tetrahedralization
// valid or is refused. Flips never cross or remove a subface (a face
// whose neighbour slot is a subface reference) and never touch ghosts.

// replaceTets replaces the tets old by the tets newq, which must fill the
// same region with the same boundary faces: faces shared by two new tets
// are linked together, the others to whatever was across the same face
// of an old tet. It returns the new tets' slots, in the order of newq
// (m.repl's, valid until the next call): a new face that no old tet had
// (a flipped subface's) is the caller's to link.
func (m *tri) replaceTets(old []int32, newq [][4]int32) []int32 {
	m.flipped = true
	m.version++
	r := &m.repl
	// The old tets' faces and what lies across each, then the new faces
	// still waiting for their twin, in one flat list searched linearly:
	// a flip has at most 4·maxRemovalRing old faces (a contraction, its
	// vertex's star), and maps cost two allocations a flip.
	r.faces = r.faces[:0]
	var reg int8
	for _, t := range old {
		if m.region != nil {
			reg = m.region[t]
		}
		for k := int32(0); k < 4; k++ {
			r.faces = append(r.faces, faceLink{sorted3(m.faceVerts(4*t + k)), m.c[t<<3|4|k]})
		}
	}
	outside := len(r.faces)
	ids := r.ids[:0]
	for i := range newq {
		if i < len(old) {
			ids = append(ids, old[i])
		} else {
			ids = append(ids, m.newSlot())
		}
	}
	r.ids = ids
	for i := len(newq); i < len(old); i++ {
		m.c[old[i]<<3] = dead
		m.free = append(m.free, old[i])
	}
	if m.logChanges {
		m.changed = append(m.changed, ids...)
	}
	for i, q := range newq {
		id := ids[i]
		copy(m.c[id<<3:id<<3+4], q[:])
		if m.region != nil {
			m.region[id] = reg
		}
	faces:
		for k := int32(0); k < 4; k++ {
			fk := sorted3(m.faceVerts(4*id + k))
			for j := outside; j < len(r.faces); j++ {
				if r.faces[j].key == fk {
					o := r.faces[j].across
					m.c[id<<3|4|k] = o
					m.c[ni(o)] = 4*id + k
					r.faces[j] = r.faces[len(r.faces)-1]
					r.faces = r.faces[:len(r.faces)-1]
					continue faces
				}
			}
			for _, f := range r.faces[:outside] {
				if f.key != fk {
					continue
				}
				if o := f.across; !isInnerFace(o, old) {
					m.c[id<<3|4|k] = o
					switch {
					case o >= 0:
						m.c[ni(o)] = 4*id + k
					case o < noTet && m.onSubface != nil:
						m.onSubface(refSubface(o), 4*id+k)
					}
					continue faces
				}
				break
			}
			r.faces = append(r.faces, faceLink{fk, 4*id + k})
		}
		for _, v := range q {
			if v >= 0 {
				m.vt[v] = id
			}
		}
	}
	return ids
}

// replaceScratch holds replaceTets' buffers.
type replaceScratch struct {
	faces []faceLink
	ids   []int32
}

// faceLink is a face (sorted vertices) and the face id across it.
type faceLink struct {
	key    [3]int32
	across int32
}

// isInnerFace reports whether neighbour slot o points into one of the old
// tets (a face interior to the replaced region).
func isInnerFace(o int32, old []int32) bool {
	return o >= 0 && slices.Contains(old, o>>2)
}

// flip23 replaces the two tets sharing face f by three tets around the
// edge joining their apexes, if those are positive. It reports success.
func (m *tri) flip23(f int32) bool {
	o := m.across(f)
	if o < 0 {
		return false
	}
	t1, t2 := f>>2, o>>2
	if m.isGhost(t1) || m.isGhost(t2) {
		return false
	}
	abc := m.faceVerts(f) // outward from t1
	d := m.c[t1<<3|f&3]
	e := m.c[t2<<3|o&3]
	// t1 = (a, c, b, d) is positive with the outward face abc; the new
	// tets (u, v, d, e) run over the outward edges u→v of abc.
	var newq [][4]int32
	for k := 0; k < 3; k++ {
		u, v := abc[k], abc[(k+1)%3]
		if geom.Orient3DAt(m.xyz, u, v, d, e) <= 0 {
			return false
		}
		newq = append(newq, [4]int32{u, v, d, e})
	}
	m.replaceTets([]int32{t1, t2}, newq)
	return true
}

// ring returns the tets around edge x–y, starting from tet t (which has
// both), and the link vertices, ordered so that (x, y, link[i],
// link[i+1]) are the tets' vertices in positive order, appended to
// tets[:0] and link[:0] (buffers; nil for new slices). It fails when
// the ring is open (it meets a subface) or has a ghost.
func (m *tri) ring(x, y, t int32, tets, link []int32) ([]int32, []int32, bool) {
	tets, link = tets[:0], link[:0]
	if q := m.tet(t); !m.alive(t) || !slices.Contains(q, x) || !slices.Contains(q, y) {
		return tets[:0], link[:0], false
	}
	start := t
	for {
		q := (*[4]int32)(m.c[t<<3 : t<<3+4])
		if q[3] == ghost { // a ghost tet keeps the ghost at slot 3
			return tets[:0], link[:0], false
		}
		i, j := 0, 0
		for s, v := range q {
			if v == x {
				i = s
			} else if v == y {
				j = s
			}
		}
		k := ringNext[i][j]
		tets = append(tets, t)
		link = append(link, q[k])
		// Cross the face x, y, r (opposite p) to the next tet.
		o := m.c[t<<3|4|int32(k)]
		if o < 0 || len(tets) > 64 {
			return tets[:0], link[:0], false
		}
		t = o >> 2
		if t == start {
			return tets, link, true
		}
	}
}

// ringNext[i][j] is, for x at slot i and y at slot j of a tet q, the
// slot k of q's vertex p that makes (x, y, p, r) an even permutation of
// q, r being the fourth: every live tet is positive, so the parity
// answers what Orient3D would.
var ringNext = func() (next [4][4]uint8) {
	for i := range 4 {
		for j := range 4 {
			if i == j {
				continue
			}
			at := [4]int{i, j}
			n := 2
			for s := range 4 {
				if s != i && s != j {
					at[n] = s
					n++
				}
			}
			odd := false
			for a := range 4 {
				for b := a + 1; b < 4; b++ {
					odd = odd != (at[a] > at[b])
				}
			}
			if odd {
				at[2] = at[3]
			}
			next[i][j] = uint8(at[2])
		}
	}
	return next
}()

// maxRemovalRing bounds the rings edge removal tries: an n-gon has
// Catalan(n−2) triangulations (132 for n = 8).
const maxRemovalRing = 8

// polygonTriangulations[n] lists every triangulation of the convex n-gon
// 0..n−1, each triangle's corners in increasing (counterclockwise) order.
var polygonTriangulations = func() [][][][3]int {
	out := make([][][][3]int, maxRemovalRing+1)
	var sub func(i, j int) [][][3]int
	sub = func(i, j int) [][][3]int {
		if j-i < 2 {
			return [][][3]int{nil}
		}
		var all [][][3]int
		for k := i + 1; k < j; k++ {
			for _, l := range sub(i, k) {
				for _, r := range sub(k, j) {
					t := append(append(append([][3]int{}, l...), r...), [3]int{i, k, j})
					all = append(all, t)
				}
			}
		}
		return all
	}
	for n := 3; n <= maxRemovalRing; n++ {
		out[n] = sub(0, n-1)
	}
	return out
}()

// removeEdge removes edge x–y, whose tet t is given, replacing its ring of
// tets by the tets over a triangulation of the link polygon joined to x
// and to y. Among the triangulations whose new tets are all positive and
// that accept approves (nil: all), it takes the one whose worst new tet
// scores best (score nil: the first valid one). It reports success.
func (m *tri) removeEdge(x, y, t int32, accept func(tris [][3]int32) bool, score func(q [4]int32) float64) bool {
	tets, link, ok := m.ring(x, y, t, nil, nil)
	return ok && m.removeRing(x, y, tets, link, accept, nil, score, math.Inf(-1))
}

// removeRing is removeEdge for the ring tets and link of x–y that ring
// returned, committing only if the best triangulation's worst score is
// above floor; keep (nil: any), asked of each triangle once, must take
// every triangle of the triangulation too. Each score is charged to m.sines as one tet evaluation. A
// triangulation is scored only while it can still beat both floor and
// the best so far, but its positivity is checked in full and the scores
// it skips are charged too, so the result and the work counted are those
// of scoring all.
func (m *tri) removeRing(x, y int32, tets, link []int32, accept func(tris [][3]int32) bool, keep func(tr [3]int32) bool, score func(q [4]int32) float64, floor float64) bool {
	var buf ringBuf
	best := m.bestRing(&buf, x, y, link, accept, keep, score, floor)
	if best == nil {
		return false
	}
	m.replaceTets(tets, best)
	return true
}

// ringBuf holds the new tets of two triangulations of a link polygon.
type ringBuf [2][2 * (maxRemovalRing - 2)][4]int32

// ringCorners lists the triangles (i, k, j), i < k < j, of a link
// polygon's vertices, which bestRing's triangulations share: the 132
// triangulations of an octagon use 792 triangles, 56 of them distinct.
// ringTriangulations[n] is polygonTriangulations[n] with each triangle
// given by its index in ringCorners, which also numbers ringMemo's
// entries and the bits of bestRing's sets of triangles.
var ringCorners, ringTriangulations = func() (corners [ringTris][3]uint8, out [maxRemovalRing + 1][]ringTriangulation) {
	var id [maxRemovalRing][maxRemovalRing][maxRemovalRing]uint8
	n := uint8(0)
	for i := range maxRemovalRing {
		for k := i + 1; k < maxRemovalRing; k++ {
			for j := k + 1; j < maxRemovalRing; j++ {
				id[i][k][j], corners[n] = n, [3]uint8{uint8(i), uint8(k), uint8(j)}
				n++
			}
		}
	}
	for n, trs := range polygonTriangulations {
		for _, tr := range trs {
			r := ringTriangulation{ids: make([]uint8, len(tr))}
			for i, c := range tr {
				r.ids[i] = id[c[0]][c[1]][c[2]]
				r.set |= 1 << r.ids[i]
			}
			out[n] = append(out[n], r)
		}
	}
	return corners, out
}()

// ringTris is the number of triangles of ringCorners, at most 64: a
// set of them is a uint64.
const ringTris = maxRemovalRing * (maxRemovalRing - 1) * (maxRemovalRing - 2) / 6

// ringTriangulation is a triangulation of a link polygon: its triangles
// (ringCorners indices, in polygonTriangulations' order) and their set.
type ringTriangulation struct {
	ids []uint8
	set uint64
}

// ringTriangle returns the vertices of triangle ringCorners[id] of
// link polygon link.
func ringTriangle(link []int32, id uint8) [3]int32 {
	c := &ringCorners[id]
	return [3]int32{link[c[0]], link[c[1]], link[c[2]]}
}

// bestRing returns (in buf) the new tets of removeRing's choice for edge
// x–y and its link polygon, or nil when none is valid or scores above
// floor.
func (m *tri) bestRing(buf *ringBuf, x, y int32, link []int32, accept func(tris [][3]int32) bool, keep func(tr [3]int32) bool, score func(q [4]int32) float64, floor float64) [][4]int32 {
	n := len(link)
	if n < 3 || n > maxRemovalRing {
		return nil
	}
	cur := 0
	var best [][4]int32
	bestScore := 0.0
	// accept's argument, filled only when accept is asked.
	tris := m.ringAccepted[:n-2]
	// The triangulations share their triangles: keep's answer, the
	// exact orientations and the scores of each triangle are computed
	// once (sets of triangles by answer, m.ringMemo for the scores), the
	// scores charged to m.sines as often as if computed for every
	// triangulation. keep, being a function of the triangle only, need
	// not be asked of the others of a triangulation it refused one of.
	var kept, refused, positive, negative, scored uint64
	// positiveAt reports whether both tets of triangle id are positive.
	positiveAt := func(id uint8) bool {
		bit := uint64(1) << id
		if (positive|negative)&bit == 0 {
			t := ringTriangle(link, id)
			if geom.Orient3DAt(m.xyz, t[0], t[1], t[2], y) > 0 && geom.Orient3DAt(m.xyz, t[0], t[2], t[1], x) > 0 {
				positive |= bit
			} else {
				negative |= bit
			}
		}
		return positive&bit != 0
	}
	for _, tr := range ringTriangulations[n] {
		// A triangulation whose first triangle makes a tet that is not
		// positive is refused before any score is charged, whatever
		// keep says: asking the orientations first spares keep, which
		// costs twice as much, nearly half its calls (the lever as
		// given: 9.4 M → 5.2 M, for 1.7 M more orientations).
		if !positiveAt(tr.ids[0]) {
			continue
		}
		if keep != nil {
			for _, id := range tr.ids {
				if bit := uint64(1) << id; tr.set&refused == 0 && kept&bit == 0 {
					if keep(ringTriangle(link, id)) {
						kept |= bit
					} else {
						refused |= bit
					}
				}
			}
			if tr.set&refused != 0 {
				continue
			}
		}
		if accept != nil {
			for i, id := range tr.ids {
				tris[i] = ringTriangle(link, id)
			}
			if !accept(tris) {
				continue
			}
		}
		cutoff := floor
		if best != nil {
			cutoff = max(cutoff, bestScore)
		}
		newq := buf[cur][:0]
		worst := 1e300
		valid := true
		for _, id := range tr.ids {
			t, bit := ringTriangle(link, id), uint64(1)<<id
			a, b, c := t[0], t[1], t[2]
			up, down := [4]int32{a, b, c, y}, [4]int32{a, c, b, x}
			if !positiveAt(id) {
				valid = false
				break
			}
			newq = append(newq, up, down)
			if score != nil {
				m.sines += 2
				if worst > cutoff {
					e := &m.ringMemo[id]
					if scored&bit == 0 {
						e[0], e[1] = score(up), score(down)
						scored |= bit
					}
					worst = min(worst, e[0], e[1])
				}
			}
		}
		if !valid {
			continue
		}
		if best == nil || worst > bestScore {
			best, bestScore, cur = newq, worst, 1-cur
		}
		if score == nil {
			break
		}
	}
	if best == nil || !(bestScore > floor) {
		return nil
	}
	return best
}

// Removal of a surface edge: an edge x–y between two subfaces of the same
// facet (input triangle, or planar group with MergeCoplanar) of the outer
// surface that is not on an input edge may go like an interior edge, the tets of
// its fan (from one subface to the other) replaced by the tets over a
// triangulation of the fan's link polygon l₀…lₙ₋₁ joined to x and to y.
// The two subfaces become (x, lₙ₋₁, l₀) and (y, l₀, lₙ₋₁): the same quad
// of the facet cut along its other diagonal, so every input triangle stays
// the union of its subfaces. With a fan of two tets this is the 2-2 flip.
// Every new tet is positive by the exact predicate, which also makes the
// quad convex; as ever, no new edge or interior face may join only
// boundary vertices.

// surfaceFan returns the tets around edge x–y of tet t when the edge has
// a subface on each side, the link vertices ordered so that (x, y,
// link[i], link[i+1]) are the tets' vertices in positive order, and the
// subfaces holding (x, y, link[0]) and (x, y, link[n−1]); the tets and
// the link are appended to tets[:0] and link[:0] (buffers, as ring's).
func (ms *mesher) surfaceFan(x, y, t int32, tets, link []int32) (_, _ []int32, f0, f1 int32, ok bool) {
	tets, link = tets[:0], link[:0]
	m := ms.m
	// sides returns t's vertices other than x and y, in positive order
	// with them.
	sides := func(t int32) (p, r int32, ok bool) {
		p, r = -1, -1
		for _, v := range m.tet(t) {
			switch {
			case v == ghost:
				return 0, 0, false
			case v == x || v == y:
			case p < 0:
				p = v
			default:
				r = v
			}
		}
		if geom.Orient3DAt(m.xyz, x, y, p, r) < 0 {
			p, r = r, p
		}
		return p, r, true
	}
	// Back up across the faces (x, y, p) to the first subface.
	start := t
	for i := 0; ; i++ {
		_, r, ok := sides(start)
		if !ok || i > maxRemovalRing {
			return tets[:0], link[:0], 0, 0, false
		}
		n := m.c[start<<3|4|int32(slices.Index(m.tet(start), r))]
		if n < noTet {
			f0 = refSubface(n)
			break
		}
		if n < 0 || n>>2 == t {
			return tets[:0], link[:0], 0, 0, false
		}
		start = n >> 2
	}
	for t = start; ; {
		p, r, ok := sides(t)
		if !ok || len(tets) >= maxRemovalRing {
			return tets[:0], link[:0], 0, 0, false
		}
		tets = append(tets, t)
		link = append(link, p)
		n := m.c[t<<3|4|int32(slices.Index(m.tet(t), p))]
		if n < noTet {
			return tets, append(link, r), f0, refSubface(n), true
		}
		if n < 0 {
			return tets[:0], link[:0], 0, 0, false
		}
		t = n >> 2
	}
}

// removeSurfaceEdge removes surface edge x–y of tet t as the comment above
// says when that raises the worst score of the tets it changes by 5%; it
// reports whether it did. fs holds sines flipBetter asked.
func (ms *mesher) removeSurfaceEdge(x, y, t int32, fs *flipSines, score func(q [4]int32) float64) bool {
	m, s := ms.m, &ms.s
	tets, link, f0, f1, ok := ms.surfaceFan(x, y, t, ms.ringTets, ms.ringLink)
	ms.ringTets, ms.ringLink = tets, link
	if !ok || f0 == f1 || len(link) < 3 || len(link) > maxRemovalRing ||
		s.side[2*f0+1] != noTet || s.side[2*f1+1] != noTet {
		return false
	}
	// With MergeCoplanar a subface's facet is its planar group.
	if s.facet[f0] != s.facet[f1] || ms.facets[s.facet[f0]].core {
		return false
	}
	// The quad's outer half-edges: directed edge, neighbour and whether
	// it is a subsegment.
	type halfEdge struct {
		from, to, adj int32
		seg           bool
	}
	var outer [4]halfEdge
	no := 0
	for _, f := range [2]int32{f0, f1} {
		for e := int32(0); e < 3; e++ {
			a, b := s.edge(f, e)
			if a == x && b == y || a == y && b == x {
				if s.isSeg(f, e) {
					return false
				}
				continue
			}
			if no == 4 {
				return false
			}
			outer[no] = halfEdge{a, b, s.adj[3*f+e], s.isSeg(f, e)}
			no++
		}
	}
	if no != 4 {
		return false
	}
	// As in smoothing, a better smallest sine may come with a smaller
	// acute angle: the flip may not take that below where it was, or
	// below the target.
	before, acute := 1.0, optTarget
	for _, u := range tets {
		s := fs.sine(m, u)
		before = min(before, s)
		acute = min(acute, m.cappedSine(m.tet(u), s))
	}
	keep := func(tr [3]int32) bool { return !ms.voidTriangle(tr, link) }
	var buf ringBuf
	best := m.bestRing(&buf, x, y, link, nil, keep, score, 1.05*before)
	if best == nil {
		return false
	}
	for _, q := range best {
		if m.dihedralBelow(q[:], acute) {
			return false
		}
	}
	ids := m.replaceTets(tets, best)
	// Give the two new faces on the surface the subfaces' records.
	l0, ln := link[0], link[len(link)-1]
	for _, id := range ids {
		q := m.tet(id)
		if !slices.Contains(q[:], l0) || !slices.Contains(q[:], ln) {
			continue
		}
		for k := int32(0); k < 4; k++ {
			apex := q[k]
			if apex == x || apex == y || apex == l0 || apex == ln {
				continue
			}
			// The face opposite the polygon vertex: (x or y, l0, ln).
			face := 4*id + k
			fv := m.faceVerts(face)
			g := f0
			if slices.Contains(fv[:], y) {
				g = f1
			}
			var segs uint8
			for e := range uint(3) {
				a, b := fv[e], fv[(e+1)%3]
				for _, h := range outer {
					if h.from == a && h.to == b {
						segs |= bit(h.seg, e)
						if h.adj >= 0 {
							s.relink(h.adj, g, int32(e))
						} else {
							s.adj[3*g+int32(e)] = h.adj
						}
					}
				}
			}
			s.set(g, fv[0], fv[1], fv[2], segs)
			m.c[ni(face)] = subfaceRef(g)
			ms.moveSubfaceSide(g, face)
		}
	}
	// Link the new diagonal l0–ln of the two subfaces.
	diag := func(g int32) int32 {
		for e := int32(0); e < 3; e++ {
			if a, b := s.edge(g, e); (a == l0 || a == ln) && (b == l0 || b == ln) {
				return e
			}
		}
		return -1
	}
	s.link(f0, diag(f0), f1, diag(f1))
	return true
}

// smallestDihedral returns the smallest dihedral angle (radians) of the
// tet with vertices q.
func (m *tri) smallestDihedral(q []int32) float64 {
	return tetmesh.MinDihedral(m.pos(q[0]), m.pos(q[1]), m.pos(q[2]), m.pos(q[3]))
}

// cappedDihedral returns min(optTarget, smallestDihedral(q)), mostly
// without an arccosine (tetmesh.MinDihedralCapped): the guards of the
// sliver stage's moves and flips ask it of every tet they change.
func (m *tri) cappedDihedral(q []int32) float64 {
	return tetmesh.MinDihedralCapped(m.pos(q[0]), m.pos(q[1]), m.pos(q[2]), m.pos(q[3]), optTarget, cosOptTarget)
}

// dihedralBelow reports whether smallestDihedral(q) < angle, mostly
// without arccosines (tetmesh.MinDihedralBelow).
func (m *tri) dihedralBelow(q []int32, angle float64) bool {
	return tetmesh.MinDihedralBelow(m.pos(q[0]), m.pos(q[1]), m.pos(q[2]), m.pos(q[3]), angle)
}
