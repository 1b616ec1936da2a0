package bvh

import (
	"math"
	"math/rand"
	"slices"
	"testing"
)

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
// one item a level; BuildMorton's fallback keeps the depth bounded.
func TestBuildMortonDepth(t *testing.T) {
	var pos []float64
	var tris []int32
	for k := range 3000 {
		x := math.Ldexp(1, -k%1000) + float64(k/1000)
		for _, d := range [3][3]float64{{0, 0, 0}, {1e-9, 0, 0}, {0, 1e-9, 0}} {
			tris = append(tris, int32(len(pos)/3))
			pos = append(pos, x+d[0], d[1], d[2])
		}
	}
	tree := BuildMorton(TriangleBoxes(pos, tris), 1)
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
}
