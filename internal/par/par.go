// Package par runs loops over an index range on several goroutines.
//
// The range is cut into chunks whose size the caller fixes; it never
// depends on the machine. A loop whose chunks each write only their own
// results, doing the same arithmetic whichever goroutine runs them, gives
// the same result whatever GOMAXPROCS is, which is how pfmesh keeps its
// output byte-identical across core counts.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// MaxStateWorkers bounds the goroutines of ForWith, and so the state they
// hold: per-goroutine scratch is often as large as a matrix dimension.
const MaxStateWorkers = 16

// For calls fn(lo, hi) for the consecutive ranges of [0, n) of the given
// size (the last may be shorter), on up to GOMAXPROCS goroutines. A single
// chunk runs on the calling goroutine.
func For(n, size int, fn func(lo, hi int)) {
	run(n, size, runtime.GOMAXPROCS(0), func() func(lo, hi int) { return fn })
}

// Each calls fn(i) for every i in [0, n), in chunks of the given size
// spread as For spreads them.
func Each(n, size int, fn func(i int)) {
	For(n, size, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			fn(i)
		}
	})
}

// ForWith is For with per-goroutine state: each goroutine calls init once
// and passes the result to every chunk it runs. Results must not depend on
// which goroutine ran a chunk. At most MaxStateWorkers goroutines run.
func ForWith[S any](n, size int, init func() S, fn func(s S, lo, hi int)) {
	run(n, size, min(runtime.GOMAXPROCS(0), MaxStateWorkers), func() func(lo, hi int) {
		s := init()
		return func(lo, hi int) { fn(s, lo, hi) }
	})
}

// run hands the chunks out, one at a time, to up to workers goroutines,
// each of which gets its chunk function from worker once.
func run(n, size, workers int, worker func() func(lo, hi int)) {
	if n <= 0 {
		return
	}
	if size < 1 {
		size = 1
	}
	chunks := (n + size - 1) / size
	workers = min(workers, chunks)
	if workers <= 1 {
		fn := worker()
		for lo := 0; lo < n; lo += size {
			fn(lo, min(lo+size, n))
		}
		return
	}
	var next atomic.Int64
	work := func() {
		fn := worker()
		for {
			c := int(next.Add(1) - 1)
			if c >= chunks {
				return
			}
			lo := c * size
			fn(lo, min(lo+size, n))
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
}
