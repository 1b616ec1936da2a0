package tetgen

import (
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/bvh"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// checkMesh verifies a Build result against the input surface, by
// answers independent of the mesher:
//   - tetmesh.Validate (orientation, cracks, closed oriented boundary,
//     tags, no zero-pressure voids);
//   - the input vertices come first, at their exact input positions;
//   - the volume equals the surface's enclosed volume to 1e-9;
//   - every boundary face lies in one input triangle (its vertices on it)
//     and the boundary faces in each input triangle add up to its area,
//     so each triangle is the union of boundary faces.
func checkMesh(tb testing.TB, s *format.Surface, m *Mesh) {
	tb.Helper()
	checkBoundary(tb, s, m, nil)
}

// checkMergedMesh is checkMesh for MergeCoplanar's guarantee: every
// boundary face lies in one planar group of s (planarGroups; its vertices
// on the plane of the input triangle holding its centroid), and the faces
// in each group add up to its area, so each group is the union of
// boundary faces.
func checkMergedMesh(tb testing.TB, s *format.Surface, m *Mesh) {
	tb.Helper()
	checkBoundary(tb, s, m, planarGroups(s))
}

// checkBoundary does both checks: group labels each input triangle with
// its group, nil for a group of its own.
func checkBoundary(tb testing.TB, s *format.Surface, m *Mesh, group []int32) {
	tb.Helper()
	if err := tetmesh.Validate(m); err != nil {
		tb.Fatal(err)
	}
	// The solve asks more than the exact predicate: a volume positive in
	// floating point too.
	for t := range m.NumTets() {
		q := m.Tets[4*t : 4*t+4]
		if v := geom.TetVolume(m.Vertex(q[0]), m.Vertex(q[1]), m.Vertex(q[2]), m.Vertex(q[3])); !(v > 0) {
			tb.Fatalf("tet %d %v has volume %g in floating point", t, q, v)
		}
	}
	for i, x := range s.Positions {
		if m.Positions[i] != x {
			tb.Fatalf("input vertex %d moved: %v → %v", i/3, x, m.Positions[i])
		}
	}
	want := shapes.Volume(s)
	if got := m.Volume(); math.Abs(got-want) > 1e-9*math.Abs(want) {
		tb.Fatalf("volume %.15g, surface encloses %.15g (rel. error %.2g)", got, want, (got-want)/want)
	}
	nt := s.NumTriangles()
	tri := func(t int) [3]geom.Vec {
		q := s.Triangles[3*t : 3*t+3]
		return [3]geom.Vec{geom.At(s.Positions, q[0]), geom.At(s.Positions, q[1]), geom.At(s.Positions, q[2])}
	}
	groupOf := func(t int) int {
		if group == nil {
			return t
		}
		return int(group[t])
	}
	boxes := make([]float64, 6*nt)
	diag := 0.0
	for t := 0; t < nt; t++ {
		lo, hi := geom.Vec{math.Inf(1), math.Inf(1), math.Inf(1)}, geom.Vec{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
		for _, p := range tri(t) {
			for c := 0; c < 3; c++ {
				lo[c], hi[c] = min(lo[c], p[c]), max(hi[c], p[c])
			}
		}
		copy(boxes[6*t:], lo[:])
		copy(boxes[6*t+3:], hi[:])
		diag = max(diag, math.Sqrt(geom.Dist2(lo, hi)))
	}
	tree := bvh.Build(boxes, 4)
	tol := 1e-12 * diag * 16
	covered := make([]float64, nt) // per group, minus the group's area
	nbr, _ := tetmesh.Neighbors(m.Tets, m.NumVertices())
	bf := tetmesh.BoundaryFaces(m.Tets, nbr)
	for f := 0; f < len(bf); f += 3 {
		p := [3]geom.Vec{m.Vertex(bf[f]), m.Vertex(bf[f+1]), m.Vertex(bf[f+2])}
		cen := geom.Scale(1.0/3, geom.Add(geom.Add(p[0], p[1]), p[2]))
		box := [6]float64{cen[0] - tol, cen[1] - tol, cen[2] - tol, cen[0] + tol, cen[1] + tol, cen[2] + tol}
		found := -1
		// Merged, a face may span the triangles of its group, but its
		// vertices lie on the plane of the one holding its centroid: a
		// face at a crease, within tol of the neighbour across it, is
		// then not taken for the neighbour's.
		tree.Query(box, func(t int32) bool {
			holds := onTriangle(cen, tri(int(t)), tol)
			for _, v := range p {
				holds = holds && (group != nil && onPlane(v, tri(int(t)), tol) || onTriangle(v, tri(int(t)), tol))
			}
			if holds {
				found = int(t)
			}
			return !holds
		})
		if found < 0 {
			tb.Fatalf("boundary face %v lies in no input triangle", p)
		}
		q := tri(found)
		tn := geom.Cross(geom.Sub(q[1], q[0]), geom.Sub(q[2], q[0]))
		n := geom.Cross(geom.Sub(p[1], p[0]), geom.Sub(p[2], p[0]))
		if geom.Dot(n, tn) <= 0 {
			tb.Fatalf("boundary face %v is oriented against input triangle %d", p, found)
		}
		covered[groupOf(found)] += geom.Norm(n) / 2
	}
	area := make([]float64, nt)
	for t := 0; t < nt; t++ {
		q := tri(t)
		a := geom.Norm(geom.Cross(geom.Sub(q[1], q[0]), geom.Sub(q[2], q[0]))) / 2
		covered[groupOf(t)] -= a
		area[groupOf(t)] += a
	}
	for g, d := range covered {
		if math.Abs(d) > 1e-9*area[g] {
			tb.Fatalf("group of input triangle %d: boundary faces cover its area %.15g %+.3g", g, area[g], d)
		}
	}
}

// onPlane reports whether q lies within tol of the plane of triangle t.
func onPlane(q geom.Vec, t [3]geom.Vec, tol float64) bool {
	n := geom.Cross(geom.Sub(t[1], t[0]), geom.Sub(t[2], t[0]))
	return math.Abs(geom.Dot(geom.Sub(q, t[0]), n))/geom.Norm(n) <= tol
}

// onTriangle reports whether q lies within tol of triangle t.
func onTriangle(q geom.Vec, t [3]geom.Vec, tol float64) bool {
	if !onPlane(q, t, tol) {
		return false
	}
	n := geom.Cross(geom.Sub(t[1], t[0]), geom.Sub(t[2], t[0]))
	ln := geom.Norm(n)
	for k := 0; k < 3; k++ {
		a, b := t[k], t[(k+1)%3]
		// Signed distance of q from edge a→b, inward positive.
		side := geom.Dot(geom.Cross(geom.Sub(b, a), geom.Sub(q, a)), n) / ln / math.Sqrt(geom.Dist2(a, b))
		if side < -tol {
			return false
		}
	}
	return true
}

func testShapes() []struct {
	name string
	s    *format.Surface
} {
	return []struct {
		name string
		s    *format.Surface
	}{
		{"cube", shapes.Box(1, 1, 1, 1)},
		{"box 2x3x4 n=3", shapes.Box(2, 3, 4, 3)},
		{"icosahedron", shapes.Icosphere(1, 0)},
		{"icosphere 2", shapes.Icosphere(1, 2)},
		{"torus", shapes.Torus(2, 0.5, 24, 12)},
		{"thin plate 1/100", shapes.Plate(1, 0.01, 8)},
		{"wedge 5 degrees", shapes.Wedge(5, 1, 0.3)},
		{"cylinder", shapes.Cylinder(1, 2, 16, 3)},
		{"L bracket", shapes.LBracket(3, 1, 1)},
	}
}

func TestBuildCoarse(t *testing.T) {
	for _, c := range testShapes() {
		t.Run(c.name, func(t *testing.T) {
			m, rep, err := Build(c.s, Options{Coarse: true})
			if err != nil {
				t.Fatal(err)
			}
			checkMesh(t, c.s, m)
			t.Logf("%d vertices (%d input), %d tets; Steiner: %d segment, %d facet, %d void",
				m.NumVertices(), c.s.NumVertices(), m.NumTets(), rep.SteinerSegment, rep.SteinerFacet, rep.VoidSplits)
		})
	}
}

// The paper's sphere: an icosahedron meshed as 20 tets around one centre.
func TestCoarseIcosahedronIsTwentyTets(t *testing.T) {
	s := shapes.Icosphere(1, 0)
	m, _, err := Build(s, Options{Coarse: true})
	if err != nil {
		t.Fatal(err)
	}
	checkMesh(t, s, m)
	if m.NumTets() != 20 || m.NumVertices() != 13 {
		t.Fatalf("%d tets, %d vertices; want 20 and 13", m.NumTets(), m.NumVertices())
	}
}

// minDihedral is the smallest dihedral angle (degrees) each quality mesh
// of testShapes keeps, a little below what optimization reaches now: a
// regression floor, not the 12° goal, which the thin plate misses
// (docs/meshing.md). The 5° wedge cannot reach it: a tet at its sharp
// edge has a dihedral angle of at most 5°.
var minDihedral = map[string]float64{
	"cube": 26, "box 2x3x4 n=3": 15, "icosahedron": 30, "icosphere 2": 54, "torus": 14.9,
	"thin plate 1/100": 10, "wedge 5 degrees": 2.2, "cylinder": 17.9, "L bracket": 16.4,
}

func TestBuildQuality(t *testing.T) {
	for _, c := range testShapes() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if testing.Short() && (c.name == "thin plate 1/100" || c.name == "wedge 5 degrees") {
				t.Skip("10^5 tets: in the plain run only")
			}
			m, rep, err := Build(c.s, Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkMesh(t, c.s, m)
			q := rep.Quality
			t.Logf("%d vertices, %d tets; radius-edge max %.2f hist %v; dihedral min %.1f° hist %v; Steiner %d/%d/%d vol, %d void",
				m.NumVertices(), m.NumTets(), q.MaxRadiusEdge, q.RadiusEdgeHist, q.MinDihedral, q.DihedralHist,
				rep.SteinerSegment, rep.SteinerFacet, rep.SteinerVolume, rep.VoidSplits)
			if got := tetmesh.MeasureQuality(m).MinDihedral; got < minDihedral[c.name] {
				t.Errorf("smallest dihedral angle %.2f°, below the %.1f° this shape reached", got, minDihedral[c.name])
			}
		})
	}
}

