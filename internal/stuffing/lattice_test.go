package stuffing

import (
	"math"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// testOctree refines around an icosphere surface down to level surf,
// leaving the rest as coarse as balance allows.
func testOctree(t testing.TB, surf int) *octree {
	s := shapes.Icosphere(1, 2)
	in := newInput(s.Positions, s.Triangles, 40)
	o := buildOctree(geom.Vec{-1.61, -1.57, -1.53}, 3.3, in, func(level int, _ uint64, _ geom.Vec, _ float64, tris []int32) bool {
		return level < 1 || len(tris) > 0 && level < surf
	})
	o.balance(func(level int, i, j, k uint32) bool {
		c, h := o.cell(level, i, j, k)
		return len(in.trianglesIn(in.allTris(), c, h)) > 0
	})
	return o
}

// The background lattice must tile the root minus the pyramids over the
// root's faces, conformingly: every tet positive, every face shared by at
// most two tets, a closed manifold boundary.
func TestLatticeTiles(t *testing.T) {
	for _, surf := range []int{2, 3, 5} {
		o := testOctree(t, surf)
		L := newLattice(o)
		m := &tetmesh.Mesh{Positions: L.pos, Tets: L.tets, Tags: make([]tetmesh.Tag, len(L.keys))}
		nbr, ok := tetmesh.Neighbors(m.Tets, m.NumVertices())
		if !ok {
			t.Fatalf("surf %d: a face is shared by more than two tets", surf)
		}
		for _, v := range tetmesh.BoundaryFaces(m.Tets, nbr) {
			m.Tags[v] = tetmesh.Boundary
		}
		err := tetmesh.Validate(m)
		if err != nil {
			// Voids are expected on a bare lattice (every root face vertex is boundary); only structure matters here.
			for _, p := range err.(*tetmesh.ValidationError).Problems {
				switch p.Kind {
				case "zero-pressure tet (all vertices on the boundary)", "zero-pressure interior face", "zero-pressure interior edge":
				case "unused vertex": // the root's corners: no tets on root faces
					if p.Count != 8 {
						t.Errorf("surf %d: %d unused vertices, want the 8 root corners", surf, p.Count)
					}
				default:
					t.Errorf("surf %d: %d× %s (%s)", surf, p.Count, p.Kind, p.Example)
				}
			}
		}
		want := math.Pow(o.size, 3)
		for _, key := range o.leaves {
			l, i, j, k := unpackNode(key)
			n := uint32(1) << l
			h := o.size / float64(n)
			for _, c := range [3]uint32{i, j, k} {
				if c == 0 {
					want -= h * h * h / 6
				}
				if c == n-1 {
					want -= h * h * h / 6
				}
			}
		}
		if got := m.Volume(); math.Abs(got-want) > 1e-9*want {
			t.Errorf("surf %d: lattice volume %.12g, want %.12g", surf, got, want)
		}
		t.Logf("surf %d: %d leaves, %d vertices, %d tets", surf, len(o.leaves), len(L.keys), len(L.tets)/4)
	}
}
