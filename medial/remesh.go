package medial

import (
	"cmp"
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/par"
)

// remesh improves a closed, oriented contour surface whose vertices lie on
// a level set towards well-shaped triangles with edges about length(p)
// long, by isotropic remeshing (Botsch & Kobbelt 2004): long edges split,
// short edges collapsed, edges flipped to Delaunay where the surface is
// flat across them, vertices relaxed along the surface; vertices on
// creases (edges where the surface turns by more than 30°) stay put, so a
// sharp edge of an offset box stays sharp, but a crease line may lose
// vertices along its course (contours of unions of balls are creased
// wherever two balls meet, with short edges along the creases that
// otherwise never coarsen); the needles left, mostly along creases, are
// mended at the end (mendNeedles). Every new or
// moved vertex is put back on the level set by project, so a planar part
// of it stays exactly planar. Marching-tetrahedra triangles are often
// slivers, which a Delaunay mesher would refine to dust around them.
func remesh(s *format.Surface, length func(p geom.Vec) float64, project func(p, n geom.Vec, l float64) geom.Vec, rounds int) *format.Surface {
	m := &triMesh{pos: slices.Clone(s.Positions), tris: slices.Clone(s.Triangles)}
	m.frozen = make([]bool, len(m.pos)/3)
	// Each round splits or collapses at most one edge per neighbourhood, so
	// coarsening by a factor k takes about log2(k²) rounds; go on until a
	// round changes almost no edge count, after at least minRounds (for the
	// relaxation) and at most rounds.
	//
	// Where two sheets of the level set come closer than the target edge
	// (thin parts of a core, folds where balls meet) a round can make the
	// surface cross or fold onto itself, which the exact mesher refuses or
	// cannot recover. Such a round is undone and done again with the
	// vertices around the offending triangles frozen, until it is clean;
	// the surface stays clean after every round and coarsens everywhere
	// else (openscad_example001's core: 94 544 contour triangles, remeshed
	// before to 35 k crossing in 86 pairs and so dropped; now 22 k).
	for i := range rounds {
		var n int
		var ok bool
		m, n, ok = m.checked(func(r *triMesh) int { return r.round(length, project) }, (*triMesh).whollyFrozen)
		if !ok || n <= m.live()/remeshSettled && i+1 >= minRemeshRounds {
			break
		}
	}
	return m.mendNeedles(length, project).surface()
}

// checked does step on m and returns the state reached, with step's
// count, when the surface neither crosses itself nor folds but where kept;
// otherwise it does step again from m's state with the vertices around the
// offending triangles frozen (up to remeshRetries times), and gives up
// with m's state before the step and false.
func (m *triMesh) checked(step func(*triMesh) int, kept func(*triMesh, edgeRef) bool) (*triMesh, int, bool) {
	prev := m.clone()
	for try := 0; ; try++ {
		n := step(m)
		bad := m.crossing(kept)
		if len(bad) == 0 {
			return m, n, true
		}
		if try == remeshRetries || !prev.freeze(bad, m) {
			return prev, 0, false
		}
		m = prev.clone()
	}
}

// remeshRetries bounds how often one remeshing round is done again with
// more vertices frozen; remeshSettled: a round that changes fewer than
// one edge in this many triangles ends remeshing. Past that, rounds
// change a few edges each, or split and collapse the same ones in turn
// (gmsh_lever's core ran to the 30-round cap), and leave the triangles'
// angles as they were (docs/field.md).
const remeshRetries, remeshSettled = 8, 100

// round is one round of remeshing; it returns the number of edges split
// or collapsed.
func (m *triMesh) round(length func(p geom.Vec) float64, project func(p, n geom.Vec, l float64) geom.Vec) int {
	n := m.split(length, project) + m.collapse(length, project)
	m.flip()
	m.relax(length, project)
	return n
}

func (m *triMesh) clone() *triMesh {
	return &triMesh{pos: slices.Clone(m.pos), tris: slices.Clone(m.tris), frozen: slices.Clone(m.frozen)}
}

// live counts the live triangles.
func (m *triMesh) live() int {
	n := 0
	for t := 0; t < len(m.tris); t += 3 {
		if m.tris[t] >= 0 {
			n++
		}
	}
	return n
}

