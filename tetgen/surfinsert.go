package tetgen

import "slices"

// Insertion of a vertex into the surface triangulation (Bowyer–Watson in
// the facets), and, once the mesh is carved, into the tets beside it.

// surfCavity is the cavity of a new surface vertex: the subfaces whose
// circumcircle holds it, and the boundary of their union.
type surfCavity struct {
	subs  []int32
	edges []cavEdge // boundary, each edge as in its subface (counterclockwise around the cavity)
	fan   []int32   // after surfFan: the new subface built on each boundary edge
	in    []uint32  // per subface: stamp when in the cavity
	stamp uint32
	// After indexEdges: the boundary edges from vertex a, in order, are
	// head[a], next[head[a]], … (−1 ends), for the vertices starts marks.
	starts     stamps
	head, next []int32
}

type cavEdge struct {
	a, b   int32 // the edge a→b of a cavity subface
	across int32 // 3·f+e of the same edge outside the cavity
	seg    bool
	facet  int32
}

func (c *surfCavity) has(f int32) bool { return c.in[f] == c.stamp }

// surfaceCavity collects the cavity of vertex v, which lies in subface f0
// or on its edge e0 (−1 for inside): the subfaces connected to f0 through
// non-subsegment edges whose circumcircle contains v, plus the subface
// across e0. It shrinks the cavity until v sees every boundary edge from
// inside, and reports false if even f0's part cannot be kept.
func (ms *mesher) surfaceCavity(v, f0, e0 int32) bool {
	return ms.surfaceCavityGrow(v, f0, e0, true)
}

// surfaceCavityGrow is surfaceCavity; without grow the cavity is only f0
// and the subface across e0.
func (ms *mesher) surfaceCavityGrow(v, f0, e0 int32, grow bool) bool {
	s, c := &ms.s, &ms.sc
	if len(c.in) < int(s.num()) {
		c.in = append(c.in, make([]uint32, int(s.num())-len(c.in)+64)...)
	}
	c.stamp++
	c.subs = append(c.subs[:0], f0)
	c.in[f0] = c.stamp
	if e0 >= 0 {
		g := s.adj[3*f0+e0] / 3
		c.subs = append(c.subs, g)
		c.in[g] = c.stamp
	}
	seeds := len(c.subs)
	for i := 0; i < len(c.subs) && grow; i++ {
		f := c.subs[i]
		for e := int32(0); e < 3; e++ {
			if s.isSeg(f, e) {
				continue
			}
			g := s.adj[3*f+e] / 3
			if c.has(g) {
				continue
			}
			q := s.sv[3*g : 3*g+3]
			if ms.inCircle(s.facet[g], q[0], q[1], q[2], v) {
				c.in[g] = c.stamp
				c.subs = append(c.subs, g)
			}
		}
	}
	for {
		c.edges = c.edges[:0]
		for _, f := range c.subs {
			for e := int32(0); e < 3; e++ {
				h := s.adj[3*f+e]
				if c.has(h / 3) {
					continue
				}
				a, b := s.edge(f, e)
				c.edges = append(c.edges, cavEdge{a, b, h, s.isSeg(f, e), s.facet[f]})
			}
		}
		// v must see each boundary edge from inside; else drop the
		// subface that owns the edge (never a seed).
		drop := false
		for _, ce := range c.edges {
			if ms.orient2(ce.facet, ce.a, ce.b, v) > 0 {
				continue
			}
			f := s.adj[ce.across] / 3
			for _, g := range c.subs[:seeds] {
				if g == f {
					return false
				}
			}
			c.in[f] = 0
			drop = true
		}
		if !drop {
			return true
		}
		keep := c.subs[:0]
		for _, f := range c.subs {
			if c.has(f) {
				keep = append(keep, f)
			}
		}
		c.subs = keep
	}
}

