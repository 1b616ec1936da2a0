package stuffing

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// parallelFor runs body over [0, n) in chunks fixed by n alone, on up to
// GOMAXPROCS goroutines. Bodies write only to their own indices, so the
// result never depends on the schedule.
func parallelFor(n int, body func(lo, hi int)) { parallelChunks(n, 256, body) }

// parallelChunks is parallelFor with chunks of the given size, for bodies
// heavy enough that fewer than 256 items are worth sharing out.
func parallelChunks(n, chunk int, body func(lo, hi int)) {
	if n <= chunk {
		body(0, n)
		return
	}
	workers := min(runtime.GOMAXPROCS(0), (n+chunk-1)/chunk)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				lo := int(next.Add(int64(chunk))) - chunk
				if lo >= n {
					return
				}
				body(lo, min(lo+chunk, n))
			}
		}()
	}
	wg.Wait()
}
