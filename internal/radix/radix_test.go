package radix

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// Sort against a stable comparison sort, on keys with many repeats
// (stability) and digits that are the same in every key in some passes,
// at sizes below and above a block, whatever GOMAXPROCS is.
func TestSortMatchesStableSort(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{0, 1, 7, 1000, 4*blockMin + 3} {
		for _, mask := range []uint64{0xFF, 0xFFFF0000FFFF, ^uint64(0)} {
			keys := make([]uint64, n)
			for i := range keys {
				keys[i] = r.Uint64() & mask
				if i > 0 && r.IntN(4) == 0 {
					keys[i] = keys[r.IntN(i)]
				}
			}
			want := indices(n)
			slices.SortStableFunc(want, func(a, b int32) int { return cmp.Compare(keys[a], keys[b]) })
			for _, procs := range []int{1, 2, 4} {
				k, v := slices.Clone(keys), indices(n)
				func() {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
					Sort(k, v)
				}()
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

func indices(n int) []int32 {
	v := make([]int32, n)
	for i := range v {
		v[i] = int32(i)
	}
	return v
}

func ExampleSort() {
	keys := []uint64{30, 10, 20, 10}
	vals := []int32{0, 1, 2, 3}
	Sort(keys, vals)
	fmt.Println(keys, vals)
	// Output: [10 10 20 30] [1 3 2 0]
}

// BenchmarkSort sorts the face keys of a million tets' worth: 4M random
// 63-bit keys.
func BenchmarkSort(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	keys := make([]uint64, 4<<20)
	for i := range keys {
		keys[i] = r.Uint64() >> 1
	}
	k, v := make([]uint64, len(keys)), make([]int32, len(keys))
	for b.Loop() {
		copy(k, keys)
		Sort(k, v)
	}
}