// surfFan replaces the cavity's subfaces by the fan from v over its
// boundary, reusing their slots, and records the new subface of each
// boundary edge in sc.fan. Edges from v to the ends of a split
// subsegment, where the fan passes from one facet to the other, are
// subsegments.
func (ms *mesher) surfFan(v int32) {
	s, c := &ms.s, &ms.sc
	ms.setProtected(c.subs, false)
	defer func() { ms.setProtected(c.fan, true) }()
	c.fan = c.fan[:0]
	for i, ce := range c.edges {
		var g int32
		if i < len(c.subs) {
			g = c.subs[i]
			s.facet[g] = ce.facet
		} else {
			g = s.add(ce.a, ce.b, v, ce.facet)
		}
		s.set(g, ce.a, ce.b, v, bit(ce.seg, 0))
		s.relink(ce.across, g, 0)
		if s.side != nil {
			s.side[2*g], s.side[2*g+1] = noTet, noTet
		}
		c.fan = append(c.fan, g)
	}
	// The boundary is one cycle: link each fan subface to the one that
	// starts where it ends, the first such edge, found by the index (a
	// search of every edge for every edge took 1.7 % of
	// cura_pbr3d_g1_buildplate.stl's instructions with MergeCoplanar at
	// -q 1.414). insertSurfaceCavity reads the index after.
	c.indexEdges(len(ms.kind))
	for i, ce := range c.edges {
		j := c.firstFrom(ce.b)
		if j < 0 {
			continue
		}
		g, h := c.fan[i], c.fan[j]
		s.link(g, 1, h, 2)
		if ce.facet != c.edges[j].facet {
			s.segs[g] |= 1 << 1
			s.segs[h] |= 1 << 2
		}
	}
}

// addToSurface inserts vertex v, lying in subface f or on its edge e, into
// the surface triangulation only (before carving).
func (ms *mesher) addToSurface(v, f, e int32) bool {
	if !ms.surfaceCavity(v, f, e) {
		return false
	}
	ms.surfFan(v)
	return true
}

// insertOnSurface inserts vertex v, lying in subface f or on its edge e,
// into the carved mesh: the surface cavity of v is replaced by its fan,
// and the tets beside it — with every tet in conflict with v reachable
// without crossing a subface — by the cone from v. Tets that would join v
// to a subface it is coplanar with stay out, and the cavity is shrunk
// until v sees its whole boundary. On failure nothing changes.
func (ms *mesher) insertOnSurface(v, f, e int32) int {
	if !ms.surfaceCavity(v, f, e) {
		return hidden
	}
	return ms.insertSurfaceCavity(v)
}

