package laplace

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// benchMesh returns a jittered Kuhn cube with about n vertices (6 tets
// per vertex, 14 neighbours per vertex as in an unstructured mesh).
func benchMesh(n int) *tetmesh.Mesh {
	k := 1
	for (k+2)*(k+2)*(k+2) <= n {
		k++
	}
	return jitteredCube(k, 0.3, 1)
}

// BenchmarkAssemble times the vertex ordering and stiffness assembly.
func BenchmarkAssemble(b *testing.B) {
	for _, nt := range []int{1e5, 1e6} {
		m := benchMesh(nt / 6)
		b.Run("tets="+sizeName(nt), func(b *testing.B) {
			cpu0 := cpuTime()
			for b.Loop() {
				order, unknown := freeOrder(m)
				if _, err := assemble(m.Positions, m.Tets, m.Tags, order, unknown); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s")
			b.ReportMetric(float64(m.NumTets()), "tets")
		})
	}
}

// BenchmarkSolve times Solve end to end and reports its stages: assembly,
// AMG setup and CG iterations, with the iteration count, and the heap
// retained by the solver per vertex (matrix, hierarchy, vectors).
func BenchmarkSolve(b *testing.B) {
	sizes := []int{1e4, 1e5, 1e6}
	if testing.Short() {
		sizes = sizes[:2]
	}
	for _, n := range sizes {
		m := benchMesh(n)
		for _, pc := range []string{"amg", "jacobi"} {
			if pc == "jacobi" && n > 1e5 {
				continue
			}
			b.Run(pc+"/n="+sizeName(n), func(b *testing.B) {
				var f *Field
				var asm, setup, solve time.Duration
				cpu0 := cpuTime()
				for b.Loop() {
					var err error
					f, err = Solve(m, Options{Preconditioner: pc})
					if err != nil {
						b.Fatal(err)
					}
					asm += f.AssembleTime
					setup += f.SetupTime
					solve += f.SolveTime
				}
				k := float64(b.N)
				b.ReportMetric((cpuTime()-cpu0).Seconds()/k, "cpu-s")
				b.ReportMetric(float64(f.Iterations), "iters")
				b.ReportMetric(asm.Seconds()/k, "assemble-s")
				b.ReportMetric(setup.Seconds()/k, "setup-s")
				b.ReportMetric(solve.Seconds()/k, "cg-s")
				b.ReportMetric(float64(m.NumVertices()), "vertices")
			})
		}
	}
}

// BenchmarkSolverMemory reports, per mesh vertex, the peak heap growth of
// Solve beyond the mesh, sampled during the run with the garbage collector
// at its default setting (what the process really holds) and at GOGC=5
// (the live data and at most 5% garbage); it includes the result ε and ∇ε
// (32 B/vertex) once they are made, after the solve phase. It also reports
// the bytes the solve phase keeps: the reduced matrix, the AMG hierarchy
// and the CG vectors, counted from their slices.
func BenchmarkSolverMemory(b *testing.B) {
	m := benchMesh(1e6)
	nv := float64(m.NumVertices())
	peak := func(gogc int) float64 {
		defer debug.SetGCPercent(debug.SetGCPercent(gogc))
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		top := uint64(0)
		stop, done := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			var s runtime.MemStats
			for {
				select {
				case <-stop:
					return
				case <-time.After(2 * time.Millisecond):
					runtime.ReadMemStats(&s)
					top = max(top, s.HeapAlloc)
				}
			}
		}()
		f, err := Solve(m, Options{})
		close(stop)
		<-done
		if err != nil {
			b.Fatal(err)
		}
		runtime.KeepAlive(f)
		return float64(top-base.HeapAlloc) / nv
	}
	b.Run("n=1e6", func(b *testing.B) {
		for b.Loop() {
			b.ReportMetric(peak(100), "peak-B/vertex")
			b.ReportMetric(peak(5), "peak-GOGC5-B/vertex")
		}
		sys := benchSystem(b, 1e6)
		h, err := newAMG(&sys.a)
		if err != nil {
			b.Fatal(err)
		}
		// The system, the CG vectors x, r, z, p, q, the hierarchy.
		kept := symBytes(&sys.a) + 8*len(sys.b) + 4*len(sys.order) + 5*8*sys.a.n
		for l, lv := range h.levels {
			kept += 4*len(lv.invL1) + 8*(len(lv.x)+len(lv.b)+len(lv.scrtch)+len(lv.az)) + csrBytes(&lv.p) + csrBytes(&lv.r)
			if l > 0 {
				kept += symBytes(lv.a.(*symMatrix[float32]))
			}
		}
		b.ReportMetric(float64(kept)/nv, "kept-B/vertex")
	})
}

