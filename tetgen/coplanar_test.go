package tetgen

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
	"github.com/pfmesh/pfmesh/internal/unionfind"
)

// randomEdgePoints returns k distinct sorted points of (0, 1), irregular
// multiples of 1/1024 (exact in float64).
func randomEdgePoints(k int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(5, seed))
	set := map[int]bool{}
	for len(set) < k {
		set[1+rng.IntN(1023)] = true
	}
	var out []float64
	for i := range set {
		out = append(out, float64(i)/1024)
	}
	slices.Sort(out)
	return out
}

// fanBox returns the unit cube with extra vertices at x = e1 on its edge
// y = 0, z = 1 and at y = e2 on its edge x = 1, z = 1 (sorted, in (0, 1)).
// The top face and the two side faces holding those edges are fans of
// needles from a corner; the other faces are two triangles each.
func fanBox(e1, e2 []float64) *format.Surface {
	s := &format.Surface{}
	index := map[geom.Vec]int32{}
	vert := func(p geom.Vec) int32 {
		if i, ok := index[p]; ok {
			return i
		}
		index[p] = int32(s.NumVertices())
		s.Positions = append(s.Positions, p[:]...)
		return index[p]
	}
	// fan triangulates a convex polygon, counterclockwise seen from
	// outside, from its first vertex.
	fan := func(poly []geom.Vec) {
		for i := 1; i+1 < len(poly); i++ {
			s.Triangles = append(s.Triangles, vert(poly[0]), vert(poly[i]), vert(poly[i+1]))
		}
	}
	var top, front, right []geom.Vec
	top = append(top, geom.Vec{0, 1, 1}, geom.Vec{0, 0, 1})
	for _, x := range e1 {
		top = append(top, geom.Vec{x, 0, 1})
	}
	top = append(top, geom.Vec{1, 0, 1})
	for _, y := range e2 {
		top = append(top, geom.Vec{1, y, 1})
	}
	top = append(top, geom.Vec{1, 1, 1})
	front = append(front, geom.Vec{0, 0, 0}, geom.Vec{1, 0, 0}, geom.Vec{1, 0, 1})
	for i := len(e1) - 1; i >= 0; i-- {
		front = append(front, geom.Vec{e1[i], 0, 1})
	}
	front = append(front, geom.Vec{0, 0, 1})
	right = append(right, geom.Vec{1, 0, 0}, geom.Vec{1, 1, 0}, geom.Vec{1, 1, 1})
	for i := len(e2) - 1; i >= 0; i-- {
		right = append(right, geom.Vec{1, e2[i], 1})
	}
	right = append(right, geom.Vec{1, 0, 1})
	fan(top)
	fan(front)
	fan(right)
	fan([]geom.Vec{{0, 0, 0}, {0, 1, 0}, {1, 1, 0}, {1, 0, 0}}) // bottom
	fan([]geom.Vec{{0, 0, 0}, {0, 0, 1}, {0, 1, 1}, {0, 1, 0}}) // x = 0
	fan([]geom.Vec{{0, 1, 0}, {0, 1, 1}, {1, 1, 1}, {1, 1, 0}}) // y = 1
	return s
}

// exactVolume is six times the volume s encloses, in exact arithmetic.
func exactVolume(s *format.Surface) *big.Rat {
	sum := new(big.Rat)
	r := func(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }
	mul := func(x, y *big.Rat) *big.Rat { return new(big.Rat).Mul(x, y) }
	for t := 0; t < len(s.Triangles); t += 3 {
		a, b, c := geom.At(s.Positions, s.Triangles[t]), geom.At(s.Positions, s.Triangles[t+1]), geom.At(s.Positions, s.Triangles[t+2])
		for k := 0; k < 3; k++ {
			// a·(b×c), component k of a.
			i, j := (k+1)%3, (k+2)%3
			cross := new(big.Rat).Sub(mul(r(b[i]), r(c[j])), mul(r(b[j]), r(c[i])))
			sum.Add(sum, mul(r(a[k]), cross))
		}
	}
	return sum
}