// foldCos: triangles on an edge whose normals turn by more than 150°
// (facets meeting at less than 30°) make a fold, which the exact mesher
// needs ever more Steiner points to recover (openscad_example001's core
// surface failed at 2 M).
var foldCos = math.Cos(150 * math.Pi / 180)

// crossing returns the triangles of m that take part in the first
// self-intersections format.Diagnose lists, and those on fold edges not
// kept; none if there are neither.
func (m *triMesh) crossing(kept func(*triMesh, edgeRef) bool) []int32 {
	var bad []int32
	for _, e := range m.folds() {
		if !kept(m, e) {
			bad = append(bad, e.t0, e.t1)
		}
	}
	var idx []int32 // live triangle → triangle of m
	s := &format.Surface{Positions: m.pos}
	for t := 0; t < len(m.tris); t += 3 {
		if m.tris[t] >= 0 {
			idx = append(idx, int32(t/3))
			s.Triangles = append(s.Triangles, m.tris[t:t+3]...)
		}
	}
	for _, p := range format.Diagnose(s).SelfIntersections {
		bad = append(bad, idx[p[0]], idx[p[1]])
	}
	return bad
}

// folds returns the edges where the surface folds.
func (m *triMesh) folds() []edgeRef {
	var f []edgeRef
	for _, e := range m.edges() {
		n0, n1 := m.normal(e.t0), m.normal(e.t1)
		if geom.Dot(n0, n1) < foldCos*geom.Norm(n0)*geom.Norm(n1) {
			f = append(f, e)
		}
	}
	return f
}

// whollyFrozen reports whether the vertices of both triangles on e are
// frozen: remeshing rounds keep such folds, which are the contour's own.
func (m *triMesh) whollyFrozen(e edgeRef) bool {
	return m.frozen[e.a] && m.frozen[e.b] && m.frozen[m.opposite(e.t0, e.a, e.b)] && m.frozen[m.opposite(e.t1, e.a, e.b)]
}

// freeze marks frozen, in m, the vertices within two rings of the
// triangles bad of after, a later state of m (vertices after added are
// not in m, their neighbours are). It reports whether any vertex was
// newly frozen.
func (m *triMesh) freeze(bad []int32, after *triMesh) bool {
	ring := after.rings()
	mark := map[int32]bool{}
	for _, t := range bad {
		for _, v := range after.tris[3*t : 3*t+3] {
			mark[v] = true
		}
	}
	for range 2 {
		var grow []int32
		for v := range mark {
			grow = append(grow, after.neighbours(ring[v], v)...)
		}
		for _, v := range grow {
			mark[v] = true
		}
	}
	changed := false
	for v := range mark {
		if int(v) < len(m.frozen) && !m.frozen[v] {
			m.frozen[v], changed = true, true
		}
	}
	return changed
}

// triMesh is a triangle surface under edit; a dead triangle has its first
// index −1.
type triMesh struct {
	pos    []float64
	tris   []int32
	frozen []bool // per vertex: no edit may touch it (see remesh)
}

func (m *triMesh) p(v int32) geom.Vec { return geom.At(m.pos, v) }

// isFrozen reports whether any of vs is frozen.
func (m *triMesh) isFrozen(vs ...int32) bool {
	for _, v := range vs {
		if m.frozen[v] {
			return true
		}
	}
	return false
}

// edgeRef is an undirected edge a < b and the triangles on either side.
type edgeRef struct {
	a, b   int32
	t0, t1 int32 // t0 traverses a→b, t1 traverses b→a
}

