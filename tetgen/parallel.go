package tetgen

import (
	"runtime"
	"sync"
)

// workRanges splits [0, n) into contiguous ranges: one per GOMAXPROCS when
// n is large enough for goroutines to pay, else one.
func workRanges(n int) [][2]int {
	w := runtime.GOMAXPROCS(0)
	if n < 1<<15 {
		w = 1
	}
	r := make([][2]int, w)
	for j := range r {
		r[j] = [2]int{j * n / w, (j + 1) * n / w}
	}
	return r
}

// runRanges calls f(i, from, to) for every range i concurrently and waits.
// Each call must write only what belongs to its range: the result is then
// the same whatever GOMAXPROCS is.
func runRanges(r [][2]int, f func(i, from, to int)) {
	if len(r) == 1 {
		f(0, r[0][0], r[0][1])
		return
	}
	var wg sync.WaitGroup
	for i, x := range r {
		wg.Go(func() { f(i, x[0], x[1]) })
	}
	wg.Wait()
}