// Same input and options, same output, whatever GOMAXPROCS is. The
// mesh is big enough (over 2¹⁵ tets) for the concurrent scans of
// voids, optimization and quality to split their work.
func TestBuildDeterministic(t *testing.T) {
	s := shapes.Torus(2, 0.5, 24, 12)
	var prev *Mesh
	for _, procs := range []int{1, 2, 4} {
		old := runtime.GOMAXPROCS(procs)
		m, _, err := Build(s, Options{Points: []float64{2, 0, 0, -2, 0, 0}, MaxVolume: 5e-4})
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		if prev != nil && (!slices.Equal(m.Positions, prev.Positions) || !slices.Equal(m.Tets, prev.Tets) || !slices.Equal(m.Tags, prev.Tags)) {
			t.Fatalf("GOMAXPROCS=%d: a different mesh (%d tets, before %d)", procs, m.NumTets(), prev.NumTets())
		}
		if m.NumTets() < 1<<15 {
			t.Fatalf("%d tets: too few to split the scans", m.NumTets())
		}
		prev = m
	}
}

// TestVoidSplitsOffPlanarWalls: stacks of tets flat on a planar wall
// (four wall vertices, flat to rounding) must be split off the wall. A
// point put on the wall makes tets just as flat, with faces of three wall
// vertices in the wall's plane that no later point splits
// (stlmodels_gearwheel's exact mesh failed so). Planar facet groups keep
// refinement from making such stacks (TestNoFlatTetsOnPlanarWalls), so
// the test makes them as refinement did without the groups
// (joinCoplanar), on the gear prism. The configuration must exist, no tet made by void splitting may
// be flat, and the finished mesh must pass checkMesh.
func TestVoidSplitsOffPlanarWalls(t *testing.T) {
	s := gearPrism()
	ms, stages := newMesher(s, Options{Quality: 2, MaxVolume: 1}, true)
	ms.joinCoplanar = true
	var n0 int32
	for _, st := range stages {
		if st.name == "voids" {
			if flatTets(ms, 0, false) == 0 {
				t.Fatal("no flat tets before void splitting: the test no longer covers its case")
			}
			n0 = int32(len(ms.kind))
		}
		if err := st.run(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if st.name == "voids" {
			if n := flatTets(ms, n0, false); n > 0 {
				t.Errorf("void splitting made %d flat tets", n)
			}
		}
	}
	checkMesh(t, s, ms.output())
}