// edges lists the edges of the live triangles, sorted by (a, b).
func (m *triMesh) edges() []edgeRef {
	// Half-edges sorted by their ends' (min, max), packed in one key, then
	// by the first end.
	type half struct {
		key     uint64
		a, b, t int32
	}
	hs := make([]half, 0, len(m.tris))
	for t := 0; t < len(m.tris); t += 3 {
		if m.tris[t] < 0 {
			continue
		}
		for k := range 3 {
			a, b := m.tris[t+k], m.tris[t+(k+1)%3]
			hs = append(hs, half{uint64(min(a, b))<<32 | uint64(max(a, b)), a, b, int32(t / 3)})
		}
	}
	slices.SortFunc(hs, func(x, y half) int {
		if x.key != y.key {
			return cmp.Compare(x.key, y.key)
		}
		return cmp.Compare(x.a, y.a)
	})
	es := make([]edgeRef, 0, len(hs)/2)
	for i := 0; i+1 < len(hs); i += 2 {
		x, y := hs[i], hs[i+1]
		if x.a < x.b {
			es = append(es, edgeRef{x.a, x.b, x.t, y.t})
		} else {
			es = append(es, edgeRef{y.a, y.b, y.t, x.t})
		}
	}
	return es
}

// opposite returns the vertex of triangle t not on edge (a, b).
func (m *triMesh) opposite(t, a, b int32) int32 {
	for _, v := range m.tris[3*t : 3*t+3] {
		if v != a && v != b {
			return v
		}
	}
	return -1
}

func (m *triMesh) normal(t int32) geom.Vec {
	id := m.tris[3*t : 3*t+3]
	a := m.p(id[0])
	return geom.Cross(geom.Sub(m.p(id[1]), a), geom.Sub(m.p(id[2]), a))
}

// vertexNormal returns the area-weighted unit normal at each vertex.
func (m *triMesh) vertexNormals() []geom.Vec {
	n := make([]geom.Vec, len(m.pos)/3)
	for t := 0; t < len(m.tris); t += 3 {
		if m.tris[t] < 0 {
			continue
		}
		f := m.normal(int32(t / 3))
		for _, v := range m.tris[t : t+3] {
			n[v] = geom.Add(n[v], f)
		}
	}
	for i := range n {
		if l := geom.Norm(n[i]); l > 0 {
			n[i] = geom.Scale(1/l, n[i])
		}
	}
	return n
}

// split halves, longest first, every edge longer than 4/3 of the target
// whose quad no earlier split this round touched.
func (m *triMesh) split(length func(geom.Vec) float64, project func(p, n geom.Vec, l float64) geom.Vec) int {
	done := 0
	cs := m.candidates(m.edges(), length, func(rel float64) bool { return rel > 4.0/3 })
	slices.Reverse(cs)
	normals := m.vertexNormals()
	busy := map[int32]bool{}
	for _, e := range cs {
		cv, dv := m.opposite(e.t0, e.a, e.b), m.opposite(e.t1, e.a, e.b)
		if busy[e.a] || busy[e.b] || busy[cv] || busy[dv] || m.isFrozen(e.a, e.b, cv, dv) {
			continue
		}
		busy[e.a], busy[e.b], busy[cv], busy[dv] = true, true, true, true
		a, b := m.p(e.a), m.p(e.b)
		n := geom.Add(normals[e.a], normals[e.b])
		if l := geom.Norm(n); l > 0 {
			n = geom.Scale(1/l, n)
		}
		mid := geom.Scale(0.5, geom.Add(a, b))
		q := project(mid, n, math.Sqrt(geom.Dist2(a, b)))
		v := int32(len(m.pos) / 3)
		m.pos = append(m.pos, q[:]...)
		m.frozen = append(m.frozen, false)
		// t0 = (a, b, c) in some rotation becomes (a, v, c) and (v, b, c);
		// t1 = (b, a, d) becomes (b, v, d) and (v, a, d).
		m.setTri(e.t0, e.a, v, cv)
		m.tris = append(m.tris, v, e.b, cv)
		m.setTri(e.t1, e.b, v, dv)
		m.tris = append(m.tris, v, e.a, dv)
		done++
	}
	return done
}

// candidates returns the edges whose length relative to the target at
// their midpoint passes keep, shortest (relative) first; ties keep the
// order of es.
func (m *triMesh) candidates(es []edgeRef, length func(geom.Vec) float64, keep func(rel float64) bool) []edgeRef {
	type cand struct {
		e   edgeRef
		rel float64
	}
	var cs []cand
	for _, e := range es {
		a, b := m.p(e.a), m.p(e.b)
		if rel := math.Sqrt(geom.Dist2(a, b)) / length(geom.Scale(0.5, geom.Add(a, b))); keep(rel) {
			cs = append(cs, cand{e, rel})
		}
	}
	slices.SortStableFunc(cs, func(x, y cand) int { return cmp.Compare(x.rel, y.rel) })
	out := make([]edgeRef, len(cs))
	for i, c := range cs {
		out[i] = c.e
	}
	return out
}