// checkCleanSurface fails unless s is closed, manifold, consistently
// oriented and free of degenerate and intersecting triangles.
func checkCleanSurface(t *testing.T, s *format.Surface) {
	t.Helper()
	if err := checkSurface(s, "surface"); err != nil {
		t.Fatal(err)
	}
}

// cubeFace returns the face of the unit cube all of t's vertices lie on
// (0..5: x = 0, x = 1, y = 0, ...), or −1.
func cubeFace(s *format.Surface, t int) int {
	for f := 0; f < 6; f++ {
		on := true
		for k := 0; k < 3; k++ {
			on = on && s.Positions[3*s.Triangles[3*t+k]+int32(f/2)] == float64(f%2)
		}
		if on {
			return f
		}
	}
	return -1
}

// faceCoords maps a point of cube face f to 2D coordinates, counterclockwise
// as seen from outside.
func faceCoords(f int, p geom.Vec) [2]float64 {
	i, j := (f/2+1)%3, (f/2+2)%3
	if f%2 == 0 {
		return [2]float64{p[j], p[i]}
	}
	return [2]float64{p[i], p[j]}
}

func TestMergeCoplanarFanBox(t *testing.T) {
	for _, k := range []int{1, 5, 40} {
		s := fanBox(randomEdgePoints(k, 1), randomEdgePoints(k, 2))
		checkCleanSurface(t, s)
		m, flips := mergeCoplanar(s)
		checkCleanSurface(t, m)
		if flips == 0 || m.NumTriangles() != s.NumTriangles() || &m.Positions[0] != &s.Positions[0] {
			t.Fatalf("k=%d: %d flips, %d triangles of %d, positions shared %v", k, flips, m.NumTriangles(), s.NumTriangles(), &m.Positions[0] == &s.Positions[0])
		}
		if v := exactVolume(m); v.Cmp(big.NewRat(6, 1)) != 0 || v.Cmp(exactVolume(s)) != 0 {
			t.Fatalf("k=%d: six times the volume is %v, want 6", k, v)
		}
		// Each face keeps its area exactly and becomes the Delaunay
		// triangulation of its vertices (convex faces: every vertex is
		// visible, so constrained Delaunay is Delaunay): no vertex of
		// the face strictly inside a triangle's circumcircle.
		var verts [6][][2]float64
		for v := 0; v < s.NumVertices(); v++ {
			p := geom.At(s.Positions, int32(v))
			for f := 0; f < 6; f++ {
				if p[f/2] == float64(f%2) {
					verts[f] = append(verts[f], faceCoords(f, p))
				}
			}
		}
		var area [6]*big.Rat
		for f := range area {
			area[f] = new(big.Rat)
		}
		minAngle := func(s *format.Surface) float64 {
			best := 180.0
			for tr := 0; tr < s.NumTriangles(); tr++ {
				best = min(best, triangleMinAngle(s, tr))
			}
			return best
		}
		for tr := 0; tr < m.NumTriangles(); tr++ {
			f := cubeFace(m, tr)
			if f < 0 {
				t.Fatalf("k=%d: triangle %d lies on no face of the cube", k, tr)
			}
			var q [3][2]float64
			for c := 0; c < 3; c++ {
				q[c] = faceCoords(f, geom.At(m.Positions, m.Triangles[3*tr+c]))
			}
			if geom.Orient2D(q[0], q[1], q[2]) <= 0 {
				t.Fatalf("k=%d: triangle %d is not counterclockwise on its face", k, tr)
			}
			r := func(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }
			cross := new(big.Rat).Sub(new(big.Rat).Mul(r(q[1][0]-q[0][0]), r(q[2][1]-q[0][1])), new(big.Rat).Mul(r(q[1][1]-q[0][1]), r(q[2][0]-q[0][0])))
			area[f].Add(area[f], cross)
			for _, v := range verts[f] {
				if geom.InCircle(q[0], q[1], q[2], v) > 0 {
					t.Fatalf("k=%d: face %d: %v inside the circumcircle of triangle %v", k, f, v, q)
				}
			}
		}
		for f, a := range area {
			if a.Cmp(big.NewRat(2, 1)) != 0 {
				t.Fatalf("k=%d: face %d has twice the area %v, want 2", k, f, a)
			}
		}
		if before, after := minAngle(s), minAngle(m); !(after > before) {
			t.Fatalf("k=%d: smallest angle %.3g° before, %.3g° after", k, before, after)
		}
	}
}

