package format

import (
	"runtime"
	"sync"
)

// forRanges splits [0, n) into one contiguous range per processor and
// runs f on each concurrently, chunk c getting [lo, hi). The ranges are
// fixed by n and GOMAXPROCS alone; callers that write only inside their
// range, or keep per-chunk results and merge them in chunk order, get the
// same output whatever the schedule.
func forRanges(n int, f func(c, lo, hi int)) {
	chunks := max(1, min(runtime.GOMAXPROCS(0), n/4096))
	var wg sync.WaitGroup
	for c := range chunks {
		wg.Go(func() { f(c, c*n/chunks, (c+1)*n/chunks) })
	}
	wg.Wait()
}
