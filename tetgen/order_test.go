package tetgen

import (
	"cmp"
	"math/rand"
	"runtime"
	"slices"
	"testing"
)

// TestHilbert3 checks the defining properties of a Hilbert curve on small
// grids: the keys are a bijection of the cells onto 0..8^bits−1, and
// cells with consecutive keys are face neighbours.
func TestHilbert3(t *testing.T) {
	for bits := 1; bits <= 5; bits++ {
		side := uint32(1) << bits
		cell := make([][3]uint32, side*side*side)
		seen := make([]bool, len(cell))
		for x := uint32(0); x < side; x++ {
			for y := uint32(0); y < side; y++ {
				for z := uint32(0); z < side; z++ {
					k := hilbert3([3]uint32{x, y, z}, bits)
					if k >= uint64(len(cell)) || seen[k] {
						t.Fatalf("bits %d: cell (%d,%d,%d) has key %d, out of range or repeated", bits, x, y, z, k)
					}
					seen[k] = true
					cell[k] = [3]uint32{x, y, z}
				}
			}
		}
		for k := 1; k < len(cell); k++ {
			d := 0
			for i := 0; i < 3; i++ {
				d += int(max(cell[k][i], cell[k-1][i]) - min(cell[k][i], cell[k-1][i]))
			}
			if d != 1 {
				t.Fatalf("bits %d: keys %d and %d at cells %v and %v, not neighbours", bits, k-1, k, cell[k-1], cell[k])
			}
		}
	}
}

// TestHilbert3Skilling checks hilbert3 on random 20-bit cells against
// Skilling's transform written out bit by bit: the same curve, so the
// same insertion order (and the same vertex numbers breaking ties).
func TestHilbert3Skilling(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	for it := 0; it < 100000; it++ {
		bits := 1 + r.Intn(20)
		var c [3]uint32
		for k := range c {
			c[k] = r.Uint32() & (1<<bits - 1)
		}
		if got, want := hilbert3(c, bits), skillingHilbert(c, bits); got != want {
			t.Fatalf("cell %v, %d bits: key %x, want %x", c, bits, got, want)
		}
	}
}

// skillingHilbert is Skilling's AxestoTranspose (2004) followed by the
// interleave of the transposed bits, one bit at a time.
func skillingHilbert(c [3]uint32, bits int) uint64 {
	x := c
	m := uint32(1) << (bits - 1)
	for q := m; q > 1; q >>= 1 {
		p := q - 1
		for i := range 3 {
			if x[i]&q != 0 {
				x[0] ^= p
			} else {
				t := (x[0] ^ x[i]) & p
				x[0] ^= t
				x[i] ^= t
			}
		}
	}
	for i := 1; i < 3; i++ {
		x[i] ^= x[i-1]
	}
	t := uint32(0)
	for q := m; q > 1; q >>= 1 {
		if x[2]&q != 0 {
			t ^= q - 1
		}
	}
	for i := range 3 {
		x[i] ^= t
	}
	var key uint64
	for b := bits - 1; b >= 0; b-- {
		for i := range 3 {
			key = key<<1 | uint64(x[i]>>b&1)
		}
	}
	return key
}

// TestBrioOrder checks that the order is a permutation of the input and
// the same whatever GOMAXPROCS is (the keys are computed in parallel).
func TestBrioOrder(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	n := 100000
	xyz := make([]float64, 3*n)
	for i := range xyz {
		xyz[i] = r.NormFloat64()
	}
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(i)
	}
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
			idx := make([]int32, n)
			for i := range idx {
				idx[i] = int32(i)
			}
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
