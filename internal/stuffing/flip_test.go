package stuffing

import (
	"math"
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// A flat bipyramid: triangle abc in z = 0, apexes d and e at height ±h
// over its centroid, as the two tets abcd and abce (positive).
func bipyramid(h float64, apex tetmesh.Tag) *tetmesh.Mesh {
	s := math.Sqrt(3) / 2
	m := &tetmesh.Mesh{
		Positions: []float64{0, 0, 0, 1, 0, 0, 0.5, s, 0, 0.5, s / 3, h, 0.5, s / 3, -h},
		Tets:      []int32{0, 1, 2, 3, 0, 2, 1, 4},
		Tags:      []tetmesh.Tag{tetmesh.Boundary, tetmesh.Boundary, tetmesh.Boundary, apex, apex},
	}
	return m
}

// boundarySet returns the boundary triangles of m as sorted vertex
// triples, sorted, independently of tet order and orientation.
func boundarySet(m *tetmesh.Mesh) [][3]int32 {
	tris, _ := boundaryOf(m.Tets, m.NumVertices())
	var out [][3]int32
	for i := 0; i < len(tris); i += 3 {
		f := [3]int32{tris[i], tris[i+1], tris[i+2]}
		slices.Sort(f[:])
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b [3]int32) int { return slices.Compare(a[:], b[:]) })
	return out
}

// smallestAngle is the smallest dihedral angle of m in degrees, from the
// angle between the two faces at each edge (not from face normals, as
// cosRange has it).
func smallestAngle(m *tetmesh.Mesh) float64 {
	lo := 180.0
	for t := range m.NumTets() {
		q := m.Tets[4*t : 4*t+4]
		for _, e := range tetmesh.TetEdges {
			a, b := m.Vertex(q[e[0]]), m.Vertex(q[e[1]])
			var o []geom.Vec
			for k := range 4 {
				if k != e[0] && k != e[1] {
					o = append(o, m.Vertex(q[k]))
				}
			}
			// Components of the other two vertices across the edge.
			ab := geom.Sub(b, a)
			perp := func(p geom.Vec) geom.Vec {
				v := geom.Sub(p, a)
				return geom.Sub(v, geom.Scale(geom.Dot(v, ab)/geom.Dot(ab, ab), ab))
			}
			u, w := perp(o[0]), perp(o[1])
			lo = min(lo, math.Acos(geom.Dot(u, w)/(geom.Norm(u)*geom.Norm(w)))*180/math.Pi)
		}
	}
	return lo
}

func meshVolume(m *tetmesh.Mesh) float64 {
	v := 0.0
	for t := range m.NumTets() {
		v += tetVolume(m, m.Tets[4*t:4*t+4])
	}
	return v
}

// The 2-3 flip of a flat bipyramid: three tets around the apex edge, the
// same boundary and volume, a larger smallest angle; the 3-2 flip of the
// result gives the two tets back (though it is refused: abc has only
// boundary vertices). With boundary apexes the new edge
// would join two boundary vertices inside the body and the flip is
// refused.
func TestFlipBipyramid(t *testing.T) {
	m := bipyramid(0.05, tetmesh.Interior)
	inc := newIncidence(m)
	before, vol, faces := smallestAngle(m), meshVolume(m), boundarySet(m)
	if !inc.flipAround(0, 3) {
		t.Fatal("no flip of the flat bipyramid")
	}
	if m.NumTets() != 3 || len(inc.around(3, 4)) != 3 {
		t.Fatalf("after the 2-3 flip: %d tets, %d around the apex edge; want 3, 3", m.NumTets(), len(inc.around(3, 4)))
	}
	for q := range slices.Chunk(m.Tets, 4) {
		if geom.Orient3D(m.Vertex(q[0]), m.Vertex(q[1]), m.Vertex(q[2]), m.Vertex(q[3])) <= 0 {
			t.Errorf("tet %v not positive", q)
		}
	}
	if after := smallestAngle(m); !(after > before+5) {
		t.Errorf("smallest angle %.2f° → %.2f°, want a rise of more than 5°", before, after)
	}
	if got := meshVolume(m); math.Abs(got-vol) > 1e-15 {
		t.Errorf("volume %.17g, was %.17g", got, vol)
	}
	if !slices.Equal(boundarySet(m), faces) {
		t.Errorf("boundary changed: %v, was %v", boundarySet(m), faces)
	}
	// Back, abc would be a face inside the body with only boundary
	// vertices: refused. With abc interior, the 3-2 flip (removal of the
	// apex edge) is allowed and gives the two tets back.
	if _, ok := inc.removeEdge(3, 4, inc.around(3, 4)); ok {
		t.Error("3-2 flip back to a face of boundary vertices allowed")
	}
	for v := range 3 {
		m.Tags[v] = tetmesh.Interior
	}
	f, ok := inc.removeEdge(3, 4, inc.around(3, 4))
	if !ok {
		t.Fatal("3-2 flip of the three tets refused")
	}
	if _, ok := inc.check(f); !ok {
		t.Fatal("3-2 flip of the three tets fails its check")
	}
	inc.apply(f)
	if m.NumTets() != 2 || !slices.Equal(boundarySet(m), faces) || math.Abs(meshVolume(m)-vol) > 1e-15 {
		t.Errorf("3-2 flip back: %d tets, boundary %v, volume %g", m.NumTets(), boundarySet(m), meshVolume(m))
	}

	m = bipyramid(0.05, tetmesh.Boundary)
	if newIncidence(m).flipAround(0, 3) {
		t.Error("flipped to an edge between two boundary vertices inside the body")
	}
}

