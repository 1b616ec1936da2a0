package stuffing

import (
	"slices"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/par"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// ε is 0 on every boundary vertex, so an interior edge, face or tet whose
// vertices are all on the boundary is a zero-pressure void inside the body.
// Stuffing makes them where warped vertices meet. breakVoids removes them
// by inserting an interior vertex in each: first at the midpoint of every
// such edge, then at the centroid of every such face (whose edges are then
// all boundary edges), then at the centroid of every such tet (whose faces
// are then all boundary faces: a tet on its own). Each split divides tets
// through a point of their own edge, face or interior, so every new tet is
// positive, and each new tet has the new interior vertex, so no split makes
// another void.

// incidence is a mutable vertex → tets map for local splitting.
type incidence struct {
	m    *tetmesh.Mesh
	tets [][]int32
	at   occupancy // nil when made by tetsAround
}

func newIncidence(m *tetmesh.Mesh) *incidence {
	inc := tetsAround(m)
	inc.at = newOccupancy(m)
	return inc
}

// tetsAround is newIncidence without the occupancy, for work that moves
// no vertex. The lists are counted into one array, each capped at its
// length so that growing one copies it out.
func tetsAround(m *tetmesh.Mesh) *incidence {
	nv := m.NumVertices()
	start, all := tetmesh.VertexTets(m.Tets, nv)
	inc := &incidence{m: m, tets: make([][]int32, nv)}
	for v := range nv {
		inc.tets[v] = all[start[v]:start[v+1]:start[v+1]]
	}
	return inc
}

// around returns the tets that have all of vs, in increasing order: the
// order of an incidence list is an accident of the edits made so far, and
// what is built from around's answer (splits, flips, stars) must not
// depend on it.
func (inc *incidence) around(vs ...int32) []int32 {
	var out []int32
	for _, t := range inc.tets[vs[0]] {
		q := inc.m.Tets[4*t : 4*t+4]
		all := true
		for _, v := range vs[1:] {
			all = all && slices.Contains(q, v)
		}
		if all {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

func (inc *incidence) addVertex(p geom.Vec, tag tetmesh.Tag) int32 {
	m := inc.m
	m.Positions = append(m.Positions, p[0], p[1], p[2])
	m.Tags = append(m.Tags, tag)
	inc.tets = append(inc.tets, nil)
	v := int32(m.NumVertices() - 1)
	if inc.at != nil {
		inc.at[p] = v
	}
	return v
}

// replace makes a copy of tet t with vertex old replaced by nw (a point
// inside the part of t that keeps orientation) and returns it.
func (inc *incidence) replaceInCopy(t int32, old, nw int32) int32 {
	m := inc.m
	q := slices.Clone(m.Tets[4*t : 4*t+4])
	for k, v := range q {
		if v == old {
			q[k] = nw
		}
	}
	m.Tets = append(m.Tets, q...)
	nt := int32(m.NumTets() - 1)
	for _, v := range q {
		inc.tets[v] = append(inc.tets[v], nt)
	}
	return nt
}

// replaceInPlace replaces old by nw in tet t.
func (inc *incidence) replaceInPlace(t int32, old, nw int32) {
	q := inc.m.Tets[4*t : 4*t+4]
	for k, v := range q {
		if v == old {
			q[k] = nw
		}
	}
	inc.tets[old] = slices.DeleteFunc(inc.tets[old], func(u int32) bool { return u == t })
	inc.tets[nw] = append(inc.tets[nw], t)
}

// splitAt divides every tet around the simplex vs (an edge, face or tet)
// by the new vertex nw inside it: each tet is copied once per vertex of
// vs but the last, with that vertex replaced by nw, and the original keeps
// the rest with the last vertex replaced.
func (inc *incidence) splitAt(vs []int32, nw int32) {
	for _, t := range inc.around(vs...) {
		var made []int32
		for _, v := range vs[:len(vs)-1] {
			made = append(made, inc.replaceInCopy(t, v, nw))
		}
		inc.replaceInPlace(t, vs[len(vs)-1], nw)
		made = append(made, t)
		if debugf != nil {
			m := inc.m
			for _, u := range made {
				q := m.Tets[4*u : 4*u+4]
				if geom.Orient3D(m.Vertex(q[0]), m.Vertex(q[1]), m.Vertex(q[2]), m.Vertex(q[3])) <= 0 {
					debugf("split of %v made inverted tet %v (tags %d %d %d %d)", vs, q, m.Tags[q[0]], m.Tags[q[1]], m.Tags[q[2]], m.Tags[q[3]])
				}
			}
		}
	}
}

func centroid(m *tetmesh.Mesh, vs []int32) geom.Vec {
	var c geom.Vec
	for _, v := range vs {
		c = geom.Add(c, m.Vertex(v))
	}
	return geom.Scale(1/float64(len(vs)), c)
}

// breakVoids splits the zero-pressure edges, faces and tets of a tagged
// mesh and returns how many vertices it added.
func breakVoids(m *tetmesh.Mesh) int {
	isB := func(v int32) bool { return m.Tags[v] == tetmesh.Boundary }
	nv0 := m.NumVertices()
	tris, nbr := boundaryOf(m.Tets, nv0)
	onBoundary := newKeyMap(len(tris))
	for i := 0; i < len(tris); i += 3 {
		for k := 0; k < 3; k++ {
			onBoundary.set(edgeKey(tris[i+k], tris[i+(k+1)%3]), 1)
		}
	}
	// Found in runs of tets at once, joined in tet order.
	const run = 1 << 14
	type found struct {
		edges []uint64
		faces [][3]int32
	}
	parts := make([]found, (m.NumTets()+run-1)/run)
	par.For(len(parts), 1, func(plo, phi int) {
		for r := plo; r < phi; r++ {
			part := &parts[r]
			for t := r * run; t < min((r+1)*run, m.NumTets()); t++ {
				q := m.Tets[4*t : 4*t+4]
				for _, e := range tetmesh.TetEdges {
					a, b := q[e[0]], q[e[1]]
					if isB(a) && isB(b) && onBoundary.get(edgeKey(a, b)) < 0 {
						part.edges = append(part.edges, edgeKey(a, b))
					}
				}
				for k, f := range tetmesh.TetFaces {
					a, b, c := q[f[0]], q[f[1]], q[f[2]]
					if n := nbr[4*t+k]; n > int32(t) && isB(a) && isB(b) && isB(c) {
						part.faces = append(part.faces, [3]int32{a, b, c})
					}
				}
			}
		}
	})
	var edges []uint64
	var faces [][3]int32
	for _, part := range parts {
		edges = append(edges, part.edges...)
		faces = append(faces, part.faces...)
	}
	slices.Sort(edges)
	edges = slices.Compact(edges)
	inc := tetsAround(m)
	for _, e := range edges {
		vs := []int32{int32(e >> 32), int32(uint32(e))}
		inc.splitAt(vs, inc.addVertex(centroid(m, vs), tetmesh.Interior))
	}
	for _, f := range faces {
		// Faces whose edges were all on the boundary are untouched by the
		// edge splits; others no longer exist and are skipped.
		if len(inc.around(f[:]...)) == 2 {
			inc.splitAt(f[:], inc.addVertex(centroid(m, f[:]), tetmesh.Interior))
		}
	}
	for t := 0; t < m.NumTets(); t++ {
		if q := m.Tets[4*t : 4*t+4]; isB(q[0]) && isB(q[1]) && isB(q[2]) && isB(q[3]) {
			q = slices.Clone(q) // splitAt rewrites tet t
			inc.splitAt(q, inc.addVertex(centroid(m, q), tetmesh.Interior))
		}
	}
	return m.NumVertices() - nv0
}
