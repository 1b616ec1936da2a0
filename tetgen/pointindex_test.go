package tetgen

import (
	"math/rand"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// TestPointIndexNearSegment checks pointIndex.nearSegment against brute
// force over all vertices with the pass's distance test: every indexed
// vertex within the radius of the segment (squared distance ≤ r2) must
// be visited, once, and no vertex left out of the index or in a tree
// before the first searched (all trees are searched in the forest, where
// the three adds' trees are merged into one). The inputs are
// random, and a lattice of spacing 1/4 with every point twice, a flat
// layer and many equal coordinates, searched along lattice lines and
// diagonals at radii that put lattice points exactly on the boundary.
func TestPointIndexNearSegment(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	type query struct {
		a, b geom.Vec
		r2   float64
	}
	lattice := func(v float64) float64 { return float64(int(v*6)) / 4 } // 0, 0.25, …, 1.25
	cases := []struct {
		name    string
		point   func() geom.Vec
		query   func() query
		minEdge int // brute-force hits exactly on the boundary the case must have
	}{
		{"random", func() geom.Vec {
			return geom.Vec{rng.Float64(), rng.Float64(), rng.Float64()}
		}, func() query {
			r := 0.3 * rng.Float64()
			return query{geom.Vec{rng.Float64(), rng.Float64(), rng.Float64()}, geom.Vec{rng.Float64(), rng.Float64(), rng.Float64()}, r * r}
		}, 0},
		{"lattice", func() geom.Vec {
			return geom.Vec{lattice(rng.Float64()), lattice(rng.Float64()), lattice(rng.Float64())}
		}, func() query {
			a := geom.Vec{lattice(rng.Float64()), lattice(rng.Float64()), lattice(rng.Float64())}
			b := a
			for k := range 3 {
				if rng.Intn(2) == 0 {
					b[k] = lattice(rng.Float64())
				}
			}
			if b == a {
				b[rng.Intn(3)] += 0.25
			}
			r := []float64{0.25, 0.5, 0.125}[rng.Intn(3)]
			return query{a, b, r * r}
		}, 100},
		{"flat", func() geom.Vec {
			return geom.Vec{0.5, rng.Float64(), lattice(rng.Float64())}
		}, func() query {
			z := lattice(rng.Float64())
			return query{geom.Vec{0.5, rng.Float64(), z}, geom.Vec{0.5, rng.Float64(), z}, 0.0625}
		}, 100},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &tri{}
			for range 3000 {
				p := c.point()
				// Every point twice: equal positions, different vertices.
				m.xyz = append(m.xyz, p[0], p[1], p[2], p[0], p[1], p[2])
			}
			n := int32(len(m.xyz) / 3)
			// Every third vertex is left out of the index; the others go
			// in three trees, by vertex number (tree[v] is v's).
			var ix pointIndex
			tree := make([]int, n)
			for j := range 3 {
				var ids []int32
				for v := n * int32(j) / 3; v < n*int32(j+1)/3; v++ {
					tree[v] = j
					if v%3 == 0 {
						tree[v] = -1
					} else {
						ids = append(ids, v)
					}
				}
				ix.add(m, ids)
			}
			if len(ix.trees) != 3 || len(ix.forest) != 1 {
				t.Fatalf("%d trees and %d in the forest after three adds of a third each, want 3 and 1", len(ix.trees), len(ix.forest))
			}
			seen := make([]int, n)
			hits, edge := 0, 0
			for range 400 {
				q := c.query()
				ab := geom.Sub(q.b, q.a)
				l2 := geom.Dot(ab, ab)
				since := rng.Intn(3)
				in := func(v int32) bool { return tree[v] >= since }
				clear(seen)
				if ix.nearSegment(q.a, q.b, q.r2, since, func(v int32) bool {
					seen[v]++
					return false
				}) {
					t.Fatal("nearSegment reports a visit that returned true, but none did")
				}
				want := int32(-1)
				for v := range n {
					d2 := segmentDist2(m.pos(v), q.a, ab, l2)
					switch {
					case seen[v] > 1:
						t.Fatalf("vertex %d visited %d times", v, seen[v])
					case seen[v] > 0 && !in(v):
						t.Fatalf("vertex %d is not indexed, or in a tree before the %d-th, but was visited", v, since)
					case in(v) && d2 <= q.r2 && seen[v] == 0:
						t.Fatalf("segment %v–%v, r² %g: vertex %d at %v, squared distance %g, not visited", q.a, q.b, q.r2, v, m.pos(v), d2)
					}
					if in(v) && d2 <= q.r2 {
						hits++
						want = v
						if d2 == q.r2 {
							edge++
						}
					}
				}
				if want >= 0 {
					// Stopping: the visit that returns true ends the search.
					calls := 0
					if !ix.nearSegment(q.a, q.b, q.r2, since, func(v int32) bool {
						calls++
						return v == want
					}) || calls > len(ix.ids) {
						t.Fatalf("the search did not stop at vertex %d", want)
					}
				}
			}
			// The pass searches near every crease subsegment each round,
			// with a visit that reads its variables.
			q, calls := c.query(), 0
			if a := testing.AllocsPerRun(100, func() {
				ix.nearSegment(q.a, q.b, q.r2, 0, func(int32) bool { calls++; return false })
			}); a != 0 {
				t.Errorf("a search allocates %v times", a)
			}
			if hits < 1000 || edge < c.minEdge {
				t.Fatalf("%d vertices within reach, %d exactly on the boundary: the test no longer covers its case", hits, edge)
			}
			t.Logf("%d vertices within reach, %d exactly on the boundary", hits, edge)
		})
	}
}
