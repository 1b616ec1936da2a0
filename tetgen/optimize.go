package tetgen

import (
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// Mesh optimization after refinement: tets whose smallest dihedral angle
// is below the target are improved by
//   - moving free interior vertices (Steiner points of refinement and
//     void splitting; never surface vertices or caller points) to the
//     position among a few candidates that best raises the worst tet of
//     their star, and
//   - flips (2-3 and edge removal) that raise the worst tet of the
//     region they change.
// Every change keeps all tets positive (exact test) and creates no
// zero-pressure simplex: no new edge or interior face joins only
// boundary vertices. The measure is the smallest sine of the six
// dihedral angles, which is small for flat tets of every kind (slivers,
// caps, needles, wedges) and 1 for none.

// optTarget is the smallest dihedral angle optimization works towards.
const optTarget = 15 * math.Pi / 180

// minSine returns the smallest sine of the dihedral angles of the tet
// with vertices a, b, c, d (0 for a flat one).
func minSine(a, b, c, d geom.Vec) float64 {
	p := [4]geom.Vec{a, b, c, d}
	var n [4]geom.Vec
	var l [4]float64
	for k, f := range faces {
		n[k] = geom.Cross(geom.Sub(p[f[1]], p[f[0]]), geom.Sub(p[f[2]], p[f[0]]))
		l[k] = geom.Norm(n[k])
	}
	worst := 1.0
	for i := 0; i < 4; i++ {
		for j := i + 1; j < 4; j++ {
			s := geom.Norm(geom.Cross(n[i], n[j])) / (l[i] * l[j])
			if !(s < worst) {
				if math.IsNaN(s) {
					return 0
				}
				continue
			}
			worst = s
		}
	}
	return worst
}

func (m *tri) tetMinSine(t int32) float64 {
	q := m.tet(t)
	return minSine(m.pos(q[0]), m.pos(q[1]), m.pos(q[2]), m.pos(q[3]))
}

// optimize improves the tets below the target for a few rounds.
func (ms *mesher) optimize() error {
	if ms.opt.Coarse {
		return nil
	}
	m := ms.m
	target := math.Sin(optTarget)
	for round := 0; round < 6; round++ {
		var bad []int32
		for t := int32(0); t < int32(m.numTets()); t++ {
			if m.alive(t) && m.tetMinSine(t) < target {
				bad = append(bad, t)
			}
		}
		if len(bad) == 0 {
			return nil
		}
		improved := 0
		for _, t := range bad {
			if !m.alive(t) || m.tetMinSine(t) >= target {
				continue
			}
			if ms.flipBetter(t) {
				improved++
				continue
			}
			for _, v := range m.tet(t) {
				if ms.movable(v) && ms.smooth(v) {
					improved++
					break
				}
			}
		}
		if improved == 0 {
			return nil
		}
	}
	return nil
}

// movable reports whether smoothing may move vertex v.
func (ms *mesher) movable(v int32) bool { return ms.kind[v] == vVolume }

// smooth moves vertex v to the candidate position that most raises the
// smallest sine over its star, if any does. Candidates: the centroid of
// its neighbours, and points part of the way towards it and towards the
// centroids of its star's tets.
func (ms *mesher) smooth(v int32) bool {
	m := ms.m
	star := m.star(v, nil)
	worst := func() float64 {
		w := 1.0
		for _, t := range star {
			w = min(w, m.tetMinSine(t))
		}
		return w
	}
	valid := func() bool {
		for _, t := range star {
			q := m.tet(t)
			if geom.Orient3DAt(m.xyz, q[0], q[1], q[2], q[3]) <= 0 {
				return false
			}
		}
		return true
	}
	orig := m.pos(v)
	before := worst()
	var nb geom.Vec
	seen := map[int32]bool{v: true}
	n := 0
	for _, t := range star {
		for _, u := range m.tet(t) {
			if !seen[u] {
				seen[u] = true
				nb = geom.Add(nb, m.pos(u))
				n++
			}
		}
	}
	nb = geom.Scale(1/float64(n), nb)
	cands := []geom.Vec{nb}
	for _, w := range []float64{0.5, 0.25} {
		cands = append(cands, geom.Add(orig, geom.Scale(w, geom.Sub(nb, orig))))
	}
	// Move away from the worst tet's opposite face, towards its centroid.
	var wt int32 = -1
	wq := 2.0
	for _, t := range star {
		if s := m.tetMinSine(t); s < wq {
			wq, wt = s, t
		}
	}
	if wt >= 0 {
		var c geom.Vec
		for _, u := range m.tet(wt) {
			c = geom.Add(c, m.pos(u))
		}
		c = geom.Scale(0.25, c)
		for _, w := range []float64{-0.3, -0.15} {
			cands = append(cands, geom.Add(orig, geom.Scale(w, geom.Sub(c, orig))))
		}
	}
	best, bestQ := orig, before
	for _, p := range cands {
		m.setPos(v, p)
		if !valid() {
			continue
		}
		if q := worst(); q > bestQ {
			best, bestQ = p, q
		}
	}
	m.setPos(v, best)
	return best != orig
}

func (m *tri) setPos(v int32, p geom.Vec) {
	j := 3 * int(v)
	m.xyz[j], m.xyz[j+1], m.xyz[j+2] = p[0], p[1], p[2]
}

// flipBetter tries the flips that remove a face or an edge of tet t and
// keeps the first that raises the smallest sine of the region it
// changes.
func (ms *mesher) flipBetter(t int32) bool {
	m := ms.m
	q := m.tet(t)
	score := func(nq [4]int32) float64 {
		return minSine(m.pos(nq[0]), m.pos(nq[1]), m.pos(nq[2]), m.pos(nq[3]))
	}
	for _, e := range tetEdges {
		x, y := q[e[0]], q[e[1]]
		tets, link, ok := m.ring(x, y, t)
		if !ok || len(link) > maxRemovalRing {
			continue
		}
		before := 1.0
		for _, u := range tets {
			before = min(before, m.tetMinSine(u))
		}
		accept := func(tris [][3]int32) bool { return !ms.makesVoid(tris, link) }
		if m.removeEdgeIf(x, y, t, accept, score, func(worst float64) bool { return worst > before*1.05 }) {
			return true
		}
	}
	for k := int32(0); k < 4; k++ {
		f := 4*t + k
		o := m.across(f)
		if o < 0 {
			continue
		}
		d, e := q[k], m.c[(o>>2)<<3|o&3]
		if ms.isBoundaryVertex(d) && ms.isBoundaryVertex(e) {
			continue // the new edge d–e would join two boundary vertices
		}
		before := min(m.tetMinSine(t), m.tetMinSine(o>>2))
		abc := m.faceVerts(f)
		after := 1.0
		for i := 0; i < 3; i++ {
			after = min(after, score([4]int32{abc[i], abc[(i+1)%3], e, d}))
		}
		if after > before*1.05 && m.flip23(f) {
			return true
		}
	}
	return false
}

// isBoundaryVertex reports whether v lies on the outer surface.
func (ms *mesher) isBoundaryVertex(v int32) bool { return ms.on[v] == onOuter }

// makesVoid reports whether the triangulation tris of link polygon link
// has a new edge (a diagonal) joining two boundary vertices, or a
// triangle of three.
func (ms *mesher) makesVoid(tris [][3]int32, link []int32) bool {
	n := len(link)
	isLinkEdge := func(a, b int32) bool {
		i, j := slices.Index(link, a), slices.Index(link, b)
		return (i+1)%n == j || (j+1)%n == i
	}
	for _, tr := range tris {
		all := true
		for k := 0; k < 3; k++ {
			a, b := tr[k], tr[(k+1)%3]
			ba, bb := ms.isBoundaryVertex(a), ms.isBoundaryVertex(b)
			all = all && ba
			if ba && bb && !isLinkEdge(a, b) {
				return true
			}
		}
		if all {
			return true
		}
	}
	return false
}
