package medial

import (
	"cmp"
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// Remeshing rounds leave needles where they may not edit: along creases
// (whose vertices stay put), beside vertices frozen against
// self-intersection, at the contour's folds. A tet standing on one cannot
// be fat, and in default builds such tets held the field's smallest angles
// (docs/field.md). mendNeedles ends remeshing by mending them.
const (
	// needleAngle: a triangle with an angle below it is a needle.
	needleAngle = 15 * math.Pi / 180
	// needleSweeps bounds the sweeps of mendNeedles.
	needleSweeps = 30
	// needleFlipHeight bounds how far a flip may move the surface,
	// relative to the flipped edge.
	needleFlipHeight = 0.1
	// needleMove: an edge shorter than this much of the target may
	// collapse into either end, crease vertex or not.
	needleMove = 0.25
)

// mendNeedles returns m after sweeps that mend each needle by collapsing
// its shortest or middle edge, or else flipping its longest, when that
// raises the smallest angle of the triangles around it and makes no new
// fold. A crease vertex moves only along a crease edge, into an end of no
// lower crease degree, or along an edge shorter than needleMove of the
// target: creases keep their course but for such short edges. The vertices
// rounds froze are free again; the sweeps' result is checked and redone
// with vertices frozen as a round is, the contour's own folds kept.
func (m *triMesh) mendNeedles(length func(geom.Vec) float64, project func(p, n geom.Vec, l float64) geom.Vec) *triMesh {
	m = m.clone()
	clear(m.frozen)
	onFold := make([]bool, len(m.frozen))
	for _, e := range m.folds() {
		onFold[e.a], onFold[e.b] = true, true
	}
	m, _, _ = m.checked(func(r *triMesh) int {
		n := 0
		for range needleSweeps {
			k := r.needleSweep(length, project, onFold)
			if k == 0 {
				break
			}
			n += k
		}
		return n
	}, func(_ *triMesh, e edgeRef) bool { return onFold[e.a] && onFold[e.b] })
	return m
}

// needleSweep mends the needles, smallest angle first, at most one per
// neighbourhood; it returns how many it mended. onFold marks the vertices
// on the contour's folds.
func (m *triMesh) needleSweep(length func(geom.Vec) float64, project func(p, n geom.Vec, l float64) geom.Vec, onFold []bool) int {
	es := m.edges()
	at := make(map[[2]int32]edgeRef, len(es))
	for _, e := range es {
		at[[2]int32{e.a, e.b}] = e
	}
	edge := func(a, b int32) (edgeRef, bool) {
		e, ok := at[[2]int32{min(a, b), max(a, b)}]
		return e, ok
	}
	type needle struct {
		t     int32
		angle float64
	}
	var ns []needle
	for t := 0; t < len(m.tris); t += 3 {
		if m.tris[t] >= 0 {
			if a := minAngle(m.corners(int32(t / 3))); a < needleAngle {
				ns = append(ns, needle{int32(t / 3), a})
			}
		}
	}
	slices.SortStableFunc(ns, func(x, y needle) int { return cmp.Compare(x.angle, y.angle) })
	s := needleState{
		ring: m.rings(), normals: m.vertexNormals(), degree: m.creaseDegrees(es),
		busy: make([]bool, len(m.pos)/3), onFold: onFold, edge: edge, length: length, project: project,
	}
	done := 0
	for _, n := range ns {
		id := [3]int32(m.tris[3*n.t : 3*n.t+3])
		if id[0] < 0 || s.busy[id[0]] || s.busy[id[1]] || s.busy[id[2]] {
			continue
		}
		// Collapse the shorter two edges, shortest first (a needle's short
		// one, or a cap's), or else flip the longest.
		p := m.corners(n.t)
		k := [3]int{0, 1, 2}
		l := func(k int) float64 { return geom.Dist2(p[(k+1)%3], p[(k+2)%3]) }
		slices.SortFunc(k[:], func(x, y int) int { return cmp.Compare(l(x), l(y)) })
		var es [3]edgeRef
		found := true
		for i, k := range k {
			var ok bool
			es[i], ok = edge(id[(k+1)%3], id[(k+2)%3])
			found = found && ok
		}
		if found && (m.collapseNeedle(es[0], &s) || m.collapseNeedle(es[1], &s) || m.flipNeedle(es[2], &s)) {
			done++
		}
	}
	return done
}

// needleState is what a needle sweep knows of the mesh as it began; the
// rings, normals and creases stay true of every vertex not busy.
type needleState struct {
	ring    [][]int32
	normals []geom.Vec
	degree  []int // crease edges at each vertex
	busy    []bool
	onFold  []bool
	edge    func(a, b int32) (edgeRef, bool)
	length  func(geom.Vec) float64
	project func(p, n geom.Vec, l float64) geom.Vec
}

// corners returns the positions of triangle t's vertices.
func (m *triMesh) corners(t int32) [3]geom.Vec {
	id := m.tris[3*t : 3*t+3]
	return [3]geom.Vec{m.p(id[0]), m.p(id[1]), m.p(id[2])}
}

// collapseNeedle collapses e into whichever of its ends or its projected
// midpoint raises the smallest angle of the triangles around it most, if
// any does without a new fold; a crease vertex moves as mendNeedles says.
// Its neighbours must not be busy, so that their rings are true.
func (m *triMesh) collapseNeedle(e edgeRef, s *needleState) bool {
	if m.isFrozen(e.a, e.b) {
		return false
	}
	na, nb, ok := m.link(e, s.ring)
	nbr := append(na, nb...)
	if !ok || slices.ContainsFunc(nbr, func(x int32) bool { return s.busy[x] }) {
		return false
	}
	a, b := m.p(e.a), m.p(e.b)
	along := m.creaseEdge(e)
	// intoA: b may merge into a (a crease vertex b only along the crease
	// into a of no lower crease degree, or along a short edge); intoB the
	// other way.
	da, db := s.degree[e.a], s.degree[e.b]
	intoA, intoB := db == 0 || along && da >= db, da == 0 || along && db >= da
	if !intoA || !intoB {
		short := geom.Dist2(a, b) <= sq(needleMove*s.length(geom.Scale(0.5, geom.Add(a, b))))
		intoA, intoB = intoA || short, intoB || short
	}
	var qs []geom.Vec
	if intoA {
		qs = append(qs, a)
	}
	if intoB {
		qs = append(qs, b)
	}
	if da == 0 && db == 0 {
		n := geom.Add(s.normals[e.a], s.normals[e.b])
		if l := geom.Norm(n); l > 0 {
			n = geom.Scale(1/l, n)
		}
		qs = append(qs, s.project(geom.Scale(0.5, geom.Add(a, b)), n, math.Sqrt(geom.Dist2(a, b))))
	}
	best, bestAngle := -1, math.Inf(1)
	for _, ts := range [2][]int32{s.ring[e.a], s.ring[e.b]} {
		for _, t := range ts {
			bestAngle = min(bestAngle, minAngle(m.corners(t)))
		}
	}
	// An end of valence three may go even if no angle rises: its three
	// triangles become one, and that can open the link of an edge beside
	// it (a tiny triangle split at such a vertex, its edges a needle's).
	valence3 := min(len(na), len(nb)) == 3
	for i, q := range qs {
		if a, ok := m.collapsedAngle(e, q, s.ring); ok && (a > bestAngle || valence3 && best < 0 && a == bestAngle) {
			best, bestAngle = i, a
		}
	}
	if best < 0 {
		return false
	}
	// Merge, and undo it if it folds.
	var ts, old []int32
	for _, r := range [2][]int32{s.ring[e.a], s.ring[e.b]} {
		for _, t := range r {
			if t != e.t0 && t != e.t1 {
				ts = append(ts, t)
				old = append(old, m.tris[3*t:3*t+3]...)
			}
		}
	}
	pa, id0, id1 := a, [3]int32(m.tris[3*e.t0:3*e.t0+3]), [3]int32(m.tris[3*e.t1:3*e.t1+3])
	m.merge(e, qs[best], s.ring)
	if m.folded(ts, s) {
		copy(m.pos[3*e.a:], pa[:])
		for i, t := range ts {
			copy(m.tris[3*t:3*t+3], old[3*i:3*i+3])
		}
		m.setTri(e.t0, id0[0], id0[1], id0[2])
		m.setTri(e.t1, id1[0], id1[1], id1[2])
		return false
	}
	for _, x := range nbr {
		s.busy[x] = true
	}
	return true
}

// folded reports whether a triangle of ts, just edited, meets a neighbour
// at a fold the contour did not have (both ends on its folds).
func (m *triMesh) folded(ts []int32, s *needleState) bool {
	for _, t := range ts {
		id := m.tris[3*t : 3*t+3]
		n := m.normal(t)
		for k := range 3 {
			x, y := id[k], id[(k+1)%3]
			if s.onFold[x] && s.onFold[y] {
				continue
			}
			// x's ring is as the sweep found it but for ts.
			for _, u := range slices.Concat(s.ring[x], ts) {
				if u == t || m.tris[3*u] < 0 || !slices.Contains(m.tris[3*u:3*u+3], x) || !slices.Contains(m.tris[3*u:3*u+3], y) {
					continue
				}
				if nu := m.normal(u); geom.Dot(n, nu) < foldCos*geom.Norm(n)*geom.Norm(nu) {
					return true
				}
				break
			}
		}
	}
	return false
}

// collapsedAngle returns the smallest angle of the triangles left around
// e merged into q, and false if one of them would turn over, or turn by
// more than about 37° where it was no needle.
func (m *triMesh) collapsedAngle(e edgeRef, q geom.Vec, ring [][]int32) (float64, bool) {
	angle := math.Pi
	for _, ts := range [2][]int32{ring[e.a], ring[e.b]} {
		for _, t := range ts {
			if t == e.t0 || t == e.t1 {
				continue
			}
			id := m.tris[3*t : 3*t+3]
			pts := m.corners(t)
			for k := range 3 {
				if id[k] == e.a || id[k] == e.b {
					pts[k] = q
				}
			}
			old := m.normal(t)
			nw := geom.Cross(geom.Sub(pts[1], pts[0]), geom.Sub(pts[2], pts[0]))
			turn := 0.0
			if minAngle(m.corners(t)) >= needleAngle {
				turn = 0.8
			}
			if geom.Dot(nw, old) <= turn*geom.Norm(nw)*geom.Norm(old) {
				return 0, false
			}
			angle = min(angle, minAngle(pts))
		}
	}
	return angle, true
}

// flipNeedle flips e when that raises the smaller angle of its two
// triangles, the new ones face within about 37° of the larger old one, the
// surface moves by at most needleFlipHeight of e's length (as where a
// needle's far vertex lies close to e, even across a crease) and no new
// fold is made.
func (m *triMesh) flipNeedle(e edgeRef, s *needleState) bool {
	cv, dv := m.opposite(e.t0, e.a, e.b), m.opposite(e.t1, e.a, e.b)
	if _, ok := s.edge(cv, dv); ok || s.busy[cv] || s.busy[dv] || m.isFrozen(e.a, e.b, cv, dv) {
		return false
	}
	a, b, c, d := m.p(e.a), m.p(e.b), m.p(cv), m.p(dv)
	if min(minAngle([3]geom.Vec{c, d, b}), minAngle([3]geom.Vec{d, c, a})) <= min(minAngle([3]geom.Vec{a, b, c}), minAngle([3]geom.Vec{b, a, d})) {
		return false
	}
	big := m.normal(e.t0)
	if n1 := m.normal(e.t1); geom.Norm(n1) > geom.Norm(big) {
		big = n1
	}
	for _, f := range [2]geom.Vec{geom.Cross(geom.Sub(d, c), geom.Sub(b, c)), geom.Cross(geom.Sub(c, d), geom.Sub(a, d))} {
		if geom.Dot(f, big) <= 0.8*geom.Norm(f)*geom.Norm(big) {
			return false
		}
	}
	// |big| is twice the larger triangle's area, six times the tet abcd's
	// volume over it its height.
	vol6 := math.Abs(geom.Dot(geom.Sub(b, a), geom.Cross(geom.Sub(c, a), geom.Sub(d, a))))
	if vol6 > needleFlipHeight*math.Sqrt(geom.Dist2(a, b))*geom.Norm(big) {
		return false
	}
	// (a, b, c) and (b, a, d) become (c, d, b) and (d, c, a).
	m.setTri(e.t0, cv, dv, e.b)
	m.setTri(e.t1, dv, cv, e.a)
	if m.folded([]int32{e.t0, e.t1}, s) {
		m.setTri(e.t0, e.a, e.b, cv)
		m.setTri(e.t1, e.b, e.a, dv)
		return false
	}
	s.busy[e.a], s.busy[e.b], s.busy[cv], s.busy[dv] = true, true, true, true
	return true
}