func (m *triMesh) setTri(t, a, b, c int32) { m.tris[3*t], m.tris[3*t+1], m.tris[3*t+2] = a, b, c }

// collapse merges, shortest first, every edge shorter than 4/5 of the
// target into its projected midpoint when that keeps the surface a
// manifold (the link condition), makes no edge longer than 4/3 of the
// target and turns no triangle over.
func (m *triMesh) collapse(length func(geom.Vec) float64, project func(p, n geom.Vec, l float64) geom.Vec) int {
	done := 0
	es := m.edges()
	ring := m.rings()
	normals := m.vertexNormals()
	crease := m.creases(es)
	degree := m.creaseDegrees(es)
	busy := map[int32]bool{}
	size := newVertexSizes(length, len(m.pos)/3)
	for _, e := range m.candidates(es, length, func(rel float64) bool { return rel < 4.0/5 }) {
		if busy[e.a] || busy[e.b] || m.tris[3*e.t0] < 0 || m.tris[3*e.t1] < 0 || m.isFrozen(e.a, e.b) {
			continue
		}
		// Crease vertices stay put, except that a crease edge may shorten
		// into an end: the other end, on no other crease, merges into it
		// and the crease line keeps its course.
		fixA, fixB := crease[e.a], crease[e.b]
		if fixA && fixB {
			switch {
			case !m.creaseEdge(e):
				continue
			case degree[e.b] == 2:
				fixB = false
			case degree[e.a] == 2:
				fixA = false
			default:
				continue
			}
		}
		// Rounds leave vertices of valence three alone: only mendNeedles
		// merges them.
		na, nb, ok := m.link(e, ring)
		if !ok || len(na) < 4 || len(nb) < 4 {
			continue
		}
		n := geom.Add(normals[e.a], normals[e.b])
		if l := geom.Norm(n); l > 0 {
			n = geom.Scale(1/l, n)
		}
		a, b := m.p(e.a), m.p(e.b)
		var q geom.Vec
		switch {
		case fixA:
			q = a
		case fixB:
			q = b
		default:
			q = project(geom.Scale(0.5, geom.Add(a, b)), n, math.Sqrt(geom.Dist2(a, b)))
		}
		if !m.collapsible(e, q, ring, size) {
			continue
		}
		for _, x := range append(na, nb...) {
			busy[x] = true
		}
		busy[e.a], busy[e.b] = true, true
		m.merge(e, q, ring)
		size.forget(e.a)
		done++
	}
	return done
}

// link returns the neighbours of e's ends and whether collapsing e keeps
// the surface a manifold: a and b share exactly the neighbours c and d
// (the link condition), and the merged vertex is left with at least three
// (it has len(na) + len(nb) − 4).
func (m *triMesh) link(e edgeRef, ring [][]int32) (na, nb []int32, ok bool) {
	na, nb = m.neighbours(ring[e.a], e.a), m.neighbours(ring[e.b], e.b)
	shared := 0
	for _, x := range na {
		if slices.Contains(nb, x) {
			shared++
		}
	}
	return na, nb, shared == 2 && len(na)+len(nb) >= 7
}

// merge collapses edge e: a moves to q and takes b's triangles, the two
// on e die.
func (m *triMesh) merge(e edgeRef, q geom.Vec, ring [][]int32) {
	copy(m.pos[3*e.a:], q[:])
	for _, t := range ring[e.b] {
		for k := range 3 {
			if m.tris[3*t+int32(k)] == e.b {
				m.tris[3*t+int32(k)] = e.a
			}
		}
	}
	m.tris[3*e.t0], m.tris[3*e.t1] = -1, -1
}

