package format

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// pfmFirstError runs check over [0, n) in chunks of a fixed size on up to
// GOMAXPROCS goroutines and returns the lowest failing chunk's error. Each
// chunk reports its own first failure, so the result is the first failure
// in index order whatever the number of goroutines.
func pfmFirstError(n, chunk int, check func(lo, hi int) error) error {
	chunks := (n + chunk - 1) / chunk
	if chunks <= 1 {
		return check(0, n)
	}
	errs := make([]error, chunks)
	var next atomic.Int64
	var failed atomic.Int64 // lowest failed chunk + 1, or 0: later chunks need not run
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), chunks) {
		wg.Go(func() {
			for {
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				if f := failed.Load(); f != 0 && int(f) <= c {
					continue
				}
				if errs[c] = check(c*chunk, min(n, (c+1)*chunk)); errs[c] != nil {
					for f := failed.Load(); f == 0 || int(f) > c+1; f = failed.Load() {
						if failed.CompareAndSwap(f, int64(c+1)) {
							break
						}
					}
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
