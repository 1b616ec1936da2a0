package contact

import (
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// threadCPU returns the CPU time used by the calling OS thread: on a shared,
// loaded machine it measures the work done, where wall time also counts the
// waits for a core.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	const rusageThread = 1 // RUSAGE_THREAD (Linux)
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loopCPU runs f in b.Loop on a locked thread and reports its thread CPU
// time per op.
func loopCPU(b *testing.B, f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := threadCPU()
	n := 0
	for b.Loop() {
		f()
		n++
	}
	b.ReportMetric(float64(threadCPU()-start)/float64(n), "cpu-ns/op")
}

// BenchmarkSpheres is the case: two compliant balls of radius 3 with
// about 4k tets each, overlapping by 1; surface and wrench per op.
func BenchmarkSpheres(b *testing.B) {
	for _, c := range []struct{ level, shells int }{{2, 5}} {
		a := sphereBody(b, 3, c.level, c.shells, Material{Modulus: 1e6})
		o := sphereBody(b, 3, c.level, c.shells, Material{Modulus: 1e6})
		for _, rot := range []float64{0, 0.3} {
			b.Run(fmt.Sprintf("tets=%d/rot=%g", a.NumElements(), rot), func(b *testing.B) {
				e := NewEvaluator(Options{})
				cfg := static(Identity(), PoseFromRPY(5, 0, 0, rot/3, 2*rot/3, rot))
				r := mustEval(b, e, a, o, cfg)
				b.ReportAllocs()
				loopCPU(b, func() { e.Evaluate(a, o, cfg) })
				b.ReportMetric(float64(r.Polygons), "polygons")
				b.ReportMetric(float64(r.Candidates), "pairs")
			})
		}
	}
}
