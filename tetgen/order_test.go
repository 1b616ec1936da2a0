package tetgen

import (
	"cmp"
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

// TestRadixSort checks radixSort against a stable comparison sort, on
// keys with many repeats (stability) and digits that are all equal in
// some passes, whatever GOMAXPROCS is.
func TestRadixSort(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for _, n := range []int{1, 7, 1000, 100000} {
		for _, mask := range []uint64{0xFF, 0xFFFF0000FFFF, ^uint64(0)} {
			keys := make([]uint64, n)
			for i := range keys {
				keys[i] = r.Uint64() & mask
				if i > 0 && r.Intn(4) == 0 {
					keys[i] = keys[r.Intn(i)]
				}
			}
			idx := indices(n)
			want := slices.Clone(idx)
			slices.SortStableFunc(want, func(a, b int32) int { return cmp.Compare(keys[a], keys[b]) })
			for _, procs := range []int{1, 2, 4} {
				old := runtime.GOMAXPROCS(procs)
				k, v := slices.Clone(keys), slices.Clone(idx)
				radixSort(k, v)
				runtime.GOMAXPROCS(old)
				if !slices.Equal(v, want) {
					t.Fatalf("n %d, mask %x, GOMAXPROCS %d: order differs from a stable sort", n, mask, procs)
				}
				for i := range k {
					if k[i] != keys[v[i]] {
						t.Fatalf("n %d, mask %x, GOMAXPROCS %d: key %d does not follow its value", n, mask, procs, i)
					}
				}
			}
		}
	}
}
