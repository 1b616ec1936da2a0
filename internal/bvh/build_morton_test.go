package bvh

import (
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"
)

// BuildMorton's tree must be valid — every item in one leaf of at most
// leafSize, boxes containing their items' and children's, depth within
// the stated bound — the same whatever GOMAXPROCS, and answer queries as
// brute force does.
func TestBuildMorton(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	for _, n := range []int{1, 2, 3, 7, 100, 1000, 70000} {
		for _, leaf := range []int{1, 4, 5} {
			boxes := randomBoxes(r, n, 0.01)
			for i := 0; i < n; i += 3 { // ties on a coarse lattice
				for k := range 3 {
					c := float64(r.Intn(5)-2) * 0.25
					boxes[6*i+k], boxes[6*i+3+k] = c-0.1, c+0.1
				}
			}
			if n > 50 { // a far outlier squeezes the rest into few codes
				boxes[0], boxes[3] = 1e6, 1e6+1
			}
			var first *Tree
			for _, procs := range []int{1, 4} {
				old := runtime.GOMAXPROCS(procs)
				got := BuildMorton(boxes, leaf)
				runtime.GOMAXPROCS(old)
				name := fmt.Sprintf("n=%d leaf=%d procs=%d", n, leaf, procs)
				if first == nil {
					first = got
				} else if !slices.Equal(got.Nodes, first.Nodes) || !slices.Equal(got.Bounds, first.Bounds) || !slices.Equal(got.Items, first.Items) {
					t.Fatalf("%s: differs from the GOMAXPROCS=1 tree", name)
				}
				depth := checkTree(t, name, got, boxes, leaf)
				if bound := math.Log(float64(n)/float64(leaf))/math.Log(1.5) + 1; float64(depth) > max(bound, 1) {
					t.Fatalf("%s: depth %d above the bound %.1f", name, depth, bound)
				}
			}
			if n == 1000 {
				for q := 0; q < 100; q++ {
					qb := randomBoxes(r, 1, 0.1)
					got := map[int32]bool{}
					first.Query([6]float64(qb), func(it int32) bool { got[it] = true; return true })
					for i := range int32(n) {
						if boxesMeet(boxes[6*i:6*i+6], qb) && !got[i] {
							t.Fatalf("leaf %d query %d: item %d missed", leaf, q, i)
						}
					}
				}
			}
		}
	}
}

// checkTree checks that every item is in exactly one leaf of at most leaf
// items and that every box contains its items' or its children's; it
// returns the depth.
func checkTree(t *testing.T, name string, tr *Tree, boxes []float64, leaf int) int {
	t.Helper()
	n := len(boxes) / 6
	seen := make([]bool, n)
	depth := make([]int, tr.NumNodes())
	deepest := 0
	contains := func(o, in []float64) bool {
		return o[0] <= in[0] && o[1] <= in[1] && o[2] <= in[2] && o[3] >= in[3] && o[4] >= in[4] && o[5] >= in[5]
	}
	for i := int32(0); int(i) < tr.NumNodes(); i++ {
		f, c := tr.Nodes[2*i], tr.Nodes[2*i+1]
		box := tr.Bounds[6*i : 6*i+6]
		deepest = max(deepest, depth[i])
		if c == 0 {
			if !contains(box, tr.Bounds[6*(i+1):6*(i+1)+6]) || !contains(box, tr.Bounds[6*f:6*f+6]) {
				t.Fatalf("%s: node %d does not contain its children", name, i)
			}
			depth[i+1], depth[f] = depth[i]+1, depth[i]+1
			continue
		}
		if int(c) > leaf {
			t.Fatalf("%s: leaf %d holds %d items", name, i, c)
		}
		for _, it := range tr.Items[f : f+c] {
			if seen[it] || !contains(box, boxes[6*it:6*it+6]) {
				t.Fatalf("%s: item %d repeated or outside leaf %d", name, it, i)
			}
			seen[it] = true
		}
	}
	for i, s := range seen {
		if !s {
			t.Fatalf("%s: item %d in no leaf", name, i)
		}
	}
	return deepest
}

// processCPU returns the CPU time used by the process: on a shared, loaded
// machine it measures the work done, where wall time also counts waits.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkBuilds compares Build and BuildMorton by size. Besides wall
// time it reports items per second of process CPU time (with procs=1 the
// rate of one idle core).
func BenchmarkBuilds(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		boxes := randomBoxes(rand.New(rand.NewSource(5)), n, 0.001)
		for _, c := range []struct {
			name  string
			build func([]float64, int) *Tree
			procs int
		}{{"Build", Build, 1}, {"BuildMorton", BuildMorton, 1}, {"BuildMorton", BuildMorton, 2}} {
			b.Run(fmt.Sprintf("%s/n=%d/procs=%d", c.name, n, c.procs), func(b *testing.B) {
				old := runtime.GOMAXPROCS(c.procs)
				defer runtime.GOMAXPROCS(old)
				cpu := processCPU()
				for b.Loop() {
					c.build(boxes, 4)
				}
				b.ReportMetric(float64(n)*float64(b.N)/(processCPU()-cpu).Seconds(), "items/cpu-s")
			})
		}
	}
}
