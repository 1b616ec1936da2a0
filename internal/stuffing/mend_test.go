package stuffing

import (
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
	"github.com/pfmesh/pfmesh/internal/trisearch"
)

// One tet whose top face abc lies on the input, the flat square
// [-1, 1]² × {0}; only c may slide (a and b are marked as on a surface
// spanning a hole, which mending leaves alone).
func mendFixture(t *testing.T) (*snapper, []int32) {
	t.Helper()
	in := newInput([]float64{-1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0}, []int32{0, 1, 2, 0, 2, 3}, 0)
	m := &tetmesh.Mesh{
		Positions: []float64{-0.5, -0.5, 0, 0.5, -0.5, 0, 0, 0.5, 0, 0, 0, -0.5},
		Tets:      []int32{0, 1, 3, 2},
		Tags:      []tetmesh.Tag{tetmesh.Boundary, tetmesh.Boundary, tetmesh.Boundary, tetmesh.Boundary},
	}
	if geom.Orient3D(m.Vertex(0), m.Vertex(1), m.Vertex(3), m.Vertex(2)) <= 0 {
		t.Fatal("fixture tet is not positive")
	}
	_, onC, _ := in.search.Closest(m.Vertex(2))
	s := newSnapper(m, []int32{onLevelSet, onLevelSet, onC, notOnSurface}, in)
	tris, _ := boundaryOf(m.Tets, m.NumVertices())
	return s, tris
}

func TestMend(t *testing.T) {
	for _, c := range []struct {
		name  string
		p     geom.Vec
		moved int
	}{
		{"slides onto the point", geom.Vec{0.2, 0.7, 0}, 1},
		{"would invert the tet", geom.Vec{0, -0.9, 0}, 0},
		{"would leave a sliver", geom.Vec{1, -0.45, 0}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, tris := mendFixture(t)
			before := s.m.Vertex(2)
			lo, _ := dihedralRange(s.m)
			ix := trisearch.New(s.m.Positions, tris)
			_, _, d2 := ix.Closest(c.p)
			tol := 0.05
			if d2 <= tol*tol {
				t.Fatalf("fixture: %v is already within tol of the boundary", c.p)
			}
			if got := s.mend([]miss{{p: c.p}}, tris, tol); len(got.moved) != c.moved {
				t.Fatalf("moved %d vertices, want %d", len(got.moved), c.moved)
			}
			if !(geom.Orient3D(s.m.Vertex(0), s.m.Vertex(1), s.m.Vertex(3), s.m.Vertex(2)) > 0) {
				t.Fatal("tet no longer positive")
			}
			after, _ := dihedralRange(s.m)
			if c.name == "would leave a sliver" {
				// Refused for its angle, not for its sign.
				a, b, d := s.m.Vertex(0), s.m.Vertex(1), s.m.Vertex(3)
				if !(geom.Orient3D(a, b, d, c.p) > 0) || maxCosDihedral(a, b, d, c.p) <= mendFloorCos {
					t.Fatal("fixture: the sliver case is not a positive sliver")
				}
			}
			if c.moved == 0 {
				if s.m.Vertex(2) != before {
					t.Errorf("refused move still changed c: %v → %v", before, s.m.Vertex(2))
				}
				return
			}
			// The point is now a vertex of the boundary, on the input.
			if s.m.Vertex(2) != c.p {
				t.Errorf("c at %v, want %v", s.m.Vertex(2), c.p)
			}
			if q, _, _ := s.in.search.Closest(s.m.Vertex(2)); geom.Dist2(q, s.m.Vertex(2)) > 1e-24 {
				t.Errorf("c left the input: nearest input point %v", q)
			}
			if after < min(10, lo) {
				t.Errorf("min dihedral %.2f° after, %.2f° before: below the floor", after, lo)
			}
		})
	}
}

