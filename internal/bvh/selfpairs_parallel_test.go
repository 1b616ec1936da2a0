package bvh

import (
	"cmp"
	"math/rand"
	"slices"
	"testing"
)

// The parallel traversal visits exactly the pairs SelfPairs does, each once.
func TestSelfPairsParallelMatchesSerial(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for _, n := range []int{0, 1, 7, 3000} {
		tree := Build(randomBoxes(r, n, 0.03), 4)
		var want [][2]int32
		tree.SelfPairs(func(a, b int32) bool { want = append(want, [2]int32{a, b}); return true })
		for _, workers := range []int{1, 2, 5} {
			got := make([][][2]int32, workers)
			tree.SelfPairsParallel(workers, func(w int, a, b int32) { got[w] = append(got[w], [2]int32{a, b}) })
			all := slices.Concat(got...)
			order := func(x, y [2]int32) int { return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1])) }
			slices.SortFunc(all, order)
			w := slices.Clone(want)
			slices.SortFunc(w, order)
			if !slices.Equal(all, w) {
				t.Fatalf("n=%d workers=%d: %d pairs, serial %d", n, workers, len(all), len(w))
			}
		}
	}
}
