package stuffing

import (
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// Moves onto the input — a snap to a feature, a slide along a patch — can
// land exactly where another vertex already is: two vertices far apart in
// the mesh clamped to the same end of a feature edge, or projected onto
// the same input vertex. No tet sees it, as the two share none, but the
// mesh then has two vertices at one point: a crack. occupancy records
// where every vertex is, and moves and splits onto an occupied point are
// refused.
type occupancy map[geom.Vec]int32

func newOccupancy(m *tetmesh.Mesh) occupancy {
	o := make(occupancy, m.NumVertices())
	for v := range int32(m.NumVertices()) {
		o[m.Vertex(v)] = v
	}
	return o
}

// free reports whether no vertex other than v is at p.
func (o occupancy) free(p geom.Vec, v int32) bool {
	u, ok := o[p]
	return !ok || u == v
}

// move records that v went from one point to another.
func (o occupancy) move(v int32, from, to geom.Vec) {
	if o[from] == v {
		delete(o, from)
	}
	o[to] = v
}