// update, after a few boundary vertices move, must give what measuring
// from scratch gives.
func TestMeasureUpdate(t *testing.T) {
	in, lc, d := stuffFirstLattice(shapes.Icosphere(1, 3), 4e-3)
	tol := 4e-3 * in.diag
	m, info := d.compact()
	ms, before := measure(lc, m, info.tris, info.onTri, tol)
	beforeIn := make([]float64, len(ms.in))
	for i, r := range ms.in {
		beforeIn[i] = r.d
	}
	// Slide a boundary vertex of every 40th triangle on the input a tenth of the way to
	// the nearest input vertex.
	var moved []int32
	var old []geom.Vec
	for i, v := range info.tris {
		if i%120 != 0 || info.onTri[v] < 0 || slices.Contains(moved, v) {
			continue
		}
		p := m.Vertex(v)
		target := geom.At(in.pos, in.tris[3*info.onTri[v]])
		q, _, _ := in.search.Closest(geom.Add(p, geom.Scale(0.1, geom.Sub(target, p))))
		moved, old = append(moved, v), append(old, p)
		copy(m.Positions[3*v:], q[:])
	}
	if len(moved) < 5 {
		t.Fatalf("only %d vertices moved", len(moved))
	}
	got := ms.update(mended{moved: moved, old: old, added: int32(m.NumVertices())}, info.tris, info.onTri, before)
	fresh, want := measure(lc, m, info.tris, info.onTri, tol)
	changed := 0
	for i := range fresh.in {
		if ms.in[i].d != fresh.in[i].d {
			t.Fatalf("input triangle %d: distance %v after update, %v from scratch", i, ms.in[i].d, fresh.in[i].d)
		}
	}
	for i := range fresh.out {
		if ms.out[i].d != fresh.out[i].d || ms.out[i].gap != fresh.out[i].gap {
			t.Fatalf("output triangle %d: distance %v gap %v after update, %v %v from scratch", i, ms.out[i].d, ms.out[i].gap, fresh.out[i].d, fresh.out[i].gap)
		}
	}
	for i := range fresh.in {
		if fresh.in[i].d != beforeIn[i] {
			changed++
		}
	}
	if changed == 0 {
		t.Error("the moves changed no input triangle's distance: the test tests nothing")
	}
	if got.in != want.in || got.out != want.out || got.gap != want.gap || got.fillArea != want.fillArea || len(got.bad) != len(want.bad) {
		t.Errorf("update: in %v out %v gap %v fill %v bad %d; from scratch: in %v out %v gap %v fill %v bad %d",
			got.in, got.out, got.gap, got.fillArea, len(got.bad), want.in, want.out, want.gap, want.fillArea, len(want.bad))
	}
	if got.gap == before.gap {
		t.Error("the moves changed nothing measurable: the test tests nothing")
	}
}

// stuffFirstLattice runs Build's first round up to stuffing, at a
// tolerance rel of the diagonal.
func stuffFirstLattice(s *format.Surface, rel float64) (*input, *locator, *draft) {
	b, o, L, w, side := firstLattice(s, rel)
	return b.in, &locator{in: b.in, o: o, L: L, w: w}, b.stuffValid(L, side, findCuts(L, b.in, w, side))
}

// firstLattice runs Build's first round up to classifying the lattice.
func firstLattice(s *format.Surface, rel float64) (b *builder, o *octree, L *lattice, w []float64, side []int8) {
	in := newInput(s.Positions, s.Triangles, 0)
	tol := rel * in.diag
	b = &builder{in: in, rep: &Report{Tolerance: tol}}
	origin, size := b.rootCube()
	z := &sizing{in: in, opt: &b.opt, tol: tol, surfCap: in.diag / 20, floor: tol, forced: newKeyMap(0), minLevel: 3}
	o = buildOctree(origin, size, in, z.split)
	o.balance(func(level int, i, j, k uint32) bool {
		c, h := o.cell(level, i, j, k)
		return in.meetsBox(c, h)
	})
	L = newLattice(o)
	w, side = classify(L, in)
	return b, o, L, w, side
}

// A boundary vertex added after interior ones (splits made by flipping)
// gets its own provenance, and the interior ones none.
func TestAddOnInputAfterInterior(t *testing.T) {
	s, _ := mendFixture(t)
	in := s.inc.addVertex(geom.Vec{0, 0, -0.2}, tetmesh.Interior)
	v := s.addOnInput(geom.Vec{0.1, 0.1, 0}, 1, -1)
	if n := s.m.NumVertices(); len(s.onTri) != n || len(s.edgeOf) != n || len(s.corner) != n {
		t.Fatalf("%d vertices, %d/%d/%d per-vertex entries", n, len(s.onTri), len(s.edgeOf), len(s.corner))
	}
	if s.onTri[in] != notOnSurface || s.onTri[v] != 1 {
		t.Errorf("provenance: interior %d, added %d; want %d, 1", s.onTri[in], s.onTri[v], notOnSurface)
	}
}
