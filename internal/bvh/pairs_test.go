package bvh

import (
	"math"
	"math/rand"
	"testing"
)

// leafOf returns, per item, the leaf holding it.
func leafOf(t *Tree) []int32 {
	out := make([]int32, len(t.Items))
	for i := 0; i < len(t.Nodes); i += 2 {
		if c := t.Nodes[i+1]; c > 0 {
			for _, it := range t.Items[t.Nodes[i] : t.Nodes[i]+c] {
				out[it] = int32(i / 2)
			}
		}
	}
	return out
}

// With overlap the box test of u's boxes shifted by d, every item pair
// whose shifted boxes meet must lie in a visited leaf pair (brute force is
// the reference), and no leaf pair is visited twice.
func TestLeafPairsMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	for _, leaf := range []int{1, 3, 8} {
		for trial := 0; trial < 4; trial++ {
			ba, bb := randomBoxes(r, 600, 0.03), randomBoxes(r, 500, 0.03)
			ta, tb := Build(ba, leaf), BuildMorton(bb, leaf)
			d := [3]float64{0.3 * r.Float64(), -0.2 * r.Float64(), 0.1}
			shifted := func(b []float64) []float64 {
				return []float64{b[0] + d[0], b[1] + d[1], b[2] + d[2], b[3] + d[0], b[4] + d[1], b[5] + d[2]}
			}
			var s PairScratch
			seen := map[[2]int32]bool{}
			ta.LeafPairs(tb, &s, func(i, j int32) bool {
				return boxesMeet(ta.Bounds[6*i:6*i+6], shifted(tb.Bounds[6*j:6*j+6]))
			}, func(i, j int32) bool {
				if seen[[2]int32{i, j}] {
					t.Fatalf("leaf pair (%d, %d) visited twice", i, j)
				}
				seen[[2]int32{i, j}] = true
				return true
			})
			la, lb := leafOf(ta), leafOf(tb)
			want := 0
			for i := range int32(600) {
				for j := range int32(500) {
					if boxesMeet(ba[6*i:6*i+6], shifted(bb[6*j:6*j+6])) {
						want++
						if !seen[[2]int32{la[i], lb[j]}] {
							t.Fatalf("leaf %d: overlapping items (%d, %d) in an unvisited leaf pair", leaf, i, j)
						}
					}
				}
			}
			if want == 0 {
				t.Fatal("test has no overlapping pairs")
			}
		}
	}
}

func TestLeafPairsStopsAndEmpty(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	ta := Build(randomBoxes(r, 100, 0.2), 2)
	all := func(i, j int32) bool { return true }
	var s PairScratch
	n := 0
	ta.LeafPairs(ta, &s, all, func(a, b int32) bool { n++; return n < 5 })
	if n != 5 {
		t.Fatalf("visit called %d times after returning false at 5", n)
	}
	Build(nil, 1).LeafPairs(ta, &s, all, func(a, b int32) bool { t.Fatal("empty tree visited"); return false })
}

func TestPlaneItemsMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	boxes := randomBoxes(r, 3000, 0.02)
	tree := Build(boxes, 4)
	var s PairScratch
	for q := 0; q < 100; q++ {
		n := [3]float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
		d := -(n[0] + n[1] + n[2]) * r.Float64()
		got := map[int32]bool{}
		tree.PlaneItems(n, d, &s, func(it int32) bool { got[it] = true; return true })
		for i := range int32(3000) {
			b := boxes[6*i : 6*i+6]
			lo, hi := math.Inf(1), math.Inf(-1)
			for c := range 8 {
				v := d
				for k := range 3 {
					v += n[k] * b[k+3*((c>>k)&1)]
				}
				lo, hi = min(lo, v), max(hi, v)
			}
			if lo <= 0 && 0 <= hi && !got[i] {
				t.Fatalf("query %d: box %d straddles the plane, not reported", q, i)
			}
		}
	}
}