// collapsible reports whether merging edge e into q turns no triangle
// around it over or below 10° and makes no edge longer than 4/3 of the
// target at its far end. The sizing is asked last, being the costly test.
func (m *triMesh) collapsible(e edgeRef, q geom.Vec, ring [][]int32, size *vertexSizes) bool {
	for _, ts := range [2][]int32{ring[e.a], ring[e.b]} {
		for _, t := range ts {
			if t == e.t0 || t == e.t1 || m.tris[3*t] < 0 {
				continue
			}
			id := [3]int32(m.tris[3*t : 3*t+3])
			old := m.normal(t)
			pts := [3]geom.Vec{m.p(id[0]), m.p(id[1]), m.p(id[2])}
			for k := range 3 {
				if id[k] == e.a || id[k] == e.b {
					pts[k] = q
				}
			}
			nw := geom.Cross(geom.Sub(pts[1], pts[0]), geom.Sub(pts[2], pts[0]))
			if geom.Dot(nw, old) <= 0.8*geom.Norm(nw)*geom.Norm(old) || minAngle(pts) < 10*math.Pi/180 {
				return false
			}
			for k := range 3 {
				if id[k] != e.a && id[k] != e.b && geom.Dist2(q, pts[k]) > sq(4.0/3*size.at(id[k], pts[k])) {
					return false
				}
			}
		}
	}
	return true
}

// vertexSizes remembers the target length at each vertex until it moves:
// collapse asks it for the same vertices around many edges.
type vertexSizes struct {
	length func(geom.Vec) float64
	l      []float64 // NaN: not asked since the vertex last moved
}

func newVertexSizes(length func(geom.Vec) float64, n int) *vertexSizes {
	l := make([]float64, n)
	for i := range l {
		l[i] = math.NaN()
	}
	return &vertexSizes{length: length, l: l}
}

// at returns the target length at vertex v, which lies at p.
func (s *vertexSizes) at(v int32, p geom.Vec) float64 {
	if math.IsNaN(s.l[v]) {
		s.l[v] = s.length(p)
	}
	return s.l[v]
}

func (s *vertexSizes) forget(v int32) { s.l[v] = math.NaN() }

func sq(x float64) float64 { return x * x }

// minAngle returns the smallest angle of a triangle.
func minAngle(p [3]geom.Vec) float64 {
	a := math.Pi
	for k := range 3 {
		u, v := geom.Sub(p[(k+1)%3], p[k]), geom.Sub(p[(k+2)%3], p[k])
		a = min(a, math.Atan2(geom.Norm(geom.Cross(u, v)), geom.Dot(u, v)))
	}
	return a
}

// creaseCosRemesh: an edge whose two triangles' normals differ by more than
// 30° is a crease; its vertices stay where they are.
var creaseCosRemesh = math.Cos(30 * math.Pi / 180)

// creases marks the vertices on crease edges.
func (m *triMesh) creases(es []edgeRef) []bool {
	c := make([]bool, len(m.pos)/3)
	for _, e := range es {
		if m.creaseEdge(e) {
			c[e.a], c[e.b] = true, true
		}
	}
	return c
}

// creaseEdge reports whether e is a crease edge.
func (m *triMesh) creaseEdge(e edgeRef) bool {
	n0, n1 := m.normal(e.t0), m.normal(e.t1)
	return geom.Dot(n0, n1) < creaseCosRemesh*geom.Norm(n0)*geom.Norm(n1)
}

// creaseDegrees counts the crease edges at each vertex.
func (m *triMesh) creaseDegrees(es []edgeRef) []int {
	d := make([]int, len(m.pos)/3)
	for _, e := range es {
		if m.creaseEdge(e) {
			d[e.a]++
			d[e.b]++
		}
	}
	return d
}

// rings returns the live triangles around each vertex.
func (m *triMesh) rings() [][]int32 {
	r := make([][]int32, len(m.pos)/3)
	for t := 0; t < len(m.tris); t += 3 {
		if m.tris[t] < 0 {
			continue
		}
		for _, v := range m.tris[t : t+3] {
			r[v] = append(r[v], int32(t/3))
		}
	}
	return r
}

// neighbours returns the distinct vertices of the triangles in ring other
// than v.
func (m *triMesh) neighbours(ring []int32, v int32) []int32 {
	var n []int32
	for _, t := range ring {
		for _, u := range m.tris[3*t : 3*t+3] {
			if u != v && !slices.Contains(n, u) {
				n = append(n, u)
			}
		}
	}
	return n
}

