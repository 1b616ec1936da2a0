package stuffing

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
	"github.com/pfmesh/pfmesh/internal/trisearch"
)

// thinnest, which prunes by distance and by normal cones, equals the
// brute-force minimum over every boundary vertex and triangle, on closed
// surfaces taken as the boundary of a mesh; a plate's is its thickness.
func TestThinnestMatchesBruteForce(t *testing.T) {
	for _, c := range []struct {
		name string
		s    *format.Surface
		want float64 // analytic, or 0 for none
	}{
		{"torus", shapes.Torus(1, 0.2, 48, 16), 0},
		{"plate", shapes.Plate(1, 0.04, 6), 0.04},
		{"sphere", shapes.Icosphere(1, 3), 0},
	} {
		m := &tetmesh.Mesh{Positions: c.s.Positions, Tags: make([]tetmesh.Tag, len(c.s.Positions)/3)}
		for v := range m.Tags {
			m.Tags[v] = tetmesh.Boundary
		}
		tris := c.s.Triangles
		got := thinnest(m, tris)
		if want := bruteThinnest(m, tris); got != want {
			t.Errorf("%s: thinnest %.17g, brute force %.17g", c.name, got, want)
		}
		if c.want > 0 && math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: thinnest %.17g, want %g", c.name, got, c.want)
		}
	}
}

func bruteThinnest(m *tetmesh.Mesh, tris []int32) float64 {
	normal := make([]geom.Vec, m.NumVertices())
	unit := func(v geom.Vec) geom.Vec { return geom.Scale(1/geom.Norm(v), v) }
	for i := 0; i < len(tris); i += 3 {
		a, b, c := m.Vertex(tris[i]), m.Vertex(tris[i+1]), m.Vertex(tris[i+2])
		n := geom.Cross(geom.Sub(b, a), geom.Sub(c, a))
		for _, v := range tris[i : i+3] {
			normal[v] = geom.Add(normal[v], n)
		}
	}
	var verts []int32
	for v := range m.NumVertices() {
		verts = append(verts, int32(v))
	}
	best := boxDiagonal(m.Positions, verts) / 20
	for _, v := range verts {
		p, n := m.Vertex(v), unit(normal[v])
		for i := 0; i < len(tris); i += 3 {
			w := tris[i : i+3]
			a, b, c := m.Vertex(w[0]), m.Vertex(w[1]), m.Vertex(w[2])
			if w[0] == v || w[1] == v || w[2] == v || geom.Dot(unit(geom.Cross(geom.Sub(b, a), geom.Sub(c, a))), n) > facingCos {
				continue
			}
			q := trisearch.ClosestOnTriangle(p, a, b, c)
			if geom.Dot(geom.Sub(q, p), n) < 0 {
				best = min(best, math.Sqrt(geom.Dist2(p, q)))
			}
		}
	}
	return best
}

// Wherever a normal cone lets thinnest skip a node, every triangle under
// it would have been rejected as not facing back.
func TestNormalConesSound(t *testing.T) {
	s := shapes.Torus(1, 0.2, 48, 16)
	ix := trisearch.New(s.Positions, s.Triangles)
	tn := make([]geom.Vec, len(s.Triangles)/3)
	for i := range tn {
		a, b, c := ix.Triangle(int32(i))
		n := geom.Cross(geom.Sub(b, a), geom.Sub(c, a))
		tn[i] = geom.Scale(1/geom.Norm(n), n)
	}
	cones := normalCones(ix.Tree, tn)
	r := rand.New(rand.NewPCG(1, 2))
	skips := 0
	for range 200 {
		n := geom.Vec{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
		n = geom.Scale(1/geom.Norm(n), n)
		var under func(i int32, visit func(t int32))
		under = func(i int32, visit func(t int32)) {
			first, count := ix.Tree.Nodes[2*i], ix.Tree.Nodes[2*i+1]
			if count > 0 {
				for _, t := range ix.Tree.Items[first : first+count] {
					visit(t)
				}
				return
			}
			under(i+1, visit)
			under(first, visit)
		}
		for i := range int32(ix.Tree.NumNodes()) {
			if !(geom.Dot(cones[i].axis, n) > cones[i].skipCos) {
				continue
			}
			skips++
			under(i, func(tri int32) {
				if !(geom.Dot(tn[tri], n) > facingCos) {
					t.Errorf("node %d skipped for normal %v, but triangle %d faces back (%.6f)", i, n, tri, geom.Dot(tn[tri], n))
				}
			})
		}
	}
	if skips == 0 {
		t.Error("no node ever skipped: the test exercises nothing")
	}
}
