// Package tetmesh is the tetrahedral mesh shared by the build stages: the
// flat-array mesh type, its vertex tags, face adjacency, the validator that
// every mesher's output must pass, and quality measures.
package tetmesh

import (
	"github.com/pfmesh/pfmesh/internal/geom"
)

// Tag classifies a vertex. The values are those stored in .pfm files.
type Tag = uint8

// Vertex tags.
const (
	Interior Tag = 0 // free: ε is solved for
	Boundary Tag = 1 // on the object's surface: ε = 0
	Core     Tag = 2 // on or inside the 1-set (medial core or rigid core): ε = 1
)

// Mesh is a tetrahedral mesh in flat arrays.
type Mesh struct {
	Positions []float64 // x, y, z per vertex, in metres
	Tets      []int32   // four vertex indices per tet, positively oriented
	Tags      []Tag     // one per vertex
}

// NumVertices returns the number of vertices.
func (m *Mesh) NumVertices() int { return len(m.Positions) / 3 }

// NumTets returns the number of tetrahedra.
func (m *Mesh) NumTets() int { return len(m.Tets) / 4 }

// Vertex returns the position of vertex i.
func (m *Mesh) Vertex(i int32) geom.Vec { return geom.At(m.Positions, i) }

// OffCoreTets returns the tets of tets (four vertex indices each) that
// have a vertex not tagged Core: those in which ε can vary. In the others
// ε ≡ 1, so their shape changes neither the field nor the pressure.
func OffCoreTets(tets []int32, tags []Tag) []int32 {
	var off []int32
	for t := 0; t+4 <= len(tets); t += 4 {
		q := tets[t : t+4]
		if tags[q[0]] != Core || tags[q[1]] != Core || tags[q[2]] != Core || tags[q[3]] != Core {
			off = append(off, q...)
		}
	}
	return off
}

// TetFaces lists, for each local vertex k, the face opposite it, ordered so
// that its right-handed normal points out of a positively oriented tet.
var TetFaces = [4][3]int{{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}}

// TetEdges lists the six local edges of a tet.
var TetEdges = [6][2]int{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}}

// Volume returns the total signed volume of the tets.
func (m *Mesh) Volume() float64 {
	// geom.TetVolume written out in scalars, the same operations: Go
	// keeps [3]float64 values in memory, and builds sum every tet.
	var v float64
	p := m.Positions
	for t := 0; t < len(m.Tets); t += 4 {
		a, b, c, d := 3*int(m.Tets[t]), 3*int(m.Tets[t+1]), 3*int(m.Tets[t+2]), 3*int(m.Tets[t+3])
		ax, ay, az := p[a], p[a+1], p[a+2]
		ux, uy, uz := p[b]-ax, p[b+1]-ay, p[b+2]-az
		vx, vy, vz := p[c]-ax, p[c+1]-ay, p[c+2]-az
		wx, wy, wz := p[d]-ax, p[d+1]-ay, p[d+2]-az
		v += ((uy*vz-uz*vy)*wx + (uz*vx-ux*vz)*wy + (ux*vy-uy*vx)*wz) / 6
	}
	return v
}

// VertexTets returns the tets incident to each vertex in compressed form:
// the tets of vertex v are tets[start[v]:start[v+1]], in increasing order.
func VertexTets(tets []int32, nv int) (start, incident []int32) {
	start = make([]int32, nv+1)
	for _, v := range tets {
		start[v+1]++
	}
	for i := 0; i < nv; i++ {
		start[i+1] += start[i]
	}
	incident = make([]int32, len(tets))
	fill := make([]int32, nv)
	copy(fill, start[:nv])
	for i, v := range tets {
		incident[fill[v]] = int32(i / 4)
		fill[v]++
	}
	return start, incident
}

// BoundaryFaces returns the faces that belong to exactly one tet, as
// outward-oriented triangles (three vertex indices each).
func BoundaryFaces(tets []int32, nbr []int32) []int32 {
	var tris []int32
	for i, n := range nbr {
		if n >= 0 {
			continue
		}
		t, f := i/4, TetFaces[i%4]
		tris = append(tris, tets[4*t+f[0]], tets[4*t+f[1]], tets[4*t+f[2]])
	}
	return tris
}
