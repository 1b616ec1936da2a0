package stuffing

import (
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// Two tets that share no vertex: moving a vertex of each onto the same
// point keeps both positive, so only the occupancy rule stops the second
// move from making a crack (the cura buildplate regression).
func TestSnapNeverStacksVertices(t *testing.T) {
	m := &tetmesh.Mesh{Positions: []float64{
		0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, // a: corner at the origin
		0.1, 0.1, -0.5, -2, -2, -1, 0.1, 3, -1, 3, -2, -1, // b: apex above a big triangle
	}, Tets: []int32{0, 1, 2, 3, 4, 5, 6, 7}}
	for t0 := 0; t0 < 2; t0++ {
		q := m.Tets[4*t0 : 4*t0+4]
		if geom.Orient3D(m.Vertex(q[0]), m.Vertex(q[1]), m.Vertex(q[2]), m.Vertex(q[3])) < 0 {
			q[2], q[3] = q[3], q[2]
		}
	}
	s := &snapper{m: m, inc: newIncidence(m)}
	p := geom.Vec{0.1, 0.1, 0.1}
	if !s.move(0, p) {
		t.Fatal("first move onto a free point refused")
	}
	if s.move(4, p) {
		t.Fatalf("second vertex moved onto the first: %v and %v", m.Vertex(0), m.Vertex(4))
	}
	if got := m.Vertex(4); got != (geom.Vec{0.1, 0.1, -0.5}) {
		t.Errorf("refused move left vertex 4 at %v", got)
	}
	if !s.move(0, geom.Vec{0.2, 0.1, 0.1}) || !s.move(4, p) {
		t.Error("a point freed by a move is not free again")
	}
	if m.Vertex(0) == m.Vertex(4) {
		t.Errorf("vertices 0 and 4 both at %v", m.Vertex(0))
	}
}
