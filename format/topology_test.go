package format_test

import (
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/format"
)

// TestPinched lists, for small surfaces built around a unit tetrahedron,
// the vertices at which each is not a closed oriented manifold, derived
// from how it was built.
func TestPinched(t *testing.T) {
	tet := func(o int32) []int32 {
		return []int32{o, o + 2, o + 1, o, o + 1, o + 3, o, o + 3, o + 2, o + 1, o + 2, o + 3}
	}
	corners := []float64{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}
	mirrored := []float64{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, -1, 0, 0, 0, -1, 0, 0, 0, -1, 2, 0, 0}
	cases := []struct {
		name string
		pos  []float64
		tris []int32
		want []int32
	}{
		{"tetrahedron", corners, tet(0), nil},
		// Two tetrahedra sharing vertex 0 (4, 5, 6 mirror 1, 2, 3).
		{"two cones at a tip", mirrored, append(tet(0), 0, 5, 4, 0, 4, 6, 0, 6, 5, 4, 5, 6), []int32{0}},
		// A second tetrahedron on edge 0-1: four triangles there.
		{"two tetrahedra on an edge", mirrored, append(tet(0), 0, 1, 5, 0, 5, 6, 0, 6, 1, 1, 6, 5), []int32{0, 1}},
		{"a face missing", corners, tet(0)[3:], []int32{0, 2, 1}},
		{"a face flipped", corners, append([]int32{0, 1, 2}, tet(0)[3:]...), []int32{0, 1, 2}},
		// A closed pair of triangles beside the tetrahedron: a manifold
		// edge by edge, of no volume.
		{"a pillow", mirrored, append(tet(0), 4, 5, 6, 4, 6, 5), []int32{4, 5, 6}},
		{"a collapsed triangle", corners, append(tet(0), 0, 0, 1), []int32{0, 1}},
	}
	for _, c := range cases {
		got := format.Pinched(&format.Surface{Positions: c.pos, Triangles: c.tris})
		want := slices.Clone(c.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: Pinched = %v, want %v", c.name, got, want)
		}
	}
}
