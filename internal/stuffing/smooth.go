package stuffing

import (
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// Stuffing, void splitting and feature snapping leave some tets with small
// angles. improve moves vertices of poor tets to where the smallest
// dihedral angle around them is largest, by compass search: interior
// vertices anywhere (the boundary, and so the fidelity, does not depend
// on them), boundary vertices only along the input surface — each trial
// point is projected back onto the input and must land on the vertex's
// own smooth patch — and vertices on features or on surfaces spanning
// holes not at all. A step is kept only if it raises that minimum and
// every tet stays positive by the exact predicate. Vertices are visited
// in index order, one at a time, so the result does not depend on
// scheduling.

// maxCosDihedral returns the largest cosine of the dihedral angles of tet
// abcd — the cosine of its smallest angle — or 2 when it is not positive.
func maxCosDihedral(a, b, c, d geom.Vec) float64 {
	if geom.Orient3D(a, b, c, d) <= 0 {
		return 2
	}
	_, hi := cosRange(a, b, c, d)
	return hi
}

// cosRange returns the smallest and largest cosines of the dihedral
// angles of tet abcd (2, 2 when a face is too small for a normal).
func cosRange(a, b, c, d geom.Vec) (lo, hi float64) {
	p := [4]geom.Vec{a, b, c, d}
	var n [4]geom.Vec
	var l [4]float64
	for k, f := range tetmesh.TetFaces {
		n[k] = geom.Cross(geom.Sub(p[f[1]], p[f[0]]), geom.Sub(p[f[2]], p[f[0]]))
		l[k] = geom.Norm(n[k])
	}
	if l[0] == 0 || l[1] == 0 || l[2] == 0 || l[3] == 0 {
		return 2, 2 // a face too small for its normal to be computed
	}
	lo, hi = 1, -1
	for i := 0; i < 4; i++ {
		for j := i + 1; j < 4; j++ {
			// The edge opposite faces i and j has interior angle
			// π − angle(n_i, n_j).
			c := -geom.Dot(n[i], n[j]) / (l[i] * l[j])
			lo, hi = min(lo, c), max(hi, c)
		}
	}
	return lo, hi
}

func (m *meshQuality) tetCos(t int32) float64 {
	q := m.m.Tets[4*t : 4*t+4]
	return maxCosDihedral(m.m.Vertex(q[0]), m.m.Vertex(q[1]), m.m.Vertex(q[2]), m.m.Vertex(q[3]))
}

// meshQuality caches each tet's largest dihedral cosine.
type meshQuality struct {
	m   *tetmesh.Mesh
	inc *incidence
	cos []float64
}

// worstAround returns the largest dihedral cosine of v's tets (the worse,
// the larger), stopping early once it exceeds bound.
func (mq *meshQuality) worstAround(v int32, bound float64) float64 {
	worst := -1.0
	for _, t := range mq.inc.tets[v] {
		worst = max(worst, mq.tetCos(t))
		if worst > bound {
			break
		}
	}
	return worst
}

// slider moves a boundary vertex along the input, or refuses.
type slider func(v int32, p geom.Vec) (geom.Vec, bool)

// improve raises the smallest dihedral angle around the vertices of tets
// whose smallest angle is below target (degrees), in up to passes sweeps,
// and returns the largest dihedral cosine of every tet after it.
// movable says which vertices may move; slide, when not nil, maps a trial
// position of a boundary vertex back onto the input.
func improve(m *tetmesh.Mesh, inc *incidence, target float64, passes int, movable func(v int32) bool, slide slider) (cos []float64) {
	mq := &meshQuality{m: m, inc: inc, cos: make([]float64, m.NumTets())}
	parallelFor(m.NumTets(), func(lo, hi int) {
		for t := lo; t < hi; t++ {
			mq.cos[t] = mq.tetCos(int32(t))
		}
	})
	goal := math.Cos(target * math.Pi / 180)
	lvl := make([]int32, m.NumVertices())
	for v := range lvl {
		lvl[v] = -1
	}
	for range passes {
		var todo []int32
		for t, c := range mq.cos {
			if c > goal {
				for _, v := range m.Tets[4*t : 4*t+4] {
					if movable(v) {
						todo = append(todo, v)
					}
				}
			}
		}
		if len(todo) == 0 {
			return mq.cos
		}
		slices.Sort(todo)
		moved := false
		for _, level := range schedule(m, inc, slices.Compact(todo), lvl) {
			// Vertices of one level share no tet: each search reads only
			// its own tets, so they run at once; the moves are then
			// recorded in index order.
			to := make([][2]geom.Vec, len(level))
			parallelChunks(len(level), 4, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					to[i] = mq.search(level[i], slide)
				}
			})
			for i, v := range level {
				if mq.record(v, to[i]) {
					moved = true
					for _, t := range inc.tets[v] {
						mq.cos[t] = mq.tetCos(t)
					}
				}
			}
		}
		if !moved {
			return mq.cos
		}
	}
	return mq.cos
}

