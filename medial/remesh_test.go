package medial

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// TestRemeshSphere remeshes a marching-tetrahedra sphere to a target edge
// length: the result must stay closed, oriented and free of
// self-intersections, with every vertex on the sphere, edges near the
// target, no slivers, and an enclosed volume near the ball's.
func TestRemeshSphere(t *testing.T) {
	const r = 0.8
	lv := level{f: func(p geom.Vec) float64 { return r - geom.Norm(p) }}
	lv.project = func(p geom.Vec) (geom.Vec, bool) { return geom.Scale(r/geom.Norm(p), p), true }
	for _, c := range []struct{ g, length float64 }{{0.1, 0.1}, {0.1, 0.25}, {0.05, 0.2}} {
		s, err := contour(lv, geom.Vec{-1, -1, -1}, geom.Vec{1, 1, 1}, c.g, true)
		if err != nil {
			t.Fatal(err)
		}
		before := minAngles(s.Positions, s.Triangles)
		m := remesh(s, func(geom.Vec) float64 { return c.length }, lv.onto, remeshRounds)
		if err := checkClosed(m); err != nil {
			t.Fatalf("g=%g L=%g: %v", c.g, c.length, err)
		}
		for i := range m.NumVertices() {
			if d := geom.Norm(geom.At(m.Positions, int32(i))); math.Abs(d-r) > 1e-12 {
				t.Fatalf("g=%g L=%g: vertex %d at radius %v", c.g, c.length, i, d)
			}
		}
		var ls []float64
		for k := 0; k < len(m.Triangles); k += 3 {
			for j := range 3 {
				a, b := geom.At(m.Positions, m.Triangles[k+j]), geom.At(m.Positions, m.Triangles[k+(j+1)%3])
				ls = append(ls, math.Sqrt(geom.Dist2(a, b))/c.length)
			}
		}
		slices.Sort(ls)
		med := ls[len(ls)/2]
		after := minAngles(m.Positions, m.Triangles)
		t.Logf("g=%g L=%g: %d → %d triangles, edge/L median %.2f range [%.2f, %.2f], min angle %.1f° → %.1f°",
			c.g, c.length, s.NumTriangles(), m.NumTriangles(), med, ls[0], ls[len(ls)-1], before, after)
		if med < 0.7 || med > 1.3 || ls[len(ls)-1] > 4.0/3*1.05 {
			t.Errorf("g=%g L=%g: edge lengths / target: median %.2f, max %.2f", c.g, c.length, med, ls[len(ls)-1])
		}
		if after < 15 || after < before {
			t.Errorf("g=%g L=%g: smallest angle %.1f° (before %.1f°)", c.g, c.length, after, before)
		}
		o, err := newSolid(m, "remeshed")
		if err != nil {
			t.Fatal(err)
		}
		// An inscribed polyhedron with edges about L: deficit O(L²/r²).
		want := 4 * math.Pi * r * r * r / 3
		if rel := (want - o.volume) / want; rel < 0 || rel > sq(c.length/r) {
			t.Errorf("g=%g L=%g: volume deficit %.3g", c.g, c.length, rel)
		}
	}
}

// minAngles returns the smallest angle of the triangles, in degrees.
func minAngles(pos []float64, tris []int32) float64 {
	a := math.Pi
	for k := 0; k < len(tris); k += 3 {
		a = min(a, minAngle([3]geom.Vec{geom.At(pos, tris[k]), geom.At(pos, tris[k+1]), geom.At(pos, tris[k+2])}))
	}
	return a * 180 / math.Pi
}

// TestRemeshFoldsAndGaps remeshes unions of two balls, contoured finer
// than the target edge: overlapping balls meet at a crease circle, which
// remeshing must coarsen along (the crease edges of a marching-tetrahedra
// contour are short) while keeping it; balls a gap far narrower than the
// target edge apart make rounds that cross the two spheres, which must be
// undone. Every result must be closed, oriented and free of
// self-intersections (checkClosed decides it exactly), with every vertex
// on the level set and the edge lengths near the target away from the gap.
func TestRemeshFoldsAndGaps(t *testing.T) {
	const r, g, length = 0.5, 0.04, 0.2
	for _, c := range []struct {
		name   string
		offset float64 // centres at ±offset on x
		median float64 // smallest acceptable median edge / target
	}{
		{"crease", 0.3, 0.7},
		{"gap", r + 0.01, 0.7},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, b := geom.Vec{-c.offset, 0, 0}, geom.Vec{c.offset, 0, 0}
			lv := level{f: func(p geom.Vec) float64 {
				return max(r-math.Sqrt(geom.Dist2(p, a)), r-math.Sqrt(geom.Dist2(p, b)))
			}}
			s, err := contour(lv, geom.Vec{-1.2, -0.7, -0.7}, geom.Vec{1.2, 0.7, 0.7}, g, false)
			if err != nil {
				t.Fatal(err)
			}
			if err := checkClosed(s); err != nil {
				t.Fatalf("contour: %v", err)
			}
			m := remeshOnLevel(t, s, lv, length)
			var ls []float64
			for k := 0; k < len(m.Triangles); k += 3 {
				for j := range 3 {
					p, q := geom.At(m.Positions, m.Triangles[k+j]), geom.At(m.Positions, m.Triangles[k+(j+1)%3])
					ls = append(ls, math.Sqrt(geom.Dist2(p, q))/length)
				}
			}
			slices.Sort(ls)
			med := ls[len(ls)/2]
			t.Logf("%d → %d triangles, edge/L median %.2f, min angle %.1f°", s.NumTriangles(), m.NumTriangles(), med, minAngles(m.Positions, m.Triangles))
			if med < c.median {
				t.Errorf("median edge / target %.2f, want ≥ %.2f", med, c.median)
			}
		})
	}
}

