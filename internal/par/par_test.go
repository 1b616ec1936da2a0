package par

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
)

// TestForCoversOnce checks that every index is visited exactly once, in
// chunks of the given size, whatever GOMAXPROCS is.
func TestForCoversOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2, 4} {
		runtime.GOMAXPROCS(procs)
		for _, tc := range []struct{ n, size int }{{0, 4}, {1, 4}, {4, 4}, {5, 4}, {1000, 7}, {1000, 1}, {3, 0}} {
			hits := make([]int32, tc.n)
			For(tc.n, tc.size, func(lo, hi int) {
				if want := max(tc.size, 1); hi-lo > want || (hi < tc.n && hi-lo != want) || lo%want != 0 {
					t.Errorf("GOMAXPROCS=%d n=%d size=%d: chunk [%d, %d)", procs, tc.n, tc.size, lo, hi)
				}
				for i := lo; i < hi; i++ {
					atomic.AddInt32(&hits[i], 1)
				}
			})
			for i, h := range hits {
				if h != 1 {
					t.Fatalf("GOMAXPROCS=%d n=%d size=%d: index %d visited %d times", procs, tc.n, tc.size, i, h)
				}
			}
		}
	}
}

func TestEach(t *testing.T) {
	hits := make([]int32, 777)
	Each(len(hits), 10, func(i int) { atomic.AddInt32(&hits[i], 1) })
	for i, h := range hits {
		if h != 1 {
			t.Fatalf("index %d visited %d times", i, h)
		}
	}
}

// TestForWithState checks that each goroutine makes its state once, that no
// more than MaxStateWorkers states exist, and that every chunk runs.
func TestForWithState(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 3, 64} {
		runtime.GOMAXPROCS(procs)
		var inits, sum atomic.Int64
		type state struct{ chunks int }
		ForWith(10000, 10, func() *state { inits.Add(1); return &state{} }, func(s *state, lo, hi int) {
			s.chunks++
			for i := lo; i < hi; i++ {
				sum.Add(int64(i))
			}
		})
		if n := inits.Load(); n < 1 || n > int64(min(procs, MaxStateWorkers)) {
			t.Errorf("GOMAXPROCS=%d: %d states", procs, n)
		}
		if want := int64(10000 * 9999 / 2); sum.Load() != want {
			t.Errorf("GOMAXPROCS=%d: sum %d, want %d", procs, sum.Load(), want)
		}
	}
}

func ExampleFor() {
	// Squares of 0..9, two at a time; each chunk writes its own indices.
	sq := make([]int, 10)
	For(len(sq), 2, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			sq[i] = i * i
		}
	})
	fmt.Println(sq)
	// Output: [0 1 4 9 16 25 36 49 64 81]
}