// insertSurfaceCavity is insertOnSurface once ms.sc holds v's surface
// cavity (surfaceCavity), unchanged since it was found.
func (ms *mesher) insertSurfaceCavity(v int32) int {
	m, s, c := ms.m, &ms.s, &ms.sc
	// The facets v lies in: its subface's and, on an edge, the one across
	// (the second seed, which shrinking keeps in place).
	facets := [2]int32{s.facet[c.subs[0]], s.facet[c.subs[min(1, len(c.subs)-1)]]}
	m.cav, m.bnd, m.outer = m.cav[:0], m.bnd[:0], m.outer[:0]
	for _, g := range c.subs {
		for k := 0; k < 2; k++ {
			if face := s.side[2*g+int32(k)]; face != noTet && m.mark[face>>2] != inCavity {
				m.mark[face>>2] = inCavity
				m.cav = append(m.cav, face>>2)
			}
		}
	}
	required := len(m.cav)
	// A tet stays out of the cavity when it would join v to a subface
	// outside the surface cavity in the planar group of one of v's
	// facets: v is coplanar with it (but for the rounding of Steiner
	// points), so the tet would be flat. Only exact coplanarity decides:
	// keeping out the tets v would make flat with any subface (tested by
	// their dihedral sine) also kept out tets on curved surfaces whose
	// flat tets void splitting mends better, and lowered the minimum
	// dihedral angle of the torus from 15° to 10.8°, of
	// matgeom_mushroom.off from 12.5° to 1.3°.
	joinsCoplanar := func(t int32) bool {
		for k := int32(0); k < 4; k++ {
			n := m.c[t<<3|4|k]
			if n >= noTet || c.has(refSubface(n)) {
				continue
			}
			g := refSubface(n)
			if fg := s.facet[g]; fg == facets[0] || fg == facets[1] {
				return true
			}
			if ms.joinCoplanar {
				continue
			}
			if ms.samePlane(s.facet[g], facets[0]) || ms.samePlane(s.facet[g], facets[1]) {
				return true
			}
		}
		return false
	}
	for i := 0; i < len(m.cav); i++ {
		t := m.cav[i]
		for k := int32(0); k < 4; k++ {
			n := m.c[t<<3|4|k]
			if n < 0 {
				continue
			}
			u := n >> 2
			if m.mark[u] != 0 {
				continue
			}
			// joinsCoplanar first: both are pure, and the tets it
			// keeps out, with a face in v's plane, are where the
			// in-sphere test is flat and often exact.
			if !joinsCoplanar(u) && m.inSphere(u, v) {
				m.mark[u] = inCavity
				m.cav = append(m.cav, u)
			} else {
				m.mark[u] = outCavity
				m.touched = append(m.touched, u)
			}
		}
	}
	if !m.shrinkToStar(v, required, c) {
		m.clearMarks()
		return hidden
	}
	m.fillCavity(v)
	ms.surfFan(v) // which indexes c.edges
	// The cone's faces through v on the surface are the fan's subfaces:
	// an edge x→y of the cavity boundary, seen from the tet whose face
	// (x, y, v) is outward along the subface's normal, is its inner side.
	for _, id := range m.newTets {
		for k := int32(0); k < 4; k++ {
			q := m.faceVerts(4*id + k)
			var x, y int32
			switch v {
			case q[0]:
				x, y = q[1], q[2]
			case q[1]:
				x, y = q[2], q[0]
			case q[2]:
				x, y = q[0], q[1]
			default:
				continue
			}
			// The first boundary edge x→y or y→x, if any.
			i, side := c.edgeFrom(x, y), int32(0)
			if j := c.edgeFrom(y, x); j >= 0 && (i < 0 || j < i) {
				i, side = j, 1
			}
			if i >= 0 {
				g := c.fan[i]
				s.side[2*g+side] = 4*id + k
				m.c[id<<3|4|k] = subfaceRef(g)
			}
		}
	}
	return inserted
}

// indexEdges lists the boundary edges by their first vertex, for edgeFrom;
// n is the number of vertices. Matching the new tets' faces through v
// against every boundary edge took 5% of cura_pbr3d_g1_buildplate.stl's
// build with MergeCoplanar (CPU profile).
func (c *surfCavity) indexEdges(n int) {
	c.starts.next(n)
	if len(c.head) < n {
		c.head = append(c.head, make([]int32, n-len(c.head)+n/2)...)
	}
	c.next = c.next[:0]
	for range c.edges {
		c.next = append(c.next, -1)
	}
	// Backwards, so that each list runs in the order of c.edges.
	for i := len(c.edges) - 1; i >= 0; i-- {
		a := c.edges[i].a
		if !c.starts.mark(a) {
			c.next[i] = c.head[a]
		}
		c.head[a] = int32(i)
	}
}

// firstFrom returns the index of the first boundary edge from x, or −1.
func (c *surfCavity) firstFrom(x int32) int32 {
	if !c.starts.has(x) {
		return -1
	}
	return c.head[x]
}

// edgeFrom returns the index of the first boundary edge x→y, or −1.
func (c *surfCavity) edgeFrom(x, y int32) int32 {
	for i := c.firstFrom(x); i >= 0; i = c.next[i] {
		if c.edges[i].b == y {
			return i
		}
	}
	return -1
}