// flip turns every edge that is not locally Delaunay (its two opposite
// angles sum to more than π) where the two triangles are nearly coplanar
// (so creases stay) and the new edge is not already there: each flip
// raises the smallest angle of the pair.
func (m *triMesh) flip() {
	es := m.edges()
	exists := map[[2]int32]bool{}
	for _, e := range es {
		exists[[2]int32{e.a, e.b}] = true
	}
	busy := map[int32]bool{}
	angle := func(o, x, y geom.Vec) float64 {
		u, v := geom.Sub(x, o), geom.Sub(y, o)
		return math.Atan2(geom.Norm(geom.Cross(u, v)), geom.Dot(u, v))
	}
	for _, e := range es {
		if m.tris[3*e.t0] < 0 || m.tris[3*e.t1] < 0 {
			continue
		}
		cv, dv := m.opposite(e.t0, e.a, e.b), m.opposite(e.t1, e.a, e.b)
		if busy[e.a] || busy[e.b] || busy[cv] || busy[dv] || exists[[2]int32{min(cv, dv), max(cv, dv)}] || m.isFrozen(e.a, e.b, cv, dv) {
			continue
		}
		a, b, c, d := m.p(e.a), m.p(e.b), m.p(cv), m.p(dv)
		if angle(c, a, b)+angle(d, a, b) <= math.Pi*(1+1e-9) {
			continue
		}
		n0, n1 := m.normal(e.t0), m.normal(e.t1)
		if geom.Dot(n0, n1) < math.Cos(10*math.Pi/180)*geom.Norm(n0)*geom.Norm(n1) {
			continue
		}
		// (a, b, c) and (b, a, d) become (c, d, b) and (d, c, a); both must
		// keep facing the same way.
		f0 := geom.Cross(geom.Sub(d, c), geom.Sub(b, c))
		f1 := geom.Cross(geom.Sub(c, d), geom.Sub(a, d))
		if geom.Dot(f0, n0) <= 0 || geom.Dot(f1, n0) <= 0 {
			continue
		}
		busy[e.a], busy[e.b], busy[cv], busy[dv] = true, true, true, true
		exists[[2]int32{min(cv, dv), max(cv, dv)}] = true
		m.setTri(e.t0, cv, dv, e.b)
		m.setTri(e.t1, dv, cv, e.a)
	}
}

// relax moves every vertex towards the centroid of its neighbours within
// its tangent plane, then back onto the level set.
func (m *triMesh) relax(length func(geom.Vec) float64, project func(p, n geom.Vec, l float64) geom.Vec) {
	ring := m.rings()
	normals := m.vertexNormals()
	crease := m.creases(m.edges())
	next := slices.Clone(m.pos)
	par.Each(len(ring), chunk, func(v int) {
		if len(ring[v]) == 0 || crease[v] || m.frozen[v] {
			return
		}
		nb := m.neighbours(ring[v], int32(v))
		var c geom.Vec
		for _, u := range nb {
			c = geom.Add(c, m.p(u))
		}
		p := m.p(int32(v))
		c = geom.Scale(1/float64(len(nb)), c)
		n := normals[v]
		d := geom.Sub(c, p)
		d = geom.Sub(d, geom.Scale(geom.Dot(d, n), n))
		q := project(geom.Add(p, geom.Scale(0.5, d)), n, length(p))
		copy(next[3*v:], q[:])
	})
	m.pos = next
}

// surface returns the live triangles over the vertices they use.
func (m *triMesh) surface() *format.Surface {
	index := make([]int32, len(m.pos)/3)
	for i := range index {
		index[i] = -1
	}
	s := &format.Surface{}
	for t := 0; t < len(m.tris); t += 3 {
		if m.tris[t] < 0 {
			continue
		}
		for _, v := range m.tris[t : t+3] {
			if index[v] < 0 {
				index[v] = int32(len(s.Positions) / 3)
				s.Positions = append(s.Positions, m.pos[3*v:3*v+3]...)
			}
			s.Triangles = append(s.Triangles, index[v])
		}
	}
	return s
}
