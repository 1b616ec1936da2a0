package bvh

import (
	"math"
	"math/rand"
	"runtime"
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/internal/fptest"
	"github.com/pfmesh/pfmesh/internal/geom"
)

func randomBoxes(r *rand.Rand, n int, size float64) []float64 {
	b := make([]float64, 6*n)
	for i := 0; i < n; i++ {
		for k := 0; k < 3; k++ {
			c := r.Float64()
			h := size * r.Float64()
			b[6*i+k], b[6*i+3+k] = c-h, c+h
		}
	}
	return b
}

func boxesMeet(a, b []float64) bool {
	for k := 0; k < 3; k++ {
		if a[k] > b[3+k] || b[k] > a[3+k] {
			return false
		}
	}
	return true
}

// Brute force is the independent reference for every query.
func TestQueryMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, leaf := range []int{1, 4, 8} {
		boxes := randomBoxes(r, 2000, 0.02)
		tree := Build(boxes, leaf)
		for q := 0; q < 200; q++ {
			qb := randomBoxes(r, 1, 0.1)
			got := map[int32]bool{}
			tree.Query([6]float64(qb), func(it int32) bool {
				if boxesMeet(boxes[6*it:6*it+6], qb) {
					got[it] = true
				}
				return true
			})
			for i := 0; i < 2000; i++ {
				if boxesMeet(boxes[6*i:6*i+6], qb) != got[int32(i)] {
					t.Fatalf("leaf %d query %d: item %d mismatch", leaf, q, i)
				}
			}
		}
	}
}

func TestNearestMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	pts := make([]float64, 3*3000)
	boxes := make([]float64, 6*3000)
	for i := range 3000 {
		for k := range 3 {
			pts[3*i+k] = r.Float64()
			boxes[6*i+k], boxes[6*i+3+k] = pts[3*i+k], pts[3*i+k]
		}
	}
	tree := Build(boxes, 4)
	for q := 0; q < 500; q++ {
		p := geom.Vec{2*r.Float64() - 0.5, 2*r.Float64() - 0.5, 2*r.Float64() - 0.5}
		got, d2 := tree.Nearest(p, func(it int32) float64 { return geom.Dist2(p, geom.At(pts, it)) })
		want, w2 := int32(-1), math.Inf(1)
		for i := int32(0); i < 3000; i++ {
			if d := geom.Dist2(p, geom.At(pts, i)); d < w2 {
				want, w2 = i, d
			}
		}
		if got != want || d2 != w2 {
			t.Fatalf("nearest %d (%g), want %d (%g)", got, d2, want, w2)
		}
	}
}

func TestSelfPairsMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	boxes := randomBoxes(r, 1500, 0.03)
	tree := Build(boxes, 4)
	got := map[[2]int32]int{}
	tree.SelfPairs(func(a, b int32) bool {
		if a >= b {
			t.Fatalf("pair (%d,%d) not ordered", a, b)
		}
		if boxesMeet(boxes[6*a:6*a+6], boxes[6*b:6*b+6]) {
			got[[2]int32{a, b}]++
		}
		return true
	})
	n := 0
	for a := int32(0); a < 1500; a++ {
		for b := a + 1; b < 1500; b++ {
			if boxesMeet(boxes[6*a:6*a+6], boxes[6*b:6*b+6]) {
				n++
				if got[[2]int32{a, b}] != 1 {
					t.Fatalf("pair (%d,%d) seen %d times", a, b, got[[2]int32{a, b}])
				}
			}
		}
	}
	if n != len(got) {
		t.Fatalf("%d pairs, want %d", len(got), n)
	}
}

func TestBuildDeterministicAndComplete(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	boxes := randomBoxes(r, 10000, 0.01)
	// Ties: many identical boxes.
	for i := 0; i < 500; i++ {
		copy(boxes[6*i:6*i+6], boxes[:6])
	}
	a, b := Build(boxes, 4), Build(boxes, 4)
	if !slicesEqual(a.Items, b.Items) || !slicesEqual(a.Nodes, b.Nodes) {
		t.Fatal("build not deterministic")
	}
	seen := make([]bool, 10000)
	for _, it := range a.Items {
		seen[it] = true
	}
	for i, s := range seen {
		if !s {
			t.Fatalf("item %d missing", i)
		}
	}
}

