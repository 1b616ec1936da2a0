package laplace

import (
	"runtime"
	"sync"
	"sync/atomic"
)

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
	// maxScratchWorkers bounds the goroutines of one parallel loop, and so
	// the scratch they allocate (dense rows of a matrix's width each).
	maxScratchWorkers = 16
)

// forChunks calls fn(lo, hi) for the consecutive ranges of [0, n) of the
// given size, in parallel when there is more than one.
func forChunks(n, size int, fn func(lo, hi int)) {
	forChunksWith(n, size, func() struct{} { return struct{}{} }, func(_ struct{}, lo, hi int) { fn(lo, hi) })
}

// forChunksWith is forChunks with per-goroutine scratch state: each
// goroutine calls init once and passes the result to every chunk it runs.
// Results must not depend on which goroutine ran a chunk. Scratch may be as
// large as a matrix dimension, so at most maxScratchWorkers goroutines run.
func forChunksWith[S any](n, size int, init func() S, fn func(s S, lo, hi int)) {
	chunks := (n + size - 1) / size
	workers := min(runtime.GOMAXPROCS(0), chunks, maxScratchWorkers)
	if workers <= 1 {
		if chunks > 0 {
			s := init()
			for lo := 0; lo < n; lo += size {
				fn(s, lo, min(lo+size, n))
			}
		}
		return
	}
	var next atomic.Int64
	work := func() {
		s := init()
		for {
			c := int(next.Add(1) - 1)
			if c >= chunks {
				return
			}
			lo := c * size
			fn(s, lo, min(lo+size, n))
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
}

// sumChunks returns the sum over the rowChunk-sized chunks of [0, n) of
// fn(lo, hi), adding the chunks' results in index order. partial is
// scratch of at least numChunks(n) elements.
func sumChunks(n int, partial []float64, fn func(lo, hi int) float64) float64 {
	forChunks(n, rowChunk, func(lo, hi int) { partial[lo/rowChunk] = fn(lo, hi) })
	var s float64
	for _, p := range partial[:numChunks(n)] {
		s += p
	}
	return s
}

// numChunks returns the number of rowChunk-sized chunks covering n.
func numChunks(n int) int { return (n + rowChunk - 1) / rowChunk }
