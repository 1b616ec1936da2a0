package stuffing

import (
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
)

// On stuffed lattices boundaryAmong must return boundaryOf's triangles,
// in the same order: open, nested and touching input included.
func TestBoundaryAmong(t *testing.T) {
	for name, s := range map[string]*format.Surface{
		"sphere":           shapes.Icosphere(1, 2),
		"two shells":       union(shapes.Icosphere(1, 2), translate(shapes.Icosphere(0.5, 2), geom.Vec{2.2, 0, 0})),
		"overlapping cube": union(shapes.Box(1, 1, 1, 2), translate(shapes.Box(1, 1, 1, 2), geom.Vec{0.5, 0.3, 0.2})),
	} {
		_, _, d := stuffFirstLattice(s, 1e-2)
		want, _ := boundaryOf(d.tets, len(d.pos)/3)
		got := boundaryAmong(d.tets, len(d.pos)/3, func(v int32) bool { return d.onTri[v] != notOnSurface })
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("%s: boundaryAmong gives %d triangles, boundaryOf %d", name, len(got)/3, len(want)/3)
		}
	}
}
