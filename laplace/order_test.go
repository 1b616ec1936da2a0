package laplace

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// hilbertOrder returns a permutation, stable for coincident points.
func TestHilbertOrderPermutation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pos := make([]float64, 3*5000)
	for i := range pos {
		pos[i] = rng.Float64()
	}
	copy(pos[300:303], pos[30:33]) // vertex 100 coincides with vertex 10
	order := hilbertOrder(pos)
	sorted := slices.Clone(order)
	slices.Sort(sorted)
	for i, v := range sorted {
		if int(v) != i {
			t.Fatalf("not a permutation: %d at %d", v, i)
		}
	}
	if slices.Index(order, 10) > slices.Index(order, 100) {
		t.Error("coincident vertices 10 and 100 are out of input order")
	}
	if got := hilbertOrder(pos[:3]); len(got) != 1 || got[0] != 0 {
		t.Errorf("one vertex: %v", got)
	}
}
