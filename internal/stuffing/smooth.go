package stuffing

import (
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/par"
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
	return cornerCosRange(&[4]*geom.Vec{&a, &b, &c, &d})
}

// faceNormal returns the normal of face k of tet p (opposite corner k,
// outward) and its length.
func faceNormal(p *[4]geom.Vec, k int) (geom.Vec, float64) {
	f := tetmesh.TetFaces[k]
	n := geom.Cross(geom.Sub(p[f[1]], p[f[0]]), geom.Sub(p[f[2]], p[f[0]]))
	return n, geom.Norm(n)
}

// cornerCosRange is cosRange of the tet with corners c. The stars'
// searches and the flips evaluate tets in it, so it is written out in
// scalars on pointers to the corners: the vector form (faceNormal, then
// pairCosines) copied [3]float64 values through memory at every step,
// and took twice as long. It computes every face's normal, the fixed
// face's of a star too, so that a star's tets and the same tets alone
// are the same float64 whether or not the build fuses multiply-adds.
func cornerCosRange(c *[4]*geom.Vec) (lo, hi float64) {
	var n [4][3]float64
	var l [4]float64
	for k, f := range tetmesh.TetFaces {
		a, b, e := c[f[0]], c[f[1]], c[f[2]]
		ux, uy, uz := b[0]-a[0], b[1]-a[1], b[2]-a[2]
		vx, vy, vz := e[0]-a[0], e[1]-a[1], e[2]-a[2]
		x, y, z := uy*vz-uz*vy, uz*vx-ux*vz, ux*vy-uy*vx
		n[k], l[k] = [3]float64{x, y, z}, math.Sqrt(x*x+y*y+z*z)
	}
	if l[0] == 0 || l[1] == 0 || l[2] == 0 || l[3] == 0 {
		return 2, 2 // a face too small for its normal to be computed
	}
	// The edge opposite faces i and j has interior angle
	// π − angle(n_i, n_j).
	lo, hi = 1, -1
	for i := 0; i < 4; i++ {
		for j := i + 1; j < 4; j++ {
			cs := -(n[i][0]*n[j][0] + n[i][1]*n[j][1] + n[i][2]*n[j][2]) / (l[i] * l[j])
			lo, hi = min(lo, cs), max(hi, cs)
		}
	}
	return lo, hi
}

// pairCosines returns the six dihedral cosines of a tet from its face
// normals n and their (non-zero) lengths l.
func pairCosines(n *[4]geom.Vec, l *[4]float64) (cs [6]float64) {
	e := 0
	for i := 0; i < 4; i++ {
		for j := i + 1; j < 4; j++ {
			// The edge opposite faces i and j has interior angle
			// π − angle(n_i, n_j).
			cs[e] = -geom.Dot(n[i], n[j]) / (l[i] * l[j])
			e++
		}
	}
	return cs
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
	lvl []int32 // schedule's scratch
	// ascent lists (increasing) the vertices whose searches follow the
	// compass steps with an ascent (ascend).
	ascent []int32
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
	par.For(m.NumTets(), chunk, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			mq.cos[t] = mq.tetCos(int32(t))
		}
	})
	goal := math.Cos(target * math.Pi / 180)
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
		slices.Sort(todo)
		moved := mq.relocateAll(slices.Compact(todo), slide)
		if len(moved) == 0 {
			return mq.cos
		}
		for _, v := range moved {
			for _, t := range inc.tets[v] {
				mq.cos[t] = mq.tetCos(t)
			}
		}
	}
	return mq.cos
}

// relocateAll relocates the vertices todo (increasing) with the result of
// relocating them one by one in index order, and returns those that
// moved.
func (mq *meshQuality) relocateAll(todo []int32, slide slider) (moved []int32) {
	if n := mq.m.NumVertices(); len(mq.lvl) < n {
		for len(mq.lvl) < n {
			mq.lvl = append(mq.lvl, -1)
		}
	}
	for _, level := range schedule(mq.m, mq.inc, todo, mq.lvl) {
		// Vertices of one level share no tet: each search reads only
		// its own tets, so they run at once; the moves are then
		// recorded in index order.
		to := make([][2]geom.Vec, len(level))
		par.For(len(level), 4, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				to[i] = mq.search(level[i], slide)
			}
		})
		for i, v := range level {
			if mq.record(v, to[i]) {
				moved = append(moved, v)
			}
		}
	}
	return moved
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
	start := mq.m.Vertex(v)
	var along func(geom.Vec) (geom.Vec, bool)
	if mq.m.Tags[v] == tetmesh.Boundary {
		along = func(p geom.Vec) (geom.Vec, bool) { return slide(v, p) }
	}
	st, free := mq.starOf(v), func(p geom.Vec) bool { return mq.inc.at.free(p, v) }
	cur, c := st.compass(start, along, free)
	if _, ok := slices.BinarySearch(mq.ascent, v); ok {
		cur, _ = st.ascend(cur, c, along, free)
	}
	copy(mq.m.Positions[3*v:], cur[:])
	return [2]geom.Vec{start, cur}
}

