package laplace

import (
	"testing"
	"time"

	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// benchLimited runs Solve and SolveLimited on m as two sub-benchmarks, so
// that their CPU times (cpu-s) can be compared in one run; SolveLimited's
// report adds its corrections and the edges it limits.
func benchLimited(b *testing.B, m *tetmesh.Mesh) {
	b.Run("solve", func(b *testing.B) {
		var f *Field
		cpu0 := cpuTime()
		for b.Loop() {
			var err error
			if f, err = Solve(m, Options{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s")
		b.ReportMetric(float64(f.Iterations), "iters")
		outside := 0
		for _, e := range f.Epsilon {
			if e < 0 || e > 1 {
				outside++
			}
		}
		b.ReportMetric(float64(outside), "outside")
		b.ReportMetric(float64(m.NumVertices()), "vertices")
	})
	b.Run("limited", func(b *testing.B) {
		var f *LimitedField
		var asm, setup, solve time.Duration
		cpu0 := cpuTime()
		for b.Loop() {
			var err error
			if f, err = SolveLimited(m, Options{}); err != nil {
				b.Fatal(err)
			}
			asm, setup, solve = asm+f.AssembleTime, setup+f.SetupTime, solve+f.SolveTime
		}
		k := float64(b.N)
		b.ReportMetric((cpuTime()-cpu0).Seconds()/k, "cpu-s")
		b.ReportMetric(float64(f.Iterations), "iters")
		b.ReportMetric(float64(f.Corrections), "corrections")
		b.ReportMetric(float64(f.FluxEdges), "flux-edges")
		b.ReportMetric(float64(f.LimitedEdges), "limited-edges")
		b.ReportMetric(asm.Seconds()/k, "assemble-s")
		b.ReportMetric(setup.Seconds()/k, "setup-s")
		b.ReportMetric(solve.Seconds()/k, "solve-s")
	})
}

// BenchmarkSolveLimited compares SolveLimited with Solve on BenchmarkSolve's
// jittered cubes.
func BenchmarkSolveLimited(b *testing.B) {
	sizes := []int{1e5, 1e6}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, n := range sizes {
		b.Run("n="+sizeName(n), func(b *testing.B) { benchLimited(b, benchMesh(n)) })
	}
}
