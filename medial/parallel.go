package medial

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// chunk is the number of items one task covers. Every item's result is
// written to its own slot and depends only on the item, so the output is
// the same whatever GOMAXPROCS is.
const chunk = 256

// forEach calls fn(i) for every i in [0, n), in parallel.
func forEach(n int, fn func(i int)) {
	chunks := (n + chunk - 1) / chunk
	workers := min(runtime.GOMAXPROCS(0), chunks)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				for i := c * chunk; i < min((c+1)*chunk, n); i++ {
					fn(i)
				}
			}
		}()
	}
	wg.Wait()
}