// triangleMinAngle is the smallest angle of triangle t of s, in degrees.
func triangleMinAngle(s *format.Surface, t int) float64 {
	best := 180.0
	for k := 0; k < 3; k++ {
		a := geom.At(s.Positions, s.Triangles[3*t+k])
		b := geom.At(s.Positions, s.Triangles[3*t+(k+1)%3])
		c := geom.At(s.Positions, s.Triangles[3*t+(k+2)%3])
		u, v := geom.Sub(b, a), geom.Sub(c, a)
		best = min(best, math.Atan2(geom.Norm(geom.Cross(u, v)), geom.Dot(u, v))*180/math.Pi)
	}
	return best
}

// combPolygon is a counterclockwise comb of seven teeth of different
// depths: a non-convex polygon whose ear-clipped triangulation is full
// of needles.
func combPolygon() [][2]float64 {
	comb := [][2]float64{{0, 0}, {8, 0}, {8, 3}}
	for x := 7.0; x > 0; x-- {
		comb = append(comb, [2]float64{x + 0.25, 3}, [2]float64{x, 0.25 * x}, [2]float64{x - 0.25, 3})
	}
	return append(comb, [2]float64{0, 3})
}

// starPolygon is a counterclockwise seven-pointed star.
func starPolygon() [][2]float64 {
	var star [][2]float64
	for i := 0; i < 14; i++ {
		r := 1.0
		if i%2 == 1 {
			r = 0.3
		}
		a := 2 * math.Pi * float64(i) / 14
		star = append(star, [2]float64{r * math.Cos(a), r * math.Sin(a)})
	}
	return star
}

// TestMergeCoplanarPolygon retriangulates the ear-clipped caps of
// non-convex prisms: every edge inside a cap must end locally Delaunay
// (then the cap is its constrained Delaunay triangulation, by the
// Delaunay lemma), checked with the 2D in-circle test on the cap's own
// coordinates; rim edges and the side walls stay as they were.
func TestMergeCoplanarPolygon(t *testing.T) {
	for name, poly := range map[string][][2]float64{"comb": combPolygon(), "star": starPolygon(), "L": {{0, 0}, {5, 0}, {5, 0.2}, {0.2, 0.2}, {0.2, 5}, {0, 5}}} {
		t.Run(name, func(t *testing.T) {
			s := shapes.Extrude(poly, 1)
			checkCleanSurface(t, s)
			m, _ := mergeCoplanar(s)
			checkCleanSurface(t, m)
			if v, w := exactVolume(m), exactVolume(s); v.Cmp(w) != 0 {
				t.Fatalf("six times the volume %v, was %v", v, w)
			}
			n := len(poly)
			rim := map[[2]int32]bool{}
			for i := 0; i < n; i++ {
				for _, off := range []int32{0, int32(n)} {
					a, b := int32(i)+off, int32((i+1)%n)+off
					rim[[2]int32{a, b}], rim[[2]int32{b, a}] = true, true
				}
			}
			xy := func(v int32) [2]float64 { p := geom.At(m.Positions, v); return [2]float64{p[0], p[1]} }
			half := map[[2]int32]int32{} // directed edge → apex
			for tr := 0; tr < m.NumTriangles(); tr++ {
				q := m.Triangles[3*tr : 3*tr+3]
				for k := 0; k < 3; k++ {
					half[[2]int32{q[k], q[(k+1)%3]}] = q[(k+2)%3]
				}
			}
			inner := 0
			for e, c := range half {
				a, b := e[0], e[1]
				cap := (a < int32(n)) == (b < int32(n)) && (a < int32(n)) == (c < int32(n))
				if !cap || rim[e] {
					continue
				}
				d := half[[2]int32{b, a}]
				pa, pb, pc, pd := xy(a), xy(b), xy(c), xy(d)
				if a >= int32(n) { // top cap: counterclockwise in x, y
					inner++
					if geom.InCircle(pa, pb, pc, pd) > 0 {
						t.Fatalf("top cap edge %v: %v inside the circumcircle of %v %v %v", e, pd, pa, pb, pc)
					}
				} else if geom.InCircle(pb, pa, pc, pd) > 0 { // bottom: clockwise in x, y
					t.Fatalf("bottom cap edge %v is not locally Delaunay", e)
				}
			}
			if inner != 2*(n-3) {
				t.Fatalf("%d inner half-edges on the top cap, want %d", inner, 2*(n-3))
			}
			// The side walls (two triangles per rectangle) are kept.
			for tr := 0; tr < 2*n; tr++ {
				if !slices.Equal(m.Triangles[3*tr:3*tr+3], s.Triangles[3*tr:3*tr+3]) {
					t.Fatalf("side triangle %d changed: %v → %v", tr, s.Triangles[3*tr:3*tr+3], m.Triangles[3*tr:3*tr+3])
				}
			}
		})
	}
}

