package tetgen

import (
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// Edge contraction: Steiner vertex v is deleted and u, a neighbour,
// takes its place in every tet of v's star that does not hold u; the
// tets around edge u–v vanish. It is the one operation of the sliver
// stage that removes a vertex (Stellar, Klingner & Shewchuk 2007, found
// it among the most effective): a sliver whose Steiner vertex sits too
// close to the others goes with that vertex.
//
// A contraction is made only when the result is a valid mesh:
//   - the link condition of Dey et al. (1999), Lk(u) ∩ Lk(v) = Lk(uv),
//     with, for two surface vertices, the surface closed by a vertex ω at
//     infinity (so u–v must be a surface edge and the surface vertices
//     joined to both must be the apexes of its two subfaces): the
//     complex stays a manifold;
//   - every new tet positive by the exact orient3d, and every subface
//     that v's place changes counterclockwise in its facet (seen from the
//     facet's eye, exactly): the subfaces around v then tile the same
//     polygon, so every input triangle stays the union of its subfaces
//     and the volume is kept;
//   - no zero-pressure simplex: no new tet, interior face or interior
//     edge whose vertices are all on the boundary;
//   - the boundary kept: a Steiner point on an input edge goes only onto
//     a neighbour on that edge (a Steiner point of it or one of its two
//     input vertices) and one inside an input triangle only onto a
//     neighbour in its surface fan; an interior Steiner point onto any
//     neighbour. Input vertices, caller points and vertices on the core
//     surface are never removed.

// refusal says why a contraction was refused (accepted: it was not).
type refusal uint8

const (
	accepted        refusal = iota
	refusedVertex           // v may not be removed, or not onto u
	refusedLink             // the link condition fails
	refusedInverted         // a new tet or subface is not positive
	refusedVoid             // a zero-pressure simplex would appear
)

// contraction is a planned contraction of v onto u.
type contraction struct {
	v, u    int32
	star    []int32    // v's star, the tets replaced
	drop    []int32    // the tets of the star holding u
	newq    [][4]int32 // the tets of the star without u, v replaced by u
	renamed []int32    // v's subfaces without u: v becomes u
	removed []int32    // v's subfaces holding u: they vanish
}

// removable reports whether contraction may delete vertex v: a Steiner
// point inside the body, on an input edge or inside an input triangle,
// not on the core surface.
func (ms *mesher) removable(v int32) bool {
	k := ms.kind[v]
	return (k == vVolume || k == vSegment || k == vFacet) && ms.on[v] != onCore
}

// onSegmentOf reports whether u lies on the input edge of Steiner point
// v (on an input edge).
func (ms *mesher) onSegmentOf(u, v int32) bool {
	seg := ms.ref[v]
	switch {
	case ms.kind[u] == vSegment:
		return ms.ref[u] == seg
	case ms.kind[u] == vInput:
		return u == ms.segEnds[2*seg] || u == ms.segEnds[2*seg+1]
	}
	return false
}

// contractionTets plans the contraction of removable vertex v, whose
// star is given, onto u: the new tets and v's subfaces, checked against
// the rules for where v may go and by the exact orientation of the new
// tets, the cheap checks that refuse most contractions.
func (ms *mesher) contractionTets(v, u int32, star []int32) (contraction, refusal) {
	m, s := ms.m, &ms.s
	c := contraction{v: v, u: u, star: star}
	if u == v || u < 0 || ms.kind[u] == vBox {
		return c, refusedVertex
	}
	for _, t := range c.star {
		q := m.tet(t)
		if slices.Contains(q, u) {
			c.drop = append(c.drop, t)
			continue
		}
		nq := [4]int32(q)
		nq[slices.Index(q, v)] = u
		c.newq = append(c.newq, nq)
	}
	if len(c.drop) == 0 {
		return c, refusedVertex // not a neighbour
	}
	// v's subfaces: the faces holding v of its star's tets that are on
	// the surface.
	for _, t := range c.star {
		q := m.tet(t)
		for k := int32(0); k < 4; k++ {
			n := m.c[t<<3|4|k]
			if q[k] == v || n >= noTet {
				continue
			}
			g := refSubface(n)
			if slices.Contains(c.removed, g) || slices.Contains(c.renamed, g) {
				continue
			}
			if slices.Contains(s.sv[3*g:3*g+3], u) {
				c.removed = append(c.removed, g)
			} else {
				c.renamed = append(c.renamed, g)
			}
		}
	}
	switch ms.kind[v] {
	case vSegment:
		// u–v must be a subsegment of v's input edge: then the two
		// subfaces holding it are v's removed ones.
		if !ms.onSegmentOf(u, v) || len(c.removed) != 2 {
			return c, refusedVertex
		}
	case vFacet:
		// u is in v's fan, so in v's triangle or on its edges.
		if len(c.removed) != 2 {
			return c, refusedVertex
		}
	}
	if len(c.newq) == 0 {
		return c, refusedInverted
	}
	for _, q := range c.newq {
		if geom.Orient3DAt(m.xyz, q[0], q[1], q[2], q[3]) <= 0 {
			return c, refusedInverted
		}
	}
	return c, accepted
}

// contractionValid makes the other checks of contraction c, planned by
// contractionTets: the link condition, the subfaces' orientation, voids.
func (ms *mesher) contractionValid(c *contraction) refusal {
	s := &ms.s
	staru := slices.Clone(ms.m.star(c.u, nil))
	if r := ms.linkCondition(c, staru); r != accepted {
		return r
	}
	for _, g := range c.renamed {
		q := ms.renamedSubface(g, c.v, c.u)
		if ms.orient2(s.facet[g], q[0], q[1], q[2]) <= 0 {
			return refusedInverted
		}
	}
	if ms.contractionVoid(c, staru) {
		return refusedVoid
	}
	return accepted
}

// renamedSubface returns subface g's vertices with v replaced by u.
func (ms *mesher) renamedSubface(g, v, u int32) [3]int32 {
	q := [3]int32(ms.s.sv[3*g : 3*g+3])
	q[slices.Index(q[:], v)] = u
	return q
}

// linkCondition checks Lk(u) ∩ Lk(v) = Lk(uv) (Dey et al. 1999) for the
// contraction c, staru being u's star: vertices and edges
// (a shared triangle would be two tets on one face, which the
// orientation test refuses). For two surface vertices the surface is
// closed by a vertex ω joined to it: ω is in both links, so u–v must be a
// surface edge (two removed subfaces), and a surface vertex joined to
// both by surface edges must be the apex of one of those subfaces.
func (ms *mesher) linkCondition(c *contraction, staru []int32) refusal {
	m, s := ms.m, &ms.s
	u, v, drop := c.u, c.v, c.drop
	var luv, nv, nu []int32 // Lk(uv), v's and u's neighbours
	for _, t := range drop {
		for _, w := range m.tet(t) {
			if w != u && w != v && !slices.Contains(luv, w) {
				luv = append(luv, w)
			}
		}
	}
	for _, t := range c.star {
		for _, w := range m.tet(t) {
			if w != v && !slices.Contains(nv, w) {
				nv = append(nv, w)
			}
		}
	}
	var su []int32 // u's surface neighbours
	for _, t := range staru {
		q := m.tet(t)
		for k, w := range q {
			if w != u && !slices.Contains(nu, w) {
				nu = append(nu, w)
			}
			// A face with u on the surface: its other vertices are u's
			// surface neighbours.
			if n := m.c[t<<3|4|int32(k)]; w != u && n < noTet {
				for _, x := range q {
					if x != u && x != w && !slices.Contains(su, x) {
						su = append(su, x)
					}
				}
			}
		}
	}
	for _, w := range nv {
		if w != u && slices.Contains(nu, w) && !slices.Contains(luv, w) {
			return refusedLink
		}
	}
	// An edge a–b of Lk(v) between two vertices of Lk(uv) must, if it is
	// in Lk(u), be in Lk(uv).
	holds := func(ts []int32, a, b int32) bool {
		for _, t := range ts {
			if q := m.tet(t); slices.Contains(q, a) && slices.Contains(q, b) {
				return true
			}
		}
		return false
	}
	for _, t := range c.star {
		q := m.tet(t)
		for i := 0; i < 4; i++ {
			for j := i + 1; j < 4; j++ {
				a, b := q[i], q[j]
				if a == v || b == v || a == u || b == u || !slices.Contains(luv, a) || !slices.Contains(luv, b) {
					continue
				}
				if holds(staru, a, b) && !holds(drop, a, b) {
					return refusedLink
				}
			}
		}
	}
	if !ms.isBoundaryVertex(v) || !ms.isBoundaryVertex(u) {
		return accepted
	}
	if len(c.removed) != 2 {
		return refusedLink
	}
	var apex []int32
	for _, g := range c.removed {
		for _, w := range s.sv[3*g : 3*g+3] {
			if w != u && w != v {
				apex = append(apex, w)
			}
		}
	}
	for _, g := range c.renamed {
		for _, w := range s.sv[3*g : 3*g+3] {
			if w != v && slices.Contains(su, w) && !slices.Contains(apex, w) {
				return refusedLink
			}
		}
	}
	// Every renamed subface must lie on a kept tet, or it would be left
	// with no tet inside.
	for _, g := range c.renamed {
		f := ms.renamedSubface(g, v, u)
		found := false
		for _, q := range c.newq {
			found = found || slices.Contains(q[:], f[0]) && slices.Contains(q[:], f[1]) && slices.Contains(q[:], f[2])
		}
		if !found {
			return refusedLink
		}
	}
	return accepted
}

// contractionVoid reports whether contraction c would make a
// zero-pressure simplex: a new tet whose four vertices are on the
// boundary, or a new face or edge with u whose vertices all are and that
// is not on the surface.
func (ms *mesher) contractionVoid(c *contraction, staru []int32) bool {
	m, s := ms.m, &ms.s
	u, v := c.u, c.v
	if !ms.isBoundaryVertex(u) {
		return false // every new simplex holds u
	}
	// The subfaces after the contraction that a new tet can have.
	var sub [][3]int32
	for _, g := range c.renamed {
		sub = append(sub, sorted3(ms.renamedSubface(g, v, u)))
	}
	for _, t := range c.drop {
		q := m.tet(t)
		k := int32(slices.Index(q, v))
		if m.c[t<<3|4|k] < noTet {
			sub = append(sub, sorted3(m.faceVerts(4*t+k)))
		}
	}
	// u's neighbours, and v's along the surface: an edge to one of those
	// is old, or on the surface.
	var keep []int32
	for _, t := range staru {
		keep = append(keep, m.tet(t)...)
	}
	for _, g := range c.renamed {
		keep = append(keep, s.sv[3*g:3*g+3]...)
	}
	for _, q := range c.newq {
		nb := 0
		for _, w := range q {
			if ms.isBoundaryVertex(w) {
				nb++
			}
		}
		if nb == 4 {
			return true
		}
		if nb < 2 {
			continue
		}
		for _, w := range q {
			if w != u && ms.isBoundaryVertex(w) && !slices.Contains(keep, w) {
				return true
			}
		}
		if nb < 3 {
			continue
		}
		for k := range q {
			if q[k] == u || ms.isBoundaryVertex(q[k]) {
				continue
			}
			// The face opposite q[k], the one interior vertex, holds u
			// and two boundary vertices.
			var f [3]int32
			i := 0
			for j, w := range q {
				if j != k {
					f[i] = w
					i++
				}
			}
			if !slices.Contains(sub, sorted3(f)) {
				return true
			}
		}
	}
	return false
}

func sorted3(f [3]int32) [3]int32 {
	slices.Sort(f[:])
	return f
}

// contract makes the planned contraction c.
func (ms *mesher) contract(c *contraction) {
	m, s := ms.m, &ms.s
	v, u := c.v, c.u
	for _, g := range c.renamed {
		q := ms.renamedSubface(g, v, u)
		s.sv[3*g], s.sv[3*g+1], s.sv[3*g+2] = q[0], q[1], q[2]
	}
	// A removed subface (u, v, a) leaves its edges v–a and a–u to one
	// edge a–u, on a subsegment when either was.
	for _, g := range c.removed {
		var hv, hu int32 = -1, -1
		seg := false
		for e := int32(0); e < 3; e++ {
			a, b := s.edge(g, e)
			switch {
			case a == v && b != u || b == v && a != u:
				hv = s.adj[3*g+e]
			case a == u && b != v || b == u && a != v:
				hu = s.adj[3*g+e]
			default:
				continue
			}
			seg = seg || s.isSeg(g, e)
		}
		s.adj[hv], s.adj[hu] = hu, hv
		s.segs[hv/3] |= bit(seg, uint(hv%3))
		s.segs[hu/3] |= bit(seg, uint(hu%3))
		s.adj[3*g], s.adj[3*g+1], s.adj[3*g+2] = -1, -1, -1
		s.side[2*g], s.side[2*g+1] = noTet, noTet
	}
	ids := m.replaceTets(c.star, c.newq)
	// Give the renamed subfaces their new tet faces.
	for _, g := range c.renamed {
		want := sorted3([3]int32(s.sv[3*g : 3*g+3]))
		for _, id := range ids[:len(c.newq)] {
			for k := int32(0); k < 4; k++ {
				if sorted3(m.faceVerts(4*id+k)) == want {
					m.c[ni(4*id+k)] = subfaceRef(g)
					ms.moveSubfaceSide(g, 4*id+k)
				}
			}
		}
	}
	m.vt[v] = noTet
}

// contractionMargin is how much a contraction must raise the smallest
// dihedral sine of the tets it changes.
const contractionMargin = 1.1

// contractSliver contracts an edge of tet t, one of whose ends is a
// removable Steiner vertex, when that raises the smallest dihedral sine
// of the tets it changes (v's star) by contractionMargin and takes their
// smallest acute angle below neither where it was nor optTarget; among
// the edges that do, the one whose new tets' worst sine is best. It
// reports whether it contracted. The quality test comes before the link
// condition and the void test, which it spares most of the time.
func (ms *mesher) contractSliver(t int32) bool {
	m := ms.m
	q := [4]int32(m.tet(t))
	var best contraction
	bestSine := -1.0
	for _, v := range q {
		if !ms.removable(v) {
			continue
		}
		star := slices.Clone(m.star(v, nil))
		before := 1.0
		for _, st := range star {
			before = min(before, m.tetMinSine(st))
		}
		// The star's smallest acute angle (at most optTarget), taken
		// when a contraction first passes the sines: most pass none.
		acute := -1.0
		// Only the tet's own edges: any neighbour of v mended no more
		// tets on the lever, hinge, example001 and aneurysm, at up to
		// twice the CPU.
		for _, u := range q {
			if u == v {
				continue
			}
			c, r := ms.contractionTets(v, u, star)
			if r != accepted {
				continue
			}
			after := 1.0
			for _, nq := range c.newq {
				m.sines++
				after = min(after, m.idsMinSine(nq[0], nq[1], nq[2], nq[3]))
			}
			if after <= contractionMargin*before || after <= bestSine {
				continue
			}
			if acute < 0 {
				acute = optTarget
				for _, st := range star {
					acute = min(acute, m.cappedDihedral(m.tet(st)))
				}
			}
			ok := true
			for _, nq := range c.newq {
				ok = ok && !m.dihedralBelow(nq[:], acute)
			}
			if ok && ms.contractionValid(&c) == accepted {
				best, bestSine = c, after
			}
		}
	}
	if bestSine < 0 {
		return false
	}
	ms.contract(&best)
	return true
}

// contractSlivers tries contractSliver on every tet below optTarget,
// worst first, and returns how many edges it contracted.
func (ms *mesher) contractSlivers() int {
	m := ms.m
	n := 0
	for _, b := range m.badWorstFirst(math.Sin(optTarget)) {
		if !m.gone(b) && ms.contractSliver(b.t) {
			n++
		}
	}
	return n
}