// A tall bipyramid is fine as it is: its 2-3 flip would make slivers
// around the long apex edge, and none is made.
func TestFlipKeepsGoodTets(t *testing.T) {
	m := bipyramid(0.8, tetmesh.Interior)
	if newIncidence(m).flipAround(0, 3) {
		t.Errorf("flipped a good bipyramid into %v", m.Tets)
	}
}

// spindle is the ring of n tets around the long edge ab from (0, 0, −h)
// to (0, 0, h), their other vertices on a jittered unit circle in z = 0
// (vertices 2..n+1), the ring vertices tagged ringTag.
func spindle(n int, h float64, ringTag tetmesh.Tag) *tetmesh.Mesh {
	m := &tetmesh.Mesh{Positions: []float64{0, 0, -h, 0, 0, h}, Tags: []tetmesh.Tag{tetmesh.Interior, tetmesh.Interior}}
	for i := range n {
		phi := 2*math.Pi*float64(i)/float64(n) + 0.1*math.Sin(float64(7*i+3))
		r := 1 + 0.1*math.Cos(float64(5*i+1))
		m.Positions = append(m.Positions, r*math.Cos(phi), r*math.Sin(phi), 0)
		m.Tags = append(m.Tags, ringTag)
		// (a, b, r_i, r_{i+1}) is positive for a counterclockwise ring.
		m.Tets = append(m.Tets, 0, 1, int32(2+i), int32(2+(i+1)%n))
	}
	return m
}

// triangulations lists every triangulation of the convex polygon with
// vertices vs, by brute force: the triangle on the edge from the first to
// the last vertex, with each apex, and the triangulations of both sides.
func triangulations(vs []int32) [][][3]int32 {
	if len(vs) < 3 {
		return [][][3]int32{nil}
	}
	var out [][][3]int32
	for k := 1; k < len(vs)-1; k++ {
		for _, l := range triangulations(vs[:k+1]) {
			for _, r := range triangulations(vs[k:]) {
				t := append(append([][3]int32{{vs[0], vs[k], vs[len(vs)-1]}}, l...), r...)
				out = append(out, t)
			}
		}
	}
	return out
}

// Edge removal of a spindle's long edge: 2(n−2) positive tets, the edge
// gone, the same boundary and volume (the bipyramid's, exactly), and the
// smallest angle of the best of all triangulations of the ring, found by
// brute force and measured from edge vectors (whether that beats the
// spindle is flipAround's choice, not removeEdge's). With boundary ring vertices
// every new edge (n ≥ 4) or face (n = 3) would join boundary vertices
// inside the body, and with a tet missing the edge is on the boundary:
// both refused.
func TestRemoveEdge(t *testing.T) {
	const h = 2.5
	for n := 3; n <= maxRing; n++ {
		m := spindle(n, h, tetmesh.Interior)
		inc := newIncidence(m)
		faces := boundarySet(m)
		want := 0.0 // the bipyramid: two cones over the ring polygon
		for i := range n {
			p, q := m.Vertex(int32(2+i)), m.Vertex(int32(2+(i+1)%n))
			want += (p[0]*q[1] - p[1]*q[0]) / 2 * 2 * h / 3
		}
		ring := make([]int32, n)
		for i := range ring {
			ring[i] = int32(2 + i)
		}
		best := 0.0
		for _, tr := range triangulations(ring) {
			c := &tetmesh.Mesh{Positions: m.Positions, Tags: m.Tags}
			for _, f := range tr {
				c.Tets = append(c.Tets, f[0], f[1], f[2], 1, f[1], f[0], f[2], 0)
			}
			best = max(best, smallestAngle(c))
		}
		f, ok := inc.removeEdge(0, 1, inc.around(0, 1))
		if !ok {
			t.Fatalf("n=%d: removal refused", n)
		}
		if _, ok := inc.check(f); !ok {
			t.Fatalf("n=%d: removal fails its check", n)
		}
		inc.apply(f)
		if m.NumTets() != 2*(n-2) || len(inc.around(0, 1)) != 0 {
			t.Errorf("n=%d: %d tets, %d around ab; want %d, 0", n, m.NumTets(), len(inc.around(0, 1)), 2*(n-2))
		}
		for q := range slices.Chunk(m.Tets, 4) {
			if geom.Orient3D(m.Vertex(q[0]), m.Vertex(q[1]), m.Vertex(q[2]), m.Vertex(q[3])) <= 0 {
				t.Errorf("n=%d: tet %v not positive", n, q)
			}
		}
		if got := meshVolume(m); math.Abs(got-want) > 1e-12*want {
			t.Errorf("n=%d: volume %.15g, bipyramid %.15g", n, got, want)
		}
		if !slices.Equal(boundarySet(m), faces) {
			t.Errorf("n=%d: boundary changed", n)
		}
		if got := smallestAngle(m); math.Abs(got-best) > 1e-9 {
			t.Errorf("n=%d: smallest angle %.4f°, best triangulation %.4f°", n, got, best)
		}

		m = spindle(n, h, tetmesh.Boundary)
		inc = newIncidence(m)
		if _, ok := inc.removeEdge(0, 1, inc.around(0, 1)); ok {
			t.Errorf("n=%d: removal with boundary ring vertices allowed", n)
		}
		m = spindle(n, h, tetmesh.Interior)
		m.Tets = m.Tets[4:]
		inc = newIncidence(m)
		if _, ok := inc.removeEdge(0, 1, inc.around(0, 1)); ok {
			t.Errorf("n=%d: removal of a boundary edge (open ring) allowed", n)
		}
	}
}

