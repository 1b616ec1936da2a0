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
				assemble(m.Positions, m.Tets, m.Tags, order, unknown)
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
// Solve beyond the mesh and its result (ε and ∇ε), sampled during the run
// with the garbage collector at its default setting (what the process
// really holds) and at GOGC=5 (close to the live data), and the bytes the
// solve phase keeps: the reduced matrix, the AMG hierarchy and the CG
// vectors, counted from their slices.
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
		return (float64(top-base.HeapAlloc) - 4*8*nv) / nv
	}
	b.Run("n=1e6", func(b *testing.B) {
		for b.Loop() {
			b.ReportMetric(peak(100), "peak-B/vertex")
			b.ReportMetric(peak(5), "peak-GOGC5-B/vertex")
		}
		sys := benchSystem(1e6)
		h, err := newAMG(&sys.a)
		if err != nil {
			b.Fatal(err)
		}
		kept := sys.a.bytes() + 8*len(sys.b) + 4*len(sys.order) + 6*8*sys.a.rows // + x, r, z, p, q, b
		for _, lv := range h.levels {
			kept += 4*len(lv.a.val) + 8*(len(lv.invL1)+len(lv.x)+len(lv.b)+len(lv.scrtch)) + lv.p.bytes() + lv.r.bytes()
			if lv.a.rows != sys.a.rows { // the finest level shares A's pattern
				kept += lv.a.bytes() - 4*len(lv.a.val)
			}
		}
		b.ReportMetric(float64(kept)/nv, "kept-B/vertex")
	})
}

// bytes returns the size of the matrix's arrays.
func (a *csr[T]) bytes() int {
	var v T
	return 8*len(a.rowPtr) + 4*len(a.col) + int(unsafe.Sizeof(v))*len(a.val)
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
func benchSystem(n int) system {
	m := benchMesh(n)
	order, unknown := freeOrder(m)
	return assemble(m.Positions, m.Tets, m.Tags, order, unknown)
}

// BenchmarkAMGSetup times building the hierarchy alone.
func BenchmarkAMGSetup(b *testing.B) {
	for _, n := range []int{1e5, 1e6} {
		sys := benchSystem(n)
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

// BenchmarkSpMV compares y = A x on the reduced 1M-vertex system: this
// package's CSR with int32 columns (float64 values, and the float32 copy
// the preconditioner uses) against github.com/james-bowman/sparse's
// MulVecTo on the same matrix, whose int columns move 16 bytes per
// nonzero and which runs on one core.
func BenchmarkSpMV(b *testing.B) {
	sys := benchSystem(1e6)
	x := make([]float64, sys.a.rows)
	for i := range x {
		x[i] = float64(i%7) - 3
	}
	y := make([]float64, sys.a.rows)
	nnz := float64(sys.a.nnz())
	report := func(b *testing.B) { b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/nnz, "ns/nnz") }
	b.Run("csr64/n=1e6", func(b *testing.B) {
		for b.Loop() {
			sys.a.mulVec(y, x)
		}
		report(b)
	})
	a32 := float32Values(&sys.a)
	b.Run("csr32/n=1e6", func(b *testing.B) {
		for b.Loop() {
			a32.mulVec(y, x)
		}
		report(b)
	})
	sp := sys.a.toSparse()
	b.Run("jamesbowman/n=1e6", func(b *testing.B) {
		for b.Loop() {
			clear(y)
			sp.MulVecTo(y, false, x)
		}
		report(b)
	})
}

// BenchmarkVCycle times one application of the AMG preconditioner, the
// bulk of a CG iteration, and reports it per nonzero of the finest matrix.
func BenchmarkVCycle(b *testing.B) {
	sys := benchSystem(1e6)
	h, err := newAMG(&sys.a)
	if err != nil {
		b.Fatal(err)
	}
	z := make([]float64, sys.a.rows)
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