// schedule splits the vertices todo (increasing) into levels that can be
// relocated at once with the result of relocating them one by one in
// index order: a vertex comes one level after the latest of its
// neighbours (vertices sharing a tet) that precede it in todo, so each
// vertex still sees those moved and the later ones not. lvl is scratch of
// one entry per vertex, all −1, and is left so.
func schedule(m *tetmesh.Mesh, inc *incidence, todo []int32, lvl []int32) [][]int32 {
	var levels [][]int32
	for _, v := range todo {
		l := int32(0)
		for _, t := range inc.tets[v] {
			for _, u := range m.Tets[4*t : 4*t+4] {
				if u < v && lvl[u] >= 0 {
					l = max(l, lvl[u]+1)
				}
			}
		}
		lvl[v] = l
		if int(l) == len(levels) {
			levels = append(levels, nil)
		}
		levels[l] = append(levels[l], v)
	}
	for _, v := range todo {
		lvl[v] = -1
	}
	return levels
}

// relocate moves v to lower the largest dihedral cosine of its tets and
// reports whether it moved.
func (mq *meshQuality) relocate(v int32, slide slider) bool {
	return mq.record(v, mq.search(v, slide))
}

// record notes a move of v (where search left it) in the occupancy, and
// reports whether v moved at all. A vertex searched at the same time may
// have taken the same point (two boundary vertices slid onto one input
// vertex): then v goes back.
func (mq *meshQuality) record(v int32, mv [2]geom.Vec) bool {
	if mv[1] == mv[0] {
		return false
	}
	if !mq.inc.at.free(mv[1], v) {
		copy(mq.m.Positions[3*v:], mv[0][:])
		return false
	}
	mq.inc.at.move(v, mv[0], mv[1])
	return true
}

// search moves v to lower the largest dihedral cosine of its tets and
// returns where it was and where it is now. It reads the positions of v's
// tets and the occupancy, and writes only v's position.
func (mq *meshQuality) search(v int32, slide slider) [2]geom.Vec {
	m := mq.m
	start := m.Vertex(v)
	best := mq.worstAround(v, math.Inf(1))
	set := func(p geom.Vec) { copy(m.Positions[3*v:], p[:]) }
	boundary := m.Tags[v] == tetmesh.Boundary
	try := func(p geom.Vec) (geom.Vec, bool) {
		if boundary {
			var ok bool
			if p, ok = slide(v, p); !ok {
				return p, false
			}
		}
		if !mq.inc.at.free(p, v) {
			return p, false
		}
		set(p)
		if q := mq.worstAround(v, best); q < best {
			best = q
			return p, true
		}
		return p, false
	}
	cur := start
	// Seed: the centroid of the neighbours, and halfway towards it.
	var c geom.Vec
	n := 0
	shortest := math.Inf(1)
	for _, t := range mq.inc.tets[v] {
		for _, u := range m.Tets[4*t : 4*t+4] {
			if u != v {
				c = geom.Add(c, m.Vertex(u))
				n++
				shortest = min(shortest, geom.Dist2(m.Vertex(u), start))
			}
		}
	}
	c = geom.Scale(1/float64(n), c)
	for _, f := range []float64{1, 0.5} {
		if p, ok := try(geom.Add(cur, geom.Scale(f, geom.Sub(c, cur)))); ok {
			cur = p
			break
		}
	}
	step := 0.15 * math.Sqrt(shortest)
	for range 12 {
		improved := false
		for k := 0; k < 6; k++ {
			p := cur
			p[k%3] += step * float64(1-2*(k/3))
			if q, ok := try(p); ok {
				cur, improved = q, true
			}
		}
		if !improved {
			step /= 2
		}
	}
	set(cur)
	return [2]geom.Vec{start, cur}
}
