package bvh

import (
	"math"
	"math/rand"
	"slices"
	"testing"
)

// randomTriangles returns n small random triangles in the unit cube over
// their own vertices, plus a few exact duplicates (equal centroids).
func randomTriangles(r *rand.Rand, n int) ([]float64, []int32) {
	var pos []float64
	var tris []int32
	for i := range n {
		if i%50 == 7 { // a duplicate of the previous triangle
			tris = append(tris, tris[len(tris)-3:]...)
			continue
		}
		c := [3]float64{r.Float64(), r.Float64(), r.Float64()}
		for range 3 {
			tris = append(tris, int32(len(pos)/3))
			pos = append(pos, c[0]+0.02*r.Float64(), c[1]+0.02*r.Float64(), c[2]+0.02*r.Float64())
		}
	}
	return pos, tris
}

// A Morton-ordered tree holds every triangle in exactly one leaf, each
// node's box contains its triangles, and queries and self-pairs find
// exactly what brute force over the triangles' boxes finds.
func TestBuildTrianglesMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	for _, n := range []int{1, 2, 5, 1000} {
		pos, tris := randomTriangles(r, n)
		boxes := TriangleBoxes(pos, tris)
		for _, leaf := range []int{1, 4} {
			tree := BuildTriangles(pos, tris, leaf)
			items := slices.Clone(tree.Items)
			slices.Sort(items)
			for i, it := range items {
				if it != int32(i) {
					t.Fatalf("n=%d leaf=%d: items are not a permutation", n, leaf)
				}
			}
			checkBoxes(t, tree, boxes)
			var got [][2]int32
			tree.SelfPairs(func(a, b int32) bool {
				if boxesMeet(boxes[6*a:6*a+6], boxes[6*b:6*b+6]) {
					got = append(got, [2]int32{a, b})
				}
				return true
			})
			var want [][2]int32
			for a := range n {
				for b := a + 1; b < n; b++ {
					if boxesMeet(boxes[6*a:6*a+6], boxes[6*b:6*b+6]) {
						want = append(want, [2]int32{int32(a), int32(b)})
					}
				}
			}
			slices.SortFunc(got, func(x, y [2]int32) int {
				if x[0] != y[0] {
					return int(x[0] - y[0])
				}
				return int(x[1] - y[1])
			})
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d leaf=%d: %d overlapping pairs, brute force %d", n, leaf, len(got), len(want))
			}
		}
	}
}

// checkBoxes verifies that every node's box contains the boxes of the
// items below it, walking the depth-first layout.
func checkBoxes(t *testing.T, tree *Tree, boxes []float64) {
	t.Helper()
	var walk func(i int32) []int32
	walk = func(i int32) []int32 {
		first, count := tree.Nodes[2*i], tree.Nodes[2*i+1]
		var items []int32
		if count > 0 {
			items = tree.Items[first : first+count]
		} else {
			items = append(walk(i+1), walk(first)...)
		}
		nb := tree.Bounds[6*i : 6*i+6]
		for _, it := range items {
			b := boxes[6*it : 6*it+6]
			for k := range 3 {
				if b[k] < nb[k] || b[3+k] > nb[3+k] {
					t.Fatalf("node %d box %v does not contain item %d box %v", i, nb, it, b)
				}
			}
		}
		return items
	}
	if got := walk(0); len(got) != len(tree.Items) {
		t.Fatalf("tree reaches %d of %d items", len(got), len(tree.Items))
	}
}

func TestRadixSortStable(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	keys := make([]uint64, 5000)
	items := make([]int32, len(keys))
	for i := range keys {
		keys[i] = uint64(r.Intn(300)) << uint(8*r.Intn(8))
		items[i] = int32(i)
	}
	type kv struct {
		k uint64
		i int32
	}
	want := make([]kv, len(keys))
	for i := range keys {
		want[i] = kv{keys[i], items[i]}
	}
	slices.SortStableFunc(want, func(a, b kv) int {
		switch {
		case a.k < b.k:
			return -1
		case a.k > b.k:
			return 1
		}
		return 0
	})
	radixSort(keys, items)
	for i := range want {
		if keys[i] != want[i].k || items[i] != want[i].i {
			t.Fatalf("position %d: (%d, %d), want %v", i, keys[i], items[i], want[i])
		}
	}
}

// Points clustered at every scale (x = 2⁻ᵏ) make octree splits peel off
// one triangle a level; the midpoint fallback keeps the depth bounded.
func TestBuildTrianglesDepth(t *testing.T) {
	var pos []float64
	var tris []int32
	for k := range 3000 {
		x := math.Ldexp(1, -k%1000) + float64(k/1000)
		for _, d := range [3][3]float64{{0, 0, 0}, {1e-9, 0, 0}, {0, 1e-9, 0}} {
			tris = append(tris, int32(len(pos)/3))
			pos = append(pos, x+d[0], d[1], d[2])
		}
	}
	tree := BuildTriangles(pos, tris, 1)
	var depth func(i int32) int
	depth = func(i int32) int {
		if tree.Nodes[2*i+1] > 0 {
			return 1
		}
		return 1 + max(depth(i+1), depth(tree.Nodes[2*i]))
	}
	if d := depth(0); d > MaxDepth {
		t.Fatalf("depth %d exceeds MaxDepth %d", d, MaxDepth)
	}
	checkBoxes(t, tree, TriangleBoxes(pos, tris))
}
