package stuffing

import (
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// Stuffing, void splitting and feature snapping leave some tets with small
// angles. Interior vertices are free to move — the boundary, and so the
// fidelity, does not depend on them — so improve moves each interior
// vertex of a poor tet to where the smallest dihedral angle of its tets is
// largest: a compass search seeded with the centroid of its neighbours,
// each step kept only if it raises that minimum and every tet stays
// positive by the exact predicate. Vertices are visited in index order,
// one at a time, so the result does not depend on scheduling.

// minDihedralOf returns the smallest dihedral angle (radians) of the tets
// ts, or −1 if any is not positively oriented.
func minDihedralOf(m *tetmesh.Mesh, ts []int32) float64 {
	worst := math.Pi
	for _, t := range ts {
		q := m.Tets[4*t : 4*t+4]
		a, b, c, d := m.Vertex(q[0]), m.Vertex(q[1]), m.Vertex(q[2]), m.Vertex(q[3])
		if geom.Orient3D(a, b, c, d) <= 0 {
			return -1
		}
		for _, x := range tetmesh.Dihedral(a, b, c, d) {
			worst = min(worst, x)
		}
	}
	return worst
}

// improve raises the smallest dihedral angle around interior vertices of
// tets whose smallest angle is below target (degrees), in passes.
func improve(m *tetmesh.Mesh, inc *incidence, target float64, passes int) {
	goal := target * math.Pi / 180
	for range passes {
		var todo []int32
		for t := 0; t < m.NumTets(); t++ {
			q := m.Tets[4*t : 4*t+4]
			if minDihedralOf(m, []int32{int32(t)}) < goal {
				for _, v := range q {
					if m.Tags[v] != tetmesh.Boundary {
						todo = append(todo, v)
					}
				}
			}
		}
		if len(todo) == 0 {
			return
		}
		slices.Sort(todo)
		moved := false
		for _, v := range slices.Compact(todo) {
			moved = relocate(m, inc, v) || moved
		}
		if !moved {
			return
		}
	}
}

// relocate moves interior vertex v to raise the smallest dihedral angle
// of its tets and reports whether it moved.
func relocate(m *tetmesh.Mesh, inc *incidence, v int32) bool {
	ts := inc.tets[v]
	start := m.Vertex(v)
	best := minDihedralOf(m, ts)
	set := func(p geom.Vec) { copy(m.Positions[3*v:], p[:]) }
	try := func(p geom.Vec) bool {
		set(p)
		if q := minDihedralOf(m, ts); q > best {
			best = q
			return true
		}
		return false
	}
	cur := start
	// Seed: the centroid of the neighbours, and halfway towards it.
	var c geom.Vec
	n := 0
	var shortest = math.Inf(1)
	for _, t := range ts {
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
		if p := geom.Add(cur, geom.Scale(f, geom.Sub(c, cur))); try(p) {
			cur = p
			break
		}
	}
	step := 0.2 * math.Sqrt(shortest)
	for range 24 {
		improved := false
		for k := 0; k < 6; k++ {
			p := cur
			p[k%3] += step * float64(1-2*(k/3))
			if try(p) {
				cur, improved = p, true
			}
		}
		if !improved {
			step /= 2
		}
	}
	set(cur)
	return cur != start
}