// symBytes and csrBytes return the size of a matrix's arrays.
func symBytes[T float32 | float64](a *symMatrix[T]) int {
	var v T
	size := int(unsafe.Sizeof(v))
	return size*(len(a.diag)+len(a.lowVal)+len(a.outVal)) + 4*(len(a.lowPtr)+len(a.outPtr)+len(a.outCol)) + 2*len(a.lowCol)
}

func csrBytes[T float32 | float64](a *csr[T]) int {
	var v T
	return 4*len(a.rowPtr) + 4*len(a.col) + int(unsafe.Sizeof(v))*len(a.val)
}

// sizeName writes a power of ten as 1e5.
func sizeName(n int) string {
	e := 0
	for n >= 10 && n%10 == 0 {
		n /= 10
		e++
	}
	return fmt.Sprintf("%de%d", n, e)
}

// cpuTime returns the user and system CPU time of the process: on a
// shared machine it shows the work done when wall time is inflated.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchSystem assembles the reduced system of benchMesh(n).
func benchSystem(b testing.TB, n int) system { return meshSystem(b, benchMesh(n)) }

// BenchmarkAMGSetup times building the hierarchy alone.
func BenchmarkAMGSetup(b *testing.B) {
	for _, n := range []int{1e5, 1e6} {
		sys := benchSystem(b, n)
		b.Run("n="+sizeName(n), func(b *testing.B) {
			cpu0 := cpuTime()
			for b.Loop() {
				if _, err := newAMG(&sys.a); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s")
		})
	}
}

// BenchmarkCG times the solve phase alone on a hierarchy built once: the
// nested-iteration start and the AMG-preconditioned CG iterations from it
// to the default tolerance.
func BenchmarkCG(b *testing.B) {
	sys := benchSystem(b, 1e6)
	h, err := newAMG(&sys.a)
	if err != nil {
		b.Fatal(err)
	}
	w, x := newCGWork(sys.a.n), make([]float64, sys.a.n)
	b.Run("n=1e6", func(b *testing.B) {
		var res cgResult
		cpu0 := cpuTime()
		for b.Loop() {
			h.initialGuess(x, sys.b, w.z, w.p)
			res = pcg(&sys.a, sys.b, x, h, w, 1e-10, 1000, nil)
		}
		b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s")
		b.ReportMetric(float64(res.iterations), "iters")
	})
}

// BenchmarkSpMV compares y = A x on the reduced 1M-vertex system: this
// package's symmetric block storage against github.com/james-bowman/sparse's
// MulVecTo on the same matrix in CSR, whose int columns move 16 bytes per
// nonzero and which runs on one core.
func BenchmarkSpMV(b *testing.B) {
	sys := benchSystem(b, 1e6)
	x := make([]float64, sys.a.n)
	for i := range x {
		x[i] = float64(i%7) - 3
	}
	y := make([]float64, sys.a.n)
	partial := make([]float64, numChunks(sys.a.n))
	nnz := float64(sys.a.nnz())
	report := func(b *testing.B, cpu0 time.Duration) {
		b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/nnz, "ns/nnz")
		b.ReportMetric((cpuTime()-cpu0).Seconds()*1e9/float64(b.N)/nnz, "cpu-ns/nnz")
	}
	b.Run("sym/n=1e6", func(b *testing.B) {
		cpu0 := cpuTime()
		for b.Loop() {
			sys.a.mulVecDot(y, x, partial)
		}
		report(b, cpu0)
	})
	sp := sys.a.toSparse()
	b.Run("jamesbowman/n=1e6", func(b *testing.B) {
		cpu0 := cpuTime()
		for b.Loop() {
			clear(y)
			sp.MulVecTo(y, false, x)
		}
		report(b, cpu0)
	})
}

// BenchmarkVCycle times one application of the AMG preconditioner, the
// bulk of a CG iteration, and reports it per nonzero of the finest matrix.
func BenchmarkVCycle(b *testing.B) {
	sys := benchSystem(b, 1e6)
	h, err := newAMG(&sys.a)
	if err != nil {
		b.Fatal(err)
	}
	z := make([]float64, sys.a.n)
	b.Run("n=1e6", func(b *testing.B) {
		cpu0 := cpuTime()
		for b.Loop() {
			h.apply(z, sys.b)
		}
		k := float64(b.N) * float64(sys.a.nnz())
		b.ReportMetric(b.Elapsed().Seconds()*1e9/k, "ns/nnz")
		b.ReportMetric((cpuTime()-cpu0).Seconds()*1e9/k, "cpu-ns/nnz")
	})
}
