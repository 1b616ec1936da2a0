package tetgen

import (
	"math/rand"
	"runtime"
	"slices"
	"testing"
)

// TestBrioOrder checks that the order is a permutation of the input and
// the same whatever GOMAXPROCS is (the keys are computed in parallel).
func TestBrioOrder(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	n := 100000
	xyz := make([]float64, 3*n)
	for i := range xyz {
		xyz[i] = r.NormFloat64()
	}
	idx := indices(n)
	var first []int32
	for _, procs := range []int{1, 2, 4} {
		old := runtime.GOMAXPROCS(procs)
		got := brioOrder(xyz, idx)
		runtime.GOMAXPROCS(old)
		if first == nil {
			first = got
			sorted := slices.Clone(got)
			slices.Sort(sorted)
			if !slices.Equal(sorted, idx) {
				t.Fatal("brioOrder is not a permutation")
			}
		} else if !slices.Equal(got, first) {
			t.Fatalf("GOMAXPROCS %d: order differs", procs)
		}
	}
}
