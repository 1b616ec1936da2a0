package stuffing

import (
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/par"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// Snapping pins boundary vertices to creases and corners, and what is left
// under 10° is mostly a cap: three boundary vertices and one interior
// vertex that relocation cannot lift because its other tets hold it — and
// slivers whose vertices hold each other. Moving vertices cannot mend such
// a tet, but changing which tets fill the same space can: flipInterior
// replaces a poor tet and a neighbour across an interior face by three
// tets around the edge joining their apexes (2-3), or removes an interior
// edge of the tet: the n ≤ maxRing tets around it become 2(n−2) tets on
// the best triangulation of the ring of their other vertices (3-2 for
// n = 3, 4-4, 5-6, ...); failing all, it splits an interior face or edge
// of the tet at a new interior vertex and relocates that. All of them
// keep every face on the outside of the tets they replace, so the boundary
// and the volume do not change; one is taken only if every new tet is
// positive by the exact predicate, the new tets fill the old ones' volume
// (to rounding), no new edge or face has only boundary vertices (a
// zero-pressure void), and the smallest dihedral angle of the tets
// involved rises. After each sweep the vertices around what changed are
// relocated as improve does (boundary ones along their patch), since a
// flip frees some. Poor tets are visited in index order, one at a time, so
// the result does not depend on scheduling.

// flipSweeps bounds the rounds of flips, splits and relocation.
const flipSweeps = 6

// flipInterior flips, splits and relocates around tets whose smallest
// dihedral angle is below target (degrees) — cos holds every tet's largest
// dihedral cosine — and returns how many flips and splits it made. After
// that it looks only around the vertices of the tets it worked on: nothing
// else changes. Then it lifts what is left under floorTarget (see lift).
func flipInterior(m *tetmesh.Mesh, inc *incidence, cos []float64, target float64, movable func(v int32) bool, slide slider) (flips, splits int) {
	goal := math.Cos(target * math.Pi / 180)
	fl := &flipper{mq: &meshQuality{m: m, inc: inc}, goal: goal, movable: movable, slide: slide}
	var poor [][4]int32
	for t, c := range cos {
		if c > goal {
			poor = append(poor, [4]int32(m.Tets[4*t:4*t+4]))
		}
	}
	for range flipSweeps {
		if len(poor) == 0 {
			break
		}
		touched := fl.mend(poor)
		_, vs := fl.poorNear(touched)
		vs = slices.DeleteFunc(vs, func(v int32) bool { return !movable(v) })
		touched = append(touched, fl.mq.relocateAll(vs, slide)...)
		poor, _ = fl.poorNear(touched)
	}
	fl.lift(poor)
	return fl.flips, fl.splits
}

// flipper is the state of flipInterior.
type flipper struct {
	mq            *meshQuality
	goal          float64 // cosine of the target angle
	movable       func(v int32) bool
	slide         slider
	flips, splits int
}

// mend tries a flip, a split or an edge removal on each of the tets poor
// that still exists, in the order given, and returns the vertices around
// what it changed (sorted).
func (fl *flipper) mend(poor [][4]int32) (touched []int32) {
	inc, m := fl.mq.inc, fl.mq.m
	for _, q := range poor {
		touched = append(touched, q[:]...)
		// Earlier flips may have replaced this tet.
		ts := inc.around(q[:]...)
		if len(ts) != 1 {
			continue
		}
		if inc.flipAround(ts[0], 3) {
			fl.flips++
		} else if inc.splitNear(ts[0]) {
			fl.splits++
			touched = append(touched, int32(m.NumVertices()-1))
		} else if inc.flipAround(ts[0], maxRing) {
			fl.flips++
		}
	}
	slices.Sort(touched)
	return slices.Compact(touched)
}

// poorNear returns the tets around the vertices touched that are still
// under the goal, in increasing order, and their vertices.
func (fl *flipper) poorNear(touched []int32) (out [][4]int32, vs []int32) {
	inc, m := fl.mq.inc, fl.mq.m
	var ts []int32
	for _, v := range touched {
		ts = append(ts, inc.tets[v]...)
	}
	slices.Sort(ts)
	for _, t := range slices.Compact(ts) {
		if q := m.Tets[4*t : 4*t+4]; tetCosAt(m, q) > fl.goal {
			out = append(out, [4]int32(q))
			vs = append(vs, q...)
		}
	}
	slices.Sort(vs)
	return out, slices.Compact(vs)
}

func tetCosAt(m *tetmesh.Mesh, q []int32) float64 {
	return maxCosDihedral(m.Vertex(q[0]), m.Vertex(q[1]), m.Vertex(q[2]), m.Vertex(q[3]))
}

// flipAround makes the best flip among those replacing tet t — 2-3 flips
// and removals of its edges with at most ring tets around them — and
// reports whether there was one that raised the smallest angle.
func (inc *incidence) flipAround(t int32, ring int) bool {
	m := inc.m
	q := [4]int32(m.Tets[4*t : 4*t+4])
	var best flip
	bestCos := tetCosAt(m, q[:])
	try := func(f flip) {
		if c, ok := inc.check(f); ok && c < bestCos {
			best, bestCos = f, c
		}
	}
	for k, face := range tetmesh.TetFaces {
		for _, u := range inc.around(q[face[0]], q[face[1]], q[face[2]]) {
			if u != t {
				try(inc.twoThree(t, k, u))
			}
		}
	}
	for _, e := range tetmesh.TetEdges {
		if ts := inc.around(q[e[0]], q[e[1]]); len(ts) >= 3 && len(ts) <= ring {
			if f, ok := inc.removeEdge(q[e[0]], q[e[1]], ts); ok {
				try(f)
			}
		}
	}
	if best.old == nil {
		return false
	}
	inc.apply(best)
	return true
}

// flip replaces the tets old by the tets made; inner lists the new edges
// and faces inside the body, none of which may have only boundary
// vertices.
type flip struct {
	old   []int32
	made  [][4]int32
	inner [][]int32
}

// twoThree is the 2-3 flip of tet t and its neighbour u across the face
// opposite t's local vertex k: three tets around the edge from t's vertex
// k to u's vertex off that face, each t with one face vertex replaced.
func (inc *incidence) twoThree(t int32, k int, u int32) flip {
	m := inc.m
	q := [4]int32(m.Tets[4*t : 4*t+4])
	var e int32
	for _, v := range m.Tets[4*u : 4*u+4] {
		if !slices.Contains(q[:], v) {
			e = v
		}
	}
	f := flip{old: []int32{t, u}, inner: [][]int32{{q[k], e}}}
	for j := range 4 {
		if j != k {
			n := q
			n[j] = e
			f.made = append(f.made, n)
		}
	}
	return f
}

// maxRing is the most tets around an edge that edge removal considers:
// the triangulations of the ring it chooses from number 1, 2, 5, 14 and
// 42 for 3 to 7 tets.
const maxRing = 7

// removeEdge is the removal of edge ab, around which are exactly the tets
// ts: their other vertices form a closed ring (ok is false when they do
// not: ab is on the boundary), and each triangle of the ring's best
// triangulation is joined to a and to b. The best triangulation — the one
// whose worst tet is best, among those with no new edge or face of only
// boundary vertices — is found by dynamic programming over the ring's
// sub-polygons (Shewchuk 2002, "Two discrete optimization algorithms for
// the topological improvement of tetrahedral meshes"). Every new tet is
// oriented by the exact predicate; check still decides whether the result
// fills the old tets' space.
func (inc *incidence) removeEdge(a, b int32, ts []int32) (f flip, ok bool) {
	m := inc.m
	ring, ok := inc.ring(a, b, ts)
	if !ok {
		return f, false
	}
	n := len(ring)
	isB := func(v int32) bool { return m.Tags[v] == tetmesh.Boundary }
	// diag says whether ring vertices i < j are joined by a new edge.
	diag := func(i, j int) bool { return j-i > 1 && !(i == 0 && j == n-1) }
	const forbidden = 3.0
	// tri returns the two tets on ring triangle ijk and their worse cosine.
	tri := func(i, j, k int) (ta, tb [4]int32, c float64) {
		x, y, z := ring[i], ring[j], ring[k]
		if geom.Orient3D(m.Vertex(x), m.Vertex(y), m.Vertex(z), m.Vertex(a)) < 0 {
			x, y = y, x
		}
		ta, tb = [4]int32{x, y, z, a}, [4]int32{y, x, z, b}
		c = max(tetCosAt(m, ta[:]), tetCosAt(m, tb[:]))
		for _, e := range [][2]int{{i, j}, {j, k}, {i, k}} {
			if diag(e[0], e[1]) && isB(ring[e[0]]) && isB(ring[e[1]]) {
				c = forbidden
			}
		}
		if n == 3 && isB(x) && isB(y) && isB(z) {
			c = forbidden
		}
		return ta, tb, c
	}
	var cost, split [maxRing][maxRing]float64
	for d := 2; d < n; d++ {
		for i := 0; i+d < n; i++ {
			j := i + d
			cost[i][j] = math.Inf(1)
			for k := i + 1; k < j; k++ {
				_, _, c := tri(i, k, j)
				if d := max(c, cost[i][k], cost[k][j]); d < cost[i][j] {
					cost[i][j], split[i][j] = d, float64(k)
				}
			}
		}
	}
	if cost[0][n-1] > 1 { // forbidden, or some tet not positive
		return f, false
	}
	f = flip{old: slices.Clone(ts)}
	var walk func(i, j int)
	walk = func(i, j int) {
		if j-i < 2 {
			return
		}
		k := int(split[i][j])
		ta, tb, _ := tri(i, k, j)
		f.made = append(f.made, ta, tb)
		f.inner = append(f.inner, []int32{ring[i], ring[k], ring[j]})
		for _, e := range [][2]int{{i, k}, {k, j}, {i, j}} {
			if diag(e[0], e[1]) {
				f.inner = append(f.inner, []int32{ring[e[0]], ring[e[1]]})
			}
		}
		walk(i, k)
		walk(k, j)
	}
	walk(0, n-1)
	return f, true
}

// ring returns the vertices other than a and b of the tets ts around edge
// ab in cyclic order, and whether they close a ring: each tet has two of
// them and each is in exactly two tets.
func (inc *incidence) ring(a, b int32, ts []int32) ([]int32, bool) {
	m := inc.m
	var pairs [maxRing][2]int32
	for i, t := range ts {
		k := 0
		for _, v := range m.Tets[4*t : 4*t+4] {
			if v != a && v != b {
				pairs[i][k&1] = v
				k++
			}
		}
		if k != 2 {
			return nil, false
		}
	}
	n := len(ts)
	ring := []int32{pairs[0][0], pairs[0][1]}
	used := uint(1)
	for len(ring) < n {
		last, found := ring[len(ring)-1], false
		for i := 1; i < n && !found; i++ {
			if used&(1<<i) != 0 {
				continue
			}
			for k, v := range pairs[i] {
				if v == last {
					ring = append(ring, pairs[i][1-k])
					used |= 1 << i
					found = true
					break
				}
			}
		}
		if !found {
			return nil, false
		}
	}
	// The last tet closes the ring back to its first vertex, and no vertex
	// repeats.
	for i := 1; i < n; i++ {
		if used&(1<<i) == 0 && (pairs[i] == [2]int32{ring[n-1], ring[0]} || pairs[i] == [2]int32{ring[0], ring[n-1]}) {
			used |= 1 << i
		}
	}
	sorted := slices.Clone(ring)
	slices.Sort(sorted)
	if used != 1<<n-1 || len(slices.Compact(sorted)) != n {
		return nil, false
	}
	return ring, true
}

// check returns the largest dihedral cosine of the tets f makes and
// whether f is allowed: every new tet positive, the old volume filled
// exactly, and no new edge or face inside the body (f.inner) with only
// boundary vertices.
func (inc *incidence) check(f flip) (float64, bool) {
	m := inc.m
	worst := -1.0
	vol := 0.0
	for _, q := range f.made {
		c := tetCosAt(m, q[:])
		if c > 1 {
			return 2, false
		}
		worst = max(worst, c)
		vol += tetVolume(m, q[:])
	}
	old := 0.0
	for _, t := range f.old {
		old += tetVolume(m, m.Tets[4*t:4*t+4])
	}
	if math.Abs(vol-old) > 1e-9*old {
		return 2, false
	}
	for _, vs := range f.inner {
		if !slices.ContainsFunc(vs, func(v int32) bool { return m.Tags[v] != tetmesh.Boundary }) {
			return 2, false
		}
	}
	return worst, true
}

func tetVolume(m *tetmesh.Mesh, q []int32) float64 {
	a := m.Vertex(q[0])
	return geom.Dot(geom.Sub(m.Vertex(q[1]), a), geom.Cross(geom.Sub(m.Vertex(q[2]), a), geom.Sub(m.Vertex(q[3]), a))) / 6
}

// apply makes flip f: the new tets take the old ones' slots, extra ones go
// to the end, and an unused slot is filled by the last tet.
func (inc *incidence) apply(f flip) {
	for i, q := range f.made {
		if i < len(f.old) {
			inc.setTet(f.old[i], q)
		} else {
			inc.addTet(q)
		}
	}
	if len(f.old) > len(f.made) {
		inc.removeTet(f.old[len(f.made)])
	}
}

// setTet makes tet t have the vertices q.
func (inc *incidence) setTet(t int32, q [4]int32) {
	m := inc.m
	for _, v := range m.Tets[4*t : 4*t+4] {
		inc.tets[v] = slices.DeleteFunc(inc.tets[v], func(u int32) bool { return u == t })
	}
	copy(m.Tets[4*t:], q[:])
	for _, v := range q {
		inc.tets[v] = append(inc.tets[v], t)
	}
}

func (inc *incidence) addTet(q [4]int32) {
	m := inc.m
	t := int32(m.NumTets())
	m.Tets = append(m.Tets, q[:]...)
	for _, v := range q {
		inc.tets[v] = append(inc.tets[v], t)
	}
}

// removeTet deletes tet t, moving the last tet into its slot.
func (inc *incidence) removeTet(t int32) {
	m := inc.m
	last := int32(m.NumTets() - 1)
	inc.setTet(t, [4]int32(m.Tets[4*last:4*last+4]))
	for _, v := range m.Tets[4*last : 4*last+4] {
		inc.tets[v] = slices.DeleteFunc(inc.tets[v], func(u int32) bool { return u == last })
	}
	m.Tets = m.Tets[:4*last]
}

// splitNear adds an interior vertex on an interior face or edge of tet
// t, splitting the tets around it, and relocates it. Of the splits that
// raise the smallest angle of the tets they replace it keeps the best and
// reports whether there was one. It mends caps whose interior vertex sits
// too close to their boundary face: the new vertex takes its place over
// the boundary edges. (Edges with both ends on the boundary are boundary
// edges: a vertex there would be a boundary vertex.)
func (inc *incidence) splitNear(t int32) bool {
	m := inc.m
	q := [4]int32(m.Tets[4*t : 4*t+4])
	var cands [][]int32
	for _, f := range tetmesh.TetFaces {
		face := []int32{q[f[0]], q[f[1]], q[f[2]]}
		if len(inc.around(face...)) == 2 {
			cands = append(cands, face)
		}
	}
	for _, e := range tetmesh.TetEdges {
		if m.Tags[q[e[0]]] != tetmesh.Boundary || m.Tags[q[e[1]]] != tetmesh.Boundary {
			cands = append(cands, []int32{q[e[0]], q[e[1]]})
		}
	}
	// The trials read the mesh and change nothing, so they run at once;
	// the first best wins.
	stars := make([]*star, len(cands))
	before := make([]float64, len(cands))
	for i, vs := range cands {
		stars[i], before[i] = inc.splitStar(vs)
	}
	type trial struct {
		at geom.Vec
		c  float64
	}
	trials := make([]trial, len(cands))
	par.For(len(cands), 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			trials[i].at, trials[i].c = inc.trySplit(stars[i], cands[i])
		}
	})
	best, bestCos := -1, 2.0
	for i, r := range trials {
		if r.c < before[i] && r.c < bestCos {
			best, bestCos = i, r.c
		}
	}
	if best < 0 {
		return false
	}
	inc.splitAt(cands[best], inc.addVertex(trials[best].at, tetmesh.Interior))
	return true
}

// splitStar returns the star of a new vertex splitting the tets around
// simplex vs, in the order splitAt makes them (per tet, a copy for each
// vertex of vs but the last, then the tet itself), and the largest
// dihedral cosine of the tets it replaces.
func (inc *incidence) splitStar(vs []int32) (st *star, before float64) {
	m := inc.m
	st, before = &star{}, -1
	last := len(vs) - 1
	for _, t := range inc.around(vs...) {
		q := m.Tets[4*t : 4*t+4]
		before = max(before, tetCosAt(m, q))
		corners := [4]geom.Vec{m.Vertex(q[0]), m.Vertex(q[1]), m.Vertex(q[2]), m.Vertex(q[3])}
		for _, v := range vs[:last] {
			st.add(corners, slices.Index(q, v))
		}
		st.add(corners, slices.Index(q, vs[last]))
	}
	return st, before
}

// trySplit relocates the new vertex of star st, splitting around vs, from
// the centroid of vs as improve does, and returns where it goes and the
// largest dihedral cosine of its tets there.
func (inc *incidence) trySplit(st *star, vs []int32) (at geom.Vec, c float64) {
	return st.compass(centroid(inc.m, vs), nil, func(p geom.Vec) bool { return inc.at.free(p, -1) })
}