func slicesEqual(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func BenchmarkBuild(b *testing.B) {
	r := rand.New(rand.NewSource(5))
	boxes := randomBoxes(r, 1_000_000, 0.001)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Build(boxes, 4)
	}
	b.ReportMetric(float64(b.N)*1e6/b.Elapsed().Seconds(), "items/s")
}

// NearestWithin agrees with a brute-force scan restricted to the bound.
func TestNearestWithin(t *testing.T) {
	var boxes []float64
	for i := range 50 {
		x := float64(i)
		boxes = append(boxes, x, 0, 0, x+0.5, 0.5, 0.5)
	}
	tr := Build(boxes, 3)
	p := geom.Vec{-3, 0.2, 0.2}
	d2 := func(it int32) float64 { d := float64(it) - p[0]; return d * d }
	for _, c := range []struct {
		bound float64
		want  int32
	}{{100, 0}, {9, -1}, {9.0001, 0}} {
		got, gd := tr.NearestWithin(p, c.bound, d2)
		if got != c.want || c.want < 0 && gd != c.bound {
			t.Errorf("bound %g: got %d (%g), want %d", c.bound, got, gd, c.want)
		}
	}
}

// Build's subtrees built on several cores make the tree one core makes,
// with every node count where count says (many equal centres included).
func TestBuildSameOnAllCores(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	boxes := randomBoxes(r, 5*parallelMin+17, 0.01)
	copy(boxes[6*1000:6*3000], boxes[:6*2000]) // repeated boxes: ties by item
	var trees []*Tree
	for _, procs := range []int{1, 2, 4} {
		func() {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			trees = append(trees, Build(boxes, 3))
		}()
	}
	for i, tr := range trees[1:] {
		if !slices.Equal(tr.Nodes, trees[0].Nodes) || !slices.Equal(tr.Bounds, trees[0].Bounds) || !slices.Equal(tr.Items, trees[0].Items) {
			t.Errorf("tree %d differs from the one-core tree", i+1)
		}
	}
	if got := trees[0].NumNodes(); got != 2*countLeaves(len(boxes)/6, 3)-1 {
		t.Errorf("%d nodes, want %d", got, 2*countLeaves(len(boxes)/6, 3)-1)
	}
}

// count's level-by-level sum is the node count of the tree it describes,
// counted node by node.
func TestBuildCount(t *testing.T) {
	for leaf := 1; leaf <= 9; leaf++ {
		b := builder{leaf: leaf}
		for n := 1; n <= 5000; n++ {
			if got, want := b.count(n), 2*countLeaves(n, leaf)-1; got != want {
				t.Fatalf("leaf %d, %d items: count %d, want %d", leaf, n, got, want)
			}
		}
	}
}

// countLeaves is the number of leaves of a median-split tree over n items.
func countLeaves(n, leaf int) int {
	if n <= leaf {
		return 1
	}
	return countLeaves(n/2, leaf) + countLeaves(n-n/2, leaf)
}

// BoxDist2 is the squared distance to the box's nearest point, p clamped
// to it, inside and outside and on every side.
func TestBoxDist2(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	boxes := randomBoxes(r, 500, 0.2)
	tree := Build(boxes, 1)
	for range 2000 {
		p := geom.Vec{2*r.Float64() - 0.5, 2*r.Float64() - 0.5, 2*r.Float64() - 0.5}
		for i := range int32(tree.NumNodes()) {
			b := tree.Bounds[6*i : 6*i+6]
			q := geom.Vec{max(b[0], min(b[3], p[0])), max(b[1], min(b[4], p[1])), max(b[2], min(b[5], p[2]))}
			if got, want := tree.BoxDist2(i, p), geom.Dist2(p, q); !fptest.Same(got, want, want) {
				t.Fatalf("node %d, p %v: %v, want %v", i, p, got, want)
			}
		}
	}
}