// dropHidden drops cavity tets with a boundary face v does not see
// strictly from inside (the faces of the surface cavity's subfaces aside;
// c may be nil), then those the drops expose so, until none is left; it
// reports false if a required tet must go. A face's test does not
// change while it stays on the boundary, and tets only leave, so only
// the faces a drop exposes need testing again: rescanning the whole
// boundary after each sweep of drops (as this did) took a fifth of
// plb_aneurysm.stl's refine stage. Which tets go does not depend on the
// order: a tet with such a face has it in every smaller cavity, so all
// orders drop the same set.
func (m *tri) dropHidden(v int32, required int, c *surfCavity) bool {
	stack := m.buf2[:0]
	for _, t := range m.cav {
		if m.mark[t] != inCavity {
			continue
		}
		for k := int32(0); k < 4; k++ {
			n := m.c[t<<3|4|k]
			if n >= 0 && m.mark[n>>2] == inCavity || n < noTet && c != nil && c.has(refSubface(n)) {
				continue
			}
			if m.orientFace(t, int(k), v) >= 0 {
				stack = append(stack, t)
				break
			}
		}
	}
	ok := true
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if m.mark[t] != inCavity {
			continue
		}
		if slices.Contains(m.cav[:required], t) {
			ok = false
			break
		}
		m.mark[t] = outCavity
		m.touched = append(m.touched, t)
		// The faces across t's are on the boundary now.
		for k := int32(0); k < 4; k++ {
			if n := m.c[t<<3|4|k]; n >= 0 && m.mark[n>>2] == inCavity && m.orientFace(n>>2, int(n&3), v) >= 0 {
				stack = append(stack, n>>2)
			}
		}
	}
	m.buf2 = stack
	return ok
}

// shrinkToStar drops cavity tets (never the first required ones) until v
// sees every boundary face strictly from inside, then lists the boundary
// in m.bnd and m.outer, leaving out the faces of the surface cavity's
// subfaces (c may be nil). It reports false if a required tet must go.
func (m *tri) shrinkToStar(v int32, required int, c *surfCavity) bool {
	for {
		if !m.dropHidden(v, required, c) {
			return false
		}
		m.bnd, m.outer = m.bnd[:0], m.outer[:0]
		for _, t := range m.cav {
			if m.mark[t] != inCavity {
				continue
			}
			for k := int32(0); k < 4; k++ {
				n := m.c[t<<3|4|k]
				if n >= 0 && m.mark[n>>2] == inCavity {
					continue
				}
				if n < noTet && c != nil && c.has(refSubface(n)) {
					continue
				}
				m.bnd = append(m.bnd, 4*t+k)
				m.outer = append(m.outer, n)
			}
		}
		// Keep only what stays joined to the required tets: a detached
		// piece would be coned from v across tets that stay.
		const joined = 3
		stack := append(m.buf2[:0], m.cav[:required]...)
		for _, t := range stack {
			m.mark[t] = joined
		}
		for len(stack) > 0 {
			t := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for k := int32(0); k < 4; k++ {
				if n := m.c[t<<3|4|k]; n >= 0 && m.mark[n>>2] == inCavity {
					m.mark[n>>2] = joined
					stack = append(stack, n>>2)
				}
			}
		}
		m.buf2 = stack
		keep := m.cav[:0]
		detached := false
		for _, t := range m.cav {
			switch m.mark[t] {
			case joined:
				m.mark[t] = inCavity
				keep = append(keep, t)
			case inCavity:
				m.mark[t] = outCavity
				m.touched = append(m.touched, t)
				detached = true
			}
		}
		m.cav = keep
		if detached {
			continue
		}
		lost := m.lostVertex()
		if lost < 0 {
			return true
		}
		if slices.Contains(m.cav[:required], lost) {
			return false
		}
		m.mark[lost] = outCavity
		m.touched = append(m.touched, lost)
	}
}