// star is the tets around one vertex as a search for its position sees
// them: the corners of each, the vertex's own corner (slot) taking each
// trial point in turn, in the order of the vertex's incidence list.
type star struct {
	corners [][4]geom.Vec
	slot    []int8
	fixed   []fixedFace // each tet's face opposite the centre, which no trial moves
	first   int         // the tet that last exceeded a bound, tried first
}

// fixedFace is a face opposite a star's centre: its orientation test and
// its normal's length.
type fixedFace struct {
	o geom.FaceOrient
	l float64
}

// add appends a tet with the centre at corner slot.
func (st *star) add(corners [4]geom.Vec, slot int) {
	f := tetmesh.TetFaces[slot]
	o := geom.NewFaceOrient(corners[f[0]], corners[f[1]], corners[f[2]])
	n := o.Normal()
	st.corners, st.slot = append(st.corners, corners), append(st.slot, int8(slot))
	st.fixed = append(st.fixed, fixedFace{o, geom.Norm(n)})
}

// starOf gathers the tets of v in increasing order, whatever the order
// of its incidence list: the centroid seed's rounding depends on the
// order, and so, through it, does where a search ends. It sorts v's list
// in place (no step depends on that order; searches at once are of
// vertices with their own lists), so most lists are sorted already.
func (mq *meshQuality) starOf(v int32) *star {
	ts := mq.inc.tets[v]
	slices.Sort(ts)
	st := &star{corners: make([][4]geom.Vec, 0, len(ts)), slot: make([]int8, 0, len(ts)), fixed: make([]fixedFace, 0, len(ts))}
	for _, t := range ts {
		q := mq.m.Tets[4*t : 4*t+4]
		st.add([4]geom.Vec{mq.m.Vertex(q[0]), mq.m.Vertex(q[1]), mq.m.Vertex(q[2]), mq.m.Vertex(q[3])}, slices.Index(q, v))
	}
	return st
}

// worst returns the largest dihedral cosine of the star's tets with the
// centre at p, or some cosine above bound once one exceeds it. Most trial
// points of a search fail on the tet that failed the one before, so that
// tet goes first: the order changes neither the largest cosine nor
// whether one exceeds the bound.
func (st *star) worst(p geom.Vec, bound float64) float64 {
	worst := st.cos(st.first, p)
	if worst > bound {
		return worst
	}
	for i := range st.corners {
		if i == st.first {
			continue
		}
		if worst = max(worst, st.cos(i, p)); worst > bound {
			st.first = i
			break
		}
	}
	return worst
}

// cos returns the largest dihedral cosine of tet i of the star with the
// centre at p.
func (st *star) cos(i int, p geom.Vec) float64 {
	s, f := int(st.slot[i]), &st.fixed[i]
	// The tet is positive when p is on the inner side of the fixed face
	// (an odd permutation of the tet's corners).
	if f.o.Orient3D(p) >= 0 {
		return 2
	}
	q := &st.corners[i]
	c := [4]*geom.Vec{&q[0], &q[1], &q[2], &q[3]}
	c[s] = &p
	_, hi := cornerCosRange(&c)
	return hi
}

// normals returns the face normals of tet i of the star with the centre
// at p and their lengths, or false when the tet is not positive.
func (st *star) normals(i int, p geom.Vec) (n [4]geom.Vec, l [4]float64, ok bool) {
	q, s, f := st.corners[i], int(st.slot[i]), &st.fixed[i]
	// The tet is positive when p is on the inner side of the fixed face
	// (an odd permutation of the tet's corners).
	if f.o.Orient3D(p) >= 0 {
		return n, l, false
	}
	q[s] = p
	for k := range 4 {
		if k == s {
			n[k], l[k] = f.o.Normal(), f.l
		} else {
			n[k], l[k] = faceNormal(&q, k)
		}
	}
	return n, l, true
}

// compass searches for the centre's position from start, by compass
// steps after trying the centroid of the other corners and halfway
// towards it, and returns the best position found and the largest
// dihedral cosine there. A trial point goes through along first, unless
// it is nil; a better one is taken only if free.
func (st *star) compass(start geom.Vec, along func(geom.Vec) (geom.Vec, bool), free func(geom.Vec) bool) (geom.Vec, float64) {
	best := st.worst(start, math.Inf(1))
	try := func(p geom.Vec) (geom.Vec, bool) {
		if along != nil {
			var ok bool
			if p, ok = along(p); !ok {
				return p, false
			}
		}
		if q := st.worst(p, best); q < best && free(p) {
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
	for i, q := range st.corners {
		for k, u := range q {
			if k != int(st.slot[i]) {
				c = geom.Add(c, u)
				n++
				shortest = min(shortest, geom.Dist2(u, start))
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
	return cur, best
}
