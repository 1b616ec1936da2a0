package laplace

import (
	"math"

	"github.com/pfmesh/pfmesh/internal/bvh"
	"github.com/pfmesh/pfmesh/internal/par"
)

// hilbertBits is the resolution of the Hilbert curve per axis. 2¹¹ cells
// per axis is finer than the vertex spacing of any mesh this package
// solves in memory; vertices that share a cell keep their input order.
const hilbertBits = 11

// hilbertOrder returns the vertices of a flat xyz array sorted along a 3D
// Hilbert curve over their bounding cube. Neighbouring vertices then get
// nearby numbers, so SpMV reads x from cache and Gauss–Seidel blocks are
// compact; a random order makes SpMV several times slower.
func hilbertOrder(positions []float64) []int32 {
	n := len(positions) / 3
	lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for i := 0; i < 3*n; i += 3 {
		for a := range 3 {
			lo[a] = min(lo[a], positions[i+a])
			hi[a] = max(hi[a], positions[i+a])
		}
	}
	extent := max(hi[0]-lo[0], hi[1]-lo[1], hi[2]-lo[2])
	scale := 0.0
	if extent > 0 {
		scale = float64(1<<hilbertBits) / extent
	}
	// Key in the high bits, vertex index in the low 31: sorting by key
	// alone with a stable sort keeps the index order within a key.
	keys := make([]uint64, n)
	par.For(n, rowChunk, func(a, b int) {
		for i := a; i < b; i++ {
			var q [3]uint32
			for k := range 3 {
				c := (positions[3*i+k] - lo[k]) * scale
				q[k] = uint32(min(max(c, 0), float64(1<<hilbertBits-1)))
			}
			keys[i] = bvh.Hilbert3(q, hilbertBits)<<31 | uint64(i)
		}
	})
	radixSortHigh(keys, 31, 3*hilbertBits)
	order := make([]int32, n)
	for i, k := range keys {
		order[i] = int32(k & (1<<31 - 1))
	}
	return order
}

// radixSortHigh stably sorts keys by bits [shift, shift+width).
func radixSortHigh(keys []uint64, shift, width int) {
	const digit = 11
	tmp := make([]uint64, len(keys))
	var count [1 << digit]int
	for s := shift; s < shift+width; s += digit {
		count = [1 << digit]int{}
		for _, k := range keys {
			count[k>>s&(1<<digit-1)]++
		}
		sum := 0
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for _, k := range keys {
			d := k >> s & (1<<digit - 1)
			tmp[count[d]] = k
			count[d]++
		}
		keys, tmp = tmp, keys
	}
	if (width+digit-1)/digit%2 == 1 {
		copy(tmp, keys) // tmp is the caller's slice after an odd number of passes
	}
}