// TestMergeCoplanarCurved: a surface without coplanar neighbours is left
// as it is, and so is its mesh.
func TestMergeCoplanarCurved(t *testing.T) {
	for _, s := range []*format.Surface{shapes.Icosphere(1, 2), shapes.Torus(2, 0.7, 24, 12)} {
		m, flips := mergeCoplanar(s)
		if flips != 0 || !slices.Equal(m.Triangles, s.Triangles) {
			t.Fatalf("%d flips on a surface without coplanar neighbours", flips)
		}
		off, _, err := Build(s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		on, _, err := Build(s, Options{MergeCoplanar: true})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(on.Tets, off.Tets) || !slices.Equal(on.Positions, off.Positions) {
			t.Fatalf("MergeCoplanar changed the mesh of a surface without coplanar neighbours: %d tets, %d without", on.NumTets(), off.NumTets())
		}
	}
}

// TestBuildMergeCoplanar meshes the fan box with and without the option:
// both are valid and keep the volume; with it, each planar group is the
// union of boundary faces (checkMergedMesh), every boundary face lies on
// a face of the cube, and the needles no longer bound the smallest
// dihedral angle; coarse mode keeps the groups too. Non-convex caps
// (ear-clipped prisms) and the random fan box are meshed with the
// option too, at GOMAXPROCS 1 and 2 alike.
func TestBuildMergeCoplanar(t *testing.T) {
	even := []float64{0.25, 0.5, 0.75}
	s := fanBox(even, even)
	off, _, err := Build(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkMesh(t, s, off)
	on, _, err := Build(s, Options{MergeCoplanar: true})
	if err != nil {
		t.Fatal(err)
	}
	checkMergedMesh(t, s, on)
	// The guarantee did change: boundary faces cross the fans' edges, and
	// the per-triangle check sees it.
	if msg := fatalOf(t, func(tb testing.TB) { checkMesh(tb, s, on) }); msg == "" {
		t.Error("checkMesh accepts the merged mesh: no boundary face crosses an input edge")
	}
	nbr, _ := tetmesh.Neighbors(on.Tets, on.NumVertices())
	bf := tetmesh.BoundaryFaces(on.Tets, nbr)
	faces := &format.Surface{Positions: on.Positions, Triangles: bf}
	for f := 0; f < faces.NumTriangles(); f++ {
		if cubeFace(faces, f) < 0 {
			t.Fatalf("boundary face %v lies on no face of the cube", bf[3*f:3*f+3])
		}
	}
	coarse, _, err := Build(s, Options{MergeCoplanar: true, Coarse: true})
	if err != nil {
		t.Fatal(err)
	}
	checkMergedMesh(t, s, coarse)
	qOff, qOn := tetmesh.MeasureQuality(off).MinDihedral, tetmesh.MeasureQuality(on).MinDihedral
	t.Logf("fan box: min dihedral %.3g° (%d tets) without, %.3g° (%d tets) with MergeCoplanar", qOff, off.NumTets(), qOn, on.NumTets())
	if !(qOn >= 12) {
		t.Errorf("min dihedral %.3g° with MergeCoplanar, want ≥ 12°", qOn)
	}

	for name, s := range map[string]*format.Surface{
		"random fan box": fanBox(randomEdgePoints(40, 1), randomEdgePoints(40, 2)),
		"comb":           shapes.Extrude(combPolygon(), 1),
		"star":           shapes.Extrude(starPolygon(), 0.5),
		"L bracket":      shapes.LBracket(5, 1, 2),
	} {
		var prev *Mesh
		for _, procs := range []int{1, 2} {
			old := runtime.GOMAXPROCS(procs)
			m, _, err := Build(s, Options{MergeCoplanar: true})
			runtime.GOMAXPROCS(old)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checkMergedMesh(t, s, m)
			if prev != nil && (!slices.Equal(m.Tets, prev.Tets) || !slices.Equal(m.Positions, prev.Positions)) {
				t.Fatalf("%s: GOMAXPROCS=%d gives another mesh", name, procs)
			}
			prev = m
		}
		t.Logf("%s: %d tets, min dihedral %.3g°", name, prev.NumTets(), tetmesh.MeasureQuality(prev).MinDihedral)
	}
}

// planarGroups labels each triangle of s with its planar group (the
// smallest triangle index in it): triangles joined across edges where
// they are exactly coplanar and face the same way, then joined as
// MergeCoplanar joins them to rounding (nearGroups).
func planarGroups(s *format.Surface) []int32 {
	nt := int32(s.NumTriangles())
	sets := unionfind.New(int(nt))
	half := map[[2]int32]int32{}
	for t := int32(0); t < nt; t++ {
		for k := int32(0); k < 3; k++ {
			half[[2]int32{s.Triangles[3*t+k], s.Triangles[3*t+(k+1)%3]}] = t
		}
	}
	p := func(t, k int32) geom.Vec { return geom.At(s.Positions, s.Triangles[3*t+k]) }
	normal := func(t int32) geom.Vec { return geom.Cross(geom.Sub(p(t, 1), p(t, 0)), geom.Sub(p(t, 2), p(t, 0))) }
	for t := int32(0); t < nt; t++ {
		for k := int32(0); k < 3; k++ {
			u := half[[2]int32{s.Triangles[3*t+(k+1)%3], s.Triangles[3*t+k]}]
			for j := int32(0); j < 3; j++ {
				if geom.Orient3D(p(t, 0), p(t, 1), p(t, 2), p(u, j)) != 0 {
					goto next
				}
			}
			if geom.Dot(normal(t), normal(u)) > 0 {
				sets.Union(t, u)
			}
		next:
		}
	}
	tri := func(t int32) [3]geom.Vec { return [3]geom.Vec{p(t, 0), p(t, 1), p(t, 2)} }
	across := func(t, k int32) int32 { return half[[2]int32{s.Triangles[3*t+(k+1)%3], s.Triangles[3*t+k]}] }
	for t, g := range nearGroups(nt, tri, across, sets.Find) {
		sets.Union(int32(t), g)
	}
	out := make([]int32, nt)
	for t := range out {
		out[t] = sets.Find(int32(t))
	}
	return out
}

// fatalOf runs check and returns the message it stopped with, "" if it
// passed.
func fatalOf(t *testing.T, check func(testing.TB)) (msg string) {
	r := &fatalRecorder{TB: t}
	defer func() {
		if p := recover(); p != nil && p != r {
			panic(p)
		}
		msg = r.msg
	}()
	check(r)
	return ""
}

// fatalRecorder is a testing.TB whose Fatal and Fatalf record the message
// and unwind (fatalOf recovers).
type fatalRecorder struct {
	testing.TB
	msg string
}

func (r *fatalRecorder) Helper() {}

func (r *fatalRecorder) Fatal(args ...any) { r.msg = fmt.Sprint(args...); panic(r) }

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	panic(r)
}
