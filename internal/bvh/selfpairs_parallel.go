package bvh

import (
	"sync"
	"sync/atomic"
)

// SelfPairsParallel calls visit for the same pairs as SelfPairs, spread
// over workers goroutines: visit(w, a, b) runs on worker w, concurrently
// with the other workers. Which worker visits which pair varies from run
// to run, so callers keep per-worker results and combine them with an
// order-independent operation (a sum, a minimum, a sort) to stay
// deterministic. It returns when every pair has been visited.
func (t *Tree) SelfPairsParallel(workers int, visit func(w int, a, b int32)) {
	t.SelfLeafPairsParallel(workers, func(w int, a, b []int32) {
		itemPairs(func(u, v int32) bool { visit(w, u, v); return true })(a, b)
	})
}

// SelfLeafPairsParallel is SelfPairsParallel by leaves: visit(w, a, b)
// gets the items of two leaves whose boxes overlap — the same slice twice
// for a leaf with itself, whose pairs are those of distinct items — so a
// caller can load what it needs of each item once per leaf rather than
// once per pair.
func (t *Tree) SelfLeafPairsParallel(workers int, visit func(w int, a, b []int32)) {
	if len(t.Nodes) == 0 {
		return
	}
	workers = max(workers, 1)
	// Split breadth-first until there are enough tasks to balance.
	tasks := []nodePair{{0, 0}}
	for split := true; split && len(tasks) < 32*workers; {
		split = false
		next := make([]nodePair, 0, 3*len(tasks))
		for _, p := range tasks {
			switch {
			case !t.pairOverlaps(p):
			case t.Nodes[2*p.i+1] > 0 && t.Nodes[2*p.j+1] > 0:
				next = append(next, p)
			default:
				next = t.split(p, next)
				split = true
			}
		}
		tasks = next
	}
	var taken atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			stack := make([]nodePair, 0, 2*MaxDepth)
			leafVisit := func(a, b []int32) bool { visit(w, a, b); return true }
			for k := taken.Add(1) - 1; k < int64(len(tasks)); k = taken.Add(1) - 1 {
				t.selfPairs(append(stack[:0], tasks[k]), leafVisit)
			}
		})
	}
	wg.Wait()
}
