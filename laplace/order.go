package laplace

import (
	"math"

	"github.com/pfmesh/pfmesh/internal/bvh"
	"github.com/pfmesh/pfmesh/internal/par"
	"github.com/pfmesh/pfmesh/internal/radix"
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
	keys, order := make([]uint64, n), make([]int32, n)
	par.For(n, rowChunk, func(a, b int) {
		for i := a; i < b; i++ {
			var q [3]uint32
			for k := range 3 {
				c := (positions[3*i+k] - lo[k]) * scale
				q[k] = uint32(min(max(c, 0), float64(1<<hilbertBits-1)))
			}
			keys[i], order[i] = bvh.Hilbert3(q, hilbertBits), int32(i)
		}
	})
	radix.Sort(keys, order) // stable: vertices in a cell in input order
	return order
}
