package format

import (
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// Hand-built configurations, each at the edge of a rule: touching,
// coplanar, sharing a vertex or an edge.
func TestTrianglesIntersectCases(t *testing.T) {
	cases := []struct {
		name string
		s, t [3]geom.Vec
		want bool
	}{
		{"far apart", [3]geom.Vec{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, [3]geom.Vec{{0, 0, 5}, {1, 0, 5}, {0, 1, 5}}, false},
		{"crossing", [3]geom.Vec{{0, 0, 0}, {2, 0, 0}, {0, 2, 0}}, [3]geom.Vec{{0.5, 0.5, -1}, {0.5, 0.5, 1}, {3, 3, 0.5}}, true},
		{"vertex touches face", [3]geom.Vec{{0, 0, 0}, {2, 0, 0}, {0, 2, 0}}, [3]geom.Vec{{0.5, 0.5, 0}, {0.5, 0.5, 1}, {1, 0.5, 1}}, true},
		{"edge lies on face", [3]geom.Vec{{0, 0, 0}, {2, 0, 0}, {0, 2, 0}}, [3]geom.Vec{{0.2, 0.2, 0}, {1, 0.2, 0}, {0.5, 0.5, 1}}, true},
		{"vertex touches edge", [3]geom.Vec{{0, 0, 0}, {2, 0, 0}, {0, 2, 0}}, [3]geom.Vec{{1, 0, 0}, {1, -1, 1}, {1, -1, -1}}, true},
		{"edges cross", [3]geom.Vec{{0, 0, 0}, {2, 0, 0}, {0, 0, 2}}, [3]geom.Vec{{1, -1, 0.5}, {1, 1, 0.5}, {1, 1, 3}}, true},
		{"just miss an edge", [3]geom.Vec{{0, 0, 0}, {2, 0, 0}, {0, 2, 0}}, [3]geom.Vec{{1.5, 1.5, -1}, {1.5, 1.5, 1}, {3, 3, 0}}, false},
		{"parallel planes", [3]geom.Vec{{0, 0, 0}, {2, 0, 0}, {0, 2, 0}}, [3]geom.Vec{{0, 0, 1e-100}, {2, 0, 1e-100}, {0, 2, 1e-100}}, false},
		{"coplanar overlapping", [3]geom.Vec{{0, 0, 0}, {2, 0, 0}, {0, 2, 0}}, [3]geom.Vec{{0.5, 0.5, 0}, {3, 0.5, 0}, {0.5, 3, 0}}, true},
		{"coplanar nested", [3]geom.Vec{{0, 0, 0}, {4, 0, 0}, {0, 4, 0}}, [3]geom.Vec{{1, 1, 0}, {2, 1, 0}, {1, 2, 0}}, true},
		{"coplanar touching at a vertex", [3]geom.Vec{{0, 0, 0}, {2, 0, 0}, {0, 2, 0}}, [3]geom.Vec{{1, 1, 0}, {2, 2, 0}, {1, 3, 0}}, true},
		{"coplanar apart", [3]geom.Vec{{0, 0, 0}, {2, 0, 0}, {0, 2, 0}}, [3]geom.Vec{{1.1, 1.1, 0}, {2, 2, 0}, {1.1, 3, 0}}, false},
		{"shared edge, folded flat onto each other", [3]geom.Vec{{0, 0, 0}, {2, 0, 0}, {0, 2, 0}}, [3]geom.Vec{{0, 0, 0}, {2, 0, 0}, {1, 1, 0}}, true},
		{"shared edge, coplanar, opposite sides", [3]geom.Vec{{0, 0, 0}, {2, 0, 0}, {0, 2, 0}}, [3]geom.Vec{{0, 0, 0}, {2, 0, 0}, {1, -1, 0}}, false},
		{"shared edge, bent", [3]geom.Vec{{0, 0, 0}, {2, 0, 0}, {0, 2, 0}}, [3]geom.Vec{{0, 0, 0}, {2, 0, 0}, {1, 1, 0.01}}, false},
		{"shared vertex, apart", [3]geom.Vec{{0, 0, 0}, {2, 0, 0}, {0, 2, 0}}, [3]geom.Vec{{0, 0, 0}, {-1, 0, 1}, {0, -1, 1}}, false},
		{"shared vertex, piercing", [3]geom.Vec{{0, 0, 0}, {2, 0, 0}, {0, 2, 0}}, [3]geom.Vec{{0, 0, 0}, {1, 1, -1}, {1, 1, 1}}, true},
		{"shared vertex, edge along the other's edge", [3]geom.Vec{{0, 0, 0}, {2, 0, 0}, {0, 2, 0}}, [3]geom.Vec{{0, 0, 0}, {1, 0, 0}, {0, 0, 1}}, true},
		{"shared vertex, edge in the other's plane outside it", [3]geom.Vec{{0, 0, 0}, {2, 0, 0}, {0, 2, 0}}, [3]geom.Vec{{0, 0, 0}, {-1, 0, 0}, {0, 0, 1}}, false},
		{"shared vertex, coplanar, sectors overlap", [3]geom.Vec{{0, 0, 0}, {2, 0, 0}, {0, 2, 0}}, [3]geom.Vec{{0, 0, 0}, {1, 2, 0}, {-1, 1, 0}}, true},
		{"shared vertex, coplanar, sectors share a ray", [3]geom.Vec{{0, 0, 0}, {2, 0, 0}, {0, 2, 0}}, [3]geom.Vec{{0, 0, 0}, {0, 3, 0}, {-1, 1, 0}}, true},
		{"shared vertex, coplanar, sectors apart", [3]geom.Vec{{0, 0, 0}, {2, 0, 0}, {0, 2, 0}}, [3]geom.Vec{{0, 0, 0}, {-1, 2, 0}, {-2, 0, 0}}, false},
		{"shared vertex, far edge crosses the face", [3]geom.Vec{{0, 0, 0}, {4, 0, 0}, {0, 4, 0}}, [3]geom.Vec{{0, 0, 0}, {1, 1, -1}, {1, 1, 1}}, true},
		{"shared vertex, touching the far edge", [3]geom.Vec{{0, 0, 0}, {2, 0, 0}, {0, 2, 0}}, [3]geom.Vec{{0, 0, 0}, {1, 1, 0}, {1, 1, 1}}, true},
	}
	for _, c := range cases {
		pos := append(append([]float64{}, flat(c.s)...), flat(c.t)...)
		s, tt := []int32{0, 1, 2}, []int32{3, 4, 5}
		// Corners at the same position are one vertex, as after welding.
		for j := range 3 {
			for i := range 3 {
				if c.t[j] == c.s[i] {
					tt[j] = int32(i)
				}
			}
		}
		for _, perm := range [][3]int{{0, 1, 2}, {1, 2, 0}, {2, 1, 0}} {
			ps := []int32{s[perm[0]], s[perm[1]], s[perm[2]]}
			if got := trianglesIntersect(pos, ps, tt); got != c.want {
				t.Errorf("%s (corners %v): %v, want %v", c.name, perm, got, c.want)
			}
			if got := trianglesIntersect(pos, tt, ps); got != c.want {
				t.Errorf("%s swapped (corners %v): %v, want %v", c.name, perm, got, c.want)
			}
		}
	}
}

func flat(t [3]geom.Vec) []float64 {
	return []float64{t[0][0], t[0][1], t[0][2], t[1][0], t[1][1], t[1][2], t[2][0], t[2][1], t[2][2]}
}

// The exact predicates agree with an independent decision on thousands
// of random triangle pairs over a few integer points (so that shared
// corners, coplanarity and touching abound): the separating axis theorem
// in rational arithmetic. For pairs sharing corners, the rule "meet
// beyond what they share" becomes plain intersection after cutting a
// sliver of width ε = 1e-12 (in barycentric terms) off the first triangle
// along the shared part — far below the smallest gap integer coordinates
// this small can make.
func TestTrianglesIntersectAgainstSAT(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	eps := big.NewRat(1, 1e12)
	stats := map[[2]int]int{} // (shared corners, intersecting) → pairs
	defer func() {
		// Every rule is exercised with both answers.
		for shared := range 3 {
			for _, want := range []int{0, 1} {
				if n := stats[[2]int{shared, want}]; n < 50 {
					t.Errorf("only %d pairs sharing %d corners with answer %d", n, shared, want)
				}
			}
		}
	}()
	for _, planar := range []bool{false, true} {
		pos, pts := randomPool(r, 7, planar)
		checked := 0
		for checked < 3000 {
			s, u := randomTriangle(r, pts), randomTriangle(r, pts)
			if s == nil || u == nil {
				continue
			}
			shared := 0
			for _, a := range s {
				for _, b := range u {
					if a == b {
						shared++
					}
				}
			}
			if shared == 3 {
				continue
			}
			want := satReference(pts, s, u, eps)
			stats[[2]int{shared, b2i(want)}]++
			if got := trianglesIntersect(pos, s, u); got != want {
				t.Fatalf("planar=%v triangles %v %v over %v: got %v, SAT says %v", planar, s, u, pts, got, want)
			}
			checked++
		}
	}
}

// randomPool returns n distinct integer points in [−2, 2]³ (z = 0 when
// planar), as float positions and rationals.
func randomPool(r *rand.Rand, n int, planar bool) ([]float64, [][3]*big.Rat) {
	seen := map[[3]int]bool{}
	var pos []float64
	var pts [][3]*big.Rat
	for len(pts) < n {
		p := [3]int{r.Intn(5) - 2, r.Intn(5) - 2, r.Intn(5) - 2}
		if planar {
			p[2] = 0
		}
		if seen[p] {
			continue
		}
		seen[p] = true
		pos = append(pos, float64(p[0]), float64(p[1]), float64(p[2]))
		pts = append(pts, [3]*big.Rat{big.NewRat(int64(p[0]), 1), big.NewRat(int64(p[1]), 1), big.NewRat(int64(p[2]), 1)})
	}
	return pos, pts
}

// randomTriangle returns three distinct pool indices of non-collinear
// points, or nil.
func randomTriangle(r *rand.Rand, pts [][3]*big.Rat) []int32 {
	p := r.Perm(len(pts))[:3]
	tri := []int32{int32(p[0]), int32(p[1]), int32(p[2])}
	n := ratCross(ratSub(pts[tri[1]], pts[tri[0]]), ratSub(pts[tri[2]], pts[tri[0]]))
	if n[0].Sign() == 0 && n[1].Sign() == 0 && n[2].Sign() == 0 {
		return nil
	}
	return tri
}

type rvec = [3]*big.Rat

func ratSub(a, b rvec) rvec {
	return rvec{new(big.Rat).Sub(a[0], b[0]), new(big.Rat).Sub(a[1], b[1]), new(big.Rat).Sub(a[2], b[2])}
}

func ratCross(a, b rvec) rvec {
	m := func(x, y *big.Rat) *big.Rat { return new(big.Rat).Mul(x, y) }
	return rvec{
		new(big.Rat).Sub(m(a[1], b[2]), m(a[2], b[1])),
		new(big.Rat).Sub(m(a[2], b[0]), m(a[0], b[2])),
		new(big.Rat).Sub(m(a[0], b[1]), m(a[1], b[0])),
	}
}

func ratDot(a, b rvec) *big.Rat {
	d := new(big.Rat)
	for k := range 3 {
		d.Add(d, new(big.Rat).Mul(a[k], b[k]))
	}
	return d
}

// ratLerp returns a + e(b − a).
func ratLerp(a, b rvec, e *big.Rat) rvec {
	d := ratSub(b, a)
	var out rvec
	for k := range 3 {
		out[k] = new(big.Rat).Add(a[k], new(big.Rat).Mul(e, d[k]))
	}
	return out
}

// satReference decides the rule of selfintersect.go by the separating
// axis theorem after cutting the shared part off the first triangle.
func satReference(pts []rvec, s, u []int32, eps *big.Rat) bool {
	var shared []int32
	var rest []int32 // corners of s not shared
	for _, a := range s {
		found := false
		for _, b := range u {
			found = found || a == b
		}
		if found {
			shared = append(shared, a)
		} else {
			rest = append(rest, a)
		}
	}
	P := []rvec{pts[s[0]], pts[s[1]], pts[s[2]]}
	switch len(shared) {
	case 1: // the part of s away from v: the quad a, b, b', a'
		v, a, b := pts[shared[0]], pts[rest[0]], pts[rest[1]]
		P = []rvec{a, b, ratLerp(v, b, eps), ratLerp(v, a, eps)}
	case 2: // the part of s away from edge uw: a, u', w'
		a, x, y := pts[rest[0]], pts[shared[0]], pts[shared[1]]
		P = []rvec{a, ratLerp(x, a, eps), ratLerp(y, a, eps)}
	}
	Q := []rvec{pts[u[0]], pts[u[1]], pts[u[2]]}
	return !separated(P, Q)
}

// separated reports whether some axis among the polygons' normals, the
// cross products of their edges, and each normal crossed with its own
// edges separates the closed convex planar polygons P and Q.
func separated(P, Q []rvec) bool {
	edges := func(poly []rvec) []rvec {
		var e []rvec
		for i := range poly {
			e = append(e, ratSub(poly[(i+1)%len(poly)], poly[i]))
		}
		return e
	}
	eP, eQ := edges(P), edges(Q)
	nP, nQ := ratCross(eP[0], eP[1]), ratCross(eQ[0], eQ[1])
	axes := []rvec{nP, nQ}
	for _, a := range eP {
		axes = append(axes, ratCross(nP, a))
		for _, b := range eQ {
			axes = append(axes, ratCross(a, b))
		}
	}
	for _, b := range eQ {
		axes = append(axes, ratCross(nQ, b))
	}
	interval := func(poly []rvec, ax rvec) (lo, hi *big.Rat) {
		for _, p := range poly {
			d := ratDot(p, ax)
			if lo == nil || d.Cmp(lo) < 0 {
				lo = d
			}
			if hi == nil || d.Cmp(hi) > 0 {
				hi = d
			}
		}
		return lo, hi
	}
	for _, ax := range axes {
		if ax[0].Sign() == 0 && ax[1].Sign() == 0 && ax[2].Sign() == 0 {
			continue
		}
		loP, hiP := interval(P, ax)
		loQ, hiQ := interval(Q, ax)
		if hiP.Cmp(loQ) < 0 || hiQ.Cmp(loP) < 0 {
			return true
		}
	}
	return false
}

func TestAddExampleKeepsSmallest(t *testing.T) {
	var ex [][2]int32
	r := rand.New(rand.NewSource(1))
	for _, i := range r.Perm(100) {
		ex = addExample(ex, [2]int32{int32(i / 10), int32(i % 10)})
	}
	if len(ex) != maxExamples {
		t.Fatalf("%d examples", len(ex))
	}
	for i, p := range ex {
		if p != [2]int32{int32(i / 10), int32(i % 10)} {
			t.Fatalf("example %d is %v", i, p)
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Diagnose's BVH-accelerated, parallel search finds exactly the pairs a
// brute-force SAT over all pairs finds, on random triangle soups over a
// small integer point pool and on the two interpenetrating boxes of
// fixtures/selfx.stl.
func TestSelfIntersectionsAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	eps := big.NewRat(1, 1e12)
	check := func(name string, s *Surface) {
		pts := make([]rvec, s.NumVertices())
		for i := range pts {
			for k := range 3 {
				pts[i][k] = new(big.Rat).SetFloat64(s.Positions[3*i+k])
			}
		}
		want := 0
		var first [2]int32
		for i := range s.NumTriangles() {
			for j := i + 1; j < s.NumTriangles(); j++ {
				a, b := s.Triangles[3*i:3*i+3], s.Triangles[3*j:3*j+3]
				// Box overlap on exact coordinates only saves time.
				if sharedCorners(a, b) < 3 && trianglesOverlapBoxes(s.Positions, a, b) && satReference(pts, a, b, eps) {
					if want == 0 {
						first = [2]int32{int32(i), int32(j)}
					}
					want++
				}
			}
		}
		if want == 0 {
			t.Errorf("%s: no intersecting pairs to find", name)
		}
		rep := Diagnose(s)
		if rep.SelfIntersectingPairs != want {
			t.Errorf("%s: %d intersecting pairs, brute force finds %d", name, rep.SelfIntersectingPairs, want)
		}
		if want > 0 && rep.SelfIntersections[0] != first {
			t.Errorf("%s: first pair %v, brute force %v", name, rep.SelfIntersections[0], first)
		}
	}
	// A closed icosphere on a 1/8 grid (so rationals stay small), with
	// vertices pushed through the far side or jittered far enough to fold
	// fans: the neighbour pairs certified fans skip and those they must
	// not.
	ico, err := ReadSurface("../fixtures/icosphere.obj", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	grid := func(x float64) float64 { return math.Round(8*x) / 8 }
	for i, x := range ico.Positions {
		ico.Positions[i] = grid(4 * x)
	}
	pushed := &Surface{Positions: slices.Clone(ico.Positions), Triangles: ico.Triangles}
	for _, v := range []int{0, 17, 40} {
		for k := range 3 {
			pushed.Positions[3*v+k] *= -0.75
		}
	}
	check("icosphere with vertices pushed through", pushed)
	jittered := &Surface{Positions: slices.Clone(ico.Positions), Triangles: ico.Triangles}
	for i := range jittered.Positions {
		jittered.Positions[i] += grid(0.6 * r.NormFloat64())
	}
	check("jittered icosphere", jittered)
	// Convex solids' fans are all certified: the icosphere's by a
	// coordinate axis, the cube's corners by a cube diagonal.
	cube, err := ReadSurface("../fixtures/cube.stl", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Surface{ico, cube} {
		if fans := flatFans(s.Positions, newTopology(s.Triangles, s.NumVertices())); slices.Contains(fans, false) {
			t.Errorf("a fan of a convex solid is not certified: %v", fans)
		}
	}

	for soup := range 5 {
		pos, pts := randomPool(r, 12, false)
		s := &Surface{Positions: pos}
		for len(s.Triangles) < 3*60 {
			if tri := randomTriangle(r, pts); tri != nil {
				s.Triangles = append(s.Triangles, tri...)
			}
		}
		check(fmt.Sprintf("soup %d", soup), s)
	}
	s, err := ReadSurface("../fixtures/selfx.stl", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	check("selfx.stl", s)
}

func sharedCorners(a, b []int32) int {
	n := 0
	for _, u := range a {
		for _, w := range b {
			if u == w {
				n++
			}
		}
	}
	return n
}

// trianglesOverlapBoxes reports whether the bounding boxes of the
// triangles with corner indices s and t overlap.
func trianglesOverlapBoxes(pos []float64, s, t []int32) bool {
	for k := range 3 {
		s0, s1, s2 := pos[3*s[0]+int32(k)], pos[3*s[1]+int32(k)], pos[3*s[2]+int32(k)]
		t0, t1, t2 := pos[3*t[0]+int32(k)], pos[3*t[1]+int32(k)], pos[3*t[2]+int32(k)]
		if max(s0, s1, s2) < min(t0, t1, t2) || max(t0, t1, t2) < min(s0, s1, s2) {
			return false
		}
	}
	return true
}
