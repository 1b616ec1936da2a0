package laplace

import "github.com/pfmesh/pfmesh/internal/par"

// Parallel work is cut into chunks whose size is fixed in advance and never
// derived from GOMAXPROCS. Every chunk does the same arithmetic in the same
// order whichever goroutine runs it, and reductions add the chunks' partial
// results in chunk order, so results are bit-identical on any machine.
const (
	// rowChunk is the number of rows (or vector elements) one task covers.
	rowChunk = 4096
	// gsBlock is the number of rows of one block of a symMatrix, and so
	// of one Gauss–Seidel block: within a block the smoother sweeps
	// sequentially, between blocks it is Jacobi. It is the row chunk, so
	// that reductions over a matrix's blocks and over vector chunks agree.
	gsBlock = rowChunk
)

// sumChunks returns the sum over the rowChunk-sized chunks of [0, n) of
// fn(lo, hi), adding the chunks' results in index order. partial is
// scratch of at least numChunks(n) elements.
func sumChunks(n int, partial []float64, fn func(lo, hi int) float64) float64 {
	par.For(n, rowChunk, func(lo, hi int) { partial[lo/rowChunk] = fn(lo, hi) })
	return sumPartials(n, partial)
}

// sumPartials adds the partial sums of an n-element reduction's chunks in
// order.
func sumPartials(n int, partial []float64) float64 {
	var s float64
	for _, p := range partial[:numChunks(n)] {
		s += p
	}
	return s
}

// numChunks returns the number of rowChunk-sized chunks covering n.
func numChunks(n int) int { return (n + rowChunk - 1) / rowChunk }
