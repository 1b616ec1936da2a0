package bvh

import (
	"math"
	"testing"
)

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