// A split tried leaves the mesh as it was, and the split then made at the
// point it found has the largest cosine it predicted, all tets positive.
func TestTrySplit(t *testing.T) {
	for _, vs := range [][]int32{{0, 1, 2}, {2, 4}, {0, 3}} {
		m := bipyramid(0.05, tetmesh.Interior)
		inc := newIncidence(m)
		tets, pos := slices.Clone(m.Tets), slices.Clone(m.Positions)
		if n := len(inc.around(vs...)); n == 0 {
			t.Fatalf("fixture: nothing around %v", vs)
		}
		st, _ := inc.splitStar(vs)
		at, c := inc.trySplit(st, vs)
		if c > 1 {
			t.Errorf("split of %v: largest cosine %g", vs, c)
		}
		if !slices.Equal(m.Tets, tets) || !slices.Equal(m.Positions, pos) || len(m.Tags) != 5 || len(inc.at) != 5 || len(inc.tets) != 5 {
			t.Fatalf("split of %v changed the mesh: tets %v, %d coordinates, %d tags, %d occupied, %d incidence lists", vs, m.Tets, len(m.Positions), len(m.Tags), len(inc.at), len(inc.tets))
		}
		p := inc.addVertex(at, tetmesh.Interior)
		inc.splitAt(vs, p)
		worst := -1.0
		for _, u := range inc.tets[p] {
			q := m.Tets[4*u : 4*u+4]
			worst = max(worst, tetCosAt(m, q))
			if geom.Orient3D(m.Vertex(q[0]), m.Vertex(q[1]), m.Vertex(q[2]), m.Vertex(q[3])) <= 0 {
				t.Errorf("split of %v made: tet %v not positive", vs, q)
			}
		}
		if worst != c {
			t.Errorf("split of %v made: largest cosine %g, predicted %g", vs, worst, c)
		}
	}
}

// On a built mesh, flipping and splitting towards a high target keeps the
// boundary triangle for triangle, the volume, Validate, and never lowers
// the smallest angle.
func TestFlipInteriorKeepsBoundary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a mesh")
	}
	m, _, err := Build(shapes.LBracket(2, 0.5, 1), Options{Tolerance: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	before, vol, faces := smallestAngle(m), meshVolume(m), boundarySet(m)
	interior := func(v int32) bool { return m.Tags[v] != tetmesh.Boundary }
	cos := make([]float64, m.NumTets())
	for t := range cos {
		cos[t] = tetCosAt(m, m.Tets[4*t:4*t+4])
	}
	flips, splits := flipInterior(m, newIncidence(m), cos, 25, interior, nil)
	if flips == 0 || splits == 0 {
		t.Errorf("%d flips, %d splits towards 25°: the test exercises nothing", flips, splits)
	}
	if err := tetmesh.Validate(m); err != nil {
		t.Error(err)
	}
	if after := smallestAngle(m); after < before-1e-9 {
		t.Errorf("smallest angle %.3f° → %.3f°", before, after)
	}
	if got := meshVolume(m); math.Abs(got-vol) > 1e-12*vol {
		t.Errorf("volume %.15g, was %.15g", got, vol)
	}
	if !slices.Equal(boundarySet(m), faces) {
		t.Error("boundary triangles changed")
	}
}