// vertexSizes gives what length gives at the vertex's position, through
// random asks, moves and forgets, calling length once per vertex between
// moves (fails when forget does nothing, or when at always asks).
func TestVertexSizes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	calls := 0
	length := func(p geom.Vec) float64 { calls++; return 1 + p[0] + 2*p[1]*p[2] }
	const n = 50
	pos := make([]geom.Vec, n)
	asked := make([]bool, n) // since the vertex last moved
	s := newVertexSizes(length, n)
	for range 20000 {
		v := rng.IntN(n)
		if rng.IntN(4) == 0 {
			pos[v] = geom.Vec{rng.Float64(), rng.Float64(), rng.Float64()}
			s.forget(int32(v))
			asked[v] = false
			continue
		}
		before := calls
		got := s.at(int32(v), pos[v])
		if n := calls - before; asked[v] && n != 0 || !asked[v] && n != 1 {
			t.Fatalf("vertex %d: %d calls of length, asked since it moved %v", v, n, asked[v])
		}
		if want := length(pos[v]); got != want {
			t.Fatalf("vertex %d at %v: %v, length gives %v", v, pos[v], got, want)
		}
		asked[v] = true
	}
}

// collapse keeps a closed oriented manifold: on the contour of a ball
// with steep tents raised on a third of its triangles (degree-3 apexes:
// collapsing a tent's base edge would fold the tent onto itself, which
// the link condition refuses, and so does the crease rule, every tent
// vertex being on a crease), coarsened by collapses alone, after every
// pass the live triangles must make a closed oriented 2-manifold,
// checked by brute force: no repeated or degenerate triangles, every
// edge in one triangle each way, every vertex's triangles one fan.
func TestCollapseManifold(t *testing.T) {
	lv := level{f: func(p geom.Vec) float64 { return 0.5 - geom.Norm(p) }}
	s, err := contour(lv, geom.Vec{-0.7, -0.7, -0.7}, geom.Vec{0.7, 0.7, 0.7}, 0.05, false)
	if err != nil {
		t.Fatal(err)
	}
	m := &triMesh{pos: slices.Clone(s.Positions), frozen: make([]bool, s.NumVertices())}
	rng := rand.New(rand.NewPCG(5, 6))
	used := make([]bool, s.NumVertices())
	for k := 0; k < len(s.Triangles); k += 3 {
		q := [3]int32(s.Triangles[k : k+3])
		if used[q[0]] || used[q[1]] || used[q[2]] || rng.IntN(3) != 0 {
			m.tris = append(m.tris, q[:]...)
			continue
		}
		used[q[0]], used[q[1]], used[q[2]] = true, true, true
		a, b, c := m.p(q[0]), m.p(q[1]), m.p(q[2])
		n := geom.Cross(geom.Sub(b, a), geom.Sub(c, a))
		edge := math.Sqrt(geom.Dist2(a, b))
		apex := geom.Add(geom.Scale(1.0/3, geom.Add(geom.Add(a, b), c)), geom.Scale(2.5*edge/geom.Norm(n), n))
		v := int32(len(m.pos) / 3)
		m.pos = append(m.pos, apex[:]...)
		m.frozen = append(m.frozen, false)
		m.tris = append(m.tris, q[0], q[1], v, q[1], q[2], v, q[2], q[0], v)
	}
	if err := brutalManifold(m); err != nil {
		t.Fatalf("tented contour: %v", err)
	}
	tris, total := m.live(), 0
	for pass := range 8 {
		n := m.collapse(func(geom.Vec) float64 { return 0.1 }, func(p, _ geom.Vec, _ float64) geom.Vec { return p })
		total += n
		if err := brutalManifold(m); err != nil {
			t.Fatalf("pass %d (%d collapses): %v", pass, n, err)
		}
	}
	t.Logf("%d → %d triangles by %d collapses", tris, m.live(), total)
	if total < tris/20 {
		t.Errorf("only %d collapses", total)
	}
}

// brutalManifold reports, by brute force over the live triangles of m,
// how they fail to make a closed oriented 2-manifold, or nil.
func brutalManifold(m *triMesh) error {
	type edge [2]int32
	half := map[edge]int{}
	seen := map[[3]int32]bool{}
	around := map[int32][]edge{} // per vertex, its triangles' opposite edges
	for t := 0; t < len(m.tris); t += 3 {
		q := [3]int32(m.tris[t : t+3])
		if q[0] < 0 {
			continue
		}
		if q[0] == q[1] || q[1] == q[2] || q[0] == q[2] {
			return fmt.Errorf("triangle %d %v repeats a vertex", t/3, q)
		}
		key := q
		slices.Sort(key[:])
		if seen[key] {
			return fmt.Errorf("triangle %v twice", q)
		}
		seen[key] = true
		for k := range 3 {
			half[edge{q[k], q[(k+1)%3]}]++
			around[q[k]] = append(around[q[k]], edge{q[(k+1)%3], q[(k+2)%3]})
		}
	}
	for e, n := range half {
		if n != 1 || half[edge{e[1], e[0]}] != 1 {
			return fmt.Errorf("edge %d→%d in %d triangles, %d→%d in %d", e[0], e[1], n, e[1], e[0], half[edge{e[1], e[0]}])
		}
	}
	for v, es := range around {
		// The opposite edges must chain into one cycle.
		next := map[int32]int32{}
		for _, e := range es {
			next[e[0]] = e[1]
		}
		u, steps := es[0][0], 0
		for {
			u = next[u]
			steps++
			if u == es[0][0] || steps > len(es) {
				break
			}
		}
		if steps != len(es) {
			return fmt.Errorf("vertex %d: its %d triangles are not one fan", v, len(es))
		}
	}
	return nil
}
