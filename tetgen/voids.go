package tetgen

import (
	"fmt"
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// Zero-pressure voids. ε is 0 at every boundary vertex, so a tet whose
// four vertices are on the boundary, an interior face whose three are, or
// an interior edge whose two are, is a region of zero pressure inside the
// body. splitVoids removes them by inserting interior Steiner points: the
// centroid of such a tet, face or the midpoint of such an edge lies
// strictly inside the body and strictly inside the circumsphere of every
// tet that has the simplex, so inserting it destroys the simplex, and
// insertion never creates an edge between two old vertices. Likewise for
// the core: a tet, face or edge of the body (outside the core) whose
// vertices all lie on the core surface is split, so that ε = 1 stays on
// the core.
//
// Tets go first, then faces, then edges, rescanning after each kind: one
// point in the middle of a tet usually clears many faces and edges, which
// keeps the coarse mesh small (the icosahedron gets one centre point and
// 20 tets).

// voidSimplex is a zero-pressure tet, face or edge: its vertices (2 to 4).
type voidSimplex struct {
	v [4]int32
	n int
}

func (ms *mesher) splitVoids() error {
	m := ms.m
	for round := 0; ; round++ {
		found := ms.findVoids()
		if len(found) == 0 {
			return nil
		}
		if round > 100 {
			return fmt.Errorf("tetgen: internal error: zero-pressure voids remain after %d rounds", round)
		}
		for _, sx := range found {
			at := ms.holder(sx)
			if at < 0 {
				continue
			}
			if !ms.opt.Coarse {
				if v := ms.splitVoidCentred(sx); v >= 0 {
					ms.tagSteiner(v)
					ms.rep.VoidSplits++
					continue
				}
			}
			var c geom.Vec
			for _, v := range sx.v[:sx.n] {
				c = geom.Add(c, m.pos(v))
			}
			c = geom.Scale(1/float64(sx.n), c)
			v := ms.addVertex(c, vVolume, -1, onNone)
			if st, _ := ms.insertInside(v, at); st != inserted {
				ms.popVertex()
				if v = ms.forceVoid(sx, at); v < 0 {
					p := m.pos(sx.v[0])
					return fmt.Errorf("tetgen: cannot split a zero-pressure %s at (%g, %g, %g)",
						[5]string{"", "", "edge", "face", "tet"}[sx.n], p[0], p[1], p[2])
				}
			}
			ms.tagSteiner(v)
			ms.rep.VoidSplits++
		}
	}
}

// voidMinSine is the smallest dihedral sine (about 6°) a void split aims
// for in its new tets: a point on a flat region next to the surface makes
// flat tets on the subfaces below it that no smoothing mends.
const voidMinSine = 0.1

// splitVoidCentred splits a zero-pressure simplex in a refined mesh at the
// centroid of the vertices of the tets that have it — in the middle of
// the region that changes rather than on the simplex, which may hug the
// surface — by a forced insertion replacing those tets. It returns the new
// vertex, or −1.
func (ms *mesher) splitVoidCentred(sx voidSimplex) int32 {
	m := ms.m
	holders := ms.holders(sx)
	// First the holders with their neighbours: a simplex on a gently
	// curved surface has flat holders, and a point in the middle of them
	// alone would make flat tets on the subfaces below it.
	wide := slices.Clone(holders)
	for _, t := range holders {
		for k := int32(0); k < 4; k++ {
			if n := m.c[t<<3|4|k]; n >= 0 && !slices.Contains(wide, n>>2) {
				wide = append(wide, n>>2)
			}
		}
	}
	// A point that makes only fat tets first, then any valid one.
	for _, try := range []struct {
		region  []int32
		minSine float64
	}{{wide, voidMinSine}, {holders, voidMinSine}, {wide, 0}, {holders, 0}} {
		region := try.region
		var c geom.Vec
		n := 0
		seen := map[int32]bool{}
		for _, t := range region {
			for _, u := range m.tet(t) {
				if !seen[u] {
					seen[u] = true
					c = geom.Add(c, m.pos(u))
					n++
				}
			}
		}
		v := ms.addVertex(geom.Scale(1/float64(n), c), vVolume, -1, onNone)
		if ms.insertForced(v, holders[0], region, true, try.minSine) == inserted {
			return v
		}
		ms.popVertex()
	}
	return -1
}

// forceVoid removes a zero-pressure simplex too flat for a point inside it:
// it inserts the centroid of a fat tet nearby, replacing every tet that
// has the simplex (insertForced). It returns the new vertex, or −1.
func (ms *mesher) forceVoid(sx voidSimplex, at int32) int32 {
	m := ms.m
	holders := ms.holders(sx)
	// Candidates: the holders and their neighbours, fattest first.
	cand := append([]int32(nil), holders...)
	for _, t := range holders {
		for k := int32(0); k < 4; k++ {
			if n := m.c[t<<3|4|k]; n >= 0 && !slices.Contains(cand, n>>2) {
				cand = append(cand, n>>2)
			}
		}
	}
	vol := func(t int32) float64 {
		q := m.tet(t)
		return geom.TetVolume(m.pos(q[0]), m.pos(q[1]), m.pos(q[2]), m.pos(q[3]))
	}
	slices.SortStableFunc(cand, func(a, b int32) int {
		va, vb := vol(a), vol(b)
		switch {
		case va > vb:
			return -1
		case va < vb:
			return 1
		}
		return 0
	})
	var points []geom.Vec
	// First, points just inside the surface next to the simplex: below
	// the centre of the holders' subfaces (a flat tet under a saddle-shaped
	// pair of subfaces must be seen from there).
	var c, n geom.Vec
	size := 0.0
	for _, t := range holders {
		q := m.tet(t)
		for k := int32(0); k < 4; k++ {
			if m.c[t<<3|4|k] < noTet {
				f := m.faceVerts(4*t + k)
				a, b, cc := m.pos(f[0]), m.pos(f[1]), m.pos(f[2])
				n = geom.Add(n, geom.Cross(geom.Sub(b, a), geom.Sub(cc, a)))
			}
		}
		for _, e := range tetEdges {
			size = max(size, math.Sqrt(geom.Dist2(m.pos(q[e[0]]), m.pos(q[e[1]]))))
		}
	}
	for _, u := range sx.v[:sx.n] {
		c = geom.Add(c, m.pos(u))
	}
	c = geom.Scale(1/float64(sx.n), c)
	if ln := geom.Norm(n); ln > 0 {
		// The faces point out of their tets, into the surface's outside.
		for _, d := range []float64{0.3, 0.15, 0.05} {
			points = append(points, geom.Add(c, geom.Scale(-d*size/ln, n)))
		}
	}
	for _, t := range cand {
		var cc geom.Vec
		for _, u := range m.tet(t) {
			cc = geom.Add(cc, m.pos(u))
		}
		points = append(points, geom.Scale(0.25, cc))
	}
	for _, p := range points {
		v := ms.addVertex(p, vVolume, -1, onNone)
		if ms.insertForced(v, at, holders, true, 0) == inserted {
			return v
		}
		ms.popVertex()
	}
	return -1
}

// holders returns the tets that have the simplex.
func (ms *mesher) holders(sx voidSimplex) []int32 {
	m := ms.m
	var out []int32
	ms.buf = m.star(sx.v[0], ms.buf)
	for _, t := range ms.buf {
		q := m.tet(t)
		hits := 0
		for _, v := range sx.v[:sx.n] {
			if slices.Contains(q, v) {
				hits++
			}
		}
		if hits == sx.n {
			out = append(out, t)
		}
	}
	return out
}

// voidVertex reports whether v counts for voids of the given kind: a
// boundary vertex (outer surface), or a core-surface vertex.
func (ms *mesher) voidVertex(v int32, on uint8) bool { return ms.on[v] == on }

// findVoids lists the zero-pressure simplices of the lowest dimension
// that has any, tets first.
func (ms *mesher) findVoids() []voidSimplex {
	m := ms.m
	var tets, tris, edges []voidSimplex
	seenEdge := map[uint64]bool{}
	surfEdge := ms.surfaceEdges()
	for t := int32(0); t < int32(m.numTets()); t++ {
		if !m.alive(t) {
			continue
		}
		q := m.tet(t)
		// Outer-boundary voids anywhere in the body; core-surface voids
		// only outside the core.
		for _, on := range []uint8{onOuter, onCore} {
			if on == onCore && m.region[t] == regionCore {
				continue
			}
			var mask int
			for k, v := range q {
				if ms.voidVertex(v, on) {
					mask |= 1 << k
				}
			}
			if mask == 15 {
				tets = append(tets, voidSimplex{[4]int32{q[0], q[1], q[2], q[3]}, 4})
				continue
			}
			for k := int32(0); k < 4; k++ {
				// An interior face: its neighbour is a tet, seen once.
				n := m.c[t<<3|4|k]
				if mask|1<<k == 15 && n >= 0 && n>>2 > t {
					f := m.faceVerts(4*t + k)
					tris = append(tris, voidSimplex{[4]int32{f[0], f[1], f[2]}, 3})
				}
			}
			for _, e := range tetEdges {
				a, b := q[e[0]], q[e[1]]
				if mask>>e[0]&1 == 0 || mask>>e[1]&1 == 0 {
					continue
				}
				key := edgeKey(min(a, b), max(a, b))
				if surfEdge[key] || seenEdge[key] {
					continue
				}
				seenEdge[key] = true
				edges = append(edges, voidSimplex{[4]int32{min(a, b), max(a, b)}, 2})
			}
		}
	}
	// Edges were found in tet order and are keyed uniquely; sort for a
	// result independent of map order anyway.
	slices.SortFunc(edges, func(x, y voidSimplex) int {
		if x.v[0] != y.v[0] {
			return int(x.v[0] - y.v[0])
		}
		return int(x.v[1] - y.v[1])
	})
	switch {
	case len(tets) > 0:
		return tets
	case len(tris) > 0:
		return tris
	}
	return edges
}

var tetEdges = [6][2]int{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}}

// surfaceEdges returns the set of edges of subfaces.
func (ms *mesher) surfaceEdges() map[uint64]bool {
	s := &ms.s
	set := make(map[uint64]bool, 3*s.num()/2)
	for f := int32(0); f < s.num(); f++ {
		for e := int32(0); e < 3; e++ {
			a, b := s.edge(f, e)
			set[edgeKey(min(a, b), max(a, b))] = true
		}
	}
	return set
}

// holder returns a tet that has the simplex, or −1 if it is gone.
func (ms *mesher) holder(sx voidSimplex) int32 {
	if h := ms.holders(sx); len(h) > 0 {
		return h[0]
	}
	return -1
}
